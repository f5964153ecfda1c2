#!/usr/bin/env bash
# research/w08-tier.sh OUTDIR: stage 08's one tier on this GPU, judged, in
# one command (about 4 minutes on an H100): what its threshold would be,
# and which kernels clear it.
#
#   1. make calibrate's machinery for stage 08 alone (build/grader/grade
#      --calibrate --judge 08, on a copy of grader/rubric.tsv in OUTDIR, so
#      the lab's own rubric is left as it is): the tier's reference kernel
#      (references/08_warptiling/kernel.cu), 08's solution and, for
#      comparison, 06's solution, 3 runs each; calibrate.txt has its table
#      (each one's least favourable % of cuBLAS, the threshold, the margins).
#   2. research/experiments/warptile_independent.cu, the handout's 256 x 128
#      tile written without the skeleton, graded by the judge 3 times as a
#      student's 08 with that threshold; then the same with LATE_LOADS=1
#      (the next tile loaded after the multiply-adds). Each grade's % of
#      cuBLAS, points, and the sentence about its registers and loads
#      (grader/resources.c) are printed; grade.json in OUTDIR/<kernel>-<n>/.
#      Where a kernel missed the tier, an "ok" or "FAIL" line says whether
#      the sentence names what it lacks (late-loads: the waits).
#   3. Where cuobjdump is (with nvdisasm, both in the toolkit's bin/): the
#      machine code of the reference and the solution compared, and
#      resources.txt, what cuobjdump says of all four objects.
#
# Ends with the rubric row calibration set for this GPU (to copy into
# grader/rubric.tsv, then tools/default-thresholds.sh for the default).
# Needs a GPU; run from anywhere as root (the wall) with nvcc 13.
set -u
cd "$(dirname "$0")/.." || exit 2
out=${1:?usage: research/w08-tier.sh OUTDIR}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
nvidia-smi -L >/dev/null 2>&1 || { echo "w08-tier: no GPU here (nvidia-smi -L fails)" >&2; exit 3; }
t0=$(date +%s)
stamp() { printf '[%3d s] %s\n' $(($(date +%s) - t0)) "$*"; }

stamp "building the grader, the wall and the probe"
make -s build/grader/grade build/confine/confine build/confine/cuda-probe || exit 1
cp grader/rubric.tsv "$out/rubric.tsv"

stamp "calibrating 08 (its reference, its solution, 06's solution; 3 runs each)"
tools/grade-build.sh --calibrate --judge 08
build/grader/grade --calibrate --judge --rubric "$out/rubric.tsv" 08 >"$out/calibrate.txt" 2>&1
st=$?
sed -n '/^thresholds for/,$p' "$out/calibrate.txt"
[ $st = 0 ] || { echo "w08-tier: make calibrate's run failed (exit $st): $out/calibrate.txt"; tail -5 "$out/calibrate.txt"; }
gpu=$(sed -n 's/^thresholds for \(.*\): each tier.*/\1/p' "$out/calibrate.txt" | head -n 1)
row=$(awk -F'\t+' -v g="$gpu" '$1 == "threshold" && $2 == "08_warptiling" && $3 == "pass" && $4 == g' "$out/rubric.tsv" | tail -n 1)
threshold=$(printf '%s' "$row" | awk -F'\t+' '{ print $5 }')

# a value of grade.json, by its key (the first one; tools/json.sh flat: the lab's JSON reader)
json_value() {
    tools/json.sh flat "$1" 2>/dev/null |
        awk -F'\t' -v k="$2" '$1 == k || substr($1, length($1) - length(k)) == "." k { print $2; exit }'
}
for kernel in independent late-loads; do
    src=$out/src-$kernel
    mkdir -p "$src/08_warptiling"
    { [ $kernel = late-loads ] && echo '#define LATE_LOADS 1'
      cat research/experiments/warptile_independent.cu; } >"$src/08_warptiling/kernel.cu"
    stamp "$kernel: building, then 3 grades by the judge"
    tools/grade-build.sh --judge --src "$src" 08
    for i in 1 2 3; do
        build/grader/grade --judge --once --src "$src" --rubric "$out/rubric.tsv" --out "$out/$kernel-$i" 08 \
            >"$out/$kernel-$i.log" 2>&1
        g=$out/$kernel-$i/grade.json
        printf '  %-12s run %d: %s%% of cuBLAS, %s/%s points\n' "$kernel" "$i" "$(json_value "$g" pct_of_reference)" \
            "$(json_value "$g" points)" "$(json_value "$g" max_points)"
    done
    tools/json.sh flat "$out/$kernel-3/grade.json" | cut -f2- | grep -o 'The compiler gave your.*' | sed 's/^/  advice: /' ||
        echo "  no sentence about its registers in $out/$kernel-3/grade.json"
done
# what the sentences must say, where the kernel missed the tier: the late
# loads are named; the other names neither spills nor waits
said() { tools/json.sh flat "$out/$1-3/grade.json" | cut -f2- | grep -q "$2" && echo yes || echo no; }
missed() { [ "$(json_value "$out/$1-3/grade.json" points)" != "$(json_value "$out/$1-3/grade.json" max_points)" ]; }
if missed late-loads; then
    [ "$(said late-loads 'every load is waited for at once')" = yes ] && r=ok || r=FAIL
    echo "$r: late-loads missed the tier, and its advice says that every load is waited for"
fi
if missed independent; then
    [ "$(said independent 'The compiler gave your')" = yes ] && [ "$(said independent 'waited for at once')" = no ] &&
        [ "$(said independent 'keeps values in local memory')" = no ] && r=ok || r=FAIL
    echo "$r: independent missed the tier, and its advice sets its registers beside the reference's, no spills or waits"
fi

tool=$(command -v cuobjdump || { [ -n "${NVCC:-}" ] && command -v "$(dirname "$(command -v "$NVCC")")/cuobjdump"; } ||
       command -v /usr/local/cuda/bin/cuobjdump)
if [ -n "$tool" ]; then
    # the instructions without their addresses and encodings
    sass() { "$tool" -sass "$1" | grep -E '^ +/\*[0-9a-f]{4,}\*/' | sed 's@/\*[0-9a-f]*\*/@@g; s@;.*@@'; }
    ref=build/08_warptiling/pass/reference.o sol=build/08_warptiling/solution.o
    if sass "$ref" >"$out/reference.sass" && sass "$sol" >"$out/solution.sass" && [ -s "$out/reference.sass" ]; then
        cmp -s "$out/reference.sass" "$out/solution.sass" && same="the same" || same="DIFFERENT"
        stamp "machine code of the reference and the solution: $same ($(wc -l <"$out/reference.sass") instructions)"
    fi
    # (the graded exercise.o is the last kernel graded: late-loads)
    for o in "$ref" "$sol" build/grade-src/build/08_warptiling/exercise.o build/06_coarsening/solution.o; do
        echo "== $o"; "$tool" --dump-resource-usage "$o" 2>&1 | grep -E 'arch =|Function|REG:'
    done >"$out/resources.txt"
else
    stamp "cuobjdump is not here: no comparison of machine code"
fi
stamp "done; this GPU's row: ${row:-none (see $out/calibrate.txt)}"
echo "threshold that calibration sets for 08 on ${gpu:-this GPU}: ${threshold:-?}% of cuBLAS"
