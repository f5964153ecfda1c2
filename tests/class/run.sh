#!/usr/bin/env bash
# tests/class/run.sh: tests of make class (build/grader/class) on the local
# back end: a class of fixture submissions (folders, tarballs, a zip, a
# broken tarball, unsafe archives, no kernel at all) graded by a stand-in
# for make grade (tests/class/fake-make), so that the gradebook's points can
# be checked without a GPU; resuming, retrying, two workers, builds ahead of
# and beside the grades (tests/class/pipeline.sh), a class stopped midway,
# one Slurm array task of several students run by hand (killed midway,
# started again). Then the real make grade: without a GPU every row says "no
# GPU"; on one, a solution scores, and a class with two attackers graded by
# the judge gives them 0 and keeps its folder the grader's.
#
# The rest of class grading's tests are suites of make check of their own,
# which run beside this one (tests/run.sh): make release
# (tests/class/release.sh), submissions at the limits (intake.sh), an
# uncommitted answer (dirty.sh), make class CHECK=1 (check.sh), make
# gradescope (gradescope.sh), the Slurm back end with a stand-in for sbatch
# and squeue (slurm-stand-in.sh) and on a test cluster (slurm.sh), a term
# (term.sh).
#
# Prints "ok", "FAIL" and "skip" lines; ends with "N passed, N failed[, N
# skipped]". Run from anywhere; make check runs it after building the lab.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/class/lib.sh
class_alone

# ======================================================== the submissions
# alice: a folder, exercises/NN_name/kernel.cu: the solutions of two stages, and a
#        Makefile and a common/gpu.cu that must not reach her copy of the lab
# bob:   a tarball with one top folder, NN/kernel.cu: the skeletons
# carol: a file named .tar.gz that is not a tarball
# dave:  a folder, NN/kernel.cu: a kernel that does not compile (one stage)
# eve:   a zip file, the solution of the first stage
# mallory1..3: tarballs with ../evil, an absolute path, a symbolic link
# trudy: a folder whose kernel.cu is a symbolic link
# oscar: a folder with no kernel.cu
# notes.txt: not a submission at all
subs=$tmp/submissions
first_submissions "$subs"
mkdir -p "$subs/dave/$s1"
{ echo '#error this kernel does not compile'; cat "exercises/$s1/kernel.cu"; } >"$subs/dave/$s1/kernel.cu"
have_zip=0
if command -v zip >/dev/null && command -v unzip >/dev/null; then
    have_zip=1
    mk "$tmp/eve/exercises/$s1/kernel.cu" "solutions/$s1/kernel.cu"
    (cd "$tmp/eve" && zip -qr "$subs/eve.zip" exercises)
fi
mkdir -p "$tmp/m/in" "$tmp/m/abs"
echo evil >"$tmp/m/evil.txt"
(cd "$tmp/m/in" && tar -cPf "$subs/mallory1.tar" ../evil.txt)
echo evil >"$tmp/m/abs/abs-evil.txt"
tar -cPf "$subs/mallory2.tar" "$tmp/m/abs/abs-evil.txt"
rm -rf "$tmp/m"
mkdir -p "$tmp/m3/exercises/$s1"
ln -s /etc/passwd "$tmp/m3/exercises/$s1/kernel.cu"
tar -C "$tmp/m3" -czf "$subs/mallory3.tar.gz" exercises
mkdir -p "$subs/trudy/exercises/$s1"
ln -s "$lab/solutions/$s1/kernel.cu" "$subs/trudy/exercises/$s1/kernel.cu"
mkdir -p "$subs/oscar"
echo "I will hand it in next week" >"$subs/oscar/README"
# an entry the instructor made a link to the student's folder
mk "$tmp/peggy-work/$s1/kernel.cu" "solutions/$s1/kernel.cu"
ln -s "$tmp/peggy-work" "$subs/peggy"
echo "a stray file" >"$subs/notes.txt"
class_names="alice bob carol dave $([ $have_zip = 1 ] && echo eve) mallory1 mallory2 mallory3 oscar peggy trudy"


