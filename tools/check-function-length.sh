#!/usr/bin/env bash
# check-function-length.sh: the functions of common/, grader/, judge/,
# profile/ and emu/ (C, C++ and CUDA) over LIMIT lines (default 80,
# signature to closing brace), longest first (make check runs it, from
# tests/layout/run.sh).
#
#   tools/check-function-length.sh [--root DIR]
#
# A long function is a phase that wants a name: split it into named steps.
# Each one over the limit is listed; the check fails (exit 1) only for those
# in a folder ENFORCED names (its own files, not its subfolders), or in a
# file it names, unless an entry "-FILE" leaves that file out. By default
# that is every folder of common/, grader/, judge/, profile/ and emu/;
# the rest (a folder or file left out by hand while it is reworked) is
# listed as "(reported only)". Exit 2 on bad usage.
set -u
ENFORCED=${ENFORCED:-"common grader grader/intake grader/class grader/class/report judge profile emu"}
LIMIT=${LIMIT:-80}
root=.
case ${1:-} in
--root) [ -d "${2:-}" ] || { echo "check-function-length.sh: --root needs a folder" >&2; exit 2; }; root=$2 ;;
"") ;;
*) echo "usage: tools/check-function-length.sh [--root DIR]" >&2; exit 2 ;;
esac
awk_file=$(cd "$(dirname "$0")" && pwd)/function-lengths.awk
cd "$root" || exit 2

# 0 when a function in file $1 over the limit fails the check
enforced() {
    local e dir=${1%/*} hit=1
    for e in $ENFORCED; do
        case $e in
        -*) [ "${e#-}" = "$1" ] && return 1 ;;
        *) { [ "$e" = "$dir" ] || [ "$e" = "$1" ]; } && hit=0 ;;
        esac
    done
    return $hit
}

files=$(find common grader judge profile emu -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cu' -o -name '*.h' \) 2>/dev/null | sort)
[ -n "$files" ] || { echo "check-function-length.sh: no common/, grader/, judge/, profile/ or emu/ sources under $root" >&2; exit 2; }
bad=0
while read -r at name lines _; do
    [ "$lines" -gt "$LIMIT" ] || continue
    if enforced "${at%%:*}"; then
        echo "$at: $name is $lines lines (over $LIMIT): split it into named steps"
        bad=1
    else
        echo "$at: $name is $lines lines (over $LIMIT; reported only)"
    fi
done < <(awk -f "$awk_file" $files | sort -k3,3nr)
exit $bad
