#!/usr/bin/env bash
# run.sh: tests of the docs tooling; `make docs-test` runs it from the repository root.
#
#   - tests/docs/good*/ are small doc sets tools/check-docs.sh must accept;
#   - tests/docs/bad-*/ must be rejected, with the text in their file `expect`
#     in the output (so that each is rejected for its own reason);
#   - the lab's own handouts and slides must pass (sources only: the built HTML
#     is checked by `make docs-check`, which needs pandoc);
#   - every measured number the lab's texts quote must be in its record
#     (tools/check-numbers.sh); numbers planted wrong, or under the wrong
#     record, in a copy of a handout must be caught on their line, by the
#     checker and by `make docs-check` on a copy of the tree, and so must
#     numbers near the truth (95.3% or 93.1% for handout 08's 94.7%, other
#     values of its run) and changed cells of measured tables, since each
#     number names its value; a number without its binding, a binding that
#     fits two values or has a selector too many are refused; a table's
#     hazard count and ratio to cuBLAS are checked as its rates are;
#   - every file a comment or a text names must exist (tools/check-paths.sh),
#     and names planted stale must be caught on their line;
#   - tools/records2dat.sh must turn tests/fixtures/records/*.json into
#     tests/fixtures/records/expected/*.dat exactly;
#   - tools/records2ladder.sh must turn them into
#     tests/fixtures/records/expected/ladder_<family>.dat exactly, leave out a
#     stage whose record is missing, and refuse bad input with its own status;
#   - `make -f docs.mk plots` must draw one SVG per fixture record and one
#     ladder per family (skipped, and said so, when gnuplot is missing).
# A doc set with an html/ directory is also checked with --html html.
# Ends with the line "N passed, N failed" and fails if any test failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
MAKE=${MAKE:-make}
out_dir=build/docs-test
passed=0
failed=0
skipped=0

pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1"; [ $# -lt 2 ] || printf '%s\n' "$2" | sed 's/^/      /'; }

# run the checker on one doc set; prints its output, returns its status
check_set() {
    local dir=$1 args=(handouts)
    [ -d "$dir/slides" ] && args+=(slides)
    [ -d "$dir/html" ] && args=(--html html "${args[@]}")
    tools/check-docs.sh --root "$dir" "${args[@]}" 2>&1
}

for dir in tests/docs/good*/; do
    dir=${dir%/}
    if output=$(check_set "$dir"); then pass "check-docs accepts $dir"
    else fail "check-docs accepts $dir" "$output"; fi
done

for dir in tests/docs/bad-*/; do
    dir=${dir%/}
    expect=$(cat "$dir/expect")
    output=$(check_set "$dir"); status=$?
    if [ $status -eq 1 ] && grep -qF -- "$expect" <<<"$output"; then pass "check-docs rejects $dir"
    else fail "check-docs rejects $dir (status $status, expected 1 and \"$expect\")" "$output"; fi
done

if output=$(tools/check-docs.sh handouts slides 2>&1); then pass "the lab's handouts and slides pass check-docs"
else fail "the lab's handouts and slides pass check-docs" "$output"; fi

