#!/usr/bin/env bash
# tests/judge/run.sh: the judge's conversation with its runners without a
# GPU (part of make check): judge/remote.c against a fake runner
# (tests/judge/fake_runner.c) that answers, hangs, dies, crashes, garbles,
# reports an error, and tries to write a file from inside build/confine/confine.
# Ends with "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/../.." || exit 2
. tools/stages.sh
CC=${CC:-cc}
out=build/tests/judge
mkdir -p "$out"
echo "== the judge and its runners (judge/remote.c)"
if ! $CC -O2 -std=c11 -Wall -Wextra -D_GNU_SOURCE -Icommon -Ijudge tests/judge/fake_runner.c judge/remote.c common/signals.c common/spawn.c common/fdio.c \
        -o "$out/fake-runner" 2>"$out/cc.log" ||
   ! $CC -O2 -std=c11 -Wall -Wextra -D_GNU_SOURCE -Icommon -Ijudge tests/judge/check.c judge/remote.c common/signals.c common/spawn.c common/fdio.c \
        -o "$out/check" 2>>"$out/cc.log"; then
    echo "FAIL  remote: the test programs compile"
    sed 's/^/      /' "$out/cc.log" | tail -n 15
    echo; echo "0 passed, 1 failed"; exit 1
fi
confine=""
skipped=0
if [ -x build/confine/confine ] && build/confine/confine --probe >/dev/null 2>&1; then
    confine=$(pwd)/build/confine/confine
else
    echo "skip  remote: a runner inside confine: this machine cannot confine"
    skipped=1
fi
target=$(pwd)/$out/escaped-from-a-runner
rm -f "$target"
results=$(LAB_FAKE_RUNNER_TARGET=$target "$out/check" "$(pwd)/$out/fake-runner" $confine 2>&1)
st=$?
# the check program itself must end, not be killed (a judge that dies of
# SIGPIPE writing to a dead runner, say)
if [ $st -gt 1 ]; then
    results="$results
FAIL  remote: the judge's side of the conversation ends normally (it ended with status $st)"
fi
echo "$results"
# the judge never runs student code: no function of a stage's kernel.cu is
# in its judge (the contract function there is the stand-in that asks the
# runner), and every one is in its runner
for judge in build/*/exercise-judge build/*/solution-judge; do
    [ -x "$judge" ] || continue
    obj=${judge%-judge}.o runner=${judge%-judge}-runner
    [ -f "$obj" ] && [ -x "$runner" ] || continue
    # kernel.cu's global functions (its static ones have names any object may reuse)
    mine=$(nm --defined-only "$obj" 2>/dev/null | awk '$2 ~ /^[TW]$/ { print $3 }' | sort -u)
    inside=$(nm --defined-only "$judge" 2>/dev/null | awk '{ print $3 }' | sort -u)
    in_runner=$(nm --defined-only "$runner" 2>/dev/null | awk '{ print $3 }' | sort -u)
    family=$(stage_family "$(basename "$(dirname "$judge")")")
    leaked=$(comm -12 <(echo "$mine") <(echo "$inside") | grep -v "^_Z${#family}${family}" | head -n 3)
    missing=$(comm -23 <(echo "$mine") <(echo "$in_runner") | head -n 3)
    if [ -n "$mine" ] && [ -z "$leaked" ] && [ -z "$missing" ]; then
        results="$results
ok    remote: $judge holds none of kernel.cu's functions; its runner holds them all"
    else
        results="$results
FAIL  remote: $judge holds none of kernel.cu's functions; its runner holds them all
      in the judge: ${leaked:-none}; not in the runner: ${missing:-none}"
    fi
done
echo "$results" | grep -A1 -E '^(ok|FAIL)  +remote: build/' | grep -v '^--' || true
passed=$(grep -c '^ok ' <<<"$results")
failed=$(grep -c '^FAIL ' <<<"$results")
echo
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ "$failed" = 0 ]