# =================================================== class: local back end
echo "== make class, local back end, with a stand-in for make grade"
out=$(make --no-print-directory class 2>&1); st=$?
check "make class without SUBMISSIONS: exit 2 and what to give" "$([ $st = 2 ] && grep -q "SUBMISSIONS=dir" <<<"$out"; ok)" "$out"
out=$("$cls" --submissions "$subs" --backend cloud 2>&1); st=$?
check "an unknown back end: exit 2" "$([ $st = 2 ] && grep -q "local or slurm" <<<"$out"; ok)" "$out"
out=$(make --no-print-directory class SUBMISSIONS="$subs" OUT="$tmp/out-pt" BACKEND=slurm PER_TASK=0 2>&1
    "$cls" --submissions "$subs" --out "$tmp/out-pt" --backend slurm --per-task x 2>&1; echo "exit $?")
check "PER_TASK=0 and --per-task x: refused (exit 2) with what it takes, before anything is written" \
    "$(grep -q "a whole number, 1 or more, not '0'" <<<"$out" && grep -q "a whole number, 1 or more, not 'x'" <<<"$out" &&
       grep -q '^exit 2$' <<<"$out" && [ ! -e "$tmp/out-pt" ]; ok)" "$out"
out=$("$cls" --submissions "$subs" --out "$tmp/out-pt" --per-task 2 2>&1); st=$?
check "--per-task on the local back end: exit 2, it is for Slurm" \
    "$([ $st = 2 ] && grep -q "for the Slurm back end" <<<"$out" && [ ! -e "$tmp/out-pt" ]; ok)" "exit $st; $out"
out=$(SLURM_TIME=soon "$cls" --submissions "$subs" --out "$tmp/out-pt" --backend slurm --per-task 2 2>&1); st=$?
check "--per-task 2 with a SLURM_TIME Slurm would not take: exit 2 and the forms it takes" \
    "$([ $st = 2 ] && grep -q "not 'soon'" <<<"$out" && [ ! -e "$tmp/out-pt" ]; ok)" "exit $st; $out"
o1=$tmp/out1
log1=$tmp/fake1.log
t0=$SECONDS
out=$(CLASS_MAKE=$fake FAKE_GRADE_LOG=$log1 KEEP_WORK=1 \
    make --no-print-directory class SUBMISSIONS="$subs" OUT="$o1" EX="$class_stages" SEED=42 2>&1); st=$?
echo "$out" >"$tmp/class1.out"
rows=$(tail -n +2 "$o1/gradebook.csv" 2>/dev/null | cut -d, -f1 | tr '\n' ' ')
check "make class: exit 0, one row per student, the stray file ignored with a word ($((SECONDS - t0)) s)" \
    "$([ $st = 0 ] && [ "$rows" = "$(echo $class_names) " ] && grep -q "ignored .*notes.txt" <<<"$out"; ok)" \
    "exit $st; rows: $rows; $out"
check "gradebook header: student, the stages, total, max, status, seed, notes" \
    "$([ "$(head -n 1 "$o1/gradebook.csv")" = "student,${class_stages// /,},total,max,status,seed,notes" ]; ok)" \
    "$(head -n 1 "$o1/gradebook.csv")"
check "progress: N of M done, one line per student" \
    "$(grep -q "^\[1/$(wc -w <<<"$class_names")\] " <<<"$out" && grep -q "^grading alice" <<<"$out"; ok)" "$out"
check "alice (folder, exercises/NN/): both stages' points, graded, seed 42" \
    "$([ "$(row "$o1" alice)" = "alice,10,10,20,20,graded,42," ]; ok)" "$(row "$o1" alice)"
check "bob (tarball, top folder, NN/): skeletons score 0, with the grader's reason" \
    "$(row "$o1" bob | grep -q "^bob,0,0,0,20,graded,42,.*TODO(lab)"; ok)" "$(row "$o1" bob)"
check "carol (not a tarball): refused, and the row says why" \
    "$([ "$(status_of "$o1" carol)" = refused ] && grep -q "not a readable tar archive" <<<"$(notes_of "$o1" carol)"; ok)" \
    "$(row "$o1" carol)"
dave_notes=$(notes_of "$o1" dave)
check "dave: the compiler's complaint (quotes and commas kept), and the stage not submitted" \
    "$(n=$(notes_of "$o1" dave); grep -qF "$s1: did not compile: " <<<"$n" &&
       grep -qF '"a "quoted" word, and a comma"' <<<"$n" && grep -q "not submitted.*$s2" <<<"$n"; ok)" "$(row "$o1" dave)"
if [ $have_zip = 1 ]; then
    check "eve (zip): graded" "$(row "$o1" eve | grep -q "^eve,10,0,10,20,graded"; ok)" "$(row "$o1" eve)"
