#!/usr/bin/env bash
# Runs the README's test command (`npm test`, here on the given test files) as on a fresh machine
# without Debian's Chromium, PostgreSQL, tmux and poppler-utils, on a machine that has them: in a
# private mount namespace (as root, with unshare), every program those packages install is hidden
# from the directories on PATH (an overlay with a whiteout for each name over /usr/bin, /usr/sbin and
# any other PATH directory that holds one or a symlink to one) and their program folders
# (/usr/lib/chromium, /usr/lib/postgresql, …) are covered with an empty folder. Nothing changes
# outside the namespace; its mounts go when the command ends.
#
#   scripts/without-system-packages.sh [test files…]        (no files: the whole suite)
#   scripts/without-system-packages.sh --exec COMMAND…      (any other command, e.g. a shell to look around)
#   HIDE='chromium* postgresql* tmux poppler-utils bubblewrap' scripts/without-system-packages.sh …
#
# HIDE lists the Debian packages to hide (dpkg-query patterns; the default is the four npm replaces).
# The test command may not install them back: ZERO_TEST_NO_INSTALL=1, so a package npm cannot replace
# (bubblewrap above) stops it at once with the one line that names what to run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hide=${HIDE:-'chromium* postgresql* tmux poppler-utils'}

if [ "${ZERO_IN_NAMESPACE:-}" != 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "without-system-packages: run as root (it makes a private mount namespace with unshare)" >&2; exit 2; }
  command -v unshare >/dev/null && command -v dpkg-query >/dev/null || { echo "without-system-packages: needs unshare and dpkg-query (a Debian machine)" >&2; exit 2; }
  exec env ZERO_IN_NAMESPACE=1 unshare --mount --propagation private -- "$0" "$@"
fi

scratch=$(mktemp -d /tmp/zero-without-system-packages.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/empty"

# shellcheck disable=SC2086 # the patterns are dpkg-query's, expanded by it
packages=$(dpkg-query -W -f='${db:Status-Abbrev} ${binary:Package}\n' $hide 2>/dev/null | awk '$1 == "ii" { print $2 }')
[ -n "$packages" ] || { echo "without-system-packages: none of $hide is installed; nothing to hide" >&2; }

# What the packages install: programs (by name, in the bin folders) and their program folders.
names=()
folders=()
for package in $packages; do
  while IFS= read -r path; do
    case "$path" in
      /bin/* | /sbin/* | /usr/bin/* | /usr/sbin/* | /usr/local/bin/*) [ -d "$path" ] || names+=("$(basename "$path")") ;;
      /usr/lib/chromium | /usr/lib/postgresql | /usr/share/postgresql | /usr/share/postgresql-common | /usr/share/chromium) [ -d "$path" ] && folders+=("$path") ;;
    esac
  done < <(dpkg -L "$package")
done
mapfile -t names < <(printf '%s\n' "${names[@]}" | sort -u | sed '/^$/d')
mapfile -t folders < <(printf '%s\n' "${folders[@]}" | sort -u | sed '/^$/d')

for folder in "${folders[@]}"; do mount --bind "$scratch/empty" "$folder"; done

# Each PATH folder (and /usr/bin, /usr/sbin) under an overlay whose upper layer whites out the hidden names
# and the symlinks that point into a hidden folder (/usr/local/bin/pg_ctl -> /usr/lib/postgresql/…).
hidden=0
i=0
for dir in $(printf '%s\n' /usr/bin /usr/sbin ${PATH//:/ } | awk '!seen[$0]++'); do
  real=$(readlink -f "$dir" 2>/dev/null) || continue
  [ -d "$real" ] || continue
  case " ${done_dirs:-} " in *" $real "*) continue ;; esac
  done_dirs="${done_dirs:-} $real"
  i=$((i + 1))
  layer="$scratch/layer$i"
  mkdir "$layer"
  for entry in "$real"/*; do
    name=$(basename "$entry")
    target=$(readlink "$entry" 2>/dev/null || true)
    hit=
    for n in "${names[@]}"; do [ "$n" = "$name" ] && hit=1 && break; done
    for f in "${folders[@]}"; do case "$target" in "$f"/*) hit=1 ;; esac; done
    if [ -n "$hit" ]; then
      mknod "$layer/$name" c 0 0
      hidden=$((hidden + 1))
    fi
  done
  if [ -n "$(ls -A "$layer")" ]; then mount -t overlay overlay -o "lowerdir=$layer:$real" "$real"; fi
done

# Check: none of the hidden programs is reachable any more, and their folders are empty.
for program in "${names[@]}"; do
  if command -v "$program" >/dev/null 2>&1 || [ -e "/usr/bin/$program" ]; then
    echo "without-system-packages: $program is still reachable ($(command -v "$program" || echo "/usr/bin/$program")); not running" >&2
    exit 1
  fi
done
for folder in "${folders[@]}"; do
  [ -z "$(ls -A "$folder")" ] || { echo "without-system-packages: $folder is not empty; not running" >&2; exit 1; }
done
echo "without-system-packages: hid $hidden programs and ${#folders[@]} folders of:" $packages >&2

cd "$root"
export ZERO_TEST_NO_INSTALL=1
if [ "${1:-}" = --exec ]; then
  shift
  "$@"
else
  npm test -- "$@"
fi
