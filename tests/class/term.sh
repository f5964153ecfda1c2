#!/usr/bin/env bash
# tests/class/term.sh: make class with a roster, the submissions' times and
# a deadline, and make export, without a GPU: a stand-in for make grade
# (tests/class/fake-make) scores each kernel. A made-up class: 13 on the
# roster (a spreadsheet's CSV: byte-order mark, header, CRLF, a name with a
# comma), 12 entries in SUBMISSIONS: one who sent nothing, one 2 days late,
# one late by TIMES alone, one whose extra day makes them on time, a zip
# made on macOS, a tarball the roster names by its file name, a Gradescope
# export's folder matched by its SID, and one the roster does not name;
# two of the roster sent no entry at all. Then the gradebook made again
# with another deadline (no one graded again), the exports parsed as an
# importer reads CSV, and the inputs that are refused (exit 7, or 2).
#
# Then the same class checked without a GPU (make class CHECK=1, the CPU
# half of INSTRUCTORS.md's worked term): its rows name each bug, its
# report counts each stage, and the time it took is printed.
#
# Prints "ok", "FAIL" and "skip" lines; ends with "N passed, N failed".
# make check runs it (tests/run.sh); it runs alone too:
#   bash tests/class/term.sh
# TERM_KEEP=dir makes the class in dir and keeps it, each make class's
# output in dir/*.out (the worked term was recorded so).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C TZ=UTC
. tests/lib.sh
. tests/class/lib.sh
if [ -n "${TERM_KEEP:-}" ]; then
    mkdir -p "$TERM_KEEP" && tmp=$(cd "$TERM_KEEP" && pwd) || exit 2
else
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
fi
cls=$PWD/build/grader/class fake=$PWD/tests/class/fake-make
if ! out=$(make --no-print-directory -s build/grader/class build/grader/report build/grader/similarity 2>&1); then
    fail "build/grader/class builds" "$out"
    totals
    exit 1
fi
. tools/stages.sh
s1=$(printf '%s\n' $LAB_STAGES | sed -n 1p) s2=$(printf '%s\n' $LAB_STAGES | sed -n 2p)
s3=$(printf '%s\n' $LAB_STAGES | grep -m 1 '^03_') s7=$(printf '%s\n' $LAB_STAGES | grep -m 1 '^07_')

# ======================================================== the class
subs=$tmp/submissions
# NAME WHEN [STAGE...]: a folder of the solutions of those stages, its files dated WHEN
folder() {
    local name=$1 when=$2 s
    shift 2
    mkdir -p "$subs/$name"
    for s in "$@"; do mkdir -p "$subs/$name/exercises/$s" && cp "solutions/$s/kernel.cu" "$subs/$name/exercises/$s/"; done
    find "$subs/$name" -type f -exec touch -d "$when" {} +
}
mkdir -p "$subs"
folder alice "2026-11-19 12:00" $LAB_STAGES
folder carol "2026-11-22 08:00" "$s1" "$s2"
folder dave "2026-11-21 12:00" "$s1"
folder frank "2026-11-20 09:00" "$s1"
for n in gina hal ivy zed; do folder "$n" "2026-11-20 20:00" "$s1"; done
# what the check (CHECK=1) names, past the stages the stand-in grades: a
# stage 2 that does not compile (gina), a missing barrier in 07 (hal: the
# solution without the second barrier of its tree), a read past the end
# in 03 (ivy: tests/emu/matmul_tiled_edge_guard_le.cu)
mkdir -p "$subs/gina/exercises/$s2" && sed '0,/;$/s/;$//' "solutions/$s2/kernel.cu" >"$subs/gina/exercises/$s2/kernel.cu"
if [ -n "$s3" ] && [ -n "$s7" ]; then
    mkdir -p "$subs/hal/exercises/$s7" "$subs/ivy/exercises/$s3"
    awk '/^ *__syncthreads\(\); *$/ && ++n == 2 { next } { print }' "solutions/$s7/kernel.cu" >"$subs/hal/exercises/$s7/kernel.cu"
    cp tests/emu/matmul_tiled_edge_guard_le.cu "$subs/ivy/exercises/$s3/kernel.cu"
