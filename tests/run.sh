#!/usr/bin/env bash
# tests/run.sh: the runner behind `make check` (which builds everything first).
#
# Host checks always run: unit tests of the harness, the layout of the stages,
# the behaviour of a driver with no GPU. The GPU suite runs where a GPU is:
# every solution passes, every skeleton fails cleanly, every deliberately bad
# kernel in tests/fixtures/ is caught. In a student release (make release:
# no solutions/, no fixtures) what needs them is skipped, with a line saying so.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2

. tests/lib.sh

. tools/stages.sh
stages=$(printf '%s\n' $LAB_STAGES)
# A student release (make release) has no solutions/: what needs them is skipped.
solutions=solutions
[ -d solutions ] || solutions=""

echo "== host unit tests"
unit_out=$(build/tests/unit 2>&1)
while read -r word name _; do
    case $word in
        ok) pass "unit: $name" ;;
        FAIL) [ -n "$name" ] && fail "unit: $name" "$(grep '^FAIL  ' <<<"$unit_out")" ;;
    esac
done < <(grep -E '^(ok|FAIL) +[a-z]+ +[0-9]+ checks' <<<"$unit_out")

echo "== layout of the stages"
[ -n "$solutions" ] || skip "solutions: none here (a student release): the checks of the solutions are skipped"
# the files a stage needs (tools/stage-files.sh); a stage named in no file lacks every one
out=$(tools/stage-files.sh 99_not_a_stage); st=$?
check "a stage added without its files is caught: each missing file named, exit 1" \
    "$([ $st = 1 ] && grep -q 'no line in stages.tsv' <<<"$out" && grep -q 'no exercises/99_not_a_stage/kernel.cu' <<<"$out" &&
       grep -q 'no line in stages.tsv: points' <<<"$out" && grep -q 'no handouts/99_not_a_stage.md' <<<"$out"; echo $?)" "$out"
for s in $stages; do
    out=$(tools/stage-files.sh "$s")
    check "$s: its lines in stages.tsv, exercise, its README${solutions:+, the solution} and its handout exist" $? "$out"
    grep -q 'TODO(lab)' "exercises/$s/kernel.cu" 2>/dev/null
    check "$s: the skeleton marks its edit points with TODO(lab)" $?
    if [ -n "$solutions" ]; then
        ! grep -q 'TODO(lab)' "solutions/$s/kernel.cu" 2>/dev/null
        check "$s: the solution has no TODO(lab) left" $?
    fi
    heads=$(grep -c -E '^## (Goal|Background|Task|Run it|How it is graded|Questions)$' "exercises/$s/README.md" 2>/dev/null)
    check "$s: README has the six headings (Goal ... Questions)" "$([ "${heads:-0}" = 6 ]; echo $?)"
    grep -q "](../../handouts/$s.md)" "exercises/$s/README.md" 2>/dev/null && [ -f "handouts/$s.md" ]
    check "$s: README links to its handout, handouts/$s.md" $?
    grep -q "| *\`\?$s\`\? *|" README.md
    check "$s: listed in the README's stage table" $?
    for v in exercise ${solutions:+solution}; do
        [ -x "build/$s/$v" ]
        check "$s: $v builds" $?
    done
done
if [ -n "$solutions" ]; then
    extra=$(diff -rq exercises solutions | grep -v -E '^Files exercises/[^/]+/kernel\.cu and solutions/[^/]+/kernel\.cu differ$|^Only in exercises/[^/]+: README\.md$')
    check "diff -r exercises solutions shows only the answers" "$([ -z "$extra" ]; echo $?)" "$extra"
fi

echo "== drivers without a GPU, and bad arguments"
first=$(head -n 1 <<<"$stages")
bin=build/$first/solution
[ -n "$solutions" ] || bin=build/$first/exercise
out=$("$bin" --n 0 2>&1); st=$?
check "bad size: exit 2 and a message" "$([ $st = 2 ] && grep -q "not a size" <<<"$out"; echo $?)" "$out"
out=$("$bin" --bogus 2>&1); st=$?
check "unknown option: exit 2" "$([ $st = 2 ]; echo $?)" "$out"
out=$("$bin" --help 2>&1); st=$?
check "--help: exit 0 and the exit statuses explained" "$([ $st = 0 ] && grep -q "exit status" <<<"$out"; echo $?)" "$out"

have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && have_gpu=1
if [ $have_gpu = 0 ]; then
    out=$("$bin" 2>&1); st=$?
    check "no GPU: exit 3 with one line naming the cause" \
        "$([ $st = 3 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "no usable CUDA GPU" <<<"$out"; echo $?)" "$out"
fi

# suite TITLE PREFIX COMMAND...: run a sub-suite that prints "ok    name" and
# "FAIL  name" lines (details indented beneath), and count each line here
# as it comes (a FAIL once its details have come: at the next result line)
suite() {
    local title=$1 prefix=$2 out="" line word name failing="" details=""
    shift 2
    echo "== $title"
    while IFS= read -r line; do
        out+=$line$'\n'
        read -r word name <<<"$line"
        case $word in ok | skip | FAIL) ;; *) [[ $line == '      '* ]] && details+=$line$'\n'; continue ;; esac
        [ -n "$failing" ] && fail "$prefix: $failing" "${details%$'\n'}"
        failing="" details=""
        case $word in
            ok) pass "$prefix: $name" ;;
            skip) skip "$prefix: $name" ;;
            FAIL) failing=$name ;;
        esac
    done < <("$@" 2>&1)
    [ -n "$failing" ] && fail "$prefix: $failing" "${details%$'\n'}"
    grep -qE '^(ok|FAIL|skip) ' <<<"$out" || fail "$prefix: the suite ran" "${out%$'\n'}"
}

