#!/usr/bin/env python3
"""StoryKit's layers (docs/architecture.md): each folder of Sources/StoryKit may name only types
declared in its own folder or in folders below it in LAYERS. CI runs this (.ci/run); it fails on an
edge against the order, naming the file and the type, so a cycle between folders cannot come back.

  scripts/layers.py              check; exit 1 on a back-edge
  scripts/layers.py --report     also print every folder-to-folder edge and the folders in cycles
  scripts/layers.py --self-test  prove the check fails on a planted back-edge (CI runs this too)

How it reads Swift (no compiler; cheap enough for CI's lint step): comments and string literals are
dropped; a type is a top-level (unindented) class, struct, enum, protocol, actor or typealias; a
reference is any capitalised word naming such a type declared in another folder. A name the folder
itself declares at any depth (a nested `State`, `Key`, `Row`) is that folder's own, and a file that
imports GRDB means GRDB's `Row`. Calls to functions of another folder's extensions are not seen: the
check is about types, as the layer picture is.
"""

import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Bottom to top. Files directly in Sources/StoryKit ("(root)": StoryKitInfo, Percentile) are the
# bottom. Localization sits below files and text because every error message is translatable.
# Accessibility sits below Speech (the speech service queues its Utterances and SpeechRuns), and
# Presentation below Profiles (a profile holds a theme, a text size, reading aids).
LAYERS = [
    "(root)",
    "Localization",
    "Threads",
    "Time",
    "Files",
    "Text",
    "Input",
    "Stories",
    "Accessibility",
    "Audio",
    "Speech",
    "Listening",
    "Braille",
    "Presentation",
    "Books",
    "Import",
    "Export",
    "KioskCheck",
    "Profiles",
    "Config",
    "Store",
    "Sync",
    "Session",
]

# Back-edges still in the code, each with the reason it is not gone yet. The check fails on any
# other back-edge, and says when one of these has gone (so it is taken off this list).
KNOWN = {}

# Folders that must do no I/O: the Session is the pure update (issue 42: "nothing in the Session's
# folder reads a file"). The shell performs its effects (Effect.loadStory, .save, .checkPIN) off the
# loop. Each pattern names a way to reach a file, the database or a C library's files.
PURE = {"Session"}
IO = re.compile(
    r"\b(?:FileManager|FileHandle|fopen|opendir|DatabasePool|DatabaseQueue|StoryStore|StoryLibrary\.load"
    r"|AtomicFile|EspeakEngine|SpeechService|BrailleTranslator|lou_\w+|hnj_\w+)\b"
    r"|\b(?:Data|String)\(contentsOf|\blibrary\.loadStory\(|\bSyllables\.preload\("
)

DECL = re.compile(
    r"^(?:(?:public|package|internal|private|fileprivate|final|open|indirect|nonisolated"
    r"|@\w+(?:\([^)]*\))?)\s+)*(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)",
    re.M,
)
ANY_DECL = re.compile(r"\b(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)")
WORD = re.compile(r"\b[A-Z]\w*\b")


def strip(source):
    source = re.sub(r'"""[\s\S]*?"""', '""', source)
    source = re.sub(r"/\*[\s\S]*?\*/", "", source)
    source = re.sub(r"//[^\n]*", "", source)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)