fi
find "$subs/gina" "$subs/hal" "$subs/ivy" -type f -exec touch -d "2026-11-20 20:00" {} +
mkdir -p "$subs/erin" && echo "I could not make it work" >"$subs/erin/notes.txt"
mkdir -p "$tmp/bob/bob-lab/$s1" && cp "exercises/$s1/kernel.cu" "$tmp/bob/bob-lab/$s1/"
tar -C "$tmp/bob" -czf "$subs/bob.tar.gz" bob-lab && touch -d "2026-11-20 10:00" "$subs/bob.tar.gz"
mkdir -p "$tmp/mac/bea/exercises/$s1" "$tmp/mac/__MACOSX/bea/exercises/$s1"
cp "solutions/$s1/kernel.cu" "$tmp/mac/bea/exercises/$s1/"
echo "resource fork" >"$tmp/mac/__MACOSX/bea/exercises/$s1/._kernel.cu"
(cd "$tmp/mac" && zip -qr "$subs/bea.zip" bea __MACOSX) && touch -d "2026-11-20 12:00" "$subs/bea.zip"
# Gradescope's export, a pair's submission: the first submitter's SID and
# email; its time the metadata's, not the files' (dated late)
folder submission_101 "2026-11-25 00:00" "$s1"
cat >"$subs/submission_metadata.yml" <<'YML'
submission_101:
  :submitters:
  - :name: Ann Lee
    :sid: '1001'
    :email: ann@example.edu
  - :name: Ben Ode
    :sid: '1002'
    :email: ben@example.edu
  :created_at: 2026-11-20 10:00:00.000000000 -08:00
  :score: 10.0
YML
roster=$tmp/roster.csv
printf '\357\273\277Name,ID,Email,Extra days\r\n' >"$roster"
printf '%s\r\n' "alice,A01,alice@example.edu," "bob.tar.gz,A02,bob@example.edu," "carol,A03,carol@example.edu" \
    "dave,A04,dave@example.edu,1" "bea,A05,bea@example.edu,0" '"Lee, Ann",1001,ann@example.edu' \
    "erin,A07,erin@example.edu" "kim,A12,kim@example.edu" "frank,A08,frank@example.edu" "gina,A09,gina@example.edu" \
    "hal,A10,hal@example.edu" "ivy,A11,=ivy@example.edu" "Jo Lee,A13,jo@example.edu" >>"$roster"
printf 'name,time\nfrank,2026-11-21 09:00 +0000\n' >"$tmp/times.csv"
deadline="2026-11-20T15:59:00-08:00"

echo "== make class with ROSTER, TIMES, DEADLINE and LATE_PENALTY"
o=$tmp/out log=$tmp/graded.log
out=$(CLASS_MAKE=$fake FAKE_GRADE_LOG=$log make --no-print-directory class SUBMISSIONS="$subs" OUT="$o" \
    EX="$s1 $s2" SEED=42 ROSTER="$roster" TIMES="$tmp/times.csv" DEADLINE="$deadline" LATE_PENALTY=3 2>&1); st=$?
printf '%s\n' "$out" >"$tmp/graded.out"
book=$o/gradebook.csv
# got NAME COLUMN: a column of the student's row
got() { field "$(row "$o" "$1")" "$(column "$o" "$2")"; }
check "exit 0; the header: student, id, the stages, submitted, days_late, late_penalty, total, max, status, seed, notes" \
    "$([ $st = 0 ] && [ "$(head -n 1 "$book")" = "student,id,$s1,$s2,submitted,days_late,late_penalty,total,max,status,seed,notes" ]; ok)" \
    "exit $st; $out; $(cat "$book" 2>&1)"