else
    skip "eve (zip): zip or unzip is not installed here"
fi
check "mallory1 (../evil.txt): refused, nothing written outside" \
    "$(grep -q "outside the archive's folder: ../evil.txt" <<<"$(notes_of "$o1" mallory1)" &&
       [ -z "$(find "$o1" -name evil.txt)" ]; ok)" "$(row "$o1" mallory1)"
check "mallory2 (absolute path): refused, nothing written there" \
    "$(grep -q "absolute path: $tmp/m/abs/abs-evil.txt" <<<"$(notes_of "$o1" mallory2)" &&
       [ ! -e "$tmp/m/abs/abs-evil.txt" ] && [ -z "$(find "$o1" -name abs-evil.txt)" ]; ok)" "$(row "$o1" mallory2)"
check "mallory3 (symbolic link in the tarball): refused" \
    "$([ "$(status_of "$o1" mallory3)" = refused ] && grep -q "link" <<<"$(notes_of "$o1" mallory3)"; ok)" \
    "$(row "$o1" mallory3)"
check "peggy (the entry a link to a folder): graded as the folder" \
    "$(row "$o1" peggy | grep -q "^peggy,10,0,10,20,graded,42"; ok)" "$(row "$o1" peggy)"
check "trudy (kernel.cu a symbolic link in a folder): refused" \
    "$([ "$(status_of "$o1" trudy)" = refused ] && grep -q "not a plain file" <<<"$(notes_of "$o1" trudy)"; ok)" \
    "$(row "$o1" trudy)"
check "oscar (no kernel.cu): 'no submission', with what was expected" \
    "$([ "$(status_of "$o1" oscar)" = "no submission" ] && grep -q "exercises/NN_name/kernel.cu" <<<"$(notes_of "$o1" oscar)"; ok)" \
    "$(row "$o1" oscar)"
check "each student graded once, in a copy of the lab with no solutions/" \
    "$([ "$(cut -d' ' -f1 "$log1" | sort | tr '\n' ' ')" = "alice bob dave $([ $have_zip = 1 ] && echo 'eve ')peggy " ] &&
       ! grep -q solutions "$log1"; ok)" "$(cat "$log1")"
check "only kernel.cu files reach a student's copy: the lab's Makefile and common/, not alice's" \
    "$(cmp -s Makefile "$o1/work/alice/Makefile" && cmp -s common/gpu.cu "$o1/work/alice/common/gpu.cu" &&
       cmp -s "solutions/$s1/kernel.cu" "$o1/work/alice/exercises/$s1/kernel.cu"; ok)"
check "per student: grade.json, results.json, grade.log, and the kernel.cu files graded" \
    "$(for f in grade.json results.json grade.log row.csv; do [ -s "$o1/students/alice/$f" ] || exit 1; done &&
       cmp -s "solutions/$s2/kernel.cu" "$o1/students/alice/kernels/$s2/kernel.cu"; ok)" "$(ls -R "$o1/students/alice")"
check "nothing half-written is left: no temporary rows, no unpacked archives" \
    "$([ -z "$(find "$o1" -name '*.tmp' -o -name '*.unpacked')" ]; ok)" "$(find "$o1" -name '*.tmp' -o -name '*.unpacked')"

# resume: a student without a row is graded again, and no one else
rm "$o1/students/bob/row.csv"
before=$(stat -c '%n %Y' "$o1"/students/*/row.csv)
sleep 1
: >"$log1"
out=$(CLASS_MAKE=$fake FAKE_GRADE_LOG=$log1 "$cls" --submissions "$subs" --out "$o1" 2>&1); st=$?
check "a re-run grades only the student whose row is missing, and keeps the others' rows" \
    "$([ $st = 0 ] && [ "$(cut -d' ' -f1 "$log1")" = bob ] && [ "$before" = "$(stat -c '%n %Y' "$o1"/students/*/row.csv | grep -v /bob/)" ] &&
       row "$o1" bob | grep -q "^bob,0,0,0,20,graded,42,"; ok)" "exit $st; $out; graded: $(cat "$log1")"
rm "$o1/students/dave/row.csv"
out=$("$cls" --collect --out "$o1" 2>&1)
check "a student without a row (a job that ended early) still gets a gradebook row: 'not graded'" \
    "$([ "$(status_of "$o1" dave)" = "not graded" ] && grep -q "run make class again" <<<"$(notes_of "$o1" dave)" &&
       [ "$(tail -n +2 "$o1/gradebook.csv" | wc -l)" = "$(wc -w <<<"$class_names")" ]; ok)" "$out; $(row "$o1" dave)"