def scan(root):
    """Returns {(from folder, to folder): {(file, type), ...}} for every edge between folders."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                folder = relative.split(os.sep)[0] if os.sep in relative else "(root)"
                with open(path, encoding="utf-8") as f:
                    files[path] = (folder, strip(f.read()))
    declared = collections.defaultdict(set)
    own = collections.defaultdict(set)
    for path, (folder, source) in files.items():
        for match in DECL.finditer(source):
            declared[match.group(1)].add(folder)
        own[folder].update(ANY_DECL.findall(source))
        if re.search(r"^(?:\w+ )?import GRDB\b", source, re.M):
            own[path].add("Row")
    edges = collections.defaultdict(set)
    for path, (folder, source) in files.items():
        for name in set(WORD.findall(source)) - own[folder] - own[path]:
            for target in declared.get(name, ()):
                if target != folder:
                    edges[(folder, target)].add((os.path.relpath(path, root), name))
    return edges


def cycles(edges):
    """The folders in each dependency cycle (strongly connected components of more than one)."""
    graph = collections.defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted({x for e in edges for x in e}):
        if v not in index:
            visit(v)
    return found


def check(root, report=False):
    edges = scan(root)
    folders = sorted({x for e in edges for x in e} | {
        d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))})
    unknown = [f for f in folders if f not in LAYERS]
    failures = []
    for folder in unknown:
        failures.append(f"layers: folder {folder} has no layer: add it to LAYERS in scripts/layers.py"
                        " (and to docs/architecture.md)")
    seen_known = set()
    for (a, b), uses in sorted(edges.items()):
        if a in unknown or b in unknown or LAYERS.index(a) > LAYERS.index(b):
            continue
        for path, name in sorted(uses):
            if (a, b, name) in KNOWN:
                seen_known.add((a, b, name))
                continue
            failures.append(f"layers: Sources/StoryKit/{path} ({a}) names {name}, declared in {b}, a"
                            f" higher layer: move the type down, or the code up (docs/architecture.md)")
    for folder in sorted(PURE):
        directory = os.path.join(root, folder)
        for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                code = strip(f.read())
            for match in sorted(set(m.group(0) for m in IO.finditer(code))):
                failures.append(f"layers: Sources/StoryKit/{folder}/{name} uses {match}: the {folder} does no I/O;"
                                " ask the shell with an Effect and take its answer as an Input (docs/architecture.md)")
    if report:
        for (a, b), uses in sorted(edges.items()):
            print(f"{a} -> {b}: " + ", ".join(f"{os.path.basename(p)}:{n}" for p, n in sorted(uses)))
        found = cycles(edges)
        print(f"folders in cycles: {sum(len(c) for c in found)} of {len(folders)}"
              + "".join(f"\n  cycle: {' ⇄ '.join(c)}" for c in found))
    for key, reason in KNOWN.items():
        if key in seen_known:
            print(f"layers: known back-edge {key[0]} -> {key[1]} ({key[2]}): {reason}")
        else:
            print(f"layers: known back-edge {key[0]} -> {key[1]} ({key[2]}) is gone: take it off KNOWN")
    for line in failures:
        print(line, file=sys.stderr)
    return not failures


def self_test(root):
    """Copies StoryKit, plants a back-edge (Text naming the Session's type `Session`) and expects
    the check to fail naming that file and type; the untouched copy must pass."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "StoryKit")
        shutil.copytree(root, copy)
        if not check(copy):
            print("layers self-test: the unchanged copy fails", file=sys.stderr)
            return False
        with open(os.path.join(copy, "Text", "PlantedBackEdge.swift"), "w") as f:
            f.write("func planted(_ session: Session) {}\n")
        result = subprocess.run([sys.executable, __file__, "--root", copy], capture_output=True, text=True)
        expected = "Text/PlantedBackEdge.swift (Text) names Session, declared in Session"
        if result.returncode == 0 or expected not in result.stderr:
            print(f"layers self-test: a planted back-edge was not reported:\n{result.stderr}", file=sys.stderr)
            return False
        os.remove(os.path.join(copy, "Text", "PlantedBackEdge.swift"))
        with open(os.path.join(copy, "Session", "PlantedRead.swift"), "w") as f:
            f.write("func planted() { _ = FileManager.default.contents(atPath: \"/etc/hostname\") }\n")
        result = subprocess.run([sys.executable, __file__, "--root", copy], capture_output=True, text=True)
        if result.returncode == 0 or "Session/PlantedRead.swift uses FileManager" not in result.stderr:
            print(f"layers self-test: a file read in the Session was not reported:\n{result.stderr}", file=sys.stderr)
            return False
    print("layers self-test: a planted back-edge fails the check, and so does a file read in the Session")
    return True


def main():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..", "Sources", "StoryKit")
    if "--root" in args:
        root = args[args.index("--root") + 1]
    if "--self-test" in args:
        return 0 if self_test(root) else 1
    return 0 if check(root, report="--report" in args) else 1


if __name__ == "__main__":
    sys.exit(main())