check "a row for each roster entry, in its order, with its id; then the one it does not name" \
    "$([ "$(tail -n +2 "$book" | cut -d, -f1 | tr '\n' ' ')" = "alice bob carol dave bea Ann_Lee erin kim frank gina hal ivy Jo_Lee zed " ] &&
       [ "$(tail -n +2 "$book" | cut -d, -f2 | tr '\n' ' ')" = "A01 A02 A03 A04 A05 1001 A07 A12 A08 A09 A10 A11 A13  " ]; ok)" \
    "$(cat "$book")"
check "two on the roster sent nothing: 'no submission' rows with their ids, and the run names them" \
    "$([ "$(got kim status)" = "no submission" ] && [ "$(got Jo_Lee status)" = "no submission" ] &&
       grep -q "^roster: 13 students; no submission: kim, Jo Lee$" <<<"$out"; ok)" "$out"
check "one sent a folder with no kernel.cu: 'no submission', with its id, and no time to count late" \
    "$([ "$(got erin status)" = "no submission" ] && [ "$(got erin id)" = A07 ] && [ -z "$(got erin days_late)" ]; ok)" \
    "$(row "$o" erin)"
check "the one the roster does not name: graded, no id, the notes and the run say so" \
    "$([ "$(got zed status)" = graded ] && [ -z "$(got zed id)" ] && grep -q "^not on the roster" <<<"$(got zed notes)" &&
       grep -q "^not on the roster (.*): zed$" <<<"$out"; ok)" "$out; $(row "$o" zed)"
check "2 days late at 3 points a day: 6 points off the total, in the row and the run" \
    "$([ "$(got carol days_late)" = 2 ] && [ "$(got carol late_penalty)" = 6 ] && [ "$(got carol total)" = 14 ] &&
       [ "$(got carol "$s1")" = 10 ] && grep -q "^late 2 days: -6 points" <<<"$(got carol notes)" &&
       grep -q "^late (deadline 2026-11-20 23:59:00 +0000, 3 points off for each day late): carol 2 days -6 points, frank 1 day -3 points$" <<<"$out"; ok)" \
    "$out; $(row "$o" carol)"
check "TIMES wins over the folder's own time: 1 day late" \
    "$([ "$(got frank submitted)" = "2026-11-21 09:00:00 +0000" ] && [ "$(got frank days_late)" = 1 ] && [ "$(got frank total)" = 7 ]; ok)" \
    "$(row "$o" frank)"
check "a day late with a day's extension from the roster: not late" \
    "$([ "$(got dave days_late)" = 0 ] && [ "$(got dave total)" = 10 ] && [ "$(got dave late_penalty)" = 0 ]; ok)" "$(row "$o" dave)"
check "a folder's time is its newest file's; an archive's its own" \
    "$([ "$(got alice submitted)" = "2026-11-19 12:00:00 +0000" ] && [ "$(got bob submitted)" = "2026-11-20 10:00:00 +0000" ] &&
       [ "$(got alice total)" = 20 ] && [ "$(got bob total)" = 0 ]; ok)" "$(row "$o" alice; row "$o" bob)"
check "a Gradescope export: its SID matches the roster, its time is the metadata's (files dated later)" \
    "$([ "$(got Ann_Lee id)" = 1001 ] && [ "$(got Ann_Lee submitted)" = "2026-11-20 18:00:00 +0000" ] &&
       [ "$(got Ann_Lee days_late)" = 0 ] && [ "$(got Ann_Lee total)" = 10 ]; ok)" "$(row "$o" Ann_Lee)"
check "a zip made on macOS: graded" "$([ "$(got bea total)" = 10 ] && [ "$(got bea status)" = graded ]; ok)" "$(row "$o" bea)"
check "the class report shows the late note and the total after it" \
    "$(grep -q "late 2 days: -6 points" "$o/report.html" && grep -q '<td class="total">14/20</td>' "$o/report.html"; ok)" \
    "$(grep -c . "$o/report.html" 2>&1)"

