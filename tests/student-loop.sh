#!/usr/bin/env bash
# tests/student-loop.sh: what make says to a student in the edit, build, run
# loop (tools/loop.mk); part of make check, needs no GPU.
#
#   - a build prints one line a step and the compiler's own messages (a
#     broken kernel.cu's error with its file:line), not the wall's command
#     line; V=1 prints that line, make -s neither;
#   - a knob that a target does not use (make grade with TILE=32) or that the
#     stage has not (make run EX=03 BLOCK=16) gets one note, and the run
#     goes on; the stage's own knob (make run EX=03 TILE=32) gets none and
#     picks that build; a value that is no size is one error;
#   - without nvcc (NVCC that does not exist, or a PATH without it) every
#     target that compiles for the GPU stops with the same sentence and
#     status, and the CPU emulation still runs without it;
#   - make -n grade on the CPU emulation shows its commands and runs none;
#   - without a GPU a build targets one architecture, CUDA_ARCH=all every
#     one; SANITIZE=1 on the CPU says in one line what it does there.
# Prints "ok", "FAIL" and "skip" lines and ends with "N passed, N failed".
# Needs the lab's harness built (make all).
set -u
cd "$(dirname "$0")/.." || exit 2

. tests/lib.sh

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
. tools/stages.sh
stages=$(printf '%s\n' $LAB_STAGES)
first=$(head -n 1 <<<"$stages")
nn=${first%%_*}
kv=LAB_KNOB_$first knob=${!kv}
sv=LAB_SWEEP_$first sweep=${!sv}
value=$(tr ' ' '\n' <<<"$sweep" | tail -n 1)
# a knob of another stage that this one has not
other=""
for s in $stages; do
    k=LAB_KNOB_$s
    [ "${!k}" != "$knob" ] && [ "${!k}" != - ] && { other=${!k}; break; }
done
# make as a student types it: none of the calling make's flags (make check -s
# or V=1 would change what it prints)
lmake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u V make --no-print-directory "$@"; }

echo "== a build's messages: one line a step, the compiler's own"
if [ -z "$(command -v "${NVCC:-nvcc}")" ]; then
    skip "quiet build: nvcc is not here"
else
    # the stage's skeleton with a line that does not compile, built as make
    # builds a kernel.cu (inside the wall) by make kernel
    cp "exercises/$first/kernel.cu" "$tmp/loop_broken.cu"
    echo 'this line is not C++;' >>"$tmp/loop_broken.cu"
    bad=$(wc -l <"$tmp/loop_broken.cu")
    rm -rf "build/$first/kernels/loop_broken"*
    out=$(lmake kernel EX="$nn" KERNEL="$tmp/loop_broken.cu" 2>&1); st=$?
    check "quiet: the compile's line, then nvcc's error with its file:line, and no wall command line" \
        "$([ $st != 0 ] && grep -qx "  NVCC  $tmp/loop_broken.cu" <<<"$out" &&
           grep -q "loop_broken.cu($bad): error" <<<"$out" && ! grep -q 'confine --build' <<<"$out"; ok)" "$out"
    quiet=$out
    out=$(lmake kernel EX="$nn" KERNEL="$tmp/loop_broken.cu" V=1 2>&1); st=$?
    check "V=1: the wall's command line in full, and the same error" \
        "$([ $st != 0 ] && grep -q "confine --build .* -- .*nvcc .* -c $tmp/loop_broken.cu" <<<"$out" &&
           grep -q "loop_broken.cu($bad): error" <<<"$out" && ! grep -q '^  NVCC  ' <<<"$out"; ok)" "$out"
    # the wall's own notes (here, as root: a file in a folder the user
    # nobody cannot reach) are the wall's messages, not make's
    notes=$(grep '^confine: ' <<<"$out")
    if [ -n "$notes" ]; then
        check "quiet: the wall's notes as V=1 shows them" "$([ "$notes" = "$(grep '^confine: ' <<<"$quiet")" ]; ok)" "$quiet"
    else
        skip "quiet: the wall's notes: it had none for this build"
    fi
    out=$(lmake -s kernel EX="$nn" KERNEL="$tmp/loop_broken.cu" 2>&1); st=$?
    check "make -s: the error alone, no step line" \
        "$([ $st != 0 ] && grep -q "loop_broken.cu($bad): error" <<<"$out" && ! grep -q '^  NVCC  ' <<<"$out" &&
           ! grep -q 'confine --build' <<<"$out"; ok)" "$out"
    rm -rf "build/$first/kernels/loop_broken"*
