#!/usr/bin/env bash
# tools/count-lines.sh: the lines of the lab's code outside tests/, as issue
# 46 counts them: files ending .c .cu .cc .h .cuh .sh .awk .mk .lua .gp, and
# those named run_autograder or Makefile, of the tree's files (git's, tracked
# or not ignored; without git, every file but build/). Prints one line a
# folder (the files at the top as ".") and the total:
#
#   tools/count-lines.sh [ROOT]      ROOT: that tree (default: this one)
#
# Exit status 2 when ROOT is not a folder.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root" ] || { echo "error: $root is not a folder" >&2; exit 2; }
cd "$root" || exit 2
files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -co --exclude-standard
    else
        find . -path ./build -prune -o -type f -print | sed 's|^\./||'
    fi
}
files | grep -v '^tests/' | grep -E '(\.(c|cu|cc|h|cuh|sh|awk|mk|lua|gp)|(^|/)(run_autograder|Makefile))$' |
    while IFS= read -r f; do [ -f "$f" ] && printf '%s\t%s\n' "$f" "$(wc -l < "$f")"; done |
    awk -F'\t' '{ d = index($1, "/") ? substr($1, 1, index($1, "/") - 1) : "."; n[d] += $2; total += $2 }
        END { for (d in n) printf "%-12s %7d\n", d, n[d] | "sort"; close("sort")
              printf "%-12s %7d\n", "total", total }'
