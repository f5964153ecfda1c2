#!/usr/bin/env bash
# tests/confine/lto/make-kernel.sh PAYLOAD.cc [GCC-OPTION...] > kernel.cu
#
# What a careful student would bring to the link: GCC's LTO bytecode for
# PAYLOAD.cc, made with this machine's g++ (the bytecode must be of the
# linker's own GCC version), wrapped in a kernel.cu's top-level asm, which
# recreates the object's .gnu.lto_* sections. The options given here are
# stored in the bytecode's .gnu.lto_.opts section: a link that runs GCC's
# LTO plugin (every g++ link does by default) compiles the bytecode again
# with them. Exit 2 with a line when this machine's g++ cannot make it.
set -u
[ $# -ge 1 ] || { echo "usage: $0 PAYLOAD.cc [GCC-OPTION...] > kernel.cu" >&2; exit 2; }
src=$1
shift
asm=$(mktemp "${TMPDIR:-/tmp}/lto-kernel.XXXXXX") || exit 2
trap 'rm -f "$asm"' EXIT
if ! "${CXX:-g++}" -x c++ -flto -fno-fat-lto-objects -O1 "$@" -S "$src" -o "$asm" 2>&1; then
    echo "$0: ${CXX:-g++} could not make LTO bytecode of $src" >&2
    exit 2
fi
if ! grep -q '\.gnu\.lto_' "$asm"; then
    echo "$0: ${CXX:-g++} made no .gnu.lto_* sections (no LTO support here)" >&2
    exit 2
fi
echo "// kernel.cu: a contract function's worth of LTO bytecode for the link (from $(basename "$src"))"
echo "__asm__("
# every line a string of the top-level asm; .file would name the payload
grep -v '^[[:space:]]*\.file[[:space:]]' "$asm" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/'
echo ");"
