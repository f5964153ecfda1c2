#!/usr/bin/env bash
# tests/class/slurm.sh: make class on the Slurm back end, on a single-node
# test cluster (tests/slurm/cluster.sh; needs root and Slurm, skipped with a
# reason otherwise; installs Slurm with apt-get only when
# LAB_TEST_INSTALL=1): one student per task, then PER_TASK=2. A suite of
# make check (tests/run.sh), which runs it apart from the other suites that
# start the test cluster; ends with "N passed, N failed[, N skipped]". Run
# alone:
#   bash tests/class/slurm.sh
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
cluster_up=""
cleanup() {
    [ -z "$cluster_up" ] || SLURM_TEST_DIR=$tmp/slurm tests/slurm/cluster.sh stop >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
subs=$tmp/submissions
first_submissions "$subs"
# ==================================================== slurm back end
echo "== make class, Slurm back end (a single-node test cluster)"
slurm_reason=""
if [ "$(id -u)" != 0 ]; then
    slurm_reason="not root: the test cluster's daemons run as root"
elif [ "${LAB_TEST_INSTALL:-0}" != 1 ] && ! tests/slurm/cluster.sh installed >"$tmp/install.log" 2>&1; then
    slurm_reason="$(tail -n 1 "$tmp/install.log"); LAB_TEST_INSTALL=1 lets make check install them"
elif ! SLURM_TEST_DIR=$tmp/slurm tests/slurm/cluster.sh install >"$tmp/install.log" 2>&1; then
    slurm_reason="Slurm is not installed and could not be: $(tail -n 1 "$tmp/install.log")"
fi
if [ -n "$slurm_reason" ]; then
    skip "class on Slurm: $slurm_reason"
else
    t0=$SECONDS
    line=$(SLURM_TEST_DIR=$tmp/slurm tests/slurm/cluster.sh start 2>"$tmp/cluster.log"); st=$?
    cluster_up=1
    check "the test cluster starts ($((SECONDS - t0)) s)" "$([ $st = 0 ]; ok)" "$(cat "$tmp/cluster.log")"
    if [ $st = 0 ]; then
        eval "$line"
        sub3=$tmp/sub3
        mkdir -p "$sub3" && cp -r "$subs/alice" "$subs/bob.tar.gz" "$subs/carol.tar.gz" "$sub3/"
        # the real grader where there is no GPU (every row: no GPU); the
        # stand-in on a GPU machine, whose GPUs the cluster's fake ones are not
        grade_make=""
        [ $have_gpu = 0 ] || grade_make=$fake
        o6=$tmp/out6
        t0=$SECONDS
        out=$(CLASS_MAKE=$grade_make SLURM_PARTITION=lab SLURM_THROTTLE=2 SLURM_CPUS=1 SLURM_TIME=5 \
            timeout 300 make --no-print-directory class BACKEND=slurm WAIT=1 SUBMISSIONS="$sub3" OUT="$o6" \
            EX="$class_stages" 2>&1); st=$?
        echo "$out" >"$tmp/slurm.out"
        array=$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' <<<"$out")
        check "make class BACKEND=slurm WAIT=1: an array job and a gradebook job, waited for ($((SECONDS - t0)) s)" \
            "$([ $st = 0 ] && [ -n "$array" ] && grep -q "of 3 done" <<<"$out"; ok)" "exit $st; $out"
        if [ -z "$grade_make" ]; then
            want_alice="no GPU" want_bob="no GPU"
        else
            want_alice=graded want_bob=graded
        fi
        check "the gradebook (written by the dependent job): 3 rows, alice and bob '$want_alice', carol refused" \
            "$([ "$(tail -n +2 "$o6/gradebook.csv" | wc -l)" = 3 ] && [ "$(status_of "$o6" alice)" = "$want_alice" ] &&
               [ "$(status_of "$o6" bob)" = "$want_bob" ] && [ "$(status_of "$o6" carol)" = refused ] &&
               grep -q "^gradebook: $o6/gradebook.csv" "$o6"/logs/gradebook-*.log; ok)" \
            "$(cat "$o6/gradebook.csv" "$o6"/logs/gradebook-*.log 2>&1)"
        check "one task per student to grade, each with its own log and a GPU of its own" \
            "$([ -f "$o6/logs/grade-${array}_0.log" ] && [ -f "$o6/logs/grade-${array}_1.log" ] &&
               [ ! -e "$o6/logs/grade-${array}_2.log" ] &&
               grep -q '^CUDA_VISIBLE_DEVICES=[0-9]' "$o6/students/alice/grade.log" &&
               grep -q '^CUDA_VISIBLE_DEVICES=[0-9]' "$o6/students/bob/grade.log"; ok)" \
            "$(ls "$o6/logs"; head -n 3 "$o6"/students/*/grade.log)"

        # PER_TASK=2: 5 students in 3 tasks, each grading its students one
        # after another (the stand-in grader: it logs who it graded)
        sub4=$tmp/sub4 o10=$tmp/out10 log10=$tmp/fake10.log
        mkdir -p "$sub4"
        for n in p1 p2 p3 p4 p5; do cp -r "$subs/alice" "$sub4/$n"; done
        t0=$SECONDS
        out=$(CLASS_MAKE=$fake FAKE_GRADE_LOG=$log10 SLURM_PARTITION=lab SLURM_THROTTLE=2 SLURM_CPUS=1 SLURM_TIME=5 \
            timeout 300 make --no-print-directory class BACKEND=slurm WAIT=1 PER_TASK=2 SUBMISSIONS="$sub4" OUT="$o10" \
            EX="$class_stages" 2>&1); st=$?
        array=$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' <<<"$out")
        check "PER_TASK=2, 5 students: one array of 3 tasks, waited for, 5 rows graded ($((SECONDS - t0)) s)" \
            "$([ $st = 0 ] && grep -q "(5 students, 3 tasks of at most 2," <<<"$out" && grep -q "5 of 5 done" <<<"$out" &&
               [ "$(grep -c ',graded,' "$o10/gradebook.csv")" = 5 ] && [ "$(sort "$log10" | cut -d' ' -f1 | tr '\n' ' ')" = "p1 p2 p3 p4 p5 " ]; ok)" \
            "exit $st; $out; $(cat "$log10" "$o10/gradebook.csv" 2>&1)"
        named=$(for i in 0 1 2 3; do
            f=$o10/logs/grade-${array}_$i.log
            [ -f "$f" ] && echo "$i: $(sed -n 's/^array task [0-9]* on [^:]*: //p' "$f") | $(sed -n 's/^grading //p' "$f" | tr '\n' ' ')"
        done)
        check "each task's log names its students and grades them in turn: p1 p2, p3 p4, p5; no fourth task" \
            "$([ "$named" = "$(printf '0: p1 p2 | p1 p2 \n1: p3 p4 | p3 p4 \n2: p5 | p5 ')" ]; ok)" \
            "$named; $(cat "$o10"/logs/grade-*.log)"
        # a re-run after deleting one student's folder grades that one alone
        rm -rf "$o10/students/p3"
        : >"$log10"
        out=$(CLASS_MAKE=$fake FAKE_GRADE_LOG=$log10 SLURM_PARTITION=lab SLURM_THROTTLE=2 SLURM_CPUS=1 SLURM_TIME=5 \
            timeout 300 make --no-print-directory class BACKEND=slurm WAIT=1 PER_TASK=2 SUBMISSIONS="$sub4" OUT="$o10" 2>&1); st=$?
        check "the re-run grades p3 alone, in one task, and the gradebook has its 5 rows again" \
            "$([ $st = 0 ] && grep -q "4 graded before, 0 refused now, 1 to grade" <<<"$out" &&
               grep -q "(1 student, 1 task of at most 2," <<<"$out" && [ "$(cut -d' ' -f1 "$log10")" = p3 ] &&
               [ "$(grep -c ',graded,' "$o10/gradebook.csv")" = 5 ]; ok)" "exit $st; $out; $(cat "$log10")"
        array=$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' <<<"$out")
        limit=$(scontrol show job "$array" 2>&1 | grep -o 'TimeLimit=[^ ]*' | sort -u)
        check "a task of 2 students gets twice one student's SLURM_TIME (5 minutes): $limit" \
            "$([ "$limit" = TimeLimit=00:10:00 ]; ok)" "$(scontrol show job "$array" 2>&1)"
    fi
    SLURM_TEST_DIR=$tmp/slurm tests/slurm/cluster.sh stop >/dev/null 2>&1
    cluster_up=""
fi

totals
