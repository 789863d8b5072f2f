#!/usr/bin/env bash
# The web page's tests in a real browser (issue 44): Debian's chromium driven by Playwright, with
# axe-core, from a virtual environment of their own under .build/ (made once; never
# `playwright install`: the browser is the system's). Run by `make test` after the Swift tests.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/web-venv
if ! "$venv/bin/python" -c "import playwright, axe_playwright_python" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q playwright==1.65.2 axe-playwright-python==0.1.8
fi
exec "$venv/bin/python" Tests/Browser/web_page_test.py "${1:-.build/debug/storyreader}"
