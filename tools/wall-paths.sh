#!/usr/bin/env bash
# tools/wall-paths.sh compile|link NVCC CC [COMPILER...]: what a build inside the wall may
# read and run (build/confine/confine --build --paths FILE), one "KIND PATH"
# a line, derived from the tools themselves and never from a student's file:
#
#   tool PATH   a program the build runs: read and execute it; confine adds
#               its ELF loader and the libraries it is linked with
#               (judge/libraries.c), as it does for a run
#   read PATH   a folder or file it reads: headers, the toolkit's nvcc.profile
#               and link stub; for a link, the folders of the libraries it
#               links with
#
# An honest compile of a kernel.cu opens exactly these (strace of nvcc -c:
# nvcc, cudafe++, cicc, ptxas, fatbinary, the host compiler's driver, cc1plus
# and as, their libraries, /etc/ld.so.cache, the headers): not the toolkit's
# libraries (cuBLAS), not the rest of /usr or /etc, nothing of the lab but
# what the Makefile adds (the kernel.cu, the lab's headers). A link reads the
# objects it links (the Makefile names them) and the libraries' folders.
# NVCC empty: a plain host compile with CC alone (tests/confine/wall.sh).
set -u
kind=${1:-}
nvcc=${2:-}
cc=${3:-gcc}
case $kind in compile | link) ;; *)
    echo "usage: tools/wall-paths.sh compile|link NVCC CC [COMPILER...]" >&2
    exit 2
    ;;
