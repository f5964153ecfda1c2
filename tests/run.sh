#!/usr/bin/env bash
# tests/run.sh: the runner behind `make check` (which builds everything first).
#
# Host checks always run: unit tests of the harness, the layout of the stages,
# the behaviour of a driver with no GPU. The GPU suite runs where a GPU is:
# every solution passes, every skeleton fails cleanly, every deliberately bad
# kernel in tests/fixtures/ is caught. In a student release (make release:
# no solutions/, no fixtures) what needs them is skipped, with a line saying so.
# Suites run two at a time (tests/runner.sh), their output in this file's
# order, each title with its seconds. Ends with the failed checks by suite and
# name, then "N passed, N failed[, N skipped]"; exit 0 when none failed.
#
#   tests/run.sh [--only SUITE[:CHECK]] [-j JOBS] [--list]
#     --only: the suites whose name matches SUITE (an extended regular
#       expression, e.g. 'similarity' or 'class|term'), counting only the
#       checks whose name matches CHECK; make check T=SUITE[:CHECK] is the same
#     -j: how many suites at a time (default 2; 1: one by one)
#     --list: the suites' names
set -u
cd "$(dirname "$0")/.." || exit 2

. tests/lib.sh
. tests/runner.sh

only="" jobs=2 list=0
while [ $# -gt 0 ]; do
    case $1 in
        --only) [ $# -ge 2 ] || { echo "tests/run.sh: --only needs SUITE[:CHECK]" >&2; exit 2; }; only=$2; shift ;;
        -j) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: -j needs a number of suites, 1 or more" >&2; exit 2; }; jobs=$2; shift ;;
        --list) list=1 ;;
        *) echo "usage: tests/run.sh [--only SUITE[:CHECK]] [-j JOBS] [--list]" >&2; exit 2 ;;
    esac
    shift
done

. tools/stages.sh
stages=$(printf '%s\n' $LAB_STAGES)
first=$(head -n 1 <<<"$stages")
# A student release (make release) has no solutions/: what needs them is skipped.
solutions=solutions
[ -d solutions ] || solutions=""

# ---------------------------------------------------------- inline suites
# unit_tests: the host unit tests (build/tests/unit), one line a group
unit_tests() {
    local unit_out word name
    unit_out=$(build/tests/unit 2>&1)
    while read -r word name _; do
        case $word in
            ok) pass "$name" ;;
            FAIL) [ -n "$name" ] && fail "$name" "$(grep '^FAIL  ' <<<"$unit_out")" ;;
        esac
    done < <(grep -E '^(ok|FAIL) +[a-z]+ +[0-9]+ checks' <<<"$unit_out")
}

# stage_layout: each stage's files, headings and builds
stage_layout() {
    local out st s heads v extra
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
}

# drivers: a driver's bad arguments, and its one line where no GPU is
drivers() {
    local bin=build/$first/solution out st
    [ -n "$solutions" ] || bin=build/$first/exercise
    out=$("$bin" --n 0 2>&1); st=$?
    check "bad size: exit 2 and a message" "$([ $st = 2 ] && grep -q "not a size" <<<"$out"; echo $?)" "$out"
    out=$("$bin" --bogus 2>&1); st=$?
    check "unknown option: exit 2" "$([ $st = 2 ]; echo $?)" "$out"
    out=$("$bin" --help 2>&1); st=$?
    check "--help: exit 0 and the exit statuses explained" "$([ $st = 0 ] && grep -q "exit status" <<<"$out"; echo $?)" "$out"
    if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        out=$("$bin" 2>&1); st=$?
        check "no GPU: exit 3 with one line naming the cause" \
            "$([ $st = 3 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "no usable CUDA GPU" <<<"$out"; echo $?)" "$out"
    fi
}

