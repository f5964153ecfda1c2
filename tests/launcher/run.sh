#!/usr/bin/env bash
# tests/launcher/run.sh: the doors that run student code outside a grade
# (judge/README.md, "Every door"), each with an attack of tests/launcher/:
#   - make explain KERNEL=, make status (the student's own exercises/, in a
#     copy of the lab) and make grade on the CPU with GRADE_SRC=: a
#     constructor that reaches outside its run (escape.cu.in: reads a file
#     outside the lab, writes one, opens a network socket, runs system(),
#     leaves a process behind), naming no forbidden symbol: nothing escapes;
#   - the CPU verdict: a constructor that prints success and exits 0
#     (forged_success.cu.in), host code under #ifndef __CUDACC__
#     (host_path.cu), cuBLAS (calls_cublas.cu), a stream (uses_stream.cu):
#     none is "correct", and cuBLAS and the stream are refused with the
#     GPU grade's sentence;
#   - the one intake (grader/intake/): GRADE_SRC= whose kernel.cu is a link
#     to the solution is not graded, a macOS zip is, and make explain
#     KERNEL= a link is not taken in;
#   - the intake's archivers (tar, unzip) run inside the build's wall: a
#     tar that reaches outside its folder reaches nothing;
#   - a machine that cannot confine (as root in a user namespace, where the
#     wall's probe fails): someone else's kernel.cu is not run, in one line.
# Needs build/grader/grade, build/confine/confine and the stage's emulated
# skeleton (make check builds them). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
stage=$(. tools/stages.sh && printf '%s\n' $LAB_STAGES | grep -m 1 '^03_')
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out" "$tmp/sub/$stage"
echo "the secret" >"$tmp/secret"
# the attacks find libc's functions in memory as class_escape does: its two
# functions (tests/grader/ is the instructors': a student release has none)
attacks=1
[ -f tests/grader/attacks/class_escape/kernel.cu ] || attacks=0
awk '/^static int same\(/ { p = 1 } /^__attribute__/ { p = 0 } p' tests/grader/attacks/class_escape/kernel.cu >"$tmp/finder"
make_attack() { # TEMPLATE OUTPUT
    sed -e "s|@OUT@|$tmp/out|g" -e "s|@SECRET@|$tmp/secret|g" -e "/^@FINDER@$/{r $tmp/finder" -e "d}" "$1" >"$2"
}
make_attack tests/launcher/escape.cu.in "$tmp/escape.cu"
make_attack tests/launcher/forged_success.cu.in "$tmp/forged_success.cu"

# escaped WHERE: no trace of the escape attack in its output WHERE nor in $tmp/out
escaped() { grep -q '^escaped: ' <<<"$1" || [ -n "$(ls -A "$tmp/out")" ]; }

echo "== make explain KERNEL=: someone else's kernel.cu runs inside the wall"
if [ $attacks = 0 ]; then
    skip "launcher: the escaping and forging attacks: a student release has no tests/grader/attacks/class_escape, whose way of finding libc they use"
else
out=$(make --no-print-directory explain EX=03 KERNEL="$tmp/escape.cu" 2>&1); st=$?
check "explain KERNEL=escape.cu: no read, write, socket, system() or process outside its run" \
    "$(! escaped "$out" && grep -q '^verdict: correct' <<<"$out" && [ $st = 0 ]; ok)" "exit $st; $(grep -v '^  kernel\|^ *|' <<<"$out" | tail -n 8); $(ls "$tmp/out")"
echo "== make status: the student's own kernel.cu runs inside the wall too"
# (before the plain run below, whose process left behind writes into out/ later)
# a copy of the lab whose exercises/ hold the attack: make status there
# changes nothing outside its run (the attack's folder stays empty)
lab_copy "$tmp/lab" && cp "$tmp/escape.cu" "$tmp/lab/exercises/$stage/kernel.cu"
out=$(make --no-print-directory -C "$tmp/lab" status EX=03 2>&1); st=$?
sleep 1
check "make status with escape.cu in exercises/: no read, write, socket, system() or process outside its run" \
    "$(! escaped "$out" && [ $st = 0 ] && grep -q "^ *$stage.*correct" <<<"$out"; ok)" \
    "exit $st; $(tail -n 8 <<<"$out"); $(ls "$tmp/out")"
