#!/usr/bin/env bash
# Installs the Debian packages storyreader needs, only when they are missing.
# Used by `make run` and `make test`; safe to run again.
set -euo pipefail

packages=(libespeak-ng-dev espeak-ng-data libasound2-dev libasound2-plugins pkg-config)
# Syllables (a reading aid): libhyphen and the dictionaries of the four interface languages.
packages+=(libhyphen-dev hyphen-en-us hyphen-es hyphen-fr hyphen-de)
# Exporting stories as Ogg Opus and MP3.
packages+=(libopusenc-dev libmp3lame-dev)
# The read-along coach (issue 45): PocketSphinx, linked like eSpeak NG, and Debian's US English
# model. Linking opens no microphone: the coach listens only when asked (`--coach`).
packages+=(libpocketsphinx-dev pocketsphinx-en-us)
# Braille displays (through a running BRLTTY's BrlAPI) and the child's braille code (liblouis tables).
packages+=(libbrlapi-dev liblouis-dev liblouis-data)
# Playing a book's recorded narration (EPUB 3 Media Overlays): FFmpeg's decoders, resampler and atempo.
packages+=(libavformat-dev libavcodec-dev libavfilter-dev libswresample-dev libavutil-dev)
# The tests also compare against the espeak-ng command, drive the terminal under tmux, analyse audio
# with sox, and photograph real terminals (xterm, kitty) under Xvfb.
# `make deb`: the package built (dpkg-deb, dpkg-shlibdeps, strip) and checked (lintian); the
# program linked with the static Swift runtime, whose Foundation needs libcurl and libxml2 to link.
if [ "${1:-}" = "--deb" ] || [ "${1:-}" = "--test" ]; then
  packages+=(dpkg-dev binutils lintian libcurl4-openssl-dev libxml2-dev)
fi
if [ "${1:-}" = "--test" ]; then
  packages+=(espeak-ng tmux sox)
  # The coach's tests: the LibriVox clips in Tests/Fixtures/coach come from pocketsphinx-testdata.
  packages+=(pocketsphinx-testdata)
  # The braille tests: a real BRLTTY with its Virtual driver, and liblouis's lou_translate to compare with.
  packages+=(brltty liblouis-bin)
  # The install test: the manual page rendered, completions typed at in each shell, the kiosk unit checked.
  packages+=(man-db groff-base systemd zsh fish)
  # Exported Opus files read back by opus-tools' opusinfo, MP3 files by ffmpeg's ffprobe.
  packages+=(opus-tools ffmpeg)
  # Hostile read-along books run under strace: the files the program opens are checked.
  packages+=(strace)
  # Read-along books checked by the W3C's epubcheck (it runs on Java: run as java -jar).
  packages+=(epubcheck default-jre-headless)
  # Translations checked with gettext's own msgfmt --check.
  packages+=(gettext)
  # Real terminals under a private X server, photographed: what a sighted child sees.
  packages+=(xvfb xterm xdotool imagemagick x11-utils fonts-dejavu-core kitty gnome-terminal dbus-daemon)
  # The sync tests start a real PostgreSQL 15 of their own (issue 13).
  packages+=(postgresql)
  # The server's web page in a real browser (Playwright and axe-core from PyPI, in a virtualenv).
  packages+=(chromium python3-venv)
  # CI's layer check (scripts/layers.py, docs/architecture.md).
  packages+=(python3)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