echo "== make export"
out=$(make --no-print-directory export OUT="$o" ASSIGNMENT="Lab 3, memory" 2>&1); st=$?
gs=$(csv_tsv "$o/gradebook-gradescope.csv" 2>&1) cv=$(csv_tsv "$o/gradebook-canvas.csv" 2>&1)
pl=$(csv_tsv "$o/gradebook-plain.csv" 2>&1)
tab=$'\t'
check "make export: exit 0, the three files, well-formed CSV; the one not on the roster left out and named" \
    "$([ $st = 0 ] && [ "$(grep -c '^export: ' <<<"$out")" = 3 ] && csv_tsv "$o/gradebook-gradescope.csv" >/dev/null &&
       csv_tsv "$o/gradebook-canvas.csv" >/dev/null && csv_tsv "$o/gradebook-plain.csv" >/dev/null &&
       grep -q "^left out, not on the roster or without an id: zed$" <<<"$out"; ok)" "exit $st; $out; $gs; $cv; $pl"
check "Gradescope: Name, SID, Email, Total Score; a row for each of the 13, the roster's name and email, the late total" \
    "$([ "$(head -n 1 <<<"$gs")" = "Name${tab}SID${tab}Email${tab}Total Score" ] && [ "$(tail -n +2 <<<"$gs" | wc -l)" = 13 ] &&
       grep -qx "Lee, Ann${tab}1001${tab}ann@example.edu${tab}10" <<<"$gs" && grep -qx "carol${tab}A03${tab}carol@example.edu${tab}14" <<<"$gs" &&
       grep -qx "kim${tab}A12${tab}kim@example.edu${tab}0" <<<"$gs" && ! grep -q zed <<<"$gs"; ok)" "$gs"
# a field a spreadsheet would run as a formula is kept as text
check "export: a field that begins like a formula (=...) gets a leading apostrophe" \
    "$(grep -q "^ivy${tab}A11${tab}'=ivy@example.edu${tab}" <<<"$gs"; ok)" "$(grep ivy <<<"$gs")"
check "Canvas: Student, ID, SIS User ID, SIS Login ID, Section, the assignment; Points Possible; the ids as SIS User ID" \
    "$([ "$(head -n 2 <<<"$cv")" = "Student${tab}ID${tab}SIS User ID${tab}SIS Login ID${tab}Section${tab}Lab 3, memory
Points Possible${tab}${tab}${tab}${tab}${tab}20" ] && [ "$(tail -n +3 <<<"$cv" | wc -l)" = 13 ] &&
       grep -qx "frank${tab}${tab}A08${tab}${tab}${tab}7" <<<"$cv" && grep -qx "Jo Lee${tab}${tab}A13${tab}${tab}${tab}0" <<<"$cv"; ok)" "$cv"
check "plain: id, total, each stage; the stages' points as graded, the total after the penalty" \
    "$([ "$(head -n 1 <<<"$pl")" = "id${tab}total${tab}$s1${tab}$s2" ] && [ "$(tail -n +2 <<<"$pl" | wc -l)" = 13 ] &&
       grep -qx "A03${tab}14${tab}10${tab}10" <<<"$pl" && grep -qx "A01${tab}20${tab}10${tab}10" <<<"$pl"; ok)" "$pl"

echo "== a new deadline: the gradebook made again, no one graded again"
: >"$log"
out=$(CLASS_MAKE=$fake FAKE_GRADE_LOG=$log make --no-print-directory class SUBMISSIONS="$subs" OUT="$o" \
    DEADLINE="2026-11-23 00:00" 2>&1); st=$?
check "DEADLINE moved: carol on time, frank too, the penalty kept; no make grade ran" \
    "$([ $st = 0 ] && [ ! -s "$log" ] && [ "$(got carol total)" = 20 ] && [ "$(got carol days_late)" = 0 ] &&
       [ "$(got frank total)" = 10 ] && grep -q "3 points off for each day late): no one$" <<<"$out"; ok)" \
    "exit $st; $out; $(cat "$log")"

