#!/usr/bin/env bash
# tests/class/lab.sh DIR: the lab a class check makes and builds once
# (make class CHECK=1: OUT/lab, the student release, with the objects each
# student's copy starts from), made in DIR/lab by a class of one student
# (the first stage's skeleton) in which every stage is, so that it is
# built for each stage. make check makes it in its first suite (tests/run.sh,
# programs) for the suites that check a class (tests/class/lib.sh,
# shared_lab), which would each make the release and build it again.
# Prints ok, FAIL and skip lines, as a suite's part.
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
dir=${1:?usage: tests/class/lab.sh DIR}
rm -rf "$dir"
if ! command -v nvcc >/dev/null; then
    skip "the class lab, made once: nvcc is not installed here (each class check makes its own)"
    exit 0
fi
mk "$tmp/sub/lab/$s1/kernel.cu" "exercises/$s1/kernel.cu"
out=$(make --no-print-directory class SUBMISSIONS="$tmp/sub" OUT="$dir" CHECK=1 2>&1); st=$?
if [ $st = 5 ]; then
    skip "the class lab, made once: this machine cannot confine (each class check makes its own)"
    rm -rf "$dir"
    exit 0
fi
check "make class CHECK=1 makes its lab and builds it once, in $dir/lab, for the suites that check a class" \
    "$([ $st = 0 ] && [ -f "$dir/lab/build/flags.txt" ] && ! grep -q "the lab's own build failed" <<<"$out"; ok)" "exit $st; $out"
[ $st = 0 ] || rm -rf "$dir"
