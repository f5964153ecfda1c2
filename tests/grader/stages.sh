#!/usr/bin/env bash
# tests/grader/stages.sh: the grader with the real stages built, and no GPU
# (a stand-in nvidia-smi): real drivers that find none, --reference, every
# stage built first, a submission that does not compile, one not
# submitted, one that does not link. A suite of make check of its own
# (tests/run.sh), apart from the grader's other tests (tests/grader/run.sh):
# it grades in the lab's own build/ (a grade there removes the stages'
# programs before it builds them again), so it runs alone, and they beside
# other suites. Ends with "N passed, N failed[, N skipped]"; runs alone too:
#   bash tests/grader/stages.sh
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
. tools/stages.sh
NVCC=${NVCC:-nvcc}
out=build/tests/grader-stages fakebin=build/tests/grader-stages/fakebin
mkdir -p "$out/bin" "$fakebin"
if ! tests/grader/programs.sh "$out" 2>"$out/cc.log"; then
    fail "grader: the test programs compile" "$(cat "$out/cc.log")"
    totals
    exit 1
fi
echo "== grader: building the real stages"
# A stand-in nvidia-smi lets the grader go past its GPU check here: it then
# builds with make -k, checks real objects and runs real drivers, which find
# no GPU. One stage, so that only a link is needed (make all built the rest).
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    skip "grader: a driver that finds no GPU ends in exit 3: a real GPU is here (gpu-fixtures.sh grades for real)"
else
printf '#!/bin/sh\necho "GPU 0: Stand-in GPU (UUID: GPU-0)"\n' >"$fakebin/nvidia-smi"
chmod +x "$fakebin/nvidia-smi"
first=${LAB_STAGES%% *}
rm -rf "$out/real"
PATH=$fakebin:$PATH MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" \
    built_grade "$first" --out "$out/real" >"$out/real.log" 2>&1
st=$?
rget() { "$out/json" get "$out/real/grade.json" "$1" 2>/dev/null; }
check "grader: a driver that finds no GPU costs nothing of the kernel and ends in exit 3" \
    "$([ $st = 3 ] && [ -x "build/$first/exercise" ] && rget stages.0.reason | grep -q "no usable GPU"; echo $?)" \
    "$(tail -n 15 "$out/real.log")"
# --reference: a tier's reference kernel (stages.tsv) built in its
# tier's folder and run in place of the exercise
coarse=$(stage_numbered 06)
rm -rf "$out/ref"
PATH=$fakebin:$PATH MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" \
    built_grade --reference pass "$coarse" --out "$out/ref" >"$out/ref.log" 2>&1
st=$?
check "grader: --reference pass builds and runs the tier's reference kernel (build/$coarse/pass/reference)" \
    "$([ $st = 3 ] && [ -x "build/$coarse/pass/reference" ] && grep -q 'reference kernels of tier pass' "$out/ref.log" &&
       "$out/json" get "$out/ref/grade.json" stages.0.reason | grep -q "no usable GPU"; echo $?)" "$(tail -n 15 "$out/ref.log")"
fi

# a submission (--src): one stage that does not compile, one not submitted
sub=$out/submission
rm -rf "$sub" "$out/sub-reports"
stages2=$(printf '%s\n' $LAB_STAGES | head -n 2)
broken=$(head -n 1 <<<"$stages2") absent=$(tail -n 1 <<<"$stages2")
mkdir -p "$sub/$broken"
printf '#include "matmul.h"\nvoid matmul(const float *A, const float *B, float *C, int n) { oops }\n' \
    >"$sub/$broken/kernel.cu"
PATH=$fakebin:$PATH MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" \
    built_grade --src "$sub" $stages2 --out "$out/sub-reports" >"$out/sub.log" 2>&1
st=$?
sget() { "$out/json" get "$out/sub-reports/grade.json" "$1" 2>/dev/null; }
check "grader: --src: a kernel.cu that does not compile scores 0 with the compiler's error" \
    "$([ $st = 0 ] && sget stages.0.reason | grep -q "did not compile: exercises/$broken/kernel.cu(2): error"; echo $?)" \
    "$(tail -n 15 "$out/sub.log")"
check "grader: --src: a stage not submitted scores 0 and says so" \
    "$(sget stages.1.reason | grep -q "no kernel.cu was submitted"; echo $?)"
check "grader: --src builds in build/grade-src with this lab's harness" \
    "$([ "$(readlink build/grade-src/common)" = "$PWD/common" ] && [ -f "build/grade-src/exercises/$broken/kernel.cu" ]; echo $?)"
# a kernel.cu that calls cuBLAS, graded by the judge: its runner does not
# link; the reason names the linker's cause and the policy's sentence
rm -rf "$sub" "$out/link-reports"
mkdir -p "$sub/$broken"
cp tests/grader/kernels/cublas_call/kernel.cu "$sub/$broken/kernel.cu"
PATH=$fakebin:$PATH MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" \
    built_grade --judge --probed --src "$sub" "$broken" --out "$out/link-reports" >"$out/link.log" 2>&1
lget() { "$out/json" get "$out/link-reports/grade.json" "$1" 2>/dev/null; }
check "grader: a link failure names the undefined symbol and the policy's sentence (cuBLAS)" \
    "$(lget stages.0.reason | grep -q '^did not link: undefined reference to cublas.*: kernel.cu calls cuBLAS: the lab grades' &&
       lget stages.0.advice.0 | grep -q "the linker's message"; echo $?)" "$(tail -n 15 "$out/link.log")"

# every stage, as make grade builds them, where no GPU is (the real
# nvidia-smi, which lists none)
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    out2=$(built_grade 2>&1); st=$?
    nstages=$(wc -w <<<"$LAB_STAGES")
    check "grader: no GPU: builds every stage first, then exit 3 with one line saying there is none" \
        "$([ $st = 3 ] && [ "$(grep -c "compiles and links$" <<<"$out2")" = "$nstages" ] &&
           [ "$(grep -c "no NVIDIA GPU" <<<"$out2")" = 1 ]; echo $?)" "$out2"
fi
totals