echo "== make class CHECK=1: the same class checked without a GPU"
# the CPU half of the worked term (INSTRUCTORS.md, "A worked term"): every
# stage of the lab built inside the wall and run on the CPU emulator,
# confined; the time it took is printed, and recorded in MEASUREMENTS.md
oc=$tmp/check
# want STAGE: what the class sent of it, as the report counts it: sent,
# compiled, did not compile, correct, wrong, skeleton
want() {
    case $1 in
        "$s1") echo "11 11 0 10 0 1" ;;
        "$s2") echo "3 2 1 2 0 0" ;;
        "$s3" | "$s7") echo "2 2 0 1 1 0" ;;
        *) echo "1 1 0 1 0 0" ;;
    esac
}
if ! command -v nvcc >/dev/null; then
    skip "make class CHECK=1 on the class of 12: nvcc is not installed here"
else
    t0=$SECONDS
    out=$(make --no-print-directory class SUBMISSIONS="$subs" OUT="$oc" CHECK=1 ROSTER="$roster" 2>&1); st=$?
    took=$((SECONDS - t0))
    printf '%s\n' "$out" >"$tmp/check.out"
    if [ $st = 5 ]; then
        skip "make class CHECK=1 on the class of 12: this machine cannot confine ($(grep -m 1 'cannot confine' <<<"$out"))"
    else
        cb=$oc/gradebook.csv
        check "CHECK=1 with ROSTER: exit 0 ($took s for 12 students, 2 of the roster sending nothing); a row for each roster entry, in its order, with its id" \
            "$([ $st = 0 ] && [ "$(tail -n +2 "$cb" | cut -d, -f1,2 | tr '\n' ' ')" = "$(tail -n +2 "$book" | cut -d, -f1,2 | tr '\n' ' ')" ] &&
               [ "$(status_of "$oc" kim)" = "no submission" ] && [ "$(grep -c ',checked,' "$cb")" = 11 ]; ok)" "exit $st; $out; $(cat "$cb" 2>&1)"
        check "CHECK=1: the rows name each bug: $s2 does not compile (gina), the race in $s7 (hal), the read past the end in $s3 (ivy); bob's skeleton" \
            "$(grep -q "$s2: did not compile: " <<<"$(notes_of "$oc" gina)" &&
               grep -qF "$s7: a race on shared memory, partial[" <<<"$(notes_of "$oc" hal)" &&
               grep -qF "$s3: reads A[" <<<"$(notes_of "$oc" ivy)" && grep -q "past the end of A" <<<"$(notes_of "$oc" ivy)" &&
               [ "$(field "$(row "$oc" bob)" "$(column "$oc" "$s1")")" = skeleton ] &&
               [ "$(tail -n +2 "$cb" | grep '^alice,' | cut -d, -f3-$((2 + $(wc -w <<<"$LAB_STAGES"))) | tr ',' '\n' | sort -u)" = "correct (emulated)" ]; ok)" \
            "$(cat "$cb" 2>&1)"
        bad=""
        for s in $LAB_STAGES; do
            got=$(awk -v id="id=\"stage-$s\"" 'index($0, id) { on = 1 } on && /class="counts"/ { print; exit }' "$oc/report.html" |
                sed 's/.*data-sent="\([0-9]*\)" data-compiled="\([0-9]*\)" data-not-compiled="\([0-9]*\)" data-correct="\([0-9]*\)" data-wrong="\([0-9]*\)" data-skeleton="\([0-9]*\)".*/\1 \2 \3 \4 \5 \6/')
            [ "$got" = "$(want "$s")" ] || bad="$bad $s: '$got', not '$(want "$s")';"
        done
        check "CHECK=1: the report, stage by stage: sent, compiled, did not compile, correct and wrong on the CPU, skeletons" \
            "$([ -z "$bad" ]; ok)" "$bad"
    fi
fi

echo "== what is refused"
# bad OUT ROSTER-LINES...: make class with a roster of those lines into OUT
bad_roster() {
    local out=$1
    shift
    printf '%s\n' "$@" >"$tmp/bad.csv"
    CLASS_MAKE=$fake "$cls" --submissions "$subs" --out "$tmp/$out" --roster "$tmp/bad.csv" 2>&1
}
out=$(bad_roster bad1 "alice,A01,alice@example.edu" "bob,A02"); st=$?
check "a roster line with two fields: exit 7, the line named, before the lab is made" \
    "$([ $st = 7 ] && grep -q "bad.csv line 2 has 2 fields, not: name or folder, student id, email" <<<"$out" &&
       [ ! -e "$tmp/bad1/lab" ]; ok)" "exit $st; $out"
