#!/usr/bin/env bash
# tests/class/answer-overlap.sh: which files of a student release come close
# to a solution.
#
#   tests/class/answer-overlap.sh LAB RELEASE
#
# LAB is the instructors' copy (with solutions/ and exercises/), RELEASE the
# folder make release wrote. Every text file of RELEASE outside handouts/ and
# slides/ (whose snippets teach) is compared with every
# LAB/solutions/NN/kernel.cu on non-trivial lines: lines (trimmed, spaces
# squeezed) of 12 characters or more that the stage's skeleton lacks. A file
# is reported when
#   - it shares more than 3 consecutive non-trivial lines with a solution, or
#   - it holds an answer line: a non-trivial line of a solution that is code,
#     not a comment.
# A stage's own skeleton (exercises/<stage>/kernel.cu, and its copy as handed out,
# .lab/skeletons/<stage>/kernel.cu) is not compared with its solution, and the
# skeleton of a later stage not with an earlier solution: each stage starts from the
# previous one's answer, on purpose. Lines that a harness baseline shares
# with an answer because they are the idiom of every such kernel (a bounds
# check, a barrier) are listed, with the file that has them, in
# LAB/tests/class/shown-on-purpose.tsv ("*" for any file).
#
# Prints one line per finding, "file: what", and exits 1 if there was any,
# 2 on bad usage.
set -u
export LC_ALL=C
[ $# = 2 ] && [ -d "$1/solutions" ] && [ -d "$2" ] ||
    { echo "usage: tests/class/answer-overlap.sh LAB RELEASE (LAB with solutions/)" >&2; exit 2; }
lab=$(cd "$1" && pwd) rel=$(cd "$2" && pwd)

stages=$(cd "$lab/solutions" && ls -d */ | tr -d /)
files=$(cd "$rel" && find . -type f ! -path './handouts/*' ! -path './slides/*' ! -path './.git/*' |
    sed 's|^\./||' | sort | while IFS= read -r f; do grep -Iq . "$rel/$f" 2>/dev/null && echo "$f"; done)
[ -n "$files" ] || { echo "answer-overlap: no text files in $rel" >&2; exit 2; }

status=0
for s in $stages; do
    sol=$lab/solutions/$s/kernel.cu ske=$lab/exercises/$s/kernel.cu
    [ -f "$sol" ] || continue
    # the files to compare with this solution: all but this skeleton and
    # the skeletons of later stages
    list=()
    while IFS= read -r f; do
        case $f in
        exercises/*/kernel.cu | .lab/skeletons/*/kernel.cu)
            t=${f%/kernel.cu}; t=${t##*/}
            [[ "$t" < "$s" ]] || continue ;;
        esac
        list+=("$rel/$f")
    done <<<"$files"
    awk -v sol="$sol" -v ske="$ske" -v rel="$rel/" -v stage="$s" -v shown="$lab/tests/class/shown-on-purpose.tsv" '
    function norm(line) {
        gsub(/[ \t\r]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line)
        sub(/^\[\[maybe_unused\]\] /, "", line) # the skeletons mark what only the TODOs use
        return line
    }
    function comment(line) { return line ~ /^(\/\/|\/\*|\*|#( |$))/ }
    function trivial(line) { return length(line) < 12 }
    function report_run() {
        if (best > 3) {
            printf "%s: %d consecutive lines (to line %d) of solutions/%s/kernel.cu (to its line %d of code)\n", \
                file, best, best_end, stage, best_p
            bad = 1
        }
    }
    BEGIN {
        while ((getline line < shown) > 0)
            if (line !~ /^#/ && (t = index(line, "\t")) > 0)
                allowed[substr(line, 1, t - 1), norm(substr(line, t + 1))] = 1
        while ((getline line < ske) > 0) skeleton[norm(line)] = 1
        n = 0
        while ((getline line < sol) > 0) {
            line = norm(line)
            if (trivial(line) || (line in skeleton)) continue
            seq[++n] = line
            at[line] = at[line] " " n
            if (!comment(line) && !(line in skeleton)) answer[line] = 1
        }
    }
    FNR == 1 {
        if (file != "") report_run()
        file = substr(FILENAME, length(rel) + 1)
        k = 0; best = 0; split("", run); reported = 0
    }
    {
        line = norm($0)
        if (trivial(line) || (line in skeleton)) next
        k++
        # run[p]: consecutive lines of this file ending here that match the
        # solution lines ending at p
        split("", next_run)
        if (line in at) {
            m = split(at[line], ps, " ")
            for (i = 1; i <= m; i++) {
                p = ps[i] + 0
                next_run[p] = ((p - 1) in run ? run[p - 1] : 0) + 1
                if (next_run[p] > best) { best = next_run[p]; best_end = FNR; best_p = p }
            }
        }
        split("", run); for (p in next_run) run[p] = next_run[p]
        if ((line in answer) && !((file, line) in said) && !((file, line) in allowed) && !(("*", line) in allowed)) {
            said[file, line] = 1
            printf "%s:%d: an answer line of solutions/%s/kernel.cu: %s\n", file, FNR, stage, line
            bad = 1
        }
    }
    END { if (file != "") report_run(); exit bad }' "${list[@]}" || status=1
done
exit $status
