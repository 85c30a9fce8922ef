#!/bin/sh
# Builds the sandbox function's two native pieces from packages/runtime/src/environments/lambda/native/:
# sandbox-exec (static: the seccomp wrapper every command runs under) and nodump.so (preloaded into
# the function's runtime), into .build/sandbox/<arch>/.
#
#   scripts/build-sandbox-exec.sh [arm64|x86_64]     (default: this machine's architecture)
#
# arm64 is what sst.config.ts deploys; on an x86_64 machine it needs the cross compiler
# (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross). CC overrides the compiler.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/packages/runtime/src/environments/lambda/native"
arch=${1:-$(uname -m)}
case "$arch" in
  arm64|aarch64) arch=arm64; triple=aarch64-linux-gnu ;;
  x86_64|amd64) arch=x86_64; triple=x86_64-linux-gnu ;;
  *) echo "build-sandbox-exec: unknown architecture $arch (arm64 or x86_64)" >&2; exit 2 ;;
esac
if [ -z "${CC:-}" ]; then
  if [ "$(uname -m | sed 's/aarch64/arm64/')" = "$arch" ]; then CC=cc; else CC=$triple-gcc; fi
fi
command -v "$CC" >/dev/null || { echo "build-sandbox-exec: no C compiler $CC (apt-get install gcc, or gcc-$triple for a cross build)" >&2; exit 1; }
out="$root/.build/sandbox/$arch"
mkdir -p "$out"
"$CC" -O2 -Wall -Wextra -Werror -static -o "$out/sandbox-exec.tmp" "$src/sandbox-exec.c"
"$CC" -O2 -Wall -Wextra -Werror -shared -fPIC -o "$out/nodump.so.tmp" "$src/nodump.c"
chmod 0555 "$out/sandbox-exec.tmp"
mv -f "$out/sandbox-exec.tmp" "$out/sandbox-exec"
mv -f "$out/nodump.so.tmp" "$out/nodump.so"
echo "$out"
