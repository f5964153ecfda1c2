#!/usr/bin/env bash
# research/similarity-class.sh [OUTDIR]: a class of 12 made of the lab's
# own kernels, graded by make class on this machine's GPU (judged and
# confined, as a real class), then its report and the similarity ranking,
# and the margins by which the copies stand above the honest pairs.
# OUTDIR (default build/similarity-class) gets submissions/ and class/
# (gradebook.csv, report.html, report-anon.html, similarity.csv and .html);
# it is emptied first. Needs a GPU, nvcc and root or user namespaces, as
# make class does. Exit status 0 when the copied pair and the pasted kernel
# rank above every honest pair and the whole run took under 6 minutes.
#
# research/similarity-class.sh marks [--write] [RECORD]: each stage's review
# mark, measured on this machine (no GPU needed): every honest kernel of
# tests/class/similarity/honest.tsv against every other of another origin
# and against the lab's, and every copy (each honest kernel with its names
# changed, each solution wrapped in a #define and with ;; doubled, the
# copier and the paster of tests/class/similarity/) against its source
# (tests/class/similarity/corpus.sh). A stage's mark is halfway between its
# highest honest pair and its lowest copy where the two stand at least
# MARK_GAP (10) apart, else none. Writes RECORD (default: today's
# cpu-YYYY-MM-DD-similarity folder of measurements): pairs.tsv, marks.tsv, README.md;
# --write also makes grader/class/report/marks.tsv from it.
#
# The class of 12:
#   solutions    every stage's solution
#   references   06 and 07: the tiers' reference kernels (references/)
#   honest_a/b/c 03 and 07 written independently (tests/class/similarity/)
#   copier       03: honest_a's kernel renamed and reordered
#   paster       07: the textbook reduction #6 pasted in
#   skeleton     every stage as handed out
#   broken       01 the solution; 03 does not compile
#   faulty       03, 04 and 07: deliberately wrong kernels (tests/fixtures/)
#   rungs        07: a rung of the textbook ladder (too slow for its tiers)
#   small_block  01 and 02: the solutions with the skeleton's 8 x 8 block
set -u
cd "$(dirname "$0")/.." || exit 2