out=$("$cls" --submissions "$subs" --out "$o1" --seed 7 2>&1); st=$?
check "a re-run with another seed is refused (the class keeps one seed)" \
    "$([ $st != 0 ] && grep -q "seed 42, not 7" <<<"$out"; ok)" "$out"
out=$("$cls" --submissions "$subs" --out "$o1" --stages "99 $s1" 2>&1; echo "exit $?"
    flock "$o1/.lock" "$cls" --submissions "$subs" --out "$o1" 2>&1; echo "exit $?")
check "a stage no stage name begins with: exit 1, naming the stages; a second class on the same OUT at once: exit 1" \
    "$(grep -q "^class: no stage matches '99'; the stages are: $(echo $stages)$" <<<"$out" &&
       grep -q "^class: another make class is running on $o1$" <<<"$out" && [ "$(grep -c '^exit 1$' <<<"$out")" = 2 ]; ok)" "$out"
mkdir -p "$tmp/dup/alice" && cp "$subs/bob.tar.gz" "$tmp/dup/alice.tar.gz"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$tmp/dup" --out "$tmp/out-dup" 2>&1); st=$?
check "two submissions of one student (alice/ and alice.tar.gz) are refused, naming both" \
    "$([ $st != 0 ] && grep -q "student 'alice': .*alice.tar.gz" <<<"$out"; ok)" "$out"

# retry: rows that blame the machine stay until --retry (RETRY=1)
sub2=$tmp/sub2
mkdir -p "$sub2" && cp -r "$subs/alice" "$subs/bob.tar.gz" "$sub2/"
o2=$tmp/out2
CLASS_MAKE=$fake FAKE_GRADE=no-gpu "$cls" --submissions "$sub2" --out "$o2" --stages "$class_stages" >"$tmp/o2.out" 2>&1
check "no GPU: the row says 'no GPU' with the grader's own line, and no points" \
    "$(row "$o2" alice | grep -q '^alice,,,,,no GPU,[0-9]*,cannot grade here: no NVIDIA GPU'; ok)" "$(cat "$o2/gradebook.csv")"
log2=$tmp/fake2.log
CLASS_MAKE=$fake FAKE_GRADE_LOG=$log2 "$cls" --submissions "$sub2" --out "$o2" >"$tmp/o2.out" 2>&1
check "a plain re-run keeps 'no GPU' rows" "$([ ! -s "$log2" ] && [ "$(status_of "$o2" alice)" = "no GPU" ]; ok)" "$(cat "$tmp/o2.out")"
# each status of make grade that blames the machine, its row, and --retry
out=$(for g in no-tools unconfined crash; do
    CLASS_MAKE=$fake FAKE_GRADE=$g "$cls" --submissions "$sub2" --out "$o2" --retry >/dev/null 2>&1
    echo "$(status_of "$o2" alice): $(notes_of "$o2" alice)"
done)
check "make grade's statuses 4, 5 and a crash: 'no build tools', 'not confined', 'grader error', each with what was said; --retry each" \
    "$([ "$out" = "no build tools: cannot grade here: nvcc is not installed (a test)
not confined: cannot confine the runs here (a test)
grader error: make grade ended with status 139: Segmentation fault (core dumped)" ]; ok)" "$out"
CLASS_MAKE=$fake FAKE_GRADE_LOG=$log2 "$cls" --submissions "$sub2" --out "$o2" --retry >"$tmp/o2.out" 2>&1
check "--retry grades them again" \
    "$([ "$(cut -d' ' -f1 "$log2" | sort | tr '\n' ' ')" = "alice bob " ] && [ "$(status_of "$o2" alice)" = graded ]; ok)" \
    "$(cat "$tmp/o2.out")"

# make grade's switches (SANITIZE=1): every student's make grade gets it,
# the class keeps it, and a class graded without it refuses it later
printf '#!/bin/sh\necho "make $*"\n' >"$tmp/echo-make" && chmod +x "$tmp/echo-make"
# (the sanitizer cannot run confined: SANITIZE=1 comes with UNCONFINED=1)
CLASS_MAKE=$tmp/echo-make make --no-print-directory class SUBMISSIONS="$sub2" OUT="$tmp/out-san" EX="$s1" SANITIZE=1 \
    UNCONFINED=1 >/dev/null 2>&1
