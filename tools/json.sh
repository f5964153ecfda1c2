#!/usr/bin/env bash
# tools/json.sh: the lab's JSON reader for scripts, build/tools/json
# (tools/json.c says its commands and exit statuses), made first where it is
# missing or older than its sources; then run with the arguments given.
#
#   tools/json.sh get FILE PATH      tools/json.sh check FILE [PATH...]
#   tools/json.sh flat FILE...
#
# Exit status: the program's, or 5 when it cannot be built.
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/tools/json
if [ ! -x "$bin" ] || [ -n "$(find "$root/tools/json.c" "$root/common" -name '*.[ch]' -newer "$bin" | head -n 1)" ]; then
    # (not the jobserver of a make that runs this script: its descriptors are not ours)
    MAKEFLAGS= make -s --no-print-directory -C "$root" build/tools/json >&2 || exit 5
fi
exec "$bin" "$@"
