#!/usr/bin/env bash
# tests/grader/programs.sh OUT: the grader's test programs, OUT/check (the
# grader's parts, with tests/grader/check.c), OUT/fake (a stand-in for a
# stage's program) and OUT/json (tools/json.c: the lab's JSON reader, which
# the tests query records with); the compilers' messages on stderr, exit 1
# when one does not compile. tests/grader/run.sh and gpu-fixtures.sh build them so.
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${1:?usage: tests/grader/programs.sh OUT}
CC=${CC:-cc}
mkdir -p "$out"
. tests/lib.sh
$CC -O2 -std=c11 -Wall -Wextra -Wno-format-truncation -D_GNU_SOURCE -Igrader -Igrader/intake -Ibuild -Icommon \
    tests/grader/check.c $(grader_parts) $(host_lib) -lm -o "$out/check" &&
    $CC -O2 -std=c11 -Wall -Wextra -D_GNU_SOURCE -Icommon tools/json.c $(host_lib) -lm -o "$out/json" &&
    $CC -O2 -std=c11 -Wall -D_GNU_SOURCE -Icommon tests/grader/fake_driver.c common/json.c -lm -o "$out/fake"
