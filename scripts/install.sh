#!/usr/bin/env bash
# Installs or uninstalls storyreader (called by `make install` and `make uninstall`).
#
#   scripts/install.sh install   BIN PREFIX [DESTDIR]
#   scripts/install.sh uninstall PREFIX [DESTDIR]
#
# Every file installed, and every folder the install had to make, is listed in a manifest
# ($PREFIX/share/storyreader/install-manifest), so that uninstall removes exactly those and nothing
# else (a folder only when it is empty). Installing again replaces the files, forgets those the new
# version no longer has, and keeps the folders the first install made on the list.
set -euo pipefail

action=${1:?install or uninstall}
if [ "$action" = install ]; then
  bin=${2:?the storyreader binary to install}
  shift
fi
prefix=${2:?PREFIX}
destdir=${3:-}
case "$prefix" in /*) ;; *) echo "install: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;; esac
root="$destdir$prefix"
manifest_relative=share/storyreader/install-manifest
manifest="$root/$manifest_relative"

# Paths in the manifest are relative to $root, so a DESTDIR staging tree can be moved as a whole.
old_files=()
old_dirs=()
if [ -f "$manifest" ]; then
  while IFS= read -r line; do
    case "$line" in
      "file "*) old_files+=("${line#file }") ;;
      "dir "*) old_dirs+=("${line#dir }") ;;
    esac
  done <"$manifest"
fi

remove_empty_dirs() {
  # Deepest first, so a parent made by the install goes after its children.
  local dir
  printf '%s\n' "$@" | sed '/^$/d' | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2- |
    while IFS= read -r dir; do rmdir "$root/$dir" 2>/dev/null || true; done
}

if [ "$action" = uninstall ]; then
  if [ ! -f "$manifest" ]; then
    echo "uninstall: nothing to do: no manifest at $manifest (was storyreader installed with this PREFIX and DESTDIR?)" >&2
    exit 0
  fi
  for file in "${old_files[@]}"; do rm -f "$root/$file"; done
  rm -f "$manifest"
  remove_empty_dirs "${old_dirs[@]}" share/storyreader
  # In a staging tree (DESTDIR), the prefix's own folders ($DESTDIR/usr) go too when empty;
  # without DESTDIR the prefix (/usr/local) is the system's and stays.
  if [ -n "$destdir" ]; then
    dir=$root
    while [ "$dir" != "${destdir%/}" ] && [ "${#dir}" -gt "${#destdir}" ]; do
      rmdir "$dir" 2>/dev/null || break
      dir=$(dirname "$dir")
    done
  fi
  echo "uninstall: removed ${#old_files[@]} files from $root"
  exit 0
fi

[ -x "$bin" ] || { echo "install: $bin is not an executable: build it first (make release)" >&2; exit 1; }
# Refused before anything is copied, rather than half installed: the nearest folder that exists must be writable.
existing=$root
while [ ! -e "$existing" ]; do existing=$(dirname "$existing"); done
if [ ! -w "$existing" ]; then
  echo "install: cannot write to $existing: run 'sudo make install', or install for yourself with 'make install PREFIX=\$HOME/.local'" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")/.." && pwd)

# Generated from the binary before anything is copied: a binary that cannot describe itself is not installed.
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# A clean environment: the user's own configuration and folders never shape what is installed,
# nor their language (the manual page goes to man1, the English one; LC_ALL=C gives English help).
run() { env -u STORYREADER_STORIES_DIR -u STORYREADER_DATA_DIR -u XDG_CONFIG_HOME LC_ALL=C HOME="$staging" "$bin" "$@"; }
run generate-manual >"$staging/storyreader.1"
run --generate-completion-script bash >"$staging/storyreader.bash"
run --generate-completion-script zsh >"$staging/_storyreader"
run --generate-completion-script fish >"$staging/storyreader.fish"

new_files=()
new_dirs=("${old_dirs[@]}")

make_dir() {
  # Records every folder this install creates, from the outermost one missing.
  local relative=$1 path=""
  local part
  IFS=/ read -r -a parts <<<"$relative"
  for part in "${parts[@]}"; do
    path=${path:+$path/}$part
    if [ ! -d "$root/$path" ]; then
      mkdir -p "$root/$path"
      new_dirs+=("$path")
    fi
  done
}

put() {
  # put SOURCE RELATIVE-DESTINATION MODE: a temporary file renamed into place, so a running
  # storyreader or a reader of the manual page never sees half a file.
  local source=$1 relative=$2 mode=$3
  make_dir "$(dirname "$relative")"
  install -m "$mode" "$source" "$root/$relative.new"
  mv -f "$root/$relative.new" "$root/$relative"
  new_files+=("$relative")
}

# The prefix's own folders (bin, share/man/man1, …) made by an earlier install stay on the list.
put "$bin" bin/storyreader 755
while IFS= read -r file; do
  put "$here/stories/$file" "share/storyreader/stories/$file" 644
done < <(cd "$here/stories" && find . -type f ! -name '.*' | sed 's|^\./||' | sort)
# The interface's translations, one gettext catalog a language, read by the program at start.
for po in "$here"/po/*.po; do
  put "$po" "share/storyreader/po/$(basename "$po")" 644
done
put "$staging/storyreader.1" share/man/man1/storyreader.1 644
put "$staging/storyreader.bash" share/bash-completion/completions/storyreader 644
put "$staging/_storyreader" share/zsh/site-functions/_storyreader 644
put "$staging/storyreader.fish" share/fish/vendor_completions.d/storyreader.fish 644
put "$here/README.md" share/doc/storyreader/README.md 644
for doc in "$here"/docs/*.md; do
  put "$doc" "share/doc/storyreader/$(basename "$doc")" 644
done
# The examples name the program where this install puts it (they say /usr/local/bin in the repository).
while IFS= read -r file; do
  mkdir -p "$staging/contrib/$(dirname "$file")"
  sed "s|/usr/local/bin/storyreader|$prefix/bin/storyreader|g" "$here/contrib/$file" >"$staging/contrib/$file"
  put "$staging/contrib/$file" "share/doc/storyreader/contrib/$file" 644
done < <(cd "$here/contrib" && find . -type f | sed 's|^\./||' | sort)

# Files an earlier version installed that this one does not: removed, not left behind. Looked up
# in a table, not by `printf | grep -q`: grep ends at the first match, a printf still writing then
# dies of SIGPIPE, pipefail makes the pipe fail, and a file just installed was removed (seen in CI).
declare -A installed_now=()
for file in "${new_files[@]}"; do installed_now["$file"]=1; done
for file in "${old_files[@]}"; do
  if [ -z "${installed_now["$file"]+set}" ]; then rm -f "$root/$file"; fi
done

make_dir share/storyreader
{
  echo "# storyreader install manifest: what 'make uninstall' removes (paths relative to $prefix)"
  for file in "${new_files[@]}"; do echo "file $file"; done
  printf '%s\n' "${new_dirs[@]}" | sed '/^$/d' | sort -u | sed 's/^/dir /'
} >"$manifest.new"
mv -f "$manifest.new" "$manifest"
echo "install: ${#new_files[@]} files in $root (manifest: $manifest)"