fi

echo "== knobs given on the command line"
out=$(lmake -n run EX="$nn" "$knob=$value" 2>&1); st=$?
check "make run EX=$nn $knob=$value: no note, and the build of that value (build/$first/k$value)" \
    "$([ $st = 0 ] && ! grep -q '^note:' <<<"$out" && grep -q "build/$first/k$value/exercise" <<<"$out"; ok)" "$out"
out=$(lmake -n grade EX="$nn" "$knob=$value" EMU=0 PREBUILT=1 2>&1); st=$?
check "make grade EX=$nn $knob=$value: one note that grading does not use it, and make goes on" \
    "$([ $st = 0 ] && [ "$(grep -c '^note:' <<<"$out")" = 1 ] &&
       grep -q "^note: $knob=$value is not used by make grade: the stage is graded as its kernel.cu defines it; make run EX=$nn $knob=$value times that value$" <<<"$out" &&
       grep -q 'build/grader/grade' <<<"$out"; ok)" "$out"
out=$(lmake -n sweep EX="$nn" "$knob=$value" 2>&1); st=$?
check "make sweep EX=$nn $knob=$value: one note, the sweep of every value goes on" \
    "$([ $st = 0 ] && [ "$(grep -c '^note:' <<<"$out")" = 1 ] && grep -q "^note: $knob=$value is not used by make sweep" <<<"$out"; ok)" "$out"
if [ -n "$other" ]; then
    out=$(lmake -n run EX="$nn" "$other=16" 2>&1); st=$?
    check "make run EX=$nn $other=16: one note naming the stage's knob, $knob; the default build runs" \
        "$([ $st = 0 ] && [ "$(grep -c '^note:' <<<"$out")" = 1 ] &&
           grep -q "^note: $other=16 is not used by $first, whose knob is $knob (make run EX=$nn $knob=16)$" <<<"$out" &&
           ! grep -q "build/$first/k16/" <<<"$out"; ok)" "$out"
else
    skip "a knob the stage has not: every stage has the knob $knob"
fi
for v in abc 016 ""; do
    out=$(lmake -n run EX="$nn" "$knob=$v" 2>&1); st=$?
    check "make run EX=$nn $knob=$v: one line saying it is no size, make's error status, nothing built" \
        "$([ $st = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "$knob=$v: a knob's value is a size" <<<"$out"; ok)" "$out"
done

echo "== without nvcc: one sentence from every target"
# a PATH without nvcc: each folder of PATH that has one, shadowed by a
# folder of links to everything else in it
shadow=""
IFS=: read -r -a dirs <<<"$PATH"
i=0
for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    if [ -e "$d/nvcc" ]; then
        i=$((i + 1)) && mkdir -p "$tmp/path$i"
        for f in "$d"/*; do [ "${f##*/}" = nvcc ] || ln -s "$f" "$tmp/path$i/"; done
        d=$tmp/path$i
    fi
    shadow=${shadow:+$shadow:}$d
done
targets=("" "run EX=$nn EMU=0" "grade EMU=0" "check" "ptxas EX=$nn" "profile EX=$nn" "sweep EX=$nn" "bench" "status"
         "release DEST=$tmp/release" "class SUBMISSIONS=$tmp/none")
for way in "NVCC=/nonexistent/nvcc" "PATH=$shadow"; do
    if [ "${way%%=*}" = PATH ] && PATH=$shadow command -v nvcc >/dev/null; then
        fail "no nvcc on the PATH made for the test" "$(PATH=$shadow command -v nvcc)"
        continue
    fi
    said="" sts="" bad=""
    for t in "${targets[@]}"; do
        # (make -n: were the sentence missing, nothing would run)
        # shellcheck disable=SC2086 # the target's words
        if [ "${way%%=*}" = PATH ]; then
            out=$(PATH=$shadow lmake -n $t 2>&1); st=$?
        else
            out=$(lmake -n "$way" $t 2>&1); st=$?
        fi
        line=$(sed -E 's/^[^ ]*: \*\*\* //' <<<"$out")
        [ -z "$said" ] && said=$line
        sts="$sts $st"
        { [ "$(wc -l <<<"$out")" = 1 ] && [ "$line" = "$said" ] && [ "$st" != 0 ]; } || bad="$bad
