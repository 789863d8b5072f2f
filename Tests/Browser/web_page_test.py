"""Issue 44: the server's web page in a real browser (Debian's chromium, driven by Playwright).

Starts a PostgreSQL of its own (as the `postgres` user) and `storyreader serve`, makes a site with a
kiosk's child in it (through the kiosks' own API), then signs in as a librarian and visits every page
reached by links: axe-core (wcag2a/aa, 21a/aa, 22aa) must find nothing, every field must have a
label, nothing may scroll sideways at 320 px, focus must be visible on a keyboard walk. A parent
sees only their child; signed out, nothing is shown. Screenshots go to $WEB_SHOTS (default
/tmp/storyreader-web-shots) to be looked at.

Usage: web_page_test.py PATH/TO/storyreader   (scripts/browser-test.sh runs it; `make test` runs that)
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

BINARY = sys.argv[1]
SHOTS = os.environ.get("WEB_SHOTS", "/tmp/storyreader-web-shots")
PG = "/usr/lib/postgresql/15/bin"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_postgres(*command):
    return subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True, text=True)


def storyreader(*arguments):
    done = subprocess.run([BINARY, *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"storyreader {' '.join(arguments)} failed: {done.stderr}")
    return done.stdout.strip()


def upload(base, site, token, changes):
    body = json.dumps({"changes": changes, "kioskMillis": int(time.time() * 1000)}).encode()
    request = urllib.request.Request(
        f"{base}/v1/sites/{site}/changes", data=body, method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 200, answer.status


def change(node, counter, body):
    millis = int(time.time() * 1000)
    return {"id": str(uuid.uuid4()).upper(), "hlc": f"{millis:013d}:{counter:06d}:{node}", "body": body}


def visit_checks(page, axe, name):
    """axe, labels, 320 px reflow, a keyboard walk with visible focus, and screenshots of one page."""
    results = axe.run(page, options={"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]})
    violations = results.response["violations"]
    check(not violations, f"{name}: axe finds no violation " + "; ".join(f"{v['id']}: {v['help']}" for v in violations))
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
            .filter(e => !(e.labels && e.labels.length)).map(e => e.id || e.name)""")
    check(not unlabelled, f"{name}: every field has a label {unlabelled}")
    page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)
    # A keyboard walk: the skip link comes first, every stop shows a focus outline.
    page.keyboard.press("Tab")
    first = page.evaluate("() => document.activeElement.className")
    check(first == "skip", f"{name}: the first Tab reaches the skip link (got {first!r})")
    invisible = []
    for _ in range(12):
        style = page.evaluate(
            """() => { const e = document.activeElement; const s = getComputedStyle(e);
                return [e.tagName + '#' + (e.id || e.textContent.trim().slice(0, 20)), s.outlineStyle, s.outlineWidth] }""")
        # Past the last stop, focus leaves the page for the browser's own controls (BODY).
        if not style[0].startswith("BODY#") and (style[1] == "none" or style[2] == "0px"):
            invisible.append(style[0])
        page.keyboard.press("Tab")
    check(not invisible, f"{name}: focus is visible at every stop {invisible}")
    page.keyboard.press("Shift+Tab")
    page.screenshot(path=f"{SHOTS}/{name}-focus.png")
    width = page.viewport_size["width"]
    page.set_viewport_size({"width": 320, "height": 640})
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    check(wide <= 320, f"{name}: nothing scrolls sideways at 320 px (content {wide} px)")
    page.screenshot(path=f"{SHOTS}/{name}-320.png", full_page=True)
    page.set_viewport_size({"width": width, "height": 800})