out=$(bad_roster bad2 "alice,A01,alice@example.edu" "bob,A01,bob@example.edu"); st=$?
check "two roster lines with one id: exit 7, both lines named" \
    "$([ $st = 7 ] && grep -q "lines 1 and 2 have one student id, A01" <<<"$out"; ok)" "exit $st; $out"
out=$(bad_roster bad2e "alice,A01,alice@example.edu" "bob,A02,Alice@example.edu"); st=$?
check "two roster lines with one email: exit 7" "$([ $st = 7 ] && grep -q "lines 1 and 2 have one email" <<<"$out"; ok)" "exit $st; $out"
out=$(bad_roster bad3 "alice,A01,alice@example.edu,soon"); st=$?
check "extra days that are not a number: exit 7" "$([ $st = 7 ] && grep -q "extra days that are not" <<<"$out"; ok)" "exit $st; $out"
out=$(bad_roster bad4 '"alice,A01,alice@example.edu'); st=$?
check "a quote left open: exit 7, saying how to write a comma" "$([ $st = 7 ] && grep -q "a quote is left open" <<<"$out"; ok)" "exit $st; $out"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$subs" --out "$tmp/bad5" --deadline "next friday" 2>&1); st=$?
check "DEADLINE that is not a time: exit 7 with the forms it takes" \
    "$([ $st = 7 ] && grep -q "DEADLINE 'next friday' is not a time" <<<"$out"; ok)" "exit $st; $out"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$subs" --out "$tmp/bad6" --deadline "2026-02-30 12:00" 2>&1); st=$?
check "DEADLINE on a day the month lacks: exit 7" "$([ $st = 7 ]; ok)" "exit $st; $out"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$subs" --out "$tmp/bad7" --deadline "$deadline" --late-penalty -1 2>&1); st=$?
check "LATE_PENALTY below 0: exit 7" "$([ $st = 7 ] && grep -q "LATE_PENALTY is the points" <<<"$out"; ok)" "exit $st; $out"
printf 'frank,yesterday\n' >"$tmp/bad-times.csv"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$subs" --out "$tmp/bad8" --times "$tmp/bad-times.csv" 2>&1); st=$?
check "TIMES with a time that is not one: exit 7, the line named" \
    "$([ $st = 7 ] && grep -q "bad-times.csv line 1: 'yesterday' is not a time" <<<"$out"; ok)" "exit $st; $out"
out=$(make --no-print-directory export OUT="$o" FORMAT="canvas excel" 2>&1; echo "exit $?"
    "$cls" --status --out "$o" --roster "$roster" 2>&1; echo "exit $?")
check "FORMAT it does not know, and ROSTER outside a class's run: exit 2, saying what it takes" \
    "$(grep -q "FORMAT is gradescope, canvas or plain, or several of them, not 'excel'" <<<"$out" &&
       grep -q "ROSTER) is given to make class" <<<"$out" && [ "$(grep -c '^exit 2$' <<<"$out")" = 2 ]; ok)" "$out"
mkdir -p "$tmp/sub2" && cp -r "$subs/alice" "$tmp/sub2/"
CLASS_MAKE=$fake "$cls" --submissions "$tmp/sub2" --out "$tmp/plain-class" --stages "$s1" >/dev/null 2>&1
out=$("$cls" --export --out "$tmp/plain-class" 2>&1); st=$?
check "make export of a class without a roster or SIDs: exit 7, saying to give the roster" \
    "$([ $st = 7 ] && grep -q "ROSTER=roster.csv" <<<"$out" && [ "$(head -n 1 "$tmp/plain-class/gradebook.csv")" = "student,$s1,total,max,status,seed,notes" ]; ok)" \
    "exit $st; $out"

totals
