#!/usr/bin/env bash
# tests/docs/release.sh: every line of the student release's documents is
# true there (make check runs it, from tests/run.sh).
#
# Builds the release (tools/release.sh) into build/docs-release/ and reads
# its documents: README.md, each folder's README.md, the exercises' READMEs,
# the handouts and the slides (not MEASUREMENTS.md and measurements/, the
# record of what was run where, instructors' tools included). It fails on
#   - a path they name that the release does not have (tools/check-paths.sh);
#   - a make command they show (in `code` or a ``` block) whose target the
#     release has no rule for, or refuses ("this is a student release"),
#     or that sets a variable no make file, script or source of the release
#     reads (its tests aside);
#   - a measured number no record backs (tools/check-numbers.sh, the
#     release's own copy on its own records), and a duration in minutes or
#     hours, or one spelled out ("two minutes", "a few seconds"), in a
#     paragraph that names no record (MEASUREMENTS.md, measurements/...);
#   - a sentence of README.md over 40 words (the lab's README, which holds
#     the release's and the instructors' lines);
#   - records of the sweeps that make sweep without a GPU would show here
#     and not in the release (tools/sweep-records.sh).
# Each check is shown to fail on a line planted in a copy of a document.
# In a student release (no tools/release.sh) it is skipped, with a line.
# Ends with "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
. tools/stages.sh