out=$("$cls" --submissions "$sub2" --out "$o2" --sanitize 2>&1); st=$?
check "SANITIZE=1: each student's make grade gets it, class.conf keeps it; refused on a class graded without it" \
    "$(grep -q "^make .* grade .*SANITIZE=1" "$tmp/out-san/students/alice/grade.log" &&
       grep -qx "sanitize=1" "$tmp/out-san/class.conf" && [ $st = 1 ] && grep -q "without SANITIZE=1" <<<"$out"; ok)" \
    "$(cat "$tmp/out-san/students/alice/grade.log"); exit $st; $out"
# the judge: on unless JUDGE=0, which every row then notes
CLASS_MAKE=$tmp/echo-make make --no-print-directory class SUBMISSIONS="$sub2" OUT="$tmp/out-judge" EX="$s1" UNCONFINED=1 \
    >/dev/null 2>&1
check "the judge by default: each student's make grade gets JUDGE=1, class.conf keeps it" \
    "$(grep -q "^make .* grade .*JUDGE=1" "$tmp/out-judge/students/alice/grade.log" &&
       grep -qx "judge=1" "$tmp/out-judge/class.conf"; ok)" \
    "$(cat "$tmp/out-judge/students/alice/grade.log" 2>&1)"
out=$(CLASS_MAKE=$tmp/echo-make make --no-print-directory class SUBMISSIONS="$sub2" OUT="$tmp/out-nojudge" EX="$s1" \
    JUDGE=0 UNCONFINED=1 2>&1)
check "JUDGE=0: each student's make grade gets it, class.conf keeps it, and the class says so" \
    "$(grep -q "^make .* grade .*JUDGE=0" "$tmp/out-nojudge/students/alice/grade.log" &&
       grep -qx "judge=0" "$tmp/out-nojudge/class.conf" && grep -q "NOT the judge's (JUDGE=0)" <<<"$out"; ok)" \
    "$(cat "$tmp/out-nojudge/students/alice/grade.log" 2>&1); $out"

# confinement: every student's make grade asks for it; the class stops
# (exit 5) where the machine cannot confine, unless UNCONFINED=1, which
# every row notes; SANITIZE=1 alone is refused the same way
check "confinement: each student's make grade asks for it (REQUIRE_CONFINEMENT=1)" \
    "$(grep -q "^make .* grade .*REQUIRE_CONFINEMENT=1" "$tmp/out-san/students/alice/grade.log"; ok)" \
    "$(cat "$tmp/out-san/students/alice/grade.log")"
printf '#!/bin/sh\necho "not confined: no user namespaces here (a test)"\nexit 126\n' >"$tmp/no-confine" &&
    chmod +x "$tmp/no-confine"
out=$(CLASS_CONFINE=$tmp/no-confine CLASS_MAKE=$fake "$cls" --submissions "$sub2" --out "$tmp/out-nc" 2>&1); st=$?
check "confinement impossible: the class stops before grading anyone (exit 5), saying why and how to go on" \
    "$([ $st = 5 ] && grep -q "cannot confine the students' runs here (not confined: no user namespaces" <<<"$out" &&
       grep -q "UNCONFINED=1" <<<"$out" && [ ! -e "$tmp/out-nc/gradebook.csv" ]; ok)" "exit $st: $out"
out=$(CLASS_CONFINE=$tmp/no-confine CLASS_MAKE=$fake "$cls" --submissions "$sub2" --out "$tmp/out-uc" \
    --unconfined 2>&1); st=$?
check "UNCONFINED=1: graded anyway, and every row of the gradebook says the runs were not confined" \
    "$([ $st = 0 ] && [ "$(grep -c 'not confined (UNCONFINED=1)' "$tmp/out-uc/gradebook.csv")" = 2 ] &&
       grep -qx "unconfined=1" "$tmp/out-uc/class.conf"; ok)" "exit $st: $out; $(cat "$tmp/out-uc/gradebook.csv" 2>/dev/null)"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub2" --out "$tmp/out-so" --sanitize 2>&1); st=$?
check "SANITIZE=1 without UNCONFINED=1: refused before grading (exit 5): the sanitizer cannot run confined" \
    "$([ $st = 5 ] && grep -q "add UNCONFINED=1" <<<"$out"; ok)" "exit $st: $out"