# the marks: the corpus through build/grader/similarity, each stage's
# highest honest pair and lowest copy, the mark between them
marks() {
    local write=0 gap=${MARK_GAP:-10}
    [ "${1:-}" = --write ] && { write=1; shift; }
    local rec=${1:-measurements/cpu-$(date +%F)-similarity} tmp
    tmp=$(mktemp -d) || exit 2
    make --no-print-directory -s build/grader/similarity || exit 2
    . tests/class/similarity/corpus.sh
    sim_corpus "$tmp" || exit 2
    build/grader/similarity --lab . --submissions "$tmp/subs" --out "$tmp" --review 100 >"$tmp/log" 2>&1 ||
        { cat "$tmp/log"; exit 1; }
    mkdir -p "$rec"
    { printf 'stage\tkind\tscore\tstudent\tother\n'
      sim_pairs "$tmp/similarity.csv" "$tmp/who.tsv" | cut -f1-3,5-; } >"$rec/pairs.tsv"
    awk -F'\t' -v OFS='\t' -v gap="$gap" '
        NR == 1 { print "# stage", "mark", "honest_max", "honest_pairs", "copy_min", "copies"; next }
        !($1 in seen) { seen[$1] = 1; order[++n] = $1; hi[$1] = -1; lo[$1] = 101 }
        $2 == "honest" { nh[$1]++; if ($3 + 0 > hi[$1]) hi[$1] = $3 }
        $2 == "copy" { nc[$1]++; if ($3 + 0 < lo[$1]) lo[$1] = $3 }
        END {
            for (i = 1; i <= n; i++) {
                s = order[i]
                mark = nh[s] && nc[s] && lo[s] - hi[s] >= gap ? sprintf("%.1f", (hi[s] + lo[s]) / 2) : "none"
                print s, mark, hi[s], nh[s] + 0, lo[s], nc[s] + 0
            }
        }' "$rec/pairs.tsv" >"$rec/marks.tsv"
    local at
    at="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ":!$rec" || echo ' (with changes not yet committed)')"
    cat >"$rec/README.md" <<EOF
# Similarity marks per stage, measured

\`research/similarity-class.sh marks$([ $write = 1 ] && echo ' --write') $rec\` at commit
$at, $(date +%F),
on $(nproc) cores, no GPU. The kernels: tests/class/similarity/honest.tsv
(honest, by origin) and the copies of tests/class/similarity/corpus.sh;
the tool: build/grader/similarity.

- pairs.tsv: every honest pair (two origins) and every copy against its
  source, with its score.
- marks.tsv: each stage's highest honest pair and lowest copy, and the
  mark halfway between where they stand at least $gap apart (none: they
  do not).
EOF
    column -t <"$rec/marks.tsv" 2>/dev/null || cat "$rec/marks.tsv"
    if [ $write = 1 ]; then
        { echo "# marks.tsv: each stage's review mark for make similarity (marks.c), written by"
          echo "# research/similarity-class.sh marks --write; do not edit: measure again."
          echo "# record: $rec"
          cat "$rec/marks.tsv"; } >grader/class/report/marks.tsv
        echo "similarity-class: wrote grader/class/report/marks.tsv"
    fi
    rm -rf "$tmp"
}
if [ "${1:-}" = marks ]; then
    shift
    marks "$@"
    exit
fi

dir=${1:-build/similarity-class}
subs=$dir/submissions out=$dir/class
rm -rf "$subs" "$out"
mkdir -p "$subs"
k=tests/class/similarity
put() { mkdir -p "$(dirname "$subs/$1")" && cp "$2" "$subs/$1"; }
. tools/stages.sh
for s in $LAB_STAGES; do
    put "solutions/$s/kernel.cu" "solutions/$s/kernel.cu"
    put "skeleton/$s/kernel.cu" "exercises/$s/kernel.cu"
done
put references/06_coarsening/kernel.cu references/06_coarsening/kernel.cu
put references/07_reduction/kernel.cu references/07_reduction/kernel.cu
for w in a b c; do
    put "honest_$w/03_tiled/kernel.cu" "$k/03_tiled/indep_$w.cu"
    put "honest_$w/07_reduction/kernel.cu" "$k/07_reduction/indep_$w.cu"
done
put copier/03_tiled/kernel.cu "$k/03_tiled/copy_of_a.cu"
put paster/07_reduction/kernel.cu "$k/07_reduction/pasted.cu"
put broken/01_naive/kernel.cu solutions/01_naive/kernel.cu
mkdir -p "$subs/broken/03_tiled"
sed 's/temp += As\[ty\]\[k\] \* Bs\[k\]\[tx\];/temp += As[ty][k] * Bs[k][tx]/' solutions/03_tiled/kernel.cu \
    >"$subs/broken/03_tiled/kernel.cu"
put faulty/03_tiled/kernel.cu tests/fixtures/matmul_drops_last_tile.cu
put faulty/04_transpose/kernel.cu tests/fixtures/transpose_off_by_one.cu
put faulty/07_reduction/kernel.cu tests/fixtures/reduce_missing_barrier.cu
put rungs/07_reduction/kernel.cu research/ladder/rung4_first_add.cu
for s in 01_naive 02_temp_accumulator; do
    mkdir -p "$subs/small_block/$s"
    sed 's/^#define BLOCK [0-9]*/#define BLOCK 8/' "solutions/$s/kernel.cu" >"$subs/small_block/$s/kernel.cu"
done
echo "similarity-class: $(ls "$subs" | wc -l) students in $subs"

start=$(date +%s)
make --no-print-directory class SUBMISSIONS="$subs" OUT="$out" 2>&1 | tee "$dir/class.log"
status=${PIPESTATUS[0]}
make --no-print-directory report OUT="$out" ANON=1 2>&1 | tee -a "$dir/class.log"
took=$(( $(date +%s) - start ))
echo
echo "similarity-class: make class exit $status, ${took} s for the class, its report and similarity"
# a table of comma-separated lines, aligned (column(1) is not everywhere)
aligned() { if command -v column >/dev/null; then column -s, -t; else tr ',' '\t'; fi; }
[ -f "$out/gradebook.csv" ] && aligned <"$out/gradebook.csv" | cut -c1-160
csv=$out/similarity.csv
[ -f "$csv" ] || { echo "similarity-class: no $csv"; exit 1; }
echo
echo "the ranking, highest first:"
head -12 "$csv" | aligned

score() { awk -F, -v s="$1" -v a="$2" -v b="$3" '$1 == s && (($2 == a && $3 == b) || ($2 == b && $3 == a)) { print $4 }' "$csv"; }
copy=$(score 03_tiled copier honest_a)
paste=$(score 07_reduction paster known:07_reduction/harris_reduce6.cu)
# honest: an honest student's kernel and anything but the copies of it (the
# other students here are the lab's own kernels, submitted as they are)
honest=$(awk -F, 'NR > 1 && ($2 ~ /^honest_/ || $3 ~ /^honest_/) && $2 !~ /^(copier|paster)$/ && $3 !~ /^(copier|paster)$/' "$csv" |
         sort -t, -k4,4 -rn | head -1)
top=${honest##*,}
echo
echo "copy (03: copier and honest_a): ${copy:-none}; paste (07: paster and the known reduction #6): ${paste:-none}"
echo "highest honest pair: ${top:-none} (${honest%,*})"
ok=$(awk -v c="${copy:-0}" -v p="${paste:-0}" -v h="${top:-100}" -v t="$took" \
     'BEGIN { printf "margins: copy %.1f, paste %.1f over the highest honest pair\n", c - h, p - h; exit !(c > h && p > h && t < 360) }')
st=$?
echo "$ok"
[ $st = 0 ] && echo "similarity-class: PASS" || echo "similarity-class: FAIL (a copy not above every honest pair, or over 6 minutes)"
exit $st