suite "GPU suite: solutions, skeletons and wrong kernels run (tests/gpu-suite.sh)" gpu tests/gpu-suite.sh
suite "the CPU emulation: every solution, skeleton, reference and wrong kernel (tests/emu.sh)" emu tests/emu.sh
if [ -x tests/emu/explain.sh ]; then
    suite "make explain: sectors and wavefronts of one launch, counted on the CPU (tests/emu/explain.sh)" explain tests/emu/explain.sh
else
    skip "explain: make explain's tests count the solutions' accesses (not part of a student release)"
fi
if [ -x tests/emu/technique.sh ]; then
    suite "the technique on the CPU: present in the solutions and references, missing in three wrong kinds a stage (tests/emu/technique.sh)" technique tests/emu/technique.sh
else
    skip "technique: its kernels are the solutions' and references' (not part of a student release)"
fi
suite "make profile without a GPU: the parser and the messages (tests/profile/run.sh)" profile tests/profile/run.sh
mkdir -p build/tests
printf 'stage\tbonus\tpoints\tmax_points\tcorrect\tflagged\tseed\tmissed\treason\n%s\tfalse\t6\t10\ttrue\tfalse\t7\tpass\t-\nlater\tfalse\t0\t10\tfalse\tfalse\t7\t-\twrong\n' \
    "$first" >build/tests/hints.tsv
out=$(NCU=/nonexistent/ncu tools/grade-hints.sh build/tests/hints.tsv 2>&1)
check "profile: make grade's hints: the stages that passed, one line when ncu is missing" \
    "$(grep -q "hints, not scored" <<<"$out" && grep -q "^  $first:" <<<"$out" && ! grep -q "later" <<<"$out" &&
       grep -q "not installed" <<<"$out"; echo $?)" "$out"
suite "messages without a GPU and for bad knobs (tests/messages/run.sh)" messages tests/messages/run.sh
suite "the student's loop: a build's own messages, notes on knobs, a missing nvcc (tests/student-loop.sh)" loop tests/student-loop.sh
suite "handouts and slides: the link checker and the plots (tests/docs/run.sh)" docs tests/docs/run.sh
suite "the student release's documents: every path, make command and duration true there (tests/docs/release.sh)" release-docs tests/docs/release.sh
if [ -x tests/class/run.sh ]; then
    suite "make release and make class (tests/class/run.sh)" class tests/class/run.sh
    suite "make class with a roster and a deadline, make export (tests/class/term.sh)" term tests/class/term.sh
    suite "make report: the class report, parsed (tests/class/report/run.sh)" report tests/class/report/run.sh
    suite "make similarity: copies against honest kernels (tests/class/similarity/run.sh)" similarity tests/class/similarity/run.sh
else
    skip "class: make release and make class are tested in the instructors' copy (not part of a student release)"
fi
if [ -x tests/slurm/gpu-run.sh ]; then
    suite "make grade, run and profile from a login node, through srun (tests/slurm/gpu-run.sh)" srun tests/slurm/gpu-run.sh
else
    skip "srun: running through Slurm is tested in the instructors' copy (not part of a student release)"
fi
if command -v pandoc >/dev/null; then
    out=$(make --no-print-directory docs-check 2>&1)
    check "docs: make docs-check (every link, anchor and figure of the built pages)" $? "$out"
else
    skip "docs: make docs-check: pandoc is not installed (apt-get install pandoc)"
fi
suite "the wall around student code: attacks without a GPU (tests/confine/run.sh)" confine tests/confine/run.sh
suite "the wall: a build sees its own file, a run loads its own libraries (tests/confine/wall.sh)" wall tests/confine/wall.sh
suite "the link: an object's LTO bytecode and writable, executable memory refused (tests/confine/link.sh)" link tests/confine/link.sh
suite "the judge and its runners without a GPU (tests/judge/run.sh)" judge tests/judge/run.sh
suite "a runner without a GPU, its device server faked (tests/judge/forward.sh)" forward tests/judge/forward.sh
suite "every door that runs student code: the one launcher, attacks on the CPU verdict (tests/launcher/run.sh)" launcher tests/launcher/run.sh
suite "the tree's layout: backends at link time, file lengths, family files (tests/layout/run.sh)" layout tests/layout/run.sh
suite "the one timing policy, as every stage's programs resolve it (tests/policy/run.sh)" policy tests/policy/run.sh
suite "the one table of the stages: stale tables, a stage added in five files, sizes (tests/tables/run.sh)" tables tests/tables/run.sh
suite "a family is one place: a toy family in five files, built, graded on the CPU, class-checked (tests/family/run.sh)" family tests/family/run.sh
if [ -x tests/grader/run.sh ]; then
    suite "the grader (tests/grader/run.sh)" grader tests/grader/run.sh
else
    skip "grader: its own tests are not part of a student release"
fi

totals