# two workers: each takes its own GPU and its own students
o3=$tmp/out3 log3=$tmp/fake3.log
out=$(GPUS="0 1" CLASS_MAKE=$fake FAKE_GRADE_LOG=$log3 FAKE_GRADE_SLEEP=0.5 \
    "$cls" --submissions "$subs" --out "$o3" --stages "$class_stages" 2>&1)
check "GPUS=\"0 1\": two workers, CUDA_VISIBLE_DEVICES 0 and 1, each student graded once" \
    "$(grep -q 'gpu=0' "$log3" && grep -q 'gpu=1' "$log3" && [ -z "$(cut -d' ' -f1 "$log3" | sort | uniq -d)" ] &&
       [ "$(wc -l <"$log3")" = "$(grep -c ',graded,' "$o3/gradebook.csv")" ]; ok)" "$(cat "$log3"; echo "$out")"

# builders prepare and build every student on the CPUs first (CLASS_GRADE_CPUS=0:
# no pipeline); then the GPU (one here) grades them, and make grade
# (PREBUILT=1) builds nothing
o8=$tmp/out8 log8=$tmp/fake8.log blog8=$tmp/build8.log args8=$tmp/args8.log
out=$(GPUS=0 CLASS_BUILDERS=2 CLASS_GRADE_CPUS=0 CLASS_MAKE=$fake FAKE_GRADE_LOG=$log8 FAKE_BUILD_LOG=$blog8 \
    FAKE_GRADE_ARGS=$args8 FAKE_GRADE_SLEEP=0.3 \
    FAKE_BUILD_SLEEP=0.3 "$cls" --submissions "$subs" --out "$o8" --stages "$class_stages" 2>&1); st=$?
graded=$(cut -d' ' -f1 "$log8" | sort | tr '\n' ' ')
check "built ahead: each student's stages built once by a builder, before its make grade (PREBUILT=1); the same gradebook" \
    "$([ $st = 0 ] && [ "$graded" = "alice bob dave $([ $have_zip = 1 ] && echo 'eve ')peggy " ] &&
       [ "$(grep -c ' built-ahead$' "$log8")" = "$(wc -l <"$log8")" ] &&
       [ "$(grep -c ' prebuilt=1' "$log8")" = "$(wc -l <"$log8")" ] &&
       [ "$(awk '$2 == "build" { print $1 }' "$blog8" | sort | tr '\n' ' ')" = "$graded" ] &&
       [ "$(tail -n +2 "$o8/gradebook.csv" | cut -d, -f1-6)" = "$(tail -n +2 "$o3/gradebook.csv" | cut -d, -f1-6)" ]; ok)" \
    "exit $st; $out; $(cat "$log8" "$blog8")"
check "PROBED=1 for every student of a worker after its first graded one (the GPU checks made once)" \
    "$([ "$(awk '{ print $4 }' "$log8" | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" = "probed=0:1 probed=1:$(($(wc -l <"$log8") - 1)) " ]; ok)" \
    "$(cat "$log8")"
overlap=$(built_while_grading "$blog8")
check "built ahead: no student is built while the GPU grades another (no compiler beside a timing judge)" \
    "$([ -z "$overlap" ] && [ "$(grep -c ' build ' "$blog8")" -gt 0 ]; ok)" "$overlap; $(cat "$blog8")"
. tests/class/pipeline.sh
out=$(CLASS_BUILDERS=many CLASS_MAKE=$fake "$cls" --submissions "$sub2" --out "$tmp/out-builders" --stages "$class_stages" 2>&1); st=$?
check "CLASS_BUILDERS that is not a number: exit 1 and why, before the class folder is made" \
    "$([ $st = 1 ] && grep -q "CLASS_BUILDERS is a number" <<<"$out" && [ ! -e "$tmp/out-builders" ]; ok)" "exit $st; $out"

# a class stopped midway: nothing is lost, nothing keeps running, a re-run finishes
o4=$tmp/out4 log4=$tmp/fake4.log
CLASS_MAKE=$fake FAKE_GRADE_LOG=$log4 FAKE_GRADE_SLEEP=1 \
    "$cls" --submissions "$sub2" --out "$o4" --stages "$class_stages" >"$tmp/o4.out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -f "$o4/students/alice/row.csv" ] && break; sleep 0.1; done
sleep 0.3
kill -TERM "$pid"
wait "$pid"; st=$?
sleep 0.2
# a process that has ended but is not yet reaped (a zombie) does not count
alive=$(sed -n 's/.* pid=\([0-9]*\).*/\1/p' "$log4" | while read -r p; do
    state=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$state" ] && [ "$state" != Z ] && echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline")"
done)
check "a stopped class: exit 130, a word on how to go on, no grading left running, rows whole or absent" \
    "$([ $st = 130 ] && grep -q "run the same command again" "$tmp/o4.out" && [ -z "$alive" ] &&
       [ -f "$o4/students/alice/row.csv" ] && [ ! -f "$o4/students/bob/row.csv" ] &&
       [ -z "$(find "$o4" -name '*.tmp')" ]; ok)" "exit $st; alive: $alive; $(cat "$tmp/o4.out")"
