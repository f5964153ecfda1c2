#!/usr/bin/env bash
# tests/class/check.sh: make class CHECK=1 (a class checked without a GPU:
# its rows, each student's grade.log, its report); a suite of make check (tests/run.sh); ends with "N passed, N failed[, N
# skipped]". Run alone:
#   bash tests/class/check.sh
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
echo "== make class CHECK=1: built and checked without a GPU"
# seven students: every stage solved; the skeletons; a stage that does not
# compile; a folder with no stage in it; two stages only; a missing barrier
# in 07 (the solution without the barrier between the tree's steps); a read
# past the end in 03 (tests/emu/matmul_tiled_edge_guard_le.cu)
subc=$tmp/sub-check oc=$tmp/out-check
s3=$(grep -m 1 -E '^03_' <<<"$stages") s7=$(grep -m 1 -E '^07_' <<<"$stages")
for s in $stages; do
    mk "$subc/full/$s/kernel.cu" "solutions/$s/kernel.cu"
    mk "$subc/skel/exercises/$s/kernel.cu" "exercises/$s/kernel.cu"
done
mk "$subc/broken/$s1/kernel.cu" "solutions/$s1/kernel.cu"
mkdir -p "$subc/broken/$s2"
sed '0,/;$/s/;$//' "solutions/$s2/kernel.cu" >"$subc/broken/$s2/kernel.cu"
mk "$subc/malformed/stuff/kernel.cu" "solutions/$s1/kernel.cu"
mk "$subc/partial/$s1/kernel.cu" "solutions/$s1/kernel.cu"
last=$(tail -n 1 <<<"$stages")
mk "$subc/partial/$last/kernel.cu" "solutions/$last/kernel.cu"
if [ -n "$s7" ] && [ -n "$s3" ]; then
    mkdir -p "$subc/racy/$s7"
    awk '/^ *__syncthreads\(\); *$/ && ++n == 2 { next } { print }' "solutions/$s7/kernel.cu" >"$subc/racy/$s7/kernel.cu"
    mk "$subc/overrun/$s3/kernel.cu" tests/emu/matmul_tiled_edge_guard_le.cu
fi
if ! command -v nvcc >/dev/null; then
    skip "make class CHECK=1: nvcc is not installed here"