def main():
    shutil.rmtree(SHOTS, ignore_errors=True)
    os.makedirs(SHOTS)
    folder = tempfile.mkdtemp(prefix="storyreader-web-")
    shutil.chown(folder, "postgres")
    port = free_port()
    as_postgres(f"{PG}/initdb", "-D", f"{folder}/data", "-A", "trust", "-U", "postgres")
    as_postgres(f"{PG}/pg_ctl", "-D", f"{folder}/data", "-w", "-l", f"{folder}/log",
                "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1", "start")
    serve = None
    try:
        database = f"postgres://postgres@127.0.0.1:{port}/postgres"
        token = storyreader("serve", "site", "add", "branch1", "--database", database)
        librarian = storyreader("serve", "staff", "add", "branch1", "--name", "Ana", "--role", "librarian", "--database", database)
        parent = storyreader("serve", "staff", "add", "branch1", "--name", "Sam", "--role", "parent", "--child", "Mia", "--database", database)
        web_port = free_port()
        serve = subprocess.Popen([BINARY, "serve", "--database", database, "--listen", f"127.0.0.1:{web_port}"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in serve.stdout:
            if "listening on" in line:
                break
        base = f"http://127.0.0.1:{web_port}"
        mia, leo = str(uuid.uuid4()).upper(), str(uuid.uuid4()).upper()
        upload(base, "branch1", token, [
            change("kiosk-a", 0, {"profileField": {"profile": mia, "field": "name", "value": "Mia"}}),
            change("kiosk-a", 1, {"profileField": {"profile": mia, "field": "age", "value": "6"}}),
            change("kiosk-a", 2, {"profileField": {"profile": leo, "field": "name", "value": "Leo"}}),
            dict(change("kiosk-a", 3, {"read": {"profile": mia, "story": "the-little-red-hen", "finishedAt": int(time.time() * 1000) - 86400000}}),
                 storyTitle="The Little Red Hen"),
            change("kiosk-a", 4, {"position": {"profile": mia, "story": "goldilocks", "sentence": 12}}),
            change("kiosk-a", 5, {"favourite": {"profile": mia, "story": "the-little-red-hen", "isFavourite": True}}),
        ])

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            axe = Axe()
            context = browser.new_context(viewport={"width": 1024, "height": 800})
            page = context.new_page()
            page.goto(base + "/")
            visit_checks(page, axe, "sign-in")
            page.get_by_label("Name").fill("Ana")
            page.get_by_label("Passphrase").fill(librarian)
            page.get_by_role("button", name="Sign in").click()
            check(page.get_by_role("heading", level=1).inner_text() == "Children", "signed in, the children page shows")
            cookie = [c for c in context.cookies() if c["name"] == "storyreader_session"][0]
            check(cookie["httpOnly"] and cookie["sameSite"] == "Strict", "the session cookie is HttpOnly; SameSite=Strict")
            visit_checks(page, axe, "children")
            # Every page reached by links.
            page.get_by_role("link", name="Mia").click()
            check(page.get_by_role("cell", name="The Little Red Hen", exact=True).count() == 1, "Mia's page shows the read made on a kiosk, by its title")
            check(page.get_by_text("Goldilocks, at sentence 13").count() == 1, "a story no kiosk sent a title for shows its id made readable")
            visit_checks(page, axe, "child")
            # The kiosk's pickers, each with the current value selected; numbers with their range.
            check(page.get_by_label("Theme").evaluate("e => e.tagName") == "SELECT", "the theme is a picker")
            check(page.get_by_label("Theme").input_value() == "default", "the picker shows the current theme")
            check(page.get_by_label("Age").get_attribute("max") == "12", "the age is a number with the form's range")
            # The form leaves checking to the server, whose message is said next to the field.
            page.get_by_label("Age").fill("40")
            page.get_by_role("button", name="Save").click()
            described = page.get_by_label("Age").get_attribute("aria-describedby")
            check(described == "age-error", "a wrong age is said next to its field and tied to it")
            visit_checks(page, axe, "child-error")
            page.get_by_label("Age").fill("7")
            page.get_by_label("Theme").select_option("dark")
            page.get_by_role("button", name="Save").click()
            check(page.get_by_label("Age").input_value() == "7", "the age saved on the page shows")
            check(page.get_by_label("Theme").input_value() == "dark", "the theme picked on the page shows")
            # A read made by mistake is deleted from its row.
            page.get_by_role("button", name=re.compile("^Delete the read of The Little Red Hen on ")).click()
            check(page.get_by_role("cell", name="The Little Red Hen", exact=True).count() == 0
                  and page.get_by_text("No finished stories yet.").count() == 1, "a read deleted on the page is gone from the log")
            check(page.get_by_role("status").inner_text().startswith("Corrected."), "the deletion is said")
            page.get_by_role("link", name="Kiosks").click()
            check("kiosk-a" in page.content() and "just now" in page.content(), "the kiosks page names kiosk-a with its last sync in words")
            visit_checks(page, axe, "kiosks")
            page.get_by_role("link", name="Privacy").click()
            visit_checks(page, axe, "privacy")
            page.get_by_role("button", name="Sign out").click()
            check(page.get_by_label("Passphrase").count() == 1 and "Mia" not in page.content(), "signed out, nothing is shown")
            page.goto(base + "/kiosks")
            check("kiosk-a" not in page.content(), "signed out, the kiosks page is not reachable")

            # A parent sees only their child; the page speaks German to a German browser.
            german = browser.new_context(locale="de-DE", extra_http_headers={"Accept-Language": "de-DE,de;q=0.9"})
            page = german.new_page()
            page.goto(base + "/")
            # po/de.po translates the page: German text, marked German (a page whose catalog lacks
            # it is English marked English, never English marked German for a screen reader).
            lang = page.evaluate("() => document.documentElement.lang")
            heading = page.get_by_role("heading", level=1).inner_text()
            check(lang == "de" and heading == "Anmelden", f"a German browser gets the page in German (lang {lang}, heading {heading!r})")
            page.locator("#name").fill("Sam")
            page.locator("#passphrase").fill(parent)
            page.locator("button[type=submit]").click()
            check(page.get_by_role("link", name="Mia").count() == 1 and "Leo" not in page.content(), "a parent sees only their child")
            visit_checks(page, axe, "parent-children-de")
            browser.close()
    finally:
        if serve:
            serve.terminate()
            serve.wait(10)
        as_postgres(f"{PG}/pg_ctl", "-D", f"{folder}/data", "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)
    print(f"screenshots in {SHOTS}")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)


main()
