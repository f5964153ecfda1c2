#!/usr/bin/env bash
# tools/profile.sh: hardware counters of one call of a kernel, in plain words,
# beside a reference's. Behind `make profile EX=NN`; make grade calls it with
# --brief for a few lines of hints.
#
#   tools/profile.sh [--brief] STAGE BINARY [REFERENCE] [-- DRIVER-ARGS...]
#   tools/profile.sh --expected STAGE BINARY [-- DRIVER-ARGS...]
#
# The work is done by build/tools/profile-report, a C program (profile/*.c;
# profile/profile.h says which part does what): this wrapper builds it where
# it is missing or older than its sources, and hands it the arguments. What
# they mean, the environment (NCU, PROFILE_DIR, PROFILE_EXPECTED) and the
# exit statuses (2 also when the program cannot be built): profile/main.c.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
program=build/tools/profile-report

if [ ! -x "$root/$program" ] || [ -n "$(find "$root/profile" -newer "$root/$program" -name '*.[ch]' 2>/dev/null)" ]; then
    make --no-print-directory -s -C "$root" "$program" >&2 ||
        { echo "error: cannot build $program (make $program)" >&2; exit 2; }
fi
exec "$root/$program" --root "$root" "$@"