# the documents of tree $1, one a line, relative to it
docs() {
    (cd "$1" && ls README.md */README.md exercises/*/README.md handouts/*.md slides/*.md 2>/dev/null |
        grep -v '^measurements/')
}

# the make commands shown in FILE...: "file:line<TAB>words", one a command,
# placeholders made real (EX=NN: EX=03), quoted values one word, [options] kept
make_commands() {
    awk '
    function emit(cmd,    n, w, i, out) {
        sub(/[ \t]+#.*$/, "", cmd); gsub(/"[^"]*"|\047[^\047]*\047/, "x", cmd); gsub(/[][]/, " ", cmd)
        sub(/[;|&>].*$/, "", cmd)
        n = split(cmd, w, /[ \t]+/); out = ""
        for (i = 1; i <= n; i++) {
            if (w[i] == "" || w[i] ~ /[<>]|\.\.\.|\$/) continue
            gsub(/NN|<stage>/, "03", w[i])
            out = out (out == "" ? "" : " ") w[i]
        }
        print FILENAME ":" FNR "\t" out
    }
    FNR == 1 { fence = 0 }
    /^ *(```|~~~)/ { fence = !fence; next }
    # in a block, what follows two spaces is a comment (make grade   every stage)
    fence { if (match($0, /^ *([A-Z_][A-Z0-9_]*=[^ ]* +)*make( |$)/)) { c = substr($0, RSTART); sub(/   *[^ ].*$/, "", c); emit(c) }; next }
    {
        n = split($0, part, "`")
        for (i = 2; i <= n; i += 2) if (part[i] ~ /^([A-Z_][A-Z0-9_]*=[^ ]* +)*make( |$)/) emit(part[i])
    }' "$@"
}

# what is wrong with the make commands of the documents of release $1
make_problems() {
    local rel=$1 where cmd words args w vars
    vars=$(cd "$rel" && grep -rhoE '\b[A-Z][A-Z0-9_]*\b' --exclude-dir=tests --include=Makefile --include='*.mk' --include='*.sh' \
        --include='*.c' --include='*.cc' --include='*.cu' --include='*.h' . | sort -u)
    declare -A seen=()
    while IFS=$'\t' read -r where cmd; do
        read -ra words <<<"$cmd"
        args=()
        for w in "${words[@]}"; do
            case $w in
            [A-Z_]*=*) grep -qx "${w%%=*}" <<<"$vars" ||
                echo "$where: ${w%%=*}= is read by no make file, script or source of the release" ;;
            esac
            # make's own arguments: what follows the word make (before it: the environment)
            [ ${#args[@]} = 0 ] && [ "$w" != make ] || args+=("$w")
        done
        [ -n "${seen[$cmd]+x}" ] || seen[$cmd]=$(cd "$rel" &&
            make -n -s --no-print-directory "${args[@]:1}" 2>&1 </dev/null |
            grep -oE "No rule to make target [^ ,]*|this (is a )?student release[^;:.\"]*" | head -n 1)
        [ -z "${seen[$cmd]}" ] || echo "$where: \`$cmd\`: ${seen[$cmd]}"
    done < <(cd "$rel" && make_commands $(docs .))
}

# durations in minutes or hours, or spelled out, in a paragraph that names
# no record (measured times in seconds are tools/check-numbers.sh's)
duration_problems() {
    awk '
    function flush(    i) {
        if (para !~ /MEASUREMENTS\.md|measurements\//)
            for (i = 1; i <= nd; i++) print file ":" dline[i] ": \"" dtext[i] "\": a duration that names no record"
        para = ""; nd = 0
    }
    FNR == 1 { flush(); fence = 0; file = FILENAME }
    /^ *(```|~~~)/ { fence = !fence; next }
    fence { next }
    /^[ \t]*$/ { flush(); next }
    {
        para = para " " $0; t = tolower($0)
        while (match(t, /(^|[^a-z0-9])((about |under |over |nearly |almost )?([0-9]+(\.[0-9]+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|a few|several) (minutes?|min|hours?)|(a few|several|one|two|three|four|five|six|seven|eight|nine|ten) seconds)([^a-z]|$)/)) {
            nd++; dline[nd] = FNR; dtext[nd] = substr($0, RSTART, RLENGTH); gsub(/^[^a-z0-9]|[^a-z]$/, "", dtext[nd])
            t = substr(t, RSTART + RLENGTH)
        }
    }
    END { flush() }' "$@"
}

# sentences of README.md files over 40 words: "file:line: N words: start..."
long_sentences() {
    awk '
    function flush(    s, n, i, w, words, start) {
        gsub(/<!--[^>]*-->/, " ", para)
        n = split(para, s, /[.?!] +/)
        for (i = 1; i <= n; i++) {
            w = split(s[i], words, /[ \t]+/) - (s[i] ~ /^[ \t]/)
            if (w > 40) { start = s[i]; sub(/^[ \t]+/, "", start); print file ":" pline ": " w " words: " substr(start, 1, 60) "..." }
        }
        para = ""
    }
    FNR == 1 { flush(); fence = 0; file = FILENAME }
    /^ *(```|~~~)/ { flush(); fence = !fence; next }
    fence || /^ *\|/ || /^#/ || /^<!--|^-->$/ { flush(); next }
    /^[ \t]*$/ || /^ *([-*]|[0-9]+\.) / { flush() }
    /^[ \t]*$/ { next }
    { if (para == "") pline = FNR; para = para " " $0 }
    END { flush() }' "$@"
}

# every problem of the release in $1, "file:line: what"
release_problems() {
    local rel=$1 files
    mapfile -t files < <(docs "$rel")
    (cd "$rel" && tools/check-paths.sh --root . "${files[@]}")
    make_problems "$rel"
    (cd "$rel" && { tools/check-numbers.sh; duration_problems "${files[@]}"; })
}

echo "== the student release's documents"
if [ ! -x tools/release.sh ]; then
    skip "the release's documents: this is a student release (tools/release.sh builds one in the instructors' copy)"
    totals; exit
fi
rel=build/docs-release
rm -rf "$rel"
out=$(tools/release.sh "$rel" 2>&1); st=$?
check "tools/release.sh builds a release to read" "$([ $st = 0 ] && [ -f "$rel/README.md" ]; ok)" "$out"
out=$(release_problems "$rel" 2>&1)
check "every path, make command and duration the release's documents name is true in the release" \
    "$([ -z "$out" ]; ok)" "$out"
# make sweep without a GPU reads the same records in the release as here:
# each stage's knob (tools/sweep-records.sh), the sweeps.tsv files and the
# GPUs their folders' records name
sweep_records_differ() {
    local s k
    for s in $LAB_STAGES; do
        k=LAB_KNOB_$s
        diff <(tools/sweep-records.sh --arch 90 "$s" "${!k}" 2>&1) \
            <(cd "$1" && tools/sweep-records.sh --arch 90 "$s" "${!k}" 2>&1) >/dev/null || echo "$s ${!k}"
    done
}
out=$(sweep_records_differ "$rel")
check "make sweep without a GPU shows the same records of each stage in the release as here" "$([ -z "$out" ]; ok)" "$out"
mv "$rel/measurements" "$rel/measurements.away"
out=$(sweep_records_differ "$rel")
check "a release without the sweeps' records is caught" "$([ -n "$out" ]; ok)" "$out"
mv "$rel/measurements.away" "$rel/measurements"
out=$(long_sentences README.md)
check "no sentence of README.md over 40 words" "$([ -z "$out" ]; ok)" "$out"

# each check fails on a line planted in a copy of a document
plant=$rel/exercises/$(ls "$rel/exercises" | head -n 1)/README.md
cp "$plant" "$rel/planted.md"
cat >>"$plant" <<'EOF'

Bench it with `research/experiments/planted.cu`, `make run EX=03 SOLUTION=1`,
`make planted-target` and `make run EX=03 PLANTED_KNOB=1`; it takes about two minutes.
EOF
out=$(release_problems "$rel" 2>&1)
for want in "research/experiments/planted.cu names no file" "SOLUTION=1\`: this is a student release" \
    "No rule to make target" "PLANTED_KNOB= is read by no" "\"about two minutes\": a duration that names no record"; do
    check "a planted line is caught: ${want%%:*}" "$(grep -qF -- "$want" <<<"$out"; ok)" "$out"
done
mv "$rel/planted.md" "$plant"
words=$(printf 'word %.0s' $(seq 40))
printf '# t\n\nA short one. %send.\n' "$words" >"$rel/long.md"
out=$(long_sentences "$rel/long.md")
check "a sentence of 41 words planted in a README is caught" "$(grep -q ':3: 41 words' <<<"$out"; ok)" "$out"
rm -rf "$rel"
out=$(tools/release.sh --help 2>&1); st=$?
check "tools/release.sh --help: its usage, exit 0, nothing made" "$([ $st = 0 ] && grep -q '^usage: tools/release.sh' <<<"$out" && [ ! -e ./--help ]; ok)" "$out"
out=$(tools/release.sh -x 2>&1); st=$?
check "tools/release.sh with an unknown option: its usage, exit 2" "$([ $st = 2 ] && grep -q '^usage: ' <<<"$out"; ok)" "$out"
totals
