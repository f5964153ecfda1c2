#!/usr/bin/env bash
# tests/confine/link.sh: the link of a student's object, tested without a GPU
# (part of make check).
#
# Every g++ link loads GCC's LTO plugin, which compiles again, at link time,
# any .gnu.lto_* bytecode an object holds, with options the object stores.
# A kernel.cu can recreate those sections in top-level asm
# (tests/confine/lto/make-kernel.sh makes one with this machine's g++): its
# link then writes a file of the student's choosing (an assembler listing
# over tools/gpu-run.sh, which make grade runs next: lto/writes.cc), or
# copies a file the build could not read into the program (the solution:
# lto/reads.cc). Each attack is linked plainly first, where it must work (or
# this test proves nothing); then the lab's own builds (make, in a copy of
# the lab, and the grader's build of a --src submission) must refuse the
# object before any link: no file written, no program holding the solution.
# Likewise an object that asks the linker for writable, executable memory
# (tests/confine/wx-kernel.cu): make's programs must have none.
# Ends with "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/../.." || exit 2

. tests/lib.sh
finish() {
    totals
    exit
}

NVCC=${NVCC:-nvcc}
out=$(pwd)/build/tests/link
rm -rf "$out"
mkdir -p "$out"
echo "== the link: a kernel.cu carrying GCC's LTO bytecode"
if ! command -v "$NVCC" >/dev/null 2>&1; then
    skip "link: no nvcc here"
    finish
fi
if [ ! -d solutions/03_tiled ]; then
    skip "link: a student release has no solution to reach for"
    finish
fi
lto=tests/confine/lto
# the line of the solution that a copy of it must show
secret=$(grep -m 1 -E '^[[:space:]]*[A-Za-z_].*[;{]' solutions/03_tiled/kernel.cu)
kernel() { # NAME PAYLOAD [OPTION...]: the attack's kernel.cu, compiled by nvcc as make does (unwalled here)
    local name=$1 payload=$2
    shift 2
    "$lto/make-kernel.sh" "$lto/$payload" "$@" >"$out/$name.cu" 2>"$out/$name.log" &&
        "$NVCC" -arch=sm_90 -c "$out/$name.cu" -o "$out/$name.o" 2>>"$out/$name.log"
}
if ! kernel write-abs writes.cc -Wa,-aln="$out/planted-by-link"; then
    skip "link: this machine's g++ makes no LTO bytecode ($(tail -n 1 "$out/write-abs.log"))"
    finish
fi
printf 'void matmul(const float *, const float *, float *, int);\nint main() { matmul(0, 0, 0, 0); return 0; }\n' \
    >"$out/main.cu"
"$NVCC" -arch=sm_90 -c "$out/main.cu" -o "$out/main.o"

# -------------------------------------------- unconfined: the attacks work
o=$(cd "$out" && "$NVCC" -arch=sm_90 main.o write-abs.o -o write-prog 2>&1)
check "link: unconfined, a plain nvcc link of the object writes the file its bytecode names (-Wa,-aln=FILE)" \
    "$(grep -q 'ESCAPED: the link wrote this script' "$out/planted-by-link" 2>/dev/null; echo $?)" "$o"
# the copy happens at link time: run from the lab's root, where the path leads
kernel read reads.cc -DLAB_READ=solutions/03_tiled/kernel.cu
o=$("$NVCC" -arch=sm_90 "$out/main.o" "$out/read.o" -o "$out/read-prog" 2>&1 && "$out/read-prog" 2>&1)
check "link: unconfined, the linked program holds and prints the solution (.incbin at link time)" \
    "$(grep -qF -- "$secret" <<<"$o"; echo $?)" "$o"
nm -P -g "$out/read.o" >"$out/read.nm" 2>&1
if grep -q 'fatbin\|__cuda' "$out/read.nm"; then
    skip "link: nm here lists the object's real symbols (no GCC plugin): the symbol policy's blind spot is not here"
else
    check "link: unconfined, nm reads the object through GCC's plugin: only the bytecode's symbols, the policy's blind spot" \
        "$(grep -q 'lab_copied' "$out/read.nm"; echo $?)" "$(cat "$out/read.nm")"
fi

# ----------------------------------------- the lab's build: make, in a copy
# of the lab (sources and the built harness), with the attack as its
# exercise; the file it writes is the copy's own tools/gpu-run.sh
if [ ! -e build/flags.txt ] || [ ! -e build/common/harness.o ] || [ ! -x build/confine/confine ]; then
    skip "link: make's link: the lab is not built here (make all)"
