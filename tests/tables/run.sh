#!/usr/bin/env bash
# tests/tables/run.sh: stages.tsv is the one table of the stages (part of
# make check). In copies of the lab:
#   - the stage tables of README.md and handouts/README.md are what
#     stages.tsv makes, and a stale one (planted) fails tools/tables.sh --check;
#   - a stage added to the matmul family with five files alone (its lines in
#     stages.tsv, skeleton, exercise README, solution, handout: 02's, copied
#     as 09_test) is built by make, passes tools/stage-files.sh, gets its
#     rows from make tables, and is known to the grader: its stage, points,
#     tiers, default thresholds and reference kernels;
#   - a sizes line in stages.tsv, one file, changes what that stage's
#     program checks and times (its --help says), relinks that stage alone,
#     and a list that does not begin with whole tiles is refused.
# Prints "ok"/"FAIL" lines; ends with "N passed, N failed".
set -u
lab=$(cd "$(dirname "$0")/../.." && pwd)
cd "$lab" || exit 2
pass=0 fail=0
check() { # name, status (0 = pass), details
    if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "ok    $1"
    else fail=$((fail + 1)); echo "FAIL  $1"; [ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/      /' | head -n 12; fi
}
skip() { echo "skip  $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== the stage tables of README.md and handouts/README.md"
out=$(tools/tables.sh --check 2>&1)
check "README.md's and handouts/README.md's stage tables are what stages.tsv makes (make tables)" $? "$out"

# copy DEST: the lab's files (what git tracks and what it would), dates kept
copy() {
    mkdir -p "$1"
    { git ls-files -co --exclude-standard -z 2>/dev/null ||
      find . \( -path ./build -o -path ./.git -o -path ./results \) -prune -o -type f -printf '%P\0'; } |
        tar -C "$lab" --null -T - -cf - 2>/dev/null | tar -C "$1" -xf -
}
copy "$tmp/stale"
(cd "$tmp/stale" && sed -i 's/^\(| `03_tiled` | \)[^|]*/\1a lesson of its own /' README.md &&
    sed -i 's/^\(stage\t02_temp_accumulator\t.*\t\)accumulate/\1ACCUMULATE/' stages.tsv)
out=$(tools/tables.sh --check --root "$tmp/stale" 2>&1); st=$?
check "a planted stale table fails tables --check: a row edited by hand (README.md), a lesson changed in stages.tsv (both pages)" \
    "$([ $st = 1 ] && [ "$(grep -c 'not what stages.tsv makes' <<<"$out")" = 2 ]; echo $?)" "$out"
out=$(make -s -C "$tmp/stale" tables 2>&1 && tools/tables.sh --check --root "$tmp/stale" 2>&1); st=$?
check "make tables writes them anew: then --check passes, the new lesson in both pages" \
    "$([ $st = 0 ] && grep -q '| ACCUMULATE' "$tmp/stale/README.md" && grep -q '| ACCUMULATE' "$tmp/stale/handouts/README.md" &&
       ! grep -q 'a lesson of its own' "$tmp/stale/README.md"; echo $?)" "$out"

# A stage added in five files, and its sizes: in a copy of the lab with
# solutions/ (a student release has none to copy)
added_stage() {
    echo "== a stage added in five files: 09_test, a copy of 02"
    new=$tmp/new
    copy "$new"
    cp -r "$new" "$tmp/before"
    (
        cd "$new" || exit 1
        for d in exercises solutions; do
            mkdir -p "$d/09_test" && cp "$d/02_temp_accumulator/kernel.cu" "$d/09_test/kernel.cu"
        done
        cp exercises/02_temp_accumulator/README.md exercises/09_test/README.md
        sed '1s/.*/# 09 A stage added for a test/' handouts/02_temp_accumulator.md >handouts/09_test.md
        # 02's lines, as 09_test's, at the end of the table
        { echo; awk -F'\t+' -v OFS='\t' '$2 == "02_temp_accumulator" { $2 = "09_test"; print }' stages.tsv; } >>stages.tsv
    )
    touched=$(cd "$new" && find . -type f | sed 's|^\./||' | sort | while read -r f; do
        cmp -s "$f" "$tmp/before/$f" || echo "$f"; done)
    check "adding it touches five files: stages.tsv, the skeleton, its README, the solution, the handout" \
        "$([ "$touched" = "$(printf '%s\n' exercises/09_test/README.md exercises/09_test/kernel.cu handouts/09_test.md \
                             solutions/09_test/kernel.cu stages.tsv)" ]; echo $?)" "$touched"
    out=$(cd "$new" && tools/stage-files.sh 09_test 2>&1)
    check "tools/stage-files.sh 09_test: nothing missing" $? "$out"
    out=$(make -s -C "$new" tables 2>&1 && tools/tables.sh --check --root "$new" 2>&1)
    check "make tables lists it: a row in README.md and one in handouts/README.md, titled from its handout" \
        "$(grep -q '^| `09_test` | accumulate in a register' "$new/README.md" &&
           grep -q '^| 09 | \[A stage added for a test\](09_test.md) | accumulate' "$new/handouts/README.md"; echo $?)" "$out"
    out=$(make -s -C "$new" build/stages.h 2>&1 && grep -A2 '^#define LAB_STAGE_REFERENCES' "$new/build/stages.h" >/dev/null &&
          grep -c '09_test' "$new/build/stages.h")
    check "build/stages.h has it: its stage, its rubric lines, its tiers' references, its technique lines, its sizes" \
        "$([ "${out##*$'\n'}" = 11 ]; echo $?)" "$out"
    # the grader's reading of the table and the rubric, as the grader reads them
    cat >"$tmp/knows.c" <<'EOF'
#include "grader.h"
#include <string.h>
int main(void)
{
    static rubric r;
    static tier_reference refs[MAX_REFERENCES];
    char err[512];
    if (grader_rubric_read("grader/rubric.tsv", &r, err, sizeof err))
        return printf("%s\n", err), 1;
    const stage_rubric *s = grader_rubric_stage(&r, "09_test");
    double v = 0;
    int d = 0;
    int n = grader_references_read(".", refs, MAX_REFERENCES, err, sizeof err);
    printf("points %d tiers %d", s ? s->correct_points : -1, s ? s->ntiers : -1);
    for (int k = 0; s && k < s->ntiers; k++) {
        if (grader_rubric_threshold(&s->tiers[k], "Any GPU", &v, &d))
            v = -1;
        printf(" %s=%g%s%s", s->tiers[k].name, v, d ? "(default)" : "",
               grader_reference_find(refs, n, "09_test", s->tiers[k].name) ? "+reference" : "");
    }
    printf("\n");
    return 0;
}
EOF
    out=$(cd "$new" && ${CC:-gcc} -std=c11 -D_GNU_SOURCE -Igrader -Ibuild -Icommon "$tmp/knows.c" grader/rubric.c \
          -o "$tmp/knows" 2>&1 && "$tmp/knows" 2>&1)
    check "the grader's rubric knows it: 6 points, 02's tiers with their default thresholds and reference kernels" \
        "$([ "$out" = "points 6 tiers 2 pass=5.38(default)+reference stretch=9.35(default)+reference" ]; echo $?)" "$out"

    if ! command -v "${NVCC:-nvcc}" >/dev/null; then
        skip "make builds 09_test, and its sizes: nvcc is not here"
    else
        # the lab's own build, copied with its dates, so that only 09_test compiles
        [ -d build ] && cp -a build "$new/"
        out=$(make -C "$new" -j2 build/09_test/exercise build/09_test/solution build/grader/grade 2>&1)
        check "make builds 09_test's exercise and solution" $? "$(tail -n 5 <<<"$out")"
        out=$("$new/build/09_test/exercise" --help 2>&1)
        check "without a sizes line, it checks its family's sizes: --help says so" \
            "$(grep -q 'default --sizes  256,1,17,255,1000,1025 (the family' <<<"$out" && ! grep -q 'default --n' <<<"$out"; echo $?)" "$out"
        # (--plan removes the programs it names, so that a failed build leaves none)
        out=$(cd "$new" && build/grader/grade --plan 09 && build/grader/grade --plan --reference pass 09 2>&1)
        check "the grader grades it (--plan 09), and its pass tier's reference kernel (--plan --reference pass 09)" \
            "$(grep -q 'build/09_test/exercise' <<<"$out" && grep -q 'build/09_test/pass/solution' <<<"$out"; echo $?)" "$out"

        echo "== a stage's sizes: one line of stages.tsv"
        make -s -C "$new" build/02_temp_accumulator/exercise >/dev/null 2>&1
        before=$(stat -c %Y "$new/build/02_temp_accumulator/exercise" 2>/dev/null)
        printf 'sizes\t09_test\t512,3,100\t1024\n' >>"$new/stages.tsv"
        out=$(make -C "$new" -j2 build/09_test/exercise build/02_temp_accumulator/exercise 2>&1 &&
              "$new/build/09_test/exercise" --help 2>&1)
        check "a sizes line changes what 09_test checks and times; 02 is not relinked" \
            "$(grep -q 'default --sizes  512,3,100 (this stage' <<<"$out" && grep -q 'default --n      1024' <<<"$out" &&
               grep -q "^SIZES_09_test := 512,3,100$" "$new/build/stages.mk" &&
               [ "$(stat -c %Y "$new/build/02_temp_accumulator/exercise")" = "$before" ]; echo $?)" "$out"
        sed -i 's/^sizes\t09_test\t.*/sizes\t09_test\t17,256/' "$new/stages.tsv"
        out=$(make -s -C "$new" build/09_test/exercise 2>&1 && "$new/build/09_test/exercise" --help 2>&1); st=$?
        check "a list that does not begin with whole tiles is refused (exit 2, the message names stages.tsv)" \
            "$([ $st = 2 ] && grep -q 'stages.tsv, the sizes of 09_test: the first must be of whole tiles' <<<"$out"; echo $?)" "$out"
    fi
}
if [ -d solutions ]; then
    added_stage
else
    skip "a stage added in five files: a student release has no solutions/ to copy a stage from"
fi
out=$(printf 'stage\t01_x\tmatmul\tBLOCK\t8\tx\nsizes\t01_x\t1,a\ntier\t02_y\tpass\t3\tf\t>=\tx\tadvice\ntechnique\t01_x\tx\tsectors\t=<\t1.5\t-\n' |
      awk -v out="$tmp" -f tools/stages-gen.awk 2>&1); st=$?
check "the generator names each bad line (sizes that are no sizes, a tier of a stage never defined, a technique without its comparison) and writes nothing" \
    "$([ $st = 1 ] && grep -q ':2: a sizes line needs checked sizes' <<<"$out" && grep -q ':3: a tier line needs a stage' <<<"$out" &&
       grep -q ':4: a technique line needs a technique line: technique, stage, name, measure, >= or <=' <<<"$out" &&
       [ ! -f "$tmp/stages.h" ]; echo $?)" "$out"

echo
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
