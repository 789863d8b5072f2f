#!/usr/bin/env bash
# Builds the Debian package storyreader_VERSION_ARCH.deb from a built binary (called by `make deb`
# with the release build, and by the package test with the debug one).
#
#   scripts/deb.sh [--unpackaged-swift-runtime] BIN OUTDIR
#
# What goes in is exactly what `make install` installs (scripts/install.sh, run with DESTDIR and
# PREFIX=/usr: the program, its stories, catalogs, manual page, completions and documents), plus
# what a Debian package must have: the kiosk's systemd unit in /usr/lib/systemd/system (installed,
# not enabled: a site enables it on the machines that are kiosks, docs/kiosk.md), a compressed
# manual page and changelog, a copyright file, and Depends computed by dpkg-shlibdeps from the
# libraries the binary links.
#
# A binary linked to the toolchain's shared Swift runtime (a plain `swift build`) is refused: no
# Debian package provides libswiftCore.so, so the package would install a program that cannot
# start. `make deb` builds with --static-swift-stdlib. --unpackaged-swift-runtime lets the package
# test wrap the debug binary anyway (it runs it on this machine, which has the toolchain); that
# package's Depends then lacks the Swift runtime and it is not for shipping.
set -euo pipefail
umask 022

unpackaged_runtime=no
if [ "${1:-}" = --unpackaged-swift-runtime ]; then
  unpackaged_runtime=yes
  shift
fi
bin=${1:?the storyreader binary to package}
out=${2:?the folder the package is written to}
here=$(cd "$(dirname "$0")/.." && pwd)

for tool in dpkg-deb dpkg-shlibdeps strip strings; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "deb: $tool is missing: run 'scripts/setup.sh --deb' (make deb does) or 'sudo apt-get install dpkg-dev binutils'" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "deb: $bin is not an executable: build it first (make deb does)" >&2; exit 1; }

swift_runtime=$(ldd "$bin" | awk '/libswiftCore\.so/ { print $3 }')
if [ -n "$swift_runtime" ] && [ "$unpackaged_runtime" = no ]; then
  echo "deb: $bin uses the toolchain's shared Swift runtime ($swift_runtime), which no Debian package provides: build it with 'swift build -c release --static-swift-stdlib' (make deb does)" >&2
  exit 1
fi

# The version the program says of itself (`storyreader --version`), which is StoryKit.version.
version=$(env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C "$bin" --version)
[[ "$version" =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || { echo "deb: '$version' (from $bin --version) is not a Debian version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
package=storyreader
deb="$out/${package}_${version}_${arch}.deb"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

# 1. What `make install` installs, the same list, with PREFIX=/usr.
"$here/scripts/install.sh" install "$bin" /usr "$root" >/dev/null
# dpkg keeps its own list of the package's files and removes them; `make uninstall` is not for a package.
rm -f "$root/usr/share/storyreader/install-manifest"

# 2. What Debian asks of a package.
# Symbols are for debugging, not for the kiosk (dh_strip's options for a program).
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/storyreader"
gzip -9n "$root/usr/share/man/man1/storyreader.1"
# bash sources a completion file: its generated `#!/bin/bash` line means nothing there.
sed -i '1{/^#!/d}' "$root/usr/share/bash-completion/completions/storyreader"
mkdir -p "$root/usr/lib/systemd/system"
sed 's|/usr/local/bin/storyreader|/usr/bin/storyreader|g' "$here/contrib/systemd/storyreader-kiosk.service" \
  >"$root/usr/lib/systemd/system/storyreader-kiosk.service"
chmod 644 "$root/usr/lib/systemd/system/storyreader-kiosk.service"

doc="$root/usr/share/doc/$package"
maintainer=${DEB_MAINTAINER:-$(git -C "$here" log -1 --format='%an <%ae>' 2>/dev/null || true)}
[ -n "$maintainer" ] || { echo "deb: no maintainer: set DEB_MAINTAINER='Name <address>'" >&2; exit 1; }
# The date of the commit built (the same package from the same commit), else now.
date=$(git -C "$here" log -1 --format=%cD 2>/dev/null || date -R)
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
{
  echo "$package ($version) unstable; urgency=medium"
  echo
  echo "  * Built from the repository ($commit) by scripts/deb.sh."
  echo
  echo " -- $maintainer  $date"
} | gzip -9n >"$doc/changelog.gz"
cat >"$doc/copyright" <<EOF
storyreader (Magical Stories): a terminal program that reads children's stories aloud.

Copyright ${date:12:4} the Magical Stories authors.
The twelve stories in /usr/share/storyreader/stories were written for the project ('author:
Magical Stories' in each). The project states no licence of its own in this version: ask its
maintainers ($maintainer) before redistributing this package.
EOF

# 3. The control file: Depends from the libraries the binary links (eSpeak NG, ALSA, libopusenc,
#    LAME, libhyphen, SQLite, the C and C++ runtimes) and the FFmpeg libraries it opens.
mkdir -p "$stage/debian" "$root/DEBIAN"
printf 'Source: %s\nMaintainer: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$maintainer" "$package" >"$stage/debian/control"
shlibdeps_options=()
if [ -n "$swift_runtime" ]; then
  # Found, but known to no package: left out of Depends (see --unpackaged-swift-runtime above).
  shlibdeps_options+=(--ignore-missing-info "-l$(dirname "$swift_runtime")")
fi
depends=$(cd "$stage" && dpkg-shlibdeps "${shlibdeps_options[@]}" -O -e root/usr/bin/storyreader 2>"$stage/shlibdeps.log" |
  sed -n 's/^shlibs:Depends=//p') || { cat "$stage/shlibdeps.log" >&2; exit 1; }
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependencies for $bin" >&2; cat "$stage/shlibdeps.log" >&2; exit 1; }
# FFmpeg's libraries are opened when a recording is first played (Sources/CFFmpeg/loader.c), not
# linked, so dpkg-shlibdeps cannot see them: the packages holding the sonames the binary names
# are added by name.
for soname in $(strings -a "$bin" | grep -E '^lib(avutil|swresample|avcodec|avformat|avfilter)\.so\.[0-9]+$' | sort -u); do
  owner=$(dpkg-query -S "*/$soname" 2>/dev/null | head -n 1 | cut -d: -f1) || true
  [ -n "$owner" ] || { echo "deb: no installed package holds $soname (apt-get install libavformat-dev libavfilter-dev)" >&2; exit 1; }
  depends="$depends, $owner"
done
installed_size=$(du -sk --apparent-size "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: $package
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends, espeak-ng-data, liblouis-data, pocketsphinx-en-us
Recommends: hyphen-en-us, hyphen-es, hyphen-fr, hyphen-de, libasound2-plugins
Suggests: brltty
Section: education
Priority: optional
Description: reads children's stories aloud in the terminal
 storyreader reads stories aloud with eSpeak NG and highlights each word as
 it is spoken. Its interactive shell speaks for itself, so a child who cannot
 see the screen uses it as well as one who can; it imports EPUB and Project
 Gutenberg books and exports stories as audio files and read-along books.
 .
 A kiosk mode makes a shared machine a story reader for children: the unit
 storyreader-kiosk.service is installed but not enabled (see
 /usr/share/doc/storyreader/kiosk.md).
EOF

mkdir -p "$out"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