rm -rf "$tmp/lab" "$tmp/out/"*

# the same program, run plainly (as make explain ran it): the attack works
sleep 1
out=$(build/$stage/kernels/escape-emu --sizes 1 2>&1)
sleep 1
check "the same program run plainly escapes (else the test proves nothing)" \
    "$(grep -q '^escaped: read the secret' <<<"$out" && grep -q '^escaped: system()' <<<"$out" && [ -f "$tmp/out/wrote" ]; ok)" "$out"
rm -f "$tmp/out/"*
fi

echo "== make grade on the CPU, GRADE_SRC=: the verdict from the checks' record"
verdict() { # KERNEL: the grade's line for the stage, in $line
    cp "$1" "$tmp/sub/$stage/kernel.cu"
    out=$(make --no-print-directory grade EMU=1 EX=03 GRADE_SRC="$tmp/sub" 2>&1)
    line=$(grep "^$stage " <<<"$out")
}
if [ $attacks = 1 ]; then
verdict "$tmp/escape.cu"
check "escape.cu in a graded submission: nothing escapes, correct" \
    "$(! escaped "$(cat build/emu-grade/$stage.log)" && grep -qE ' correct(;|$)' <<<"$line"; ok)" "$line; $(ls "$tmp/out")"
verdict "$tmp/forged_success.cu"
check "a constructor that prints success and exits 0: wrong, without the record" \
    "$(grep -q 'wrong: ended (exit status 0) without the harness.s result record' <<<"$line"; ok)" "$out"
fi
verdict tests/launcher/host_path.cu
check "host code under #ifndef __CUDACC__: wrong, as on a GPU" "$(grep -q "^$stage *wrong: " <<<"$line"; ok)" "$out"
verdict tests/launcher/calls_cublas.cu
check "cuBLAS: refused with the GPU grade's sentence" \
    "$(grep -q 'refused: kernel.cu uses cublas[A-Za-z_0-9]*: calls cuBLAS' <<<"$line"; ok)" "$out"
verdict tests/launcher/uses_stream.cu
check "a stream of its own: refused with the GPU grade's sentence" \
    "$(grep -q 'refused: kernel.cu uses cudaStreamCreate: ' <<<"$line"; ok)" "$out"

echo "== the one intake: GRADE_SRC= and KERNEL= compile only the copy it took in"
sol=solutions/$stage/kernel.cu
if [ ! -f "$sol" ]; then
    skip "launcher: the intake's doors: no solutions here (a student release)"
else
    mkdir -p "$tmp/linked/$stage"
    ln -s "$PWD/$sol" "$tmp/linked/$stage/kernel.cu"
    out=$(make --no-print-directory grade EMU=1 EX=03 GRADE_SRC="$tmp/linked" 2>&1); st=$?
    check "GRADE_SRC= whose kernel.cu is a link to the solution, on the CPU: not graded, one line why, no copy" \
        "$([ $st != 0 ] && grep -q "GRADE_SRC=$tmp/linked is not graded: $stage/kernel.cu is not a plain file of its own" <<<"$out" &&
           ! grep -q "^$stage .*correct" <<<"$out" && [ ! -e "build/grade-src/exercises/$stage/kernel.cu" ]; ok)" "exit $st; $out"
    if ! command -v zip >/dev/null; then
        skip "launcher: GRADE_SRC= a macOS zip: zip is not installed here"
    else
        mkdir -p "$tmp/mac/work/$stage" "$tmp/mac/__MACOSX/work/$stage"
        cp "$sol" "$tmp/mac/work/$stage/kernel.cu"
        echo "resource fork" >"$tmp/mac/__MACOSX/work/$stage/._kernel.cu"
        (cd "$tmp/mac" && zip -qr ../mac.zip work __MACOSX)
        out=$(make --no-print-directory grade EMU=1 EX=03 GRADE_SRC="$tmp/mac.zip" 2>&1); st=$?
        check "GRADE_SRC= a zip made on macOS (__MACOSX/ beside the folder), on the CPU: its kernel.cu graded, correct" \
            "$([ $st = 0 ] && grep -qE "^$stage +correct(;|\$)" <<<"$out" && cmp -s "$sol" "build/grade-src/exercises/$stage/kernel.cu"; ok)" \
            "exit $st; $out"
    fi
    ln -s "$PWD/$sol" "$tmp/link.cu"
    rm -rf "build/$stage/kernels/link"*
    out=$(make --no-print-directory explain EX=03 KERNEL="$tmp/link.cu" 2>&1); st=$?
    check "make explain KERNEL= a link to the solution: not taken in, one line why, nothing built or run" \
        "$([ $st != 0 ] && grep -q "^error: KERNEL=$tmp/link.cu is not taken in: .*not a plain file of its own" <<<"$out" &&
           ! grep -q '^verdict: ' <<<"$out" && [ ! -e "build/$stage/kernels/link-emu" ]; ok)" "exit $st; $out"
