#!/usr/bin/env bash
# tests/messages/run.sh: what a student sees where nothing can run (a laptop,
# a login node) or a knob is wrong; part of make check, needs no GPU.
#
#   - make grade without a GPU compiles and links each stage first and
#     names what does not (a compile error, a missing contract function)
#     before it says that there is no GPU (exit 3);
#   - a GRADE_SRC folder that does not exist, and a stage name that fits
#     several stages, are errors (exit 2); EX=3 means 03;
#   - make sweep without a GPU says so in one line, then what the records
#     of the course GPU's compute capability measured at each value (or one
#     line: no record), exit status 3; the rows of one that runs are
#     such a record (stand-in programs for the builds);
#   - each stage's knob is checked when it compiles, with a sentence;
#   - the skeletons compile without a warning.
# Prints "ok", "FAIL" and "skip" lines and ends with "N passed, N failed".
# Needs the lab built (make all, build/grader/grade).
set -u
cd "$(dirname "$0")/../.." || exit 2

. tests/lib.sh

NVCC=${NVCC:-nvcc}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && have_gpu=1
. tools/stages.sh
stages=$(printf '%s\n' $LAB_STAGES)

echo "== make grade and make run: names of stages and submissions"
out=$(build/grader/grade --src "$tmp/nonexistent" 2>&1); st=$?
check "grade: a GRADE_SRC that does not exist: exit 2, says so" \
    "$([ $st = 2 ] && grep -q "no such folder" <<<"$out"; ok)" "$out"
out=$(build/grader/grade 0 2>&1); st=$?
check "grade: EX=0 fits every stage: exit 2, says to name one" \
    "$([ $st = 2 ] && grep -q "more than one stage matches '0'" <<<"$out"; ok)" "$out"
out=$(make --no-print-directory run EX=0 2>&1); st=$?
check "make run EX=0: refused, naming the stages it fits" \
    "$([ $st != 0 ] && grep -q "EX=0 fits more than one stage" <<<"$out"; ok)" "$out"
out=$(make --no-print-directory -n run EX=3 2>&1); st=$?
check "make run EX=3 runs stage 03" "$([ $st = 0 ] && grep -qE "(^| )build/03_[a-z_]*/exercise(-emu)?( |$)" <<<"$out"; ok)" "$out"

echo "== make grade without a GPU: the build first"
if [ $have_gpu = 1 ]; then
    skip "grade without a GPU: a GPU is here"
else
    # 01: an empty kernel.cu (links without matmul); 03: a compile error
    mkdir -p "$tmp/sub/01_naive" "$tmp/sub/03_tiled"
    : >"$tmp/sub/01_naive/kernel.cu"
    printf '#include "matmul.h"\nvoid matmul(const float *A, const float *B, float *C, int n) { oops }\n' \
        >"$tmp/sub/03_tiled/kernel.cu"
    out=$(built_grade --src "$tmp/sub" 1 3 2>&1); st=$?
    check "grade without a GPU: an empty kernel.cu is named as not defining matmul(...)" \
        "$(grep -q "01_naive: kernel.cu does not define matmul(const float \*A" <<<"$out"; ok)" "$out"
    check "grade without a GPU: a compile error is shown with its line" \
        "$(grep -q "03_tiled: did not compile: exercises/03_tiled/kernel.cu(2): error" <<<"$out"; ok)" "$out"
    check "grade without a GPU: then one line saying there is none, exit 3" \
        "$([ $st = 3 ] && [ "$(grep -c "no NVIDIA GPU" <<<"$out")" = 1 ] &&
           grep -q "0 of 2 stages compiled and linked" <<<"$out"; ok)" "$out"
fi

echo "== make sweep that cannot run: the records of the course GPU instead"
first=$(head -n 1 <<<"$stages") lab=$PWD
knob_var=LAB_KNOB_$first knob=${!knob_var} sweep_var=LAB_SWEEP_$first
if [ $have_gpu = 1 ]; then
    skip "sweep without a GPU: a GPU is here"