# grade_hints: make grade's hints name the stages that passed, in one line when ncu is missing
grade_hints() {
    local out
    mkdir -p build/tests
    printf 'stage\tbonus\tpoints\tmax_points\tcorrect\tflagged\tseed\tmissed\treason\n%s\tfalse\t6\t10\ttrue\tfalse\t7\tpass\t-\nlater\tfalse\t0\t10\tfalse\tfalse\t7\t-\twrong\n' \
        "$first" >build/tests/hints.tsv
    out=$(NCU=/nonexistent/ncu tools/grade-hints.sh build/tests/hints.tsv 2>&1)
    check "make grade's hints: the stages that passed, one line when ncu is missing" \
        "$(grep -q "hints, not scored" <<<"$out" && grep -q "^  $first:" <<<"$out" && ! grep -q "later" <<<"$out" &&
           grep -q "not installed" <<<"$out"; echo $?)" "$out"
}

# docs_check: make docs-check where pandoc is
docs_check() {
    local out
    if command -v pandoc >/dev/null; then
        out=$(make --no-print-directory docs-check 2>&1)
        check "make docs-check (every link, anchor and figure of the built pages)" $? "$out"
    else
        skip "make docs-check: pandoc is not installed (apt-get install pandoc)"
    fi
}

# shared_programs: the class's programs, which several suites run, built once
# before them (beside each other two makes would write the same objects)
shared_programs() {
    local p out
    for p in build/grader/class build/grader/report build/grader/similarity; do
        out=$(make --no-print-directory -s "$p" 2>&1)
        check "$p builds" $? "$out"
    done
}

# skip_line TEXT: a suite of one skip line, for what is not here
skip_line() { printf 'skip  %s\n' "$1"; }

# optional [--uses STATE] NAME TITLE SCRIPT WHY: suite SCRIPT where it is,
# else one skip line saying why
optional() {
    local uses=()
    [ "$1" = --uses ] && { uses=("$1" "$2"); shift 2; }
    if [ -x "$3" ]; then suite "${uses[@]}" "$1" "$2" "$3"; else suite "$1" "$2" skip_line "$4"; fi
}

# ---------------------------------------------------------- the suites
# The longest first (measurements/cpu-2026-11-29-ci/), so that none of them
# is left to run alone at the end; the suites using all (which run alone)
# at the start, before the others.
# --uses: what of the machine the suite changes that others use too (tests/runner.sh)
why="make release and make class are tested in the instructors' copy (not part of a student release)"
[ ! -d grader/class ] || suite --uses all programs "the class's programs, built once for the suites that run them" shared_programs
optional --uses all grader-stages "the grader on the real stages, in the lab's own build/ (tests/grader/stages.sh)" \
    tests/grader/stages.sh "its own tests are not part of a student release"
optional --uses grade grader "the grader (tests/grader/run.sh)" tests/grader/run.sh "its own tests are not part of a student release"
optional --uses grade grader-library "the grader: header-only libraries, every solution and skeleton (tests/grader/library.sh)" \
    tests/grader/library.sh "its own tests are not part of a student release"
optional release "make release, and make check and make grade in the release (tests/class/release.sh)" tests/class/release.sh "$why"
optional --uses grade technique "the technique on the CPU: present in the solutions and references, missing in three wrong kinds a stage (tests/emu/technique.sh)" \
    tests/emu/technique.sh "its kernels are the solutions' and references' (not part of a student release)"
optional class "make class, local back end: a stand-in for make grade, then the real one (tests/class/run.sh)" tests/class/run.sh "$why"
optional --uses slurm class-slurm "make class on a single-node Slurm test cluster (tests/class/slurm.sh)" tests/class/slurm.sh "$why"
suite emu "the CPU emulation: every solution, skeleton, reference and wrong kernel (tests/emu.sh)" tests/emu.sh
optional --uses slurm srun "make grade, run and profile from a login node, through srun (tests/slurm/gpu-run.sh)" tests/slurm/gpu-run.sh \
    "running through Slurm is tested in the instructors' copy (not part of a student release)"
optional class-check "make class CHECK=1: a class built and checked without a GPU (tests/class/check.sh)" tests/class/check.sh "$why"
optional attackers "make class CHECK=1 with attackers: student code built and run without a GPU (tests/class/attackers.sh)" \
    tests/class/attackers.sh "$why"
