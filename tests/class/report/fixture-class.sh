#!/usr/bin/env bash
# tests/class/report/fixture-class.sh OUT: a class's OUT as make class
# leaves it (gradebook.csv, students/NAME/grade.json), made up, for the
# tests of the report: three stages and six students, one of each kind the
# report has to show. Each record has the fields make grade writes
# (grader/report.c); the values are chosen, so the test knows them.
# Also writes OUT/expect.tsv: student stage field value, the numbers the
# page must show.
#
#   alice    every stage full marks
#   bob      03 correct but slow (misses its tier), 07 misses the stretch tier
#   carol    03 does not compile; the message names her path and holds
#            markup (<script>, &) that the page must escape
#   dave     07 flagged: a time that cannot be real
#   erin     05 timed out
#   frank    refused at intake: a row, no grade.json
set -u
out=$1
mkdir -p "$out/students"
# field threshold of each stage's tiers: name points max field threshold
tiers_03="pass 4 4 timing.pct_of_reference 13"
tiers_05="pass 4 4 timing.speedup_vs_unpadded 1.19"
tiers_07="pass 3 3 timing.ratio_to_cublas 0.704;stretch 1 1 timing.pct_of_reference 86.4"
: >"$out/expect.tsv"

# stage_json STUDENT STAGE POINTS CORRECT FLAGGED REASON VALUES...: one
# stage of a record; VALUES one per tier (- for none: not timed)
stage_json() {
    local who=$1 st=$2 pts=$3 correct=$4 flagged=$5 reason=$6; shift 6
    local spec; spec=$(eval echo "\$tiers_${st%%_*}")
    printf '    {\n      "stage": "%s",\n      "bonus": false,\n      "points": %s,\n      "max_points": 10,\n' "$st" "$pts"
    printf '      "correct": %s,\n      "ran": true,\n      "flagged": %s,\n      "reason": "%s",\n      "tiers": [\n' \
        "$correct" "$flagged" "$reason"
    local first=1 IFS=';'
    for t in $spec; do
        IFS=' ' read -r name tp tm field thr <<<"$t"
        local v=$1; shift
        [ $first = 1 ] || printf ',\n'
        first=0
        # a tier's points: its max when the value meets its threshold
        local got=0
        [ "$v" != - ] && [ "$flagged" = false ] && awk -v v="$v" -v t="$thr" 'BEGIN { exit !(v >= t) }' && got=$tm
        printf '        {\n          "name": "%s",\n          "points": %s,\n          "max_points": %s,\n' "$name" $got "$tm"
        printf '          "field": "%s",\n          "op": ">=",\n          "graded": true,\n          "threshold": %s' "$field" "$thr"
        [ "$v" = - ] || { printf ',\n          "value": %s' "$v"; printf '%s\t%s\t%s\t%s\n' "$who" "$st" "$field" "$v" >>"$out/expect.tsv"; }
        printf '\n        }'
    done
    printf '\n      ]\n    }'
}

# student NAME TOTAL then "STAGE POINTS CORRECT FLAGGED REASON|VALUES" per stage
student() {
    local who=$1 total=$2; shift 2
    mkdir -p "$out/students/$who"
    {
        printf '{\n  "schema": 1,\n  "score": %s,\n  "max_score": 30,\n  "seed": 42,\n  "gpu": "NVIDIA H100 80GB HBM3",\n  "stages": [\n' "$total"
        local first=1
        for s in "$@"; do
            IFS='|' read -r st pts correct flagged reason values <<<"$s"
            [ $first = 1 ] || printf ',\n'
            first=0
            # shellcheck disable=SC2086
            stage_json "$who" "$st" "$pts" "$correct" "$flagged" "$reason" $values
        done
        printf '\n  ]\n}\n'
    } >"$out/students/$who/grade.json"
}

student alice 30 "03_tiled|10|true|false||52.5" "05_bank_conflicts|10|true|false||1.61" \
    "07_reduction|10|true|false||0.95 91.2"
student bob 19 "03_tiled|6|true|false||9.75" "05_bank_conflicts|10|true|false||1.33" \
    "07_reduction|9|true|false||0.81 70.4"
student carol 16 "03_tiled|0|false|false|did not compile: /class/work/carol/exercises/03_tiled/kernel.cu(12): error: expected a \\\";\\\" near <script>alert(1)</script> & more|-" \
    "05_bank_conflicts|10|true|false||1.25" "07_reduction|6|true|false||0.42 40.1"
student dave 26 "03_tiled|10|true|false||33.1" "05_bank_conflicts|10|true|false||1.4" \
    "07_reduction|6|true|true||9.9 712.0"
student erin 20 "03_tiled|10|true|false||14.2" "05_bank_conflicts|0|false|false|timed out after 60 s: the kernel never finished|-" \
    "07_reduction|10|true|false||0.77 88.9"
cat >"$out/gradebook.csv" <<'CSV'
student,03_tiled,05_bank_conflicts,07_reduction,total,max,status,seed,notes
alice,10,10,10,30,30,graded,42,
bob,6,10,9,25,30,graded,42,"03_tiled: correct, too slow for the pass tier; 07_reduction: correct, too slow for the stretch tier"
carol,0,10,6,16,30,graded,42,"03_tiled: did not compile: expected a "";"" near <script>..."
dave,10,10,6,26,30,graded,42,07_reduction: correct; its time cannot be real: no speed points
erin,10,0,10,20,30,graded,42,05_bank_conflicts: timed out after 60 s
frank,,,,,,refused,42,refused: frank.tar.gz is not an archive
CSV