make $t: status $st: $out"
    done
    check "${way%%=*}: make, run, grade, check, ptxas, profile, sweep, bench, status, release, class: one sentence, one status" \
        "$([ -z "$bad" ] && [ "$(tr ' ' '\n' <<<"$sts" | sort -u | grep -c .)" = 1 ] &&
           grep -q '^nvcc not found.*: install the CUDA Toolkit or put its bin folder on PATH' <<<"$said"; ok)" \
        "the first: $said$bad"
done
out=$(lmake -n help NVCC=/nonexistent/nvcc 2>&1); st=$?
check "without nvcc: make help still answers" "$([ $st = 0 ] && ! grep -q 'nvcc not found' <<<"$out"; ok)" "$out"
out=$(lmake -n run EX="$nn" EMU=1 NVCC=/nonexistent/nvcc 2>&1); st=$?
check "without nvcc: make run EMU=1 (the CPU emulation) needs none" \
    "$([ $st = 0 ] && ! grep -q 'nvcc not found' <<<"$out" && grep -q "build/$first/exercise-emu" <<<"$out"; ok)" "$out"

# make -n grade on the CPU emulation: the build's and the runs' commands
# shown, nothing run (emu/grade.sh is run by make even then: its recipe
# names $(MAKE))
rm -f "build/emu-grade/$first.log"
out=$(lmake -n grade EX="$nn" EMU=1 2>&1); st=$?
check "make -n grade EMU=1: the run's command shown, and no run (no build/emu-grade/$first.log)" \
    "$([ $st = 0 ] && [ ! -e "build/emu-grade/$first.log" ] && grep -q "build/$first/exercise-emu >build/emu-grade/$first.log" <<<"$out"; ok)" "$out"

# the architectures a build targets: without a GPU, the course GPU's alone
# (every one where Slurm sends the work to GPU nodes); CUDA_ARCH=all, every one
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    want=1
    tools/gpu-run.sh --sends-to-slurm && want=5
    out=$(LAB_CUDA_ARCH= lmake -n -B build/common/gpu.o 2>&1) # the choice itself, not make check's
    n=$(grep 'common/gpu.cu' <<<"$out" | grep -o 'code=sm_[0-9]*' | sort -u | wc -l)
    check "no GPU here: a build targets $want architecture(s) ($(grep -o 'code=sm_[0-9]*' <<<"$out" | sort -u | paste -sd ' '))" \
        "$([ "$n" = "$want" ]; ok)" "$out"
    out=$(LAB_CUDA_ARCH= lmake -n -B build/common/gpu.o CUDA_ARCH=all 2>&1)
    check "CUDA_ARCH=all: every architecture from 7.5 to 9.0, and PTX for newer GPUs" \
        "$([ "$(grep 'common/gpu.cu' <<<"$out" | grep -o 'code=sm_[0-9]*' | sort -u | tr '\n' ' ')" = \
            "code=sm_75 code=sm_80 code=sm_86 code=sm_89 code=sm_90 " ] && grep -q 'code=compute_90' <<<"$out"; ok)" "$out"
fi

# SANITIZE=1 on the CPU: compute-sanitizer needs a GPU; one line says so,
# and that the emulator's checks are on, and the run goes on as without it
out=$(lmake run EX="$nn" EMU=1 SANITIZE=1 2>&1); st=$?
check "make run EMU=1 SANITIZE=1: one line, compute-sanitizer needs a GPU and the emulator's checks are on; the run goes on" \
    "$([ "$(grep -c 'SANITIZE' <<<"$out")" = 1 ] &&
       grep -q "^SANITIZE=1: compute-sanitizer needs a GPU; on the CPU the emulator's own checks .* are always on$" <<<"$out" &&
       grep -q 'TODO(lab)' <<<"$out"; ok)" "$out"
out=$(lmake -n grade EX="$nn" EMU=1 SANITIZE=1 2>&1); st=$?
check "make -n grade EMU=1 SANITIZE=1: the same line" \
    "$([ $st = 0 ] && grep -q 'SANITIZE=1: compute-sanitizer needs a GPU' <<<"$out"; ok)" "$out"

totals