else
    t0=$SECONDS
    out=$(make --no-print-directory class SUBMISSIONS="$subc" OUT="$oc" CHECK=1 2>&1); st=$?
    took=$((SECONDS - t0))
    n=$(wc -l <<<"$stages")
    nc=$(ls "$subc" | wc -l)
    check "CHECK=1 without a GPU: exit 0, a row per student, status 'checked' (a kernel.cu of no stage: 'refused', with the layout wanted) ($took s for $nc students)" \
        "$([ $st = 0 ] && [ "$(grep -c ',checked,' "$oc/gradebook.csv")" = $((nc - 1)) ] &&
           [ "$(status_of "$oc" malformed)" = refused ] &&
           grep -q 'submit it as exercises/NN_name/kernel.cu' <<<"$(notes_of "$oc" malformed)"; ok)" "exit $st; $out; $(cat "$oc/gradebook.csv" 2>&1)"
    check "CHECK=1: every stage of the full solution compiles (and is correct where the CPU emulator is); the skeleton's are named the skeleton" \
        "$(case "$(row "$oc" full | cut -d, -f2-$((n + 1)) | tr ',' '\n' | sort -u)" in compiles | "correct (emulated)") ;; *) false ;; esac &&
           [ "$(row "$oc" skel | cut -d, -f2-$((n + 1)) | tr ',' '\n' | sort -u)" = skeleton ]; ok)" \
        "$(cat "$oc/gradebook.csv")"
    b=$(notes_of "$oc" broken)
    check "CHECK=1: the compile error in one line of the notes, each stage not submitted named, no points" \
        "$(grep -q "$s2: did not compile: " <<<"$b" && grep -q "not submitted: .*$last" <<<"$b" &&
           case "$(field "$(row "$oc" broken)" 2)" in compiles | "correct (emulated)") ;; *) false ;; esac &&
           [ "$(field "$(row "$oc" broken)" 3)" = "does not compile" ] &&
           [ -z "$(field "$(row "$oc" broken)" $((n + 2)))" ]; ok)" "$(row "$oc" broken)"
    p=$(notes_of "$oc" partial)
    if make -n -s "build/$s1/exercise-emu" >/dev/null 2>&1; then
        check "CHECK=1 with the CPU emulator: the solution is correct (emulated), never points" \
            "$([ "$(field "$(row "$oc" full)" 2)" = "correct (emulated)" ]; ok)" "$(row "$oc" full)"
    else
        check "CHECK=1 without the CPU emulator: the notes say correctness needs a GPU or the emulator" \
            "$(grep -q "correctness needs a GPU or the CPU emulator" <<<"$p"; ok)" "$p"
    fi
    # the page of a stage in a report: from its section's start to its end
    section() { awk -v id="id=\"stage-$2\"" 'index($0, id) { on = 1 } on { print } on && /<\/section>/ { exit }' "$1"; }
    rep=$oc/report.html s2sec=$(section "$oc/report.html" "$s2")
    check "CHECK=1: grade.log holds the compiler's messages; report.html counts the stage that did not compile and quotes its error" \
        "$(grep -q "exercises/$s2/kernel.cu.*error" "$oc/students/broken/grade.log" &&
           grep -q "^3 sent: 2 compiled, 1 did not compile;" <<<"$(sed 's/<[^>]*>//g' <<<"$s2sec")" &&
           grep -qF "did not compile: exercises/$s2/kernel.cu" <<<"$s2sec" && ! grep -q " 0 did not compile" <<<"$s2sec"; ok)" \
        "$(cat "$oc/students/broken/grade.log"; echo "$s2sec")"
    cp "$rep" "$tmp/check-report.html"
    out=$(make --no-print-directory report OUT="$oc" 2>&1); st=$?
    check "make report on a check: exit 0, the check's page again" \
        "$([ $st = 0 ] && cmp -s "$rep" "$tmp/check-report.html" && grep -q "a check" <<<"$out"; ok)" "exit $st; $out"
    if [ -n "$s7" ] && [ -n "$s3" ] && make -n -s "build/$s7/exercise-emu" "build/$s3/exercise-emu" >/dev/null 2>&1; then
        r=$(notes_of "$oc" racy) v=$(notes_of "$oc" overrun) rl=$oc/students/racy/grade.log
        check "CHECK=1, a missing barrier in $s7: the row names the emulator's race; grade.log holds the emulated run" \
            "$([ "$(field "$(row "$oc" racy)" "$(column "$oc" "$s7")")" = "wrong (emulated)" ] &&
               grep -qF "$s7: a race on shared memory, partial[" <<<"$r" && grep -q "^== $s7 on the CPU emulator" "$rl" &&
               grep -q "^  emulator: a race on shared memory, partial\[.*no __syncthreads() between" "$rl" &&
               grep -q "FAILED" "$rl"; ok)" "$(row "$oc" racy); $(cat "$rl" 2>&1 | head -20)"
        check "CHECK=1, a read past the end in $s3: the row names it, grade.log holds the emulated run" \
            "$(grep -qF "$s3: reads A[" <<<"$v" && grep -q "past the end of A" <<<"$v" &&
               grep -q "^  emulator: .*past the end of A" "$oc/students/overrun/grade.log"; ok)" "$(row "$oc" overrun)"
        s7sec=$(section "$rep" "$s7")
        check "the check's report: $s7 correct on the CPU for the solution, wrong for the race, the race's message whole" \
            "$(grep -q 'data-correct="1" data-wrong="1"' <<<"$s7sec" &&
               grep -qF "a race on shared memory, partial[" <<<"$s7sec" && grep -q "no __syncthreads() between" <<<"$s7sec" &&
               grep -q "past the end of A" <<<"$(section "$rep" "$s3")"; ok)" "$s7sec"
    else
        skip "CHECK=1 with bugs the CPU emulator names: no emulator for stages 03 and 07 here"
    fi
    out=$(make --no-print-directory class SUBMISSIONS="$subc" OUT="$oc" 2>&1); st=$?
    check "a check's OUT is not graded into: exit 1 and why" \
        "$([ $st != 0 ] && grep -q "is a check (CHECK=1)" <<<"$out"; ok)" "$out"
fi

totals