esac
real() { readlink -f "$1" 2>/dev/null; }
# a program; where it is a script that hands over to a program beside it
# (a compiler's wrapper: g++ running g++-real), those programs too
tool() {
    [ -n "$1" ] && [ -f "$1" ] || return 0
    local p
    p=$(real "$1")
    echo "tool $p"
    if [ "$(head -c 2 "$p")" = '#!' ]; then
        tool "$(sed -n '1s/^#! *\([^ ]*\).*/\1/p' "$p")"
        # the programs it names by their full path, and those beside it
        # whose names begin with its own (g++-real, g++.bin)
        for s in $(grep -o '/[A-Za-z0-9_./+-]*' "$p" | sort -u) "$p"-* "$p".*; do
            [ -f "$s" ] && [ -x "$s" ] && [ "$(real "$s")" != "$p" ] && echo "tool $(real "$s")"
        done
    fi
    return 0
}
readable() { [ -n "$1" ] && [ -e "$1" ] && echo "read $(real "$1")"; }
# a folder of headers: read, and its links followed (below)
headers() { [ -n "$1" ] && [ -d "$1" ] && echo "headers $(real "$1")"; }
# a program as the host compiler's driver finds it (a bare name: on PATH)
prog() {
    local p
    p=$("$cc" -print-prog-name="$1" 2>/dev/null)
    case $p in /*) tool "$p" ;; ?*) tool "$(command -v "$p")" ;; esac
}

# the CUDA toolkit: nvcc's programs, its headers, and for a link its libraries
toolkit() {
    # where the toolkit is, as nvcc itself says: the nvcc on PATH may be a
    # wrapper script elsewhere (/usr/local/bin/nvcc running the toolkit's)
    dry=$("$nvcc" -dryrun -c -x cu /dev/null -o /dev/null 2>&1)
    bin=$(real "$(printf '%s\n' "$dry" | sed -n 's/^#\$ _HERE_=//p' | head -n 1)")
    [ -d "$bin" ] || bin=$(dirname "$(real "$(command -v "$nvcc")")")
    top=$(dirname "$bin")
    tool "$(command -v "$nvcc")"
    for t in nvcc cudafe++ ptxas fatbinary nvlink; do tool "$bin/$t"; done
    tool "$top/nvvm/bin/cicc"
    readable "$bin/nvcc.profile"
    readable "$bin/crt"
    headers "$top/include"
    readable "$top/nvvm/libdevice"
    # the header folders nvcc adds (INCLUDES, SYSTEM_INCLUDES of nvcc.profile)
    printf '%s\n' "$dry" | sed -n 's/^#\$ \(SYSTEM_\)\{0,1\}INCLUDES=//p' | grep -o '"/[^"]*"' | tr -d '"' |
        while read -r d; do headers "$d"; done
    if [ "$kind" = link ]; then
        for d in "$top/lib64" "$top/lib"; do readable "$d"; done
        printf '%s\n' "$dry" | sed -n 's/^#\$ LIBRARIES=//p' | grep -o '"-L/[^"]*"' | sed 's/^"-L//; s/"$//' |
            while read -r d; do readable "$d"; done
    fi
}

# each host compiler (nvcc's default -ccbin, gcc and g++ on PATH, and the
# make's CC and the CPU emulation's C++ compiler where they are others), the
# programs its driver runs, its headers' folders, and for a link its
# libraries' folders; and the shell nvcc runs them with
host_compiler() {
    cc=$1
    tool "$(command -v "$cc")"
    case $cc in *gcc*) tool "$(command -v "${cc%gcc*}g++${cc##*gcc}")" ;; esac
    for p in cc1 cc1plus as; do prog "$p"; done
    readable "$("$cc" -print-search-dirs 2>/dev/null | sed -n 's/^install: //p')"
    echo | "$cc" -x c++ -E -v - 2>&1 >/dev/null | sed -n '/^#include <\.\.\.> search starts here:/,/^End of search list/p' |
        sed -n 's/^ \(\/.*\)/\1/p' | while read -r d; do headers "$d"; done
    if [ "$kind" = link ]; then
        for p in collect2 ld; do prog "$p"; done
        "$cc" -print-search-dirs 2>/dev/null | sed -n 's/^libraries: =//p' | tr ':' '\n' |
            while read -r d; do [ -d "$d" ] && readable "$d"; done
    fi
}
# everything, once a line
paths() {
    [ -z "$nvcc" ] || toolkit
    host_compiler "$cc"
    [ "$cc" = gcc ] || tool "$(command -v g++)"
    local other
    for other in "$@"; do
        [ -n "$other" ] && [ "$other" != "$cc" ] && command -v "$other" >/dev/null && host_compiler "$other"
    done
    tool /bin/sh
}

# every line once; then the files and folders that links in the folders of
# headers (two levels down) lead to, outside what it may read already:
# /usr/local/include/cuda_runtime.h may be a link into the toolkit
shift $(($# < 3 ? $# : 3))
lines=$(paths "$@")
printf '%s\n' "$lines" | sed 's/^headers /read /' | awk '!seen[$0]++'
mapfile -t dirs < <(printf '%s\n' "$lines" | sed -n 's/^\(read\|headers\) //p')
beneath() {
    local d
    for d in "${dirs[@]}"; do
        case $1 in "$d" | "$d"/*) return 0 ;; esac
    done
    return 1
}
# (a folder that four or more such links lead into is listed as a folder:
# /usr/local/include may hold a link for each of the toolkit's headers)
printf '%s\n' "$lines" | sed -n 's/^headers //p' | while read -r d; do
    find "$d" -maxdepth 2 -type l 2>/dev/null | while read -r l; do
        t=$(real "$l")
        if [ -n "$t" ] && [ -e "$t" ] && ! beneath "$t"; then
            if [ -d "$t" ]; then echo "$t"; else echo "$(dirname "$t") $t"; fi
        fi
    done
done | awk 'NF == 1 { if (!seen[$1]++) dir[++nd] = $1; next }
            !seen[$2]++ { n[$1]++; file[++nf] = $2; in_[nf] = $1 }
            END { for (i = 1; i <= nd; i++) print "read " dir[i]
                  for (i = 1; i <= nf; i++) {
                      if (n[in_[i]] < 4) print "read " file[i]
                      else if (!said[in_[i]]++) print "read " in_[i] } }'
exit 0
