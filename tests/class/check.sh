# tests/class/check.sh: make class CHECK=1 (a class checked without a GPU:
# its rows, each student's grade.log, its report; attackers among it) and a
# stage not submitted where the instructor's tree has an uncommitted answer:
# sourced by tests/class/run.sh (its variables and helpers: lab, tmp, cls,
# fake, stages, s1, s2, class_stages; tests/class/lib.sh), whose counts it
# adds to, or run alone:
#   bash tests/class/check.sh
[ -n "${cls:-}" ] || { cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone; } || exit 2
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

echo "== make class CHECK=1 with attackers: student code built and run on a machine without a GPU"
# A check compiles every student's code and runs it on the CPU emulator,
# on the instructor's login node: the same wall as a graded class.
# mallory's constructor reaches for the gradebook, alice's row and the
# class folder (tests/grader/attacks/class_escape); ivan #includes alice's
# collected kernel.cu, ines .incbins it. ivan and ines are checked a second
# time once alice's kernel.cu is collected, whichever order ran first.
if ! command -v nvcc >/dev/null; then
    skip "CHECK=1 with attackers: nvcc is not installed here"
elif [ -z "$s3" ]; then
    skip "CHECK=1 with attackers: no stage 03 in stages.tsv"
elif ! build/confine/confine --probe >/dev/null 2>&1; then
    skip "CHECK=1 with attackers: this machine cannot confine ($(build/confine/confine --probe 2>&1))"
else
    suba=$tmp/sub-attack oa=$tmp/out-attack
    attackers "$suba" "$oa" "$s3"
    out=$(make --no-print-directory class SUBMISSIONS="$suba" OUT="$oa" CHECK=1 EX="$s3" 2>&1); st=$?
    rm -rf "$oa/students/ivan" "$oa/students/ines"
    again=$(make --no-print-directory class SUBMISSIONS="$suba" OUT="$oa" CHECK=1 EX="$s3" 2>&1); st2=$?
    marker=$(grep -m 1 -E '^ *[a-z_]+ *<<<|__global__' "solutions/$s3/kernel.cu")
    check "CHECK=1: mallory's code runs and reaches nothing (no planted file, the gradebook and alice's row the class's)" \
        "$([ $st = 0 ] && [ $st2 = 0 ] && [ -s "$oa/students/alice/kernels/$s3/kernel.cu" ] &&
           [ ! -e "$oa/planted-by-a-student" ] && [ "$(grep -c . "$oa/gradebook.csv")" = 5 ] &&
           ! grep -q '^mallory,10' "$oa/gradebook.csv" && grep -q '^alice,' "$oa/students/alice/row.csv" &&
           case "$(field "$(row "$oa" alice)" 2)" in compiles | "correct (emulated)") ;; *) false ;; esac &&
           [ "$(field "$(row "$oa" mallory)" 2)" != "correct (emulated)" ]; ok)" \
        "exit $st, $st2; $out; $again; $(cat "$oa/gradebook.csv" 2>&1)"
    check "CHECK=1: a student who includes a classmate's collected kernel.cu, or .incbins it, does not compile and sees none of it" \
        "$([ "$(field "$(row "$oa" ivan)" 2)" = "does not compile" ] && [ "$(field "$(row "$oa" ines)" 2)" = "does not compile" ] &&
           ! grep -qF -- "$marker" "$oa/students/ivan/grade.log" "$oa/students/ines/grade.log" &&
           grep -q 'Permission denied' "$oa/students/ivan/grade.log"; ok)" \
        "$(cat "$oa/gradebook.csv"; cat "$oa/students/ivan/grade.log" "$oa/students/ines/grade.log" 2>&1 | head -20)"
fi

echo "== a stage not submitted, an answer uncommitted in the instructor's tree"
# a clone of this commit with the answer of stage 2 typed into its skeleton
# and not committed; grace sends stage 1 only: her stage 2 scores 0, "not
# submitted", and is not graded (the fake make grade logs what it grades);
# the class's lab has HEAD's skeleton
dl=$tmp/dirty-class
if git clone -q "$lab" "$dl" 2>/dev/null && git -C "$dl" checkout -q "$(git rev-parse HEAD)" 2>/dev/null &&
    mkdir -p "$dl/build/grader" "$dl/build/release" && cp build/grader/class "$dl/build/grader/" &&
    cp build/release/transpose_unpadded.o "$dl/build/release/"; then
    cp "solutions/$s2/kernel.cu" "$dl/exercises/$s2/kernel.cu"
    mk "$tmp/sub-ns/grace/$s1/kernel.cu" "solutions/$s1/kernel.cu"
    ons=$tmp/out-ns
    out=$(CLASS_MAKE="$fake" FAKE_GRADE_ARGS="$tmp/ns-args" "$dl/build/grader/class" --submissions "$tmp/sub-ns" \
        --out "$ons" --stages "$class_stages" --seed 5 2>&1); st=$?
    check "a stage not submitted: 0 'not submitted' in the gradebook, the whole maximum, not graded; the lab is HEAD's" \
        "$([ $st = 0 ] && [ "$(row "$ons" grace)" = "grace,10,0,10,20,graded,5,not submitted: $s2" ] &&
           grep -q "EX=$s1\$" "$tmp/ns-args" && ! grep -q "EX=.*$s2" "$tmp/ns-args" &&
           cmp -s "exercises/$s2/kernel.cu" "$ons/lab/exercises/$s2/kernel.cu" &&
           grep -q "uncommitted changes left out" <<<"$out"; ok)" \
        "exit $st; $out; $(cat "$ons/gradebook.csv" "$tmp/ns-args" 2>&1)"
    rm -rf "$dl"
else
    skip "a stage not submitted with an uncommitted answer: cannot clone the lab here (not a git checkout?)"
fi

[ -z "${alone:-}" ] || totals
