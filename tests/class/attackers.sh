#!/usr/bin/env bash
# tests/class/attackers.sh: make class CHECK=1 with attackers among the
# class (tests/class/lib.sh's attackers: student code built and run on a
# machine without a GPU, behind the same wall as a graded class); a suite
# of make check (tests/run.sh); ends with "N passed, N failed[, N
# skipped]". Run alone:
#   bash tests/class/attackers.sh
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
s3=$(grep -m 1 -E '^03_' <<<"$stages")
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

totals