optional gradescope "make gradescope and run_autograder (tests/class/gradescope.sh)" tests/class/gradescope.sh "$why"
suite --uses grade launcher "every door that runs student code: the one launcher, attacks on the CPU verdict (tests/launcher/run.sh)" tests/launcher/run.sh
suite release-docs "the student release's documents: every path, make command and duration true there (tests/docs/release.sh)" tests/docs/release.sh
optional term "make class with a roster and a deadline, make export (tests/class/term.sh)" tests/class/term.sh "$why"
optional intake "make class: submissions at the limits, odd names (tests/class/intake.sh)" tests/class/intake.sh "$why"
optional dirty "make release and make class from a tree with an uncommitted answer (tests/class/dirty.sh)" tests/class/dirty.sh "$why"
optional sbatch "make class BACKEND=slurm with a stand-in for sbatch and squeue (tests/class/slurm-stand-in.sh)" \
    tests/class/slurm-stand-in.sh "$why"
suite tables "the one table of the stages: stale tables, a stage added in five files, sizes (tests/tables/run.sh)" tests/tables/run.sh
suite --uses grade wall "the wall: a build sees its own file, a run loads its own libraries (tests/confine/wall.sh)" tests/confine/wall.sh
suite link "the link: an object's LTO bytecode and writable, executable memory refused (tests/confine/link.sh)" tests/confine/link.sh
suite docs "handouts and slides: the link checker and the plots (tests/docs/run.sh)" tests/docs/run.sh
suite confine "the wall around student code: attacks without a GPU (tests/confine/run.sh)" tests/confine/run.sh
suite --uses grade loop "the student's loop: a build's own messages, notes on knobs, a missing nvcc (tests/student-loop.sh)" tests/student-loop.sh
suite --uses grade messages "messages without a GPU and for bad knobs (tests/messages/run.sh)" tests/messages/run.sh
optional explain "make explain: sectors and wavefronts of one launch, counted on the CPU (tests/emu/explain.sh)" \
    tests/emu/explain.sh "make explain's tests count the solutions' accesses (not part of a student release)"
optional similarity "make similarity: copies against honest kernels (tests/class/similarity/run.sh)" tests/class/similarity/run.sh "$why"
suite family "a family is one place: a toy family in five files, built, graded on the CPU, class-checked (tests/family/run.sh)" tests/family/run.sh
suite policy "the one timing policy, as every stage's programs resolve it (tests/policy/run.sh)" tests/policy/run.sh
suite profile "make profile without a GPU: the parser and the messages (tests/profile/run.sh)" tests/profile/run.sh
suite judge "the judge and its runners without a GPU (tests/judge/run.sh)" tests/judge/run.sh
suite forward "a runner without a GPU, its device server faked (tests/judge/forward.sh)" tests/judge/forward.sh
suite runner "the order in which make check starts its suites (tests/runner-order.sh)" tests/runner-order.sh
suite layout "the tree's layout: backends at link time, file lengths, family files (tests/layout/run.sh)" tests/layout/run.sh
optional report "make report: the class report, parsed (tests/class/report/run.sh)" tests/class/report/run.sh "$why"
suite docs-check "the built pages: make docs-check" docs_check
suite unit "host unit tests" unit_tests
suite drivers "drivers without a GPU, and bad arguments" drivers
suite stages "layout of the stages" stage_layout
suite hints "make grade's hints (tools/grade-hints.sh)" grade_hints
suite gpu "GPU suite: solutions, skeletons and wrong kernels run (tests/gpu-suite.sh)" tests/gpu-suite.sh
[ $list = 0 ] || { list_suites; exit 0; }
[ -z "$only" ] || select_suites "$only"
# said once, before the suites (make check in a release looks for this line)
[ -n "$solutions" ] || skip "solutions: none here (a student release): the checks of the solutions are skipped"
run_suites "$jobs"
totals
