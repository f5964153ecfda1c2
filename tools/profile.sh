#!/usr/bin/env bash
# tools/profile.sh: hardware counters of one call of a kernel, in plain words,
# beside a reference's. Behind `make profile EX=NN`; make grade calls it with
# --brief for a few lines of hints.
#
#   tools/profile.sh [--brief] STAGE BINARY [REFERENCE] [-- DRIVER-ARGS...]
#   tools/profile.sh --expected STAGE BINARY [-- DRIVER-ARGS...]
#
# BINARY is one of a stage's programs (build/03_tiled/exercise, a knob build,
# ...). It runs under Nsight Compute (ncu) with --profile: its checks first,
# then one call of the kernel between cudaProfilerStart and cudaProfilerStop,
# the only part ncu measures. REFERENCE, when given, is measured the same
# way (make profile passes the stage's solution where solutions/ exists).
# Without it the reference values come from profile/expected.tsv, for this
# stage and GPU; --expected (make profile-expected) measures BINARY and
# stores its values there.
#
# The work is done by build/tools/profile-report, a C program (profile/*.c,
# profile/profile.h says which part does what): it runs ncu, reads its raw
# CSV page and writes the report. This wrapper builds it where it is missing
# or older than its sources, and hands it the arguments.
#
# Environment: NCU (the ncu to use; default: ncu on PATH, else next to nvcc),
# PROFILE_DIR (reports; default build/profile), PROFILE_EXPECTED (the stored
# values; default profile/expected.tsv).
#
# Exit status: 0 the counters were shown, or they cannot be measured here (no
# ncu, counters restricted to administrators: one line says so); 1 the
# program failed its checks or crashed, or ncu measured nothing; 2 usage, or
# the program cannot be built; 3 no GPU. With --expected, anything short of
# a measurement exits 1.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
program=build/tools/profile-report

if [ ! -x "$root/$program" ] || [ -n "$(find "$root/profile" -newer "$root/$program" -name '*.[ch]' 2>/dev/null)" ]; then
    make --no-print-directory -s -C "$root" "$program" >&2 ||
        { echo "error: cannot build $program (make $program)" >&2; exit 2; }
fi
exec "$root/$program" --root "$root" "$@"
