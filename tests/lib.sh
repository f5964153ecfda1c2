# tests/lib.sh: what every test script of the lab shares, sourced from the
# lab's root: counting and printing results as "ok    name", "FAIL  name"
# (with details indented beneath, the last FAIL_LINES lines, default 15) and
# "skip  name", which tests/run.sh counts again.
#   pass NAME | fail NAME [DETAILS] | skip NAME
#   check NAME STATUS [DETAILS]: pass when STATUS is 0, else fail
#   ok: the status of the last command, as text (for check's STATUS)
#   built_grade ARGS: what make grade does, with the grader's options: the
#     build (tools/grade-build.sh ARGS), then build/grader/grade ARGS
#   lab_copy DEST: a copy of this lab in DEST, its sources and its built
#     harness (not the stages' programs), for a test that builds an attack
#     with the lab's own Makefile without touching the lab
#   totals: the names of the checks that failed, then the closing
#     "N passed, N failed[, N skipped]" line; 0 when none failed
#   json_get FILE PATH, json_rows FILE ARRAY MEMBER...: a record's values,
#     read by the lab's JSON reader (tools/json.sh), never by grep or sed
passed=0 failed=0 skipped=0 failed_names=()
pass() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
fail() {
    failed=$((failed + 1)) failed_names+=("$1"); printf 'FAIL  %s\n' "$1"
    [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -n "${FAIL_LINES:-15}" | sed 's/^/      /'
    return 0
}
skip() { skipped=$((skipped + 1)); printf 'skip  %s\n' "$1"; }
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "${3:-}"; fi; }
ok() { echo $?; }
lab_copy() {
    mkdir -p "$1" && tar --exclude=./.git --exclude=./build/tests --exclude='./build/grade-*' --exclude=./results \
        --exclude='./build/[0-9][0-9]_*' -cf - . 2>/dev/null | tar -C "$1" -xf -
}
# grader_parts: the grader's C files but its main (grader/grade.c), with the one
# intake's, for a test program linked with them (-Igrader -Igrader/intake)
grader_parts() { ls grader/*.c | grep -v '^grader/grade\.c$'; ls grader/intake/*.c | grep -v '/take\.c$'; }
# host_lib: the helper library every host program links (common/util.h),
# built by make; its path on stdout
host_lib() { make -s build/common/libhost.a >&2 && echo build/common/libhost.a; }
# json_get FILE PATH: the value at PATH ("stages.0.reason") of the JSON file
# FILE, as tools/json.sh get prints it; nothing, and status 4, where none
json_get() { "$lab_json" get "$1" "$2" 2>/dev/null; }
# json_rows FILE ARRAY MEMBER...: a line for each element of the array at
# ARRAY ("tests"), its MEMBERs ("name", "status") joined by tabs, each as
# tools/json.sh flat writes it; an empty field where the element has none
# (tab: a tab, for the patterns that match those lines); the reader's status
json_rows() {
    local - file=$1 array=$2
    set -o pipefail
    shift 2
    "$lab_json" flat "$file" 2>/dev/null | awk -F'\t' -v a="$array." -v members="$*" '
        index($1, a) == 1 { p = substr($1, length(a) + 1); i = p; sub(/\..*/, "", i); sub(/^[^.]*\./, "", p)
                            v[i, p] = $2; if (i + 1 > n) n = i + 1 }
        END { c = split(members, m, " ")
              for (i = 0; i < n; i++) { line = v[i, m[1]]; for (j = 2; j <= c; j++) line = line "\t" v[i, m[j]]; print line } }'
}
lab_json=$PWD/tools/json.sh tab=$'\t'
built_grade() { tools/grade-build.sh "$@" >/dev/null || return; build/grader/grade "$@"; }
# totals: the line every suite ends with, "N passed, N failed[, N skipped]",
# after a blank one and the list of the checks that failed; its status is 0
# when nothing failed
totals() {
    echo
    if [ $failed -gt 0 ]; then
        echo "failed:"
        printf '  %s\n' "${failed_names[@]}"
    fi
    if [ $skipped -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    [ $failed = 0 ]
}