fi

echo "== the intake's archivers run inside the build's wall"
# a tar that reaches outside: a script (shell builtins only: the wall lets
# it run no other program) writing a file beside the archive and reading a
# file outside it; unconfined it does both, taken in it must do neither
mkdir -p "$tmp/fakebin" "$tmp/arch/$stage"
printf '#!/bin/sh\necho planted >%s/planted-by-tar\nread line <%s/secret && echo "read: $line" >&2\nexit 0\n' \
    "$tmp" "$tmp" >"$tmp/fakebin/tar"
chmod +x "$tmp/fakebin/tar"
echo x >"$tmp/arch/$stage/kernel.cu"
tar -C "$tmp/arch" -cf "$tmp/sub.tar" "$stage"
"$tmp/fakebin/tar" 2>/dev/null
if [ ! -e "$tmp/planted-by-tar" ]; then
    skip "launcher: the archivers' wall: the stand-in tar does not work here even unconfined"
else
    rm -f "$tmp/planted-by-tar"
    out=$(PATH=$tmp/fakebin:$PATH build/grader/take "$tmp/sub.tar" "$tmp/taken" "$stage" 2>&1); st=$?
    check "an archive's tar, taken in (build/grader/take): writes nothing outside the folder it unpacks to, reads nothing beside the archive" \
        "$([ ! -e "$tmp/planted-by-tar" ] && ! grep -q "read: the secret" <<<"$out"; ok)" "exit $st; $out"
    out=$(build/grader/take "$tmp/sub.tar" "$tmp/taken2" "$stage" 2>&1); st=$?
    check "the real tar, inside the same wall: the archive taken in" \
        "$([ $st = 0 ] && [ -f "$tmp/taken2/$stage/kernel.cu" ]; ok)" "exit $st; $out"
fi

echo "== a machine that cannot confine: someone else's code is not run"
if ! unshare -U -r true 2>/dev/null; then
    skip "no user namespace here to stand for a machine without the wall"
else
    prog=build/$stage/kernels/escape-emu
    [ $attacks = 1 ] || prog=build/$stage/exercise-emu
    out=$(unshare -U -r judge/launch.sh --stage "$stage" --object "$prog.check.o" --emulated -- "$prog" 2>&1); st=$?
    check "as root without the wall: not run, exit 5, one line" \
        "$([ $st = 5 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q '^launch: not run: this machine cannot confine' <<<"$out" &&
           ! grep -q "^escaped: " <<<"$out"; ok)" "exit $st; $out"
    out=$(unshare -U -r judge/launch.sh --own --stage "$stage" --object "$prog.check.o" --emulated -- "$prog" 2>&1); st=$?
    check "the caller's own copy, as root without the wall: not run either" "$([ $st = 5 ] && ! grep -q "^escaped: " <<<"$out"; ok)" "exit $st; $out"
fi
totals