: >"$log4"
CLASS_MAKE=$fake FAKE_GRADE_LOG=$log4 "$cls" --submissions "$sub2" --out "$o4" >"$tmp/o4.out" 2>&1
check "the re-run grades the rest and the gradebook is whole" \
    "$([ "$(cut -d' ' -f1 "$log4")" = bob ] && [ "$(grep -c ',graded,' "$o4/gradebook.csv")" = 2 ]; ok)" \
    "$(cat "$log4" "$tmp/o4.out")"

# one Slurm array task of two students (run here by hand, as the job
# script runs it): killed while grading the second, it has written the
# first's row only; started again (a requeue), it skips the first
o11=$tmp/out11 log11=$tmp/fake11.log
CLASS_MAKE=$fake "$cls" --submissions "$sub2" --out "$o11" --stages "$class_stages" >/dev/null 2>&1
rm -f "$o11"/students/*/row.csv
printf 'alice\nbob\n' >"$o11/logs/todo-task.txt"
touch -d '1 minute ago' "$o11/logs/todo-task.txt"
CLASS_MAKE=$fake FAKE_GRADE_LOG=$log11 FAKE_GRADE_SLEEP=1 setsid "$cls" --task 0 --per-task 2 \
    --todo "$o11/logs/todo-task.txt" --out "$o11" >"$tmp/task.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^grading bob' "$tmp/task.out" && break; sleep 0.1; done
{ kill -KILL -- -"$pid"; wait "$pid"; } 2>/dev/null
check "an array task killed while grading its second student: the first's row written, the second's not" \
    "$([ -f "$o11/students/alice/row.csv" ] && [ ! -f "$o11/students/bob/row.csv" ] &&
       grep -q '^array task 0 on .*: alice bob$' "$tmp/task.out"; ok)" "$(cat "$tmp/task.out")"
: >"$log11"
out=$(CLASS_MAKE=$fake FAKE_GRADE_LOG=$log11 "$cls" --task 0 --per-task 2 --todo "$o11/logs/todo-task.txt" \
    --out "$o11" 2>&1)
check "the same task started again grades the second only, saying the first was graded already" \
    "$([ "$(cut -d' ' -f1 "$log11")" = bob ] && grep -q '^alice: graded already' <<<"$out" &&
       [ -f "$o11/students/bob/row.csv" ]; ok)" "$out; $(cat "$log11")"
out=$("$cls" --task 1 --per-task 2 --todo "$o11/logs/todo-task.txt" --out "$o11" 2>&1); st=$?
check "a task beyond the to-do list: exit 1, saying so" "$([ $st = 1 ] && grep -q "array task 1 has no students" <<<"$out"; ok)" "exit $st; $out"

# notes: a short phrase per stage that lost points; the stages not
# submitted named once
sub7=$tmp/sub7 o7=$tmp/out7
mkdir -p "$sub7/frank/$s1" "$sub7/frank/$s2" "$sub7/grace/$s1"
{ cat "solutions/$s1/kernel.cu"; echo '// fake: slow'; } >"$sub7/frank/$s1/kernel.cu"
cp "exercises/$s2/kernel.cu" "$sub7/frank/$s2/kernel.cu"
cp "exercises/$s1/kernel.cu" "$sub7/grace/$s1/kernel.cu"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub7" --out "$o7" --stages "$class_stages" 2>&1)
frank=$(notes_of "$o7" frank) grace=$(notes_of "$o7" grace)
check "notes: one phrase per stage that lost points (a correct but slow kernel: the tiers it missed)" \
    "$([ "$frank" = "$s1: correct, too slow for the pass, stretch tiers | $s2: wrong result (TODO(lab) left)" ]; ok)" \
    "$out; $frank"
check "notes: a stage not submitted is named once, not again with the skeleton's reason" \
    "$([ "$grace" = "not submitted: $s2 | $s1: wrong result (TODO(lab) left)" ]; ok)" "$grace"
long=$(for n in "$frank" "$grace" "$(notes_of "$o1" bob)" "$dave_notes"; do
    awk -v RS=' [|] ' '{ sub(/^[^ ]*: /, ""); sub(/\n$/, ""); if (length($0) > 60) print }' <<<"$n"
done)
check "notes: no phrase longer than 60 characters; the details stay in grade.log and grade.json" \
    "$([ -z "$long" ] && grep -q "TODO(lab) parts" "$o7/students/grace/grade.log" &&
       json_rows "$o7/students/grace/grade.json" stages reason | grep -qx 'wrong result: the kernel still has its TODO(lab) parts'; ok)" \
    "$long"

# ================================================== the real make grade
echo "== make class with the real make grade"
o5=$tmp/out5
out=$("$cls" --submissions "$sub2" --out "$o5" --stages "$s1" 2>&1); st=$?
if [ $have_gpu = 0 ]; then
    check "no GPU (and the local back end): exit 3 before building anything, in one line" \
        "$([ $st = 3 ] && [ "$(grep -c . <<<"$out")" = 1 ] && grep -q "^class: no GPU here" <<<"$out" &&
           [ ! -e "$o5/lab" ] && [ ! -e "$o5/students" ]; ok)" "$out; $(ls "$o5" 2>&1)"
else
    check "on the GPU: alice's solution scores, bob's skeleton does not" \
        "$([ $st = 0 ] && [ "$(status_of "$o5" alice)" = graded ] && [ "$(field "$(row "$o5" alice)" 2)" -gt 0 ] &&
           [ "$(field "$(row "$o5" bob)" 2)" = 0 ]; ok)" "$out; $(cat "$o5/gradebook.csv")"
    # attackers in a real class, graded by the judge: mallory, ivan and
    # ines (attackers, above), and eve, who forges her record
    # (forged_record); all score 0, and the class folder holds only what
    # the grader wrote
    s3=$(grep -m 1 -E '^03_' <<<"$stages")
    if ! build/confine/confine --probe >/dev/null 2>&1; then
        skip "on the GPU, a class with attackers: this machine cannot confine ($(build/confine/confine --probe))"
    else
        sub9=$tmp/sub9 o9=$tmp/out9
        attackers "$sub9" "$o9" "$s3"
        mk "$sub9/eve/$s3/kernel.cu" tests/grader/attacks/forged_record/kernel.cu
        marker=$(grep -m 1 -E '^ *[a-z_]+ *<<<|__global__' "solutions/$s3/kernel.cu")
        out=$("$cls" --submissions "$sub9" --out "$o9" --stages "$s3" --judge 2>&1); st=$?
        check "on the GPU, judged: alice's solution scores, the attackers score 0, nothing else lands in the class folder" \
            "$([ $st = 0 ] && [ "$(field "$(row "$o9" alice)" 2)" -gt 0 ] &&
               [ "$(field "$(row "$o9" mallory)" 2)" = 0 ] && [ "$(field "$(row "$o9" eve)" 2)" = 0 ] &&
               [ ! -e "$o9/planted-by-a-student" ] && [ "$(grep -c . "$o9/gradebook.csv")" = 6 ] &&
               grep -q '^alice,' "$o9/students/alice/row.csv"; ok)" "$out; $(cat "$o9/gradebook.csv")"
        check "on the GPU: a student who includes a classmate's kernel.cu, and one who .incbins it, score 0 and see none of it" \
            "$([ "$(field "$(row "$o9" ivan)" 2)" = 0 ] && [ "$(field "$(row "$o9" ines)" 2)" = 0 ] &&
               ! { tools/json.sh flat "$o9"/students/{ivan,ines}/grade.json; cat "$o9"/students/{ivan,ines}/grade.log; } 2>&1 | grep -qF -- "$marker" &&
               tools/json.sh flat "$o9/students/ivan/grade.json" | grep -q 'Permission denied'; ok)" \
            "$(cat "$o9/gradebook.csv"; for f in "$o9"/students/i*/grade.json; do json_rows "$f" stages stage reason; done)"
    fi
fi

totals