else
    lab=$out/lab
    lab_copy "$lab"
    mkdir -p "$lab/build/03_tiled"
    cp -p build/03_tiled/sizes.txt build/03_tiled/exercise_info.o "$lab/build/03_tiled/" 2>/dev/null
    before=$(md5sum "$lab/tools/gpu-run.sh")
    for attack in write read; do
        if [ $attack = write ]; then
            "$lto/make-kernel.sh" "$lto/writes.cc" -Wa,-aln=tools/gpu-run.sh >"$lab/exercises/03_tiled/kernel.cu"
        else
            "$lto/make-kernel.sh" "$lto/reads.cc" -DLAB_READ=solutions/03_tiled/kernel.cu \
                >"$lab/exercises/03_tiled/kernel.cu"
        fi
        (cd "$lab" && make --no-print-directory build/03_tiled/exercise build/03_tiled/exercise-runner) \
            >"$out/make-$attack.log" 2>&1
        st=$?
        built=""
        for p in "$lab/build/03_tiled/exercise" "$lab/build/03_tiled/exercise-runner"; do
            [ -e "$p" ] && built="$built $p"
        done
        if [ $attack = write ]; then
            check "link: make: a kernel.cu whose bytecode writes tools/gpu-run.sh is refused, the script unchanged" \
                "$([ $st != 0 ] && [ "$(md5sum "$lab/tools/gpu-run.sh")" = "$before" ]; echo $?)" \
                "exit $st; tools/gpu-run.sh now: $(head -n 4 "$lab/tools/gpu-run.sh"); $(tail -n 5 "$out/make-$attack.log")"
        else
            leaked=0
            for p in $built; do grep -qF -- "$secret" "$p" && leaked=1; done
            check "link: make: a kernel.cu whose bytecode copies the solution is refused, no program holds it" \
                "$([ $st != 0 ] && [ $leaked = 0 ]; echo $?)" "exit $st; built:$built; $(tail -n 5 "$out/make-$attack.log")"
        fi
        check "link: make ($attack): refused before any link: neither program was made" \
            "$([ -z "$built" ]; echo $?)" "built:$built"
        check "link: make ($attack): the refusal names the student's file" \
            "$(grep -v -E '^(nvcc|build/confine/confine|g\+\+|gcc|cc) ' "$out/make-$attack.log" |
               grep -q 'exercises/03_tiled/kernel.cu'; echo $?)" "$(tail -n 5 "$out/make-$attack.log")"
        rm -f "$lab/build/03_tiled/exercise" "$lab/build/03_tiled/exercise-runner"
    done
fi

# ------------------- writable, executable memory asked of the linker
# (tests/confine/wx-kernel.cu: an "awx" section, an executable stack): no
# system call makes it, so no filter of the runner's sees it; a program
# built by make must have none (readelf: no LOAD segment both W and E, a
# GNU_STACK without E), or not be built
wx_of() { # PROGRAM: its segments that are writable and executable, and an executable stack
    readelf -lW "$1" 2>/dev/null | awk '$1 == "LOAD" && $(NF - 1) ~ /W/ && $(NF - 1) ~ /E/ { print "a LOAD segment RWX" }
        $1 == "GNU_STACK" && $(NF - 1) ~ /E/ { print "an executable stack" }'
}
if ! command -v readelf >/dev/null; then
    skip "link: writable, executable memory: readelf is not installed (it comes with binutils)"
elif ! "$NVCC" -arch=sm_90 -c tests/confine/wx-kernel.cu -o "$out/wx.o" >"$out/wx.log" 2>&1 ||
    ! "$NVCC" -arch=sm_90 "$out/main.o" "$out/wx.o" -o "$out/wx-prog" >>"$out/wx.log" 2>&1; then
    fail "link: writable, executable memory: the attack compiles and links plainly" "$(cat "$out/wx.log")"
else
    o=$("$out/wx-prog" 2>&1)
    check "link: unconfined, a plain link gives an awx section and an executable stack, and code runs in both" \
        "$([ "$(grep -c '^ESCAPED' <<<"$o")" = 2 ]; echo $?)" "$o; $(wx_of "$out/wx-prog")"
    # both asked at once, and the section alone (a check that stops at the
    # stack must still see the section)
    for variant in both section; do
        [ -n "${lab:-}" ] && [ -d "$lab" ] || break
        if [ $variant = both ]; then
            cp tests/confine/wx-kernel.cu "$lab/exercises/03_tiled/kernel.cu"
        else
            grep -v 'GNU-stack' tests/confine/wx-kernel.cu >"$lab/exercises/03_tiled/kernel.cu"
        fi
        (cd "$lab" && make --no-print-directory build/03_tiled/exercise build/03_tiled/exercise-runner) \
            >"$out/make-wx-$variant.log" 2>&1
        st=$?
        found=""
        for p in "$lab/build/03_tiled/exercise" "$lab/build/03_tiled/exercise-runner"; do
            [ -e "$p" ] && found="$found$(wx_of "$p" | sed "s|^|${p##*/}: |")"
        done
        check "link: make: a kernel.cu asking for writable, executable memory ($variant) gets none (refused, or linked without it)" \
            "$([ -z "$found" ]; echo $?)" "exit $st: $found; $(tail -n 4 "$out/make-wx-$variant.log")"
        rm -f "$lab/build/03_tiled/exercise" "$lab/build/03_tiled/exercise-runner"
    done
fi

# ------------------------------ the grader's build of a submission (--src)
if [ -x build/grader/grade ]; then
    sub=$out/submission
    mkdir -p "$sub/03_tiled"
    rm -f "$out/planted-by-link"
    cp "$out/write-abs.cu" "$sub/03_tiled/kernel.cu"
    o=$(MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" built_grade --src "$sub" 03 --out "$out/reports" 2>&1); st=$?
    check "link: make grade GRADE_SRC=: the bytecode's file is not written" \
        "$([ ! -e "$out/planted-by-link" ]; echo $?)" "exit $st: $o; $(head -n 3 "$out/planted-by-link" 2>/dev/null)"
    check "link: make grade GRADE_SRC=: the stage does not build (03_tiled: ...)" \
        "$(grep -q '03_tiled: \(did not compile\|refused\)' <<<"$o"; echo $?)" "exit $st: $o"
else
    skip "link: make grade GRADE_SRC=: no build/grader/grade here"
fi
finish