else
    # a build per knob value lives in .../k<value>/; the stage's default build stands in
    mkdir -p "$tmp/k16" && ln -s "$PWD/build/$first/exercise" "$tmp/k16/exercise"
    # sweep STAGE KNOB [COURSE_ARCH]: tools/sweep.sh as make sweep calls it, from this folder
    sweep() { LAB_COURSE_ARCH=${3:-90} "$lab/tools/sweep.sh" "$1" "$2" exercise "" "$tmp/k16/exercise" 2>&1; }
    # the lab's own records: the stage's knob, one of its values fastest, and the GPU that measured it
    out=$(sweep "$first" "$knob"); st=$?
    best=$(sed -n "s/^  $knob=\([0-9]*\) was fastest.*/\1/p" <<<"$out" | head -n 1)
    check "sweep without a GPU: the cause, then the records of $first's $knob: its best value and the GPU, exit 3" \
        "$([ $st = 3 ] && grep -q "^sweep: cannot run $first here: .*no usable CUDA GPU" <<<"$(head -n 1 <<<"$out")" &&
           [ -n "$best" ] && grep -qw -- "$best" <<<"${!sweep_var}" &&
           grep -qE "^  on an .+ \(compute capability [0-9.]+(, as the course's GPU)?\), 20[0-9-]+, measurements/[^ ]+/sweeps\.tsv:$" <<<"$out"; ok)" "$out"
    # planted records: the course's compute capability wins over a newer run of another,
    # the fastest by rate and its ratio to each other value
    plant_run() { # FOLDER GPU CC, then the rows "value<TAB>ms<TAB>rate" on stdin
        mkdir -p "$tmp/lab/measurements/$1"
        printf '{\n  "gpu": {\n    "name": "%s",\n    "cc": "%s"\n  }\n}\n' "$2" "$3" >"$tmp/lab/measurements/$1/$first.json"
        { printf '# stage\tknob\tmedian_ms\trate\tunit\n'
          awk -v s="$first" -v k="$knob" -F'\t' '{ print s "\t" k "=" $1 "\t" $2 "\t" $3 "\tGB/s" }'; } \
            >"$tmp/lab/measurements/$1/sweeps.tsv"
    }
    printf '8\t3.0\t100\n16\t1.0\t300\n32\t1.5\t200\n' | plant_run x90-2026-01-02 "NVIDIA Planted 90" 9.0
    printf '8\t1.0\t300\n16\t3.0\t100\n' | plant_run x80-2026-05-06 "NVIDIA Planted 80" 8.0
    out=$(cd "$tmp/lab" && sweep "$first" "$knob"); st=$?
    check "sweep without a GPU: the course GPU's record (not a newer one of another GPU), its best value by how much" \
        "$([ $st = 3 ] && grep -qF "  on an NVIDIA Planted 90 (compute capability 9.0, as the course's GPU), 2026-01-02, measurements/x90-2026-01-02/sweeps.tsv:" <<<"$out" &&
           grep -qxF "  $knob=16 was fastest, its rate 3.00x $knob=8's, 1.50x $knob=32's." <<<"$out" &&
           ! grep -q "NVIDIA Planted 80" <<<"$out"; ok)" "$out"
    out=$(cd "$tmp/lab" && sweep "$first" "$knob" 100); st=$?
    check "sweep without a GPU and no record of the course's compute capability: says so, then the newest of any GPU" \
        "$([ $st = 3 ] && grep -qxF "  (no record was made on a GPU of the course's compute capability, 10.0)" <<<"$out" &&
           grep -qF "  on an NVIDIA Planted 80 (compute capability 8.0), 2026-05-06," <<<"$out" &&
           grep -qxF "  $knob=8 was fastest, its rate 3.00x $knob=16's." <<<"$out" && ! grep -q "Planted 90" <<<"$out"; ok)" "$out"
    out=$(cd "$tmp/lab" && sweep "$first" NOT_A_KNOB); st=$?
    check "sweep without a GPU and no record of the knob: the cause, then one line saying so, exit 3" \
        "$([ $st = 3 ] && [ "$(wc -l <<<"$out")" = 2 ] &&
           grep -qx "sweep: no record of a sweep of $first's NOT_A_KNOB on any GPU (measurements/\*/sweeps.tsv)" <<<"$out"; ok)" "$out"
    # make sweep itself, where no GPU is and no Slurm to send to: at once,
    # nothing built (a knob value's build folder stays absent)
    if [ "$(tools/gpu-run.sh --sends-to-slurm; echo $?)" = 1 ]; then
        rm -rf "build/$first/k${!sweep_var%% *}"
        out=$(make --no-print-directory sweep EX="${first%%_*}" 2>&1); st=$?
        check "make sweep without a GPU or Slurm: the cause and the records at once, nothing built" \
            "$([ $st != 0 ] && grep -q "^sweep: cannot run $first here: no usable CUDA GPU" <<<"$out" &&
               grep -q ' was fastest' <<<"$out" && [ ! -e "build/$first/k${!sweep_var%% *}" ] && ! grep -q '^NVCC' <<<"$out"; ok)" "$out"
    fi