# the measured numbers (tools/check-numbers.sh): the lab's texts fit their
# records; a wrong number planted in a sentence or a table is caught, one
# labelled as another kernel's is not, and a right one passes within rounding
if output=$(tools/check-numbers.sh 2>&1); then pass "every measured number of the lab's texts is in its record"
else fail "every measured number of the lab's texts is in its record" "$output"; fi
nd=$out_dir/numbers
rm -rf "$nd" && mkdir -p "$nd/handouts"
printf 'The solution runs at 27,206 GFLOP/s.\n' >"$nd/sentence.md"
printf '| kernel | GFLOP/s | %% of cuBLAS |\n|---|---|---|\n| tiles, M = 32 | 8753 | 17.1 |\n' >"$nd/table.md"
printf 'Grading took 16.537 s.\n' >"$nd/seconds.md"
printf '<!-- numbers: textbook kernels -->\n\nA textbook kernel, outside this harness: 27,206 GFLOP/s.\n' >"$nd/labelled.md"
printf 'The solution: 37,865 GFLOP/s (about 37,900 GFLOP/s); grading took 18.9 s.\n' >"$nd/right.md"
printf 'The solution moves 3941 GB/s.\n' >"$nd/handouts/unnamed.md"
for f in sentence:1:27,206 table:3:8753 seconds:1:16.537 handouts/unnamed:1:3941; do
    name=${f%%:*} rest=${f#*:}
    output=$(tools/check-numbers.sh "$nd/$name.md" 2>&1); status=$?
    if [ $status = 1 ] && grep -qF "$nd/$name.md:${rest%%:*}: ${rest#*:} " <<<"$output"; then
        pass "check-numbers rejects a wrong or unrecorded number planted in $name.md"
    else fail "check-numbers rejects a wrong or unrecorded number planted in $name.md (status $status)" "$output"; fi
done
for name in labelled right; do
    if output=$(tools/check-numbers.sh "$nd/$name.md" 2>&1); then pass "check-numbers accepts $name.md"
    else fail "check-numbers accepts $name.md" "$output"; fi
done

# a handout names the record of each number: numbers planted wrong in a copy
# of handout 05, each on the line that holds its text, must be caught there,
# and the copy as it is must pass. Each case, fields split by @: what, the
# line's text, the text to replace on it and its replacement (both
# literal), what the checker must say about that line.
h=handouts/05_bank_conflicts.md
# the file $1 with text $3 replaced by $4 on line $2, to stdout
replace_on_line() {
    awk -v n="$2" -v from="$3" -v to="$4" \
        'NR == n && (i = index($0, from)) { $0 = substr($0, 1, i - 1) to substr($0, i + length(from)) } 1' "$1"
}
# plant each case read from stdin in a copy of the text $1 (under $nd), one
# at a time; the copy as it is must pass
plant_cases() {
    local h=$1 what text from to expect line output status
    mkdir -p "$nd/$(dirname "$h")"
    cp "$h" "$nd/$h"
    if output=$(tools/check-numbers.sh "$nd/$h" 2>&1); then pass "check-numbers accepts a copy of $h"
    else fail "check-numbers accepts a copy of $h" "$output"; fi
    while IFS=@ read -r what text from to expect; do
        line=$(grep -nF -- "$text" "$h" | head -1 | cut -d: -f1)
        [ -n "$line" ] || { fail "planted in $h: $what (no line holds \"$text\")"; continue; }
        replace_on_line "$h" "$line" "$from" "$to" >"$nd/$h"
        output=$(tools/check-numbers.sh "$nd/$h" 2>&1); status=$?
        if [ $status = 1 ] && grep -qF "$nd/$h:$line: $expect" <<<"$output"; then pass "check-numbers rejects $what planted in $h"
        else fail "check-numbers rejects $what planted in $h (status $status, expected line $line: $expect)" "$output"; fi
    done
}
plant_cases "$h" <<'CASES'
a wrong rate@moves 3941 GB/s@3941 GB/s@3914 GB/s@3914 GB/s is not "student rate" of measurements/h200-2026-11-23-night/05_bank_conflicts.json
a wrong percentage@moves 3941 GB/s@92.7% of@97.2% of@97.2% is not "pct_of_reference" of
a wrong ratio@moves 3941 GB/s@2.25x@2.52x@2.52x is not "speedup_vs_unpadded" of
a wrong profile counter@(the solution) | 1.14@| 1.14 @| 1.41 @1.41 (column shared-load wavefronts per instruction) is not
a right rate under another run's record@records in `measurements/h200-2026-11-23-night/`@h200-2026-11-23-night@h200-2026-11-23-late@3941 GB/s: binding "h200-2026-11-23-night/05_bank_conflicts.json student rate" names no GB/s value of measurements/h200-2026-11-23-late
a record that does not exist@records in `measurements/h200-2026-11-23-night/`@2026-11-23-night@2026-11-22-night@names measurements/h200-2026-11-22-night, which is no record
all of measurements/ for a record@records in `measurements/h200-2026-11-23-night/`@measurements/h200-2026-11-23-night/@measurements/@names measurements, which is no record
a GPU that is not its record's@Measured with this lab, NVIDIA H200, CUDA 13.0, 2026-11-23@NVIDIA H200@NVIDIA A100@says A100, which is not the GPU of
a date that is not its record's@Measured with this lab, NVIDIA H200, CUDA 13.0, 2026-11-23@2026-11-23 (@2026-11-22 (@says 2026-11-22, which is not the date of
a number without its binding@moves 3941 GB/s@3941 GB/s <!-- =h200-2026-11-23-night/05_bank_conflicts.json student rate -->@3941 GB/s@3941 GB/s names no value: write <!-- =KEY --> after it (fits: measurements/h200-2026-11-23-night/05_bank_conflicts.json student rate)
a binding that names two values@moves 3941 GB/s@h200-2026-11-23-night/05_bank_conflicts.json student rate@student rate@3941 GB/s: binding "student rate" fits
a binding with a selector too many@moves 3941 GB/s@05_bank_conflicts.json student rate -->@05_bank_conflicts.json student rate; student rate -->@binding "h200-2026-11-23-night/05_bank_conflicts.json student rate; student rate" has 2 selectors, for 1 measured numbers before it
CASES

# numbers near the truth, each some other value of the run the paragraph
# names (or a ratio of two of its rates), and changed cells of measured
# tables: each is caught, because each number names the one value it quotes
plant_cases handouts/08_warptiling.md <<'CASES'
95.3% for 94.7%@**94.7% of cuBLAS SGEMM@94.7%@95.3%@95.3% is not "pct_of_reference" of measurements/h200-2026-11-23-late/08_warptiling.json
93.1% for 94.7%@**94.7% of cuBLAS SGEMM@94.7%@93.1%@93.1% is not "pct_of_reference" of measurements/h200-2026-11-23-late/08_warptiling.json
a ratio of two records near the truth@1.28 times@1.28 times@1.31 times@1.31 times is not
a changed cell of the tile table@| 256 x 128, 64 x 64, 4 x 2, one | 219@94.3, 95.3, 94.8@94.3, 95.1, 94.8@95.1 (column H100, % of cuBLAS) is not
a changed register count@| 256 x 128, 64 x 64, 4 x 2, one | 219@| 219 @| 255 @255 (column registers) is not
a changed cell of the profiler's table@| this stage | 2.67@| 12.5 @| 24.5 @24.5 (column achieved occupancy) is not
CASES
plant_cases handouts/07_reduction.md <<'CASES'
a rate of the ladder another rung's@| 5 plus warp shuffle for the last warp | 2286@| 2286 @| 2999 @2999 (column GB/s) is not
a time of the ladder changed@| 5 plus warp shuffle for the last warp | 2286@0.117 ms@0.118 ms@0.118 ms is not
CASES
plant_cases exercises/06_coarsening/README.md <<'CASES'
a ratio no record holds, of two rates@| 1D strip (`STEP 1`)@| 2.1x @| 2.4x @2.4x is not "06_coarsening, STEP=1
CASES

# the kinds a research run's tables add (research/profile-records.sh,
# research/reduction-ladder.sh): racecheck's hazards (a table whose unit
# column says so) and a ratio to cuBLAS (a ratio_to_cublas column)
rd=$out_dir/records/h100-2026-12-01-test
rm -rf "$out_dir/records" && mkdir -p "$rd"
printf '# what\tvalue\tunit\nwithout the second barrier\t4\thazards\n' >"$rd/racecheck.tsv"
printf '# what\trate\tunit\tratio_to_cublas\nrung 6\t3922.0\tGB/s\t1.660\n' >"$rd/ladder.tsv"
research='On an H100 (2026-12-01, `measurements/h100-2026-12-01-test/`): 3922 GB/s <!-- =rung 6 rate -->, 1.66x <!-- =ratio_to_cublas --> SASUM; racecheck reports 4 hazards <!-- =without the second barrier -->.'
printf '%s\n' "$research" >"$nd/handouts/research.md"
if output=$(tools/check-numbers.sh --records "$out_dir/records" "$nd/handouts/research.md" 2>&1); then
    pass "check-numbers accepts a hazard count and a ratio to cuBLAS of their tables"
else fail "check-numbers accepts a hazard count and a ratio to cuBLAS of their tables" "$output"; fi
for wrong in "4 hazards@5 hazards" "1.66x@1.76x"; do
    printf '%s\n' "${research/${wrong%@*}/${wrong#*@}}" >"$nd/handouts/research.md"
    output=$(tools/check-numbers.sh --records "$out_dir/records" "$nd/handouts/research.md" 2>&1); status=$?
    if [ $status = 1 ] && grep -qF "research.md:1: ${wrong#*@} is not " <<<"$output"; then
        pass "check-numbers rejects ${wrong#*@} where the table holds ${wrong%@*}"
    else fail "check-numbers rejects ${wrong#*@} where the table holds ${wrong%@*} (status $status)" "$output"; fi
done

# make docs-check itself, on a copy of the tree: it passes as it is (when
# pandoc is there to build the pages), and fails on the wrong rate planted
tree=$out_dir/tree
rm -rf "$tree" && mkdir -p "$tree"
tar --exclude=./build --exclude=./.git --exclude=./results -cf - . | tar -xf - -C "$tree"
line=$(grep -nF 'moves 3941 GB/s' "$h" | head -1 | cut -d: -f1)
if command -v "${PANDOC:-pandoc}" >/dev/null 2>&1; then
    if output=$($MAKE --no-print-directory -C "$tree" -f docs.mk docs-check 2>&1); then pass "make docs-check passes on a copy of the tree"
    else fail "make docs-check passes on a copy of the tree" "$output"; fi
else
    skipped=$((skipped + 1))
    echo "skip  make docs-check on a copy of the tree: pandoc is missing (Debian/Ubuntu: apt-get install pandoc)"
fi
replace_on_line "$h" "$line" "3941 GB/s" "3914 GB/s" >"$tree/$h"
output=$($MAKE --no-print-directory -C "$tree" -f docs.mk docs-check 2>&1); status=$?
if [ $status != 0 ] && grep -qF "$h:$line: 3914 GB/s is not \"student rate\"" <<<"$output"; then
    pass "make docs-check fails on a wrong number planted in $h"
else fail "make docs-check fails on a wrong number planted in $h (status $status)" "$output"; fi
cp -p "$h" "$tree/$h"
# and on 95.3% or 93.1% for handout 08's 94.7%, values of the same run
h8=handouts/08_warptiling.md
line=$(grep -nF '**94.7% of cuBLAS SGEMM' "$h8" | head -1 | cut -d: -f1)
for near in 95.3 93.1; do
    replace_on_line "$h8" "$line" "94.7%" "$near%" >"$tree/$h8"
    output=$($MAKE --no-print-directory -C "$tree" -f docs.mk docs-check 2>&1); status=$?
    if [ $status != 0 ] && grep -qF "$h8:$line: $near% is not \"pct_of_reference\"" <<<"$output"; then
        pass "make docs-check fails on $near% for 94.7% in $h8"
    else fail "make docs-check fails on $near% for 94.7% in $h8 (status $status)" "$output"; fi
done
cp -p "$h8" "$tree/$h8"
# the thresholds a stage's text quotes (tools/check-thresholds.sh): the
# lab's texts quote only the rubric's; a stale one beside the word is
# caught, a measured value in another clause and a size are not
if output=$(tools/check-thresholds.sh 2>&1); then pass "every threshold the stages' texts quote is a row of the rubric"
else fail "every threshold the stages' texts quote is a row of the rubric" "$output"; fi
td=$out_dir/thresholds/exercises/07_reduction
rm -rf "$td" && mkdir -p "$td"
printf 'Calibrated on an H200, the
pass tier needs 1.32x; the solution reads 1.76x at 8192x8192.
' >"$td/README.md"
output=$(tools/check-thresholds.sh "$td/README.md" 2>&1); status=$?
if [ $status = 1 ] && grep -qF "README.md:2: 1.32 quoted beside a threshold" <<<"$output" && ! grep -q "1.76\|8192" <<<"$output"
then pass "check-thresholds rejects a stale threshold, and only it"
else fail "check-thresholds rejects a stale threshold, and only it (status $status)" "$output"; fi
printf 'The pass threshold on an H200 is %s%s.\n' "$(awk -F'\t+' '$1 == "threshold" && $2 == "07_reduction" { v = $5 } END { print v }' grader/rubric.tsv)" x >"$td/README.md"
if output=$(tools/check-thresholds.sh "$td/README.md" 2>&1); then pass "check-thresholds accepts a threshold of the rubric"
else fail "check-thresholds accepts a threshold of the rubric" "$output"; fi

# the files that comments and texts name (tools/check-paths.sh): the lab's
# all exist (in the instructors' copy: a student release names solutions/
# and instructors' tools it does not have); names planted stale, in a
# comment, a text and a script's comment, are caught on their line, and
# placeholders, a build's outputs and a path in code (not a comment) are not
if [ -d solutions ]; then
    if output=$(tools/check-paths.sh 2>&1); then pass "every file a comment or a text of the lab names exists"
    else fail "every file a comment or a text of the lab names exists" "$output"; fi
else
    skipped=$((skipped + 1))
    echo "skip  the files comments name: a student release names the instructors' files it leaves out"
fi
pd=$out_dir/paths
rm -rf "$pd" && mkdir -p "$pd"
printf '/*\n * stale.cu: linked with common/echo_call.cu, the echo runner\n */\nint x; // tools/check-paths.sh:1\n' >"$pd/stale.cu"
printf 'Bench it with `tools/experiments/warptile.cu`.\n' >"$pd/stale.md"
printf '#!/bin/sh\nf=tools/made-at-run-time.sh\n# the rest is in grader/gone.c\n' >"$pd/stale.sh"
for f in stale.cu:2:common/echo_call.cu stale.md:1:tools/experiments/warptile.cu stale.sh:3:grader/gone.c; do
    name=${f%%:*} rest=${f#*:}
    output=$(tools/check-paths.sh "$pd/$name" 2>&1); status=$?
    if [ $status = 1 ] && [ "$output" = "$pd/$name:${rest%%:*}: ${rest#*:} names no file of the lab" ]; then
        pass "check-paths rejects a stale name planted in $name, and only it"
    else fail "check-paths rejects a stale name planted in $name, and only it (status $status)" "$output"; fi
done
# bare names: a file that calls itself by an old name (one a file of
# grader/ has, but no file of its folder) is caught; a sibling, a file below, common/'s
# timing.cu, kernel.cu, docs.mk, a placeholder, a system header and a name on
# a line that names a commit are not
mkdir -p "$pd/bare/sub"
: >"$pd/bare/helper.c"
: >"$pd/bare/sub/deep.cu"
printf '%s\n' '/*' ' * build.c: the build (helper.c, deep.cu, timing.cu, kernel.cu, docs.mk)' \
    ' * FILE.cu:LINE, x.cu and cuda_runtime.h; gone.c, said in commit 7797b88' ' */' >"$pd/bare/confine_build.c"
output=$(tools/check-paths.sh "$pd/bare/confine_build.c" 2>&1); status=$?
if [ $status = 1 ] && [ "$output" = "$pd/bare/confine_build.c:2: build.c names no file of the lab" ]; then
    pass "check-paths rejects a stale bare name, and only it"
else fail "check-paths rejects a stale bare name, and only it (status $status)" "$output"; fi
sed -i 's/ \* build\.c:/ * confine_build.c:/' "$pd/bare/confine_build.c"
if output=$(tools/check-paths.sh "$pd/bare/confine_build.c" 2>&1); then pass "check-paths accepts the bare names of the lab"
else fail "check-paths accepts the bare names of the lab" "$output"; fi
if [ -d solutions ]; then
    printf '%s\n' 'common/<family>_family.cu, exercises/NN_name/kernel.cu, tests/docs/bad-*/,' \
        'build/judge/<family>_stub.o, common/transpose_unpadded.o, research/README.md,' \
        'handouts/../slides/lab.md, $dir/tools/none.sh and /usr/local/common/none.h' >"$pd/fine.md"
    if output=$(tools/check-paths.sh "$pd/fine.md" 2>&1); then pass "check-paths accepts placeholders, outputs and others' paths"
    else fail "check-paths accepts placeholders, outputs and others' paths" "$output"; fi
    # on the copy of the tree (no git there: every file is read), with the
    # skeleton a handout names made a file that does not exist
    if output=$(tools/check-paths.sh --root "$tree" 2>&1); then pass "check-paths passes on a copy of the tree"
    else fail "check-paths passes on a copy of the tree" "$output"; fi
    r=handouts/03_tiled.md
    line=$(grep -nF 'exercises/03_tiled/kernel.cu' "$r" | head -1 | cut -d: -f1)
    replace_on_line "$r" "$line" exercises/03_tiled/kernel.cu exercises/03_tiled/skeleton.cu >"$tree/$r"
    output=$(tools/check-paths.sh --root "$tree" 2>&1); status=$?
    if [ $status = 1 ] && grep -qxF "$r:$line: exercises/03_tiled/skeleton.cu names no file of the lab" <<<"$output"; then
        pass "check-paths rejects a stale name planted in a copy of $r, on its line"
    else fail "check-paths rejects a stale name planted in a copy of $r (status $status, line $line)" "$output"; fi
    cp -p "$r" "$tree/$r"
fi

mkdir -p "$out_dir"
for record in tests/fixtures/records/*.json; do
    stage=$(basename "$record" .json)
    expected=tests/fixtures/records/expected/$stage.dat
    if ! tools/records2dat.sh "$record" > "$out_dir/$stage.dat" 2> "$out_dir/$stage.err"; then
        fail "records2dat $record" "$(cat "$out_dir/$stage.err")"
    elif output=$(diff "$expected" "$out_dir/$stage.dat"); then pass "records2dat $record"
    else fail "records2dat $record matches $expected" "$output"; fi
done

# the ladders: each family's bars from the fixture records, as expected
for expected in tests/fixtures/records/expected/ladder_*.dat; do
    family=$(basename "$expected" .dat); family=${family#ladder_}
    if ! tools/records2ladder.sh "$family" tests/fixtures/records > "$out_dir/ladder_$family.dat" 2> "$out_dir/ladder_$family.err"; then
        fail "records2ladder $family" "$(cat "$out_dir/ladder_$family.err")"
    elif output=$(diff "$expected" "$out_dir/ladder_$family.dat"); then pass "records2ladder $family"
    else fail "records2ladder $family matches $expected" "$output"; fi
done
# a stage without a record is left out, and the other bars do not change
ld=$out_dir/ladder-records
rm -rf "$ld" && mkdir -p "$ld"
cp tests/fixtures/records/*.json "$ld"/ && rm "$ld/03_tiled.json"
grep -v '^03_tiled' tests/fixtures/records/expected/ladder_matmul.dat > "$ld/expected"
if output=$(tools/records2ladder.sh matmul "$ld" 2>&1 | diff "$ld/expected" -); then
    pass "records2ladder leaves out a stage without a record"
else fail "records2ladder leaves out a stage without a record" "$output"; fi
# bad input: each refused with its own status and a message that names the problem
cp tests/fixtures/records/03_tiled.json "$ld/01_naive.json"
sed 's/NVIDIA H200/NVIDIA H100/; s/04_transpose/05_bank_conflicts/' tests/fixtures/records/04_transpose.json > "$ld/05_bank_conflicts.json"
for case in "2:no stage of family 'sorting':sorting tests/fixtures/records" \
            "3:no record of family 'reduce':reduce $out_dir" \
            "4:holds the record of stage 03_tiled, not of 01_naive:matmul $ld" \
            "4:a ladder compares the records of one GPU:transpose $ld"; do
    want=${case%%:*} rest=${case#*:}
    text=${rest%%:*} args=${rest#*:}
    output=$(tools/records2ladder.sh $args 2>&1 >/dev/null); status=$?
    if [ "$status" = "$want" ] && grep -qF -- "$text" <<<"$output"; then
        pass "records2ladder $args: status $want"
    else fail "records2ladder $args: status $status, expected $want and \"$text\"" "$output"; fi
done

if command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    rm -rf "$out_dir/plots" "$out_dir/data"
    if output=$($MAKE --no-print-directory -f docs.mk plots PLOTS_RESULTS=tests/fixtures/records \
                 PLOTS_DIR="$out_dir/plots" PLOTS_DATA="$out_dir/data" 2>&1); then
        for record in tests/fixtures/records/*.json; do
            svg=$out_dir/plots/$(basename "$record" .json).svg
            if [ -s "$svg" ] && grep -q '<svg' "$svg"; then pass "plots draws $svg"
            else fail "plots draws $svg" "$output"; fi
        done
        for family in matmul transpose reduce; do
            svg=$out_dir/plots/ladder_$family.svg
            if [ -s "$svg" ] && grep -q '<svg' "$svg"; then pass "plots draws $svg"
            else fail "plots draws $svg" "$output"; fi
        done
    else
        fail "make -f docs.mk plots on the fixture records" "$output"
    fi
else
    skipped=$((skipped + 1))
    echo "skip  plots from the fixture records: gnuplot is missing (Debian/Ubuntu: apt-get install gnuplot-nox)"
fi

if [ $skipped -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ $failed -eq 0 ]
