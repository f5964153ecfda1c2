#!/usr/bin/env bash
# tests/layout/names.sh: every global function of the tree has a prefix
# (part of make check, from tests/layout/run.sh).
#
# The rule: a function defined without static in a C, C++ or CUDA file
# outside tests/ is named lab_... (the helper library and the harness,
# common/) or after its folder or a folder above it: profile_... in
# profile/, report_..., class_... or grader_... in grader/class/report/.
# A kernel.cu is the student's, named by the course, and is not read.
# tests/layout/names.txt lists, as "FILE NAME" (FILE * for any), the
# functions let through: what the toolchain or the contract needs (main,
# matmul, the CUDA runtime's and the C library's functions that a file
# defines in their place); an entry that no longer matches
# an unprefixed function of a file that is there fails too, so the list
# only shrinks.
#
#   tests/layout/names.sh [--root DIR]    exit 0 clean, 1 a name to fix, 2 usage
set -u
lab=$(cd "$(dirname "$0")/../.." && pwd)
root=.
case ${1:-} in
--root) [ -d "${2:-}" ] || { echo "names.sh: --root needs a folder" >&2; exit 2; }; root=$2 ;;
"") root=$lab ;;
*) echo "usage: tests/layout/names.sh [--root DIR]" >&2; exit 2 ;;
esac
cd "$root" || exit 2
list=tests/layout/names.txt
[ -f "$list" ] || { echo "names.sh: no $list under $root" >&2; exit 2; }

# "FILE NAME" of each global function without a prefix of its folders
unprefixed() {
    find . -path ./build -prune -o -path ./tests -prune -o -path "./.*" -prune -o -type f \
        \( -name '*.c' -o -name '*.cc' -o -name '*.cu' -o -name '*.cpp' \) ! -name kernel.cu -print |
        sed 's|^\./||' | sort | xargs -r awk -f "$lab/tools/function-lengths.awk" |
        awk '$4 == "global" { file = $1; sub(/:.*/, "", file); name = $2
                 if (name ~ /::/ || name ~ /^lab_/) next
                 n = split(file, part, "/")
                 for (i = 1; i < n; i++) if (index(name, part[i] "_") == 1) next
                 print file, name }'
}
found=$(unprefixed)
allowed=$(grep -v '^#' "$list" | awk 'NF == 2')
bad=$(awk 'NR == FNR { ok[$1 " " $2] = 1; if ($1 == "*") any[$2] = 1; next }
           !($1 " " $2 in ok) && !($2 in any) { print $1 ": " $2 }' <(echo "$allowed") <(echo "$found"))
# an entry of one file whose function is gone (a "*" entry names what the
# toolchain or the contract needs, which a student release may not define)
stale=$(awk 'NR == FNR { have[$1 " " $2] = 1; next }
             $1 != "*" && !($1 " " $2 in have) { print $1 " " $2 }' \
        <(echo "$found") <(echo "$allowed") | while read -r file name; do
            # a file a student release leaves out is no stale entry
            [ -f "$file" ] && echo "$file $name"; done)
st=0
if [ -n "$bad" ]; then
    echo "global functions without lab_ or their folder's prefix (rename them, or make them static):"
    echo "$bad" | sed 's/^/  /'
    st=1
fi
if [ -n "$stale" ]; then
    echo "$list lets through what is no longer there (remove these lines):"
    echo "$stale" | sed 's/^/  /'
    st=1
fi
[ $st = 0 ] && echo "every global function has a prefix (but $(echo "$allowed" | grep -vc '^\*') that the toolchain names, listed in $list)"
exit $st