fi

echo "== make sweep that runs: its rows are a record make sweep without a GPU shows"
# a stand-in for each build (k<value>/exercise): a record as the driver
# writes it, its rate from its knob value, so that 16 is fastest
mkdir -p "$tmp/timed/k8" "$tmp/timed/k16" "$tmp/timed/k32"
cat >"$tmp/timed/stand-in" <<'STANDIN'
#!/bin/sh
# called as k<value>/exercise --quiet --json FILE
v=${0%/exercise}; v=${v##*/k}
if [ "$v" = 16 ]; then ms=1 rate=400; else ms=2 rate=$((100 + v)); fi
printf '{\n  "gpu": {\n    "name": "NVIDIA Stand-in",\n    "cc": "9.0"\n  },\n  "status": "ok",\n  "metric": "GB/s",\n' >"$3"
printf '  "pct_of_reference": 50,\n  "speedup_vs_baseline": 2,\n  "kernels": [\n    {\n      "name": "student",\n' >>"$3"
printf '      "median_ms": %s,\n      "rate": %s\n    }\n  ]\n}\n' "$ms" "$rate" >>"$3"
STANDIN
chmod +x "$tmp/timed/stand-in"
for v in 8 16 32; do ln -s ../stand-in "$tmp/timed/k$v/exercise"; done
run_dir=$tmp/lab2/measurements/x90-2026-02-03
mkdir -p "$run_dir"
out=$(cd "$tmp/lab2" && "$lab/tools/sweep.sh" "$first" "$knob" exercise "" "$tmp"/timed/k{8,16,32}/exercise 2>&1); st=$?
cp "$tmp/lab2/build/sweep/$first-exercise.tsv" "$run_dir/sweeps.tsv" &&
    cp "$tmp/lab2/build/sweep/$first-${knob}16-exercise.json" "$run_dir/"
said=$(cd "$tmp/lab2" && "$lab/tools/sweep-records.sh" --arch 90 "$first" "$knob" 2>&1)
check "make sweep's rows (build/sweep/STAGE-VARIANT.tsv), as a record, name the fastest value and the GPU" \
    "$([ $st = 0 ] && grep -qF "  on an NVIDIA Stand-in (compute capability 9.0, as the course's GPU), 2026-02-03," <<<"$said" &&
       grep -qxF "  $knob=16 was fastest, its rate 3.70x $knob=8's, 3.03x $knob=32's." <<<"$said"; ok)" "$out
$said"

echo "== knobs and warnings at compile time"
if ! command -v "$NVCC" >/dev/null; then
    skip "knobs: $NVCC is not installed"
else
    flags="-gencode arch=compute_90,code=sm_90 -O3 -std=c++17 -Xcompiler -Wall -Icommon"
    # a value of each stage's knob that cannot work, and the sentence it gets
    while IFS=$'\t' read -r stage define phrase; do
        # shellcheck disable=SC2086
        out=$($NVCC $flags "$define" -c "exercises/$stage/kernel.cu" -o "$tmp/k.o" 2>&1); st=$?
        check "$stage: $define is refused with a sentence ($phrase)" \
            "$([ $st != 0 ] && grep -qF "$phrase" <<<"$out"; ok)" "$out"
    done <<'TABLE'
01_naive	-DBLOCK=64	BLOCK must be from 1 to 32: the block is BLOCK x BLOCK threads
02_temp_accumulator	-DBLOCK=33	BLOCK must be from 1 to 32
03_tiled	-DTILE=64	TILE must be from 1 to 32 (make sweep tries 8, 16, 32): the block is TILE x TILE threads and holds at most 1024 (TILE=64 would need 4096)
04_transpose	-DBLOCK_ROWS=3	BLOCK_ROWS must divide 32
05_bank_conflicts	-DBLOCK_ROWS=64	BLOCK_ROWS must divide 32
06_coarsening	-DTM=6	TM and TN must be multiples of 4
06_coarsening	-DSTEP=3	STEP must be 1 (the 1D kernel
07_reduction	-DBLOCK=100	BLOCK must be a power of two from 64 to 1024
TABLE
    for s in $stages; do
        # shellcheck disable=SC2086
        out=$($NVCC $flags -c "exercises/$s/kernel.cu" -o "$tmp/k.o" 2>&1); st=$?
        check "$s: the skeleton compiles without a warning" "$([ $st = 0 ] && ! grep -qi "warning" <<<"$out"; ok)" "$out"
    done
fi

totals
