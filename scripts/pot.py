#!/usr/bin/env python3
"""Brings po/storyreader.pot (the English template for a new language) up to date with Sources/.

It finds the messages the way the catalog tests do (Tests/StoryKitTestSupport/CatalogSources.swift):
every literal passed to tr(, trn( (both forms) and N_( in Sources/**/*.swift. The template keeps its
entries in their order, drops those no code says any more, and adds the new ones at its end, each
under the file that first says it. CatalogTests.theTemplateHoldsEveryMessage fails when it lags.

    scripts/pot.py          rewrite po/storyreader.pot
    scripts/pot.py --check  exit 1 (and name them) when messages are missing or unused
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POT = os.path.join(ROOT, "po", "storyreader.pot")
LITERAL = r'"((?:[^"\\\n]|\\.)*)"'
PATTERNS = [
    (re.compile(r"\btrn\(\s*" + LITERAL + r"\s*,\s*" + LITERAL), True),
    (re.compile(r"\btr\(\s*" + LITERAL), False),
    (re.compile(r"\bN_\(\s*" + LITERAL), False),
]


def swift_text(literal):
    """A Swift literal's text, as CatalogSources reads it (\\" and \\\\ only)."""
    return literal.replace('\\"', '"').replace("\\\\", "\\")


def po_text(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def source_messages():
    """(id, plural or None, path) in file order, each id once (its first file)."""
    found, seen = [], set()
    paths = []
    for folder, _, names in os.walk(os.path.join(ROOT, "Sources")):
        paths += [os.path.join(folder, name) for name in names if name.endswith(".swift")]
    for path in sorted(paths):
        text = open(path, encoding="utf-8").read()
        matches = []
        for pattern, plural in PATTERNS:
            for match in pattern.finditer(text):
                matches.append((match.start(), swift_text(match.group(1)), swift_text(match.group(2)) if plural else None))
        for _, message, plural in sorted(matches):
            if message not in seen:
                seen.add(message)
                found.append((message, plural, os.path.relpath(path, ROOT)))
    return found


def parse_pot(text):
    """The header block and the entries' msgids, in order. An entry starts at its comment or its
    msgid after the last entry's msgstr (a merge once left entries without the blank line between)."""
    header, ids, current, seen_header = [], [], None, False
    previous = ""
    for line in text.splitlines():
        starts = line.startswith("#") or line.startswith("msgid ")
        if starts and (previous.startswith("msgstr") or previous == "") and seen_header:
            current = None
        if line.startswith('msgid "') and current is None:
            raw = line[len('msgid "') : -1]
            if not seen_header:
                seen_header = True
            else:
                current = raw.replace('\\"', '"').replace("\\\\", "\\")
                ids.append(current)
        if not ids and not (seen_header and line.startswith("#")):
            header.append(line)
        previous = line
    return "\n".join(header).strip("\n"), ids


def entry(message, plural, path):
    lines = ["#: " + path, 'msgid "%s"' % po_text(message)]
    if plural is None:
        lines.append('msgstr ""')
    else:
        lines += ['msgid_plural "%s"' % po_text(plural), 'msgstr[0] ""', 'msgstr[1] ""']
    return "\n".join(lines)


def main():
    check = "--check" in sys.argv[1:]
    messages = source_messages()
    said = {message for message, _, _ in messages}
    header, ids = parse_pot(open(POT, encoding="utf-8").read())
    by_id = {message: (message, plural, path) for message, plural, path in messages}
    kept = [message for message in ids if message in said]
    unused = [message for message in ids if message not in said]
    have = set(kept)
    new = [(message, plural, path) for message, plural, path in messages if message not in have]
    if check:
        for message, _, path in new:
            print("missing from po/storyreader.pot: %s (%s)" % (message, path))
        for message in unused:
            print("unused in po/storyreader.pot: %s" % message)
        return 1 if new or unused else 0
    # Each entry under the file that says it now (the template's msgstrs are all empty).
    blocks = [header] + [entry(*by_id[message]) for message in kept] + [entry(*item) for item in new]
    with open(POT, "w", encoding="utf-8") as out:
        out.write("\n\n".join(blocks) + "\n")
    print("po/storyreader.pot: %d messages, %d added, %d dropped" % (len(kept) + len(new), len(new), len(unused)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
