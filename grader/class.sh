#!/usr/bin/env bash
# grader/class.sh: grade a whole class (make class). Instructors only.
#
#   grader/class.sh --submissions DIR [--out DIR] [--backend local|slurm] [--per-task N]
#                   [--stages "03 04"] [--seed S] [--sanitize] [--unconfined] [--judge] [--once] [--wait] [--retry]
#   grader/class.sh --status --out DIR
#
# DIR holds one entry per student: a folder (alice/) or an archive
# (alice.tar.gz, .tgz, .tar, .tar.xz, .tar.bz2; alice.zip where unzip is
# installed) with the student's kernel.cu files, as exercises/NN_name/kernel.cu
# or NN_name/kernel.cu, possibly inside one top folder. Only those files are
# taken: each student is graded by `make grade` in a copy of the lab of their
# own (a student release of this lab, made once per class in OUT/lab), so
# nothing else a student sends can replace the harness or the grader.
# Archives are refused when a member is a link or a special file, has an
# absolute path or a .. component, or unpacks to too much.
#
# OUT (default class-grades) gets:
#   gradebook.csv        student, points per stage, total, max, status, seed, notes
#   students/NAME/       row.csv (the student's row; written last, atomically),
#                        kernels/ (what was graded), grade.json, results.json,
#                        grade.log (the whole terminal output of make grade)
#   lab/                 the lab every student is graded with
#   logs/                the Slurm jobs' logs
#   class.conf           the seed and stages of this class; a re-run uses them
#
# A student with a row is done: a run that is stopped loses only the students
# being graded, and running the same command again grades only those without
# a row (--retry also those whose row says the machine, not the student, was
# the problem: no GPU, no build tools, grader error). To grade a student again,
# delete OUT/students/NAME.
#
# Back ends:
#   local   the GPUs of this machine, one student at a time per GPU
#           (CUDA_VISIBLE_DEVICES set per worker). GPUS="0 2" picks GPUs;
#           default: every GPU nvidia-smi lists (none listed: one worker).
#   slurm   one sbatch job array, one task per student (--per-task N: N
#           students one after another per task, on its GPU), one GPU each,
#           at most SLURM_THROTTLE (default 4) at a time, then a job that
#           depends on it (afterany) and writes the gradebook. OUT and the
#           lab must be on a file system the compute nodes share. Settings
#           from the environment: SLURM_PARTITION, SLURM_ACCOUNT, SLURM_TIME
#           (one student's limit, default 01:00:00; a task gets N times
#           it), SLURM_THROTTLE, SLURM_GRES
#           (default gpu:1), SLURM_CPUS (per task, default 4), SLURM_EXTRA
#           (more sbatch options, split on spaces). --wait follows the jobs.
#
# Other settings: KEEP_WORK=1 keeps each student's copy of the lab in
# OUT/work/; CLASS_MAKE is the make that runs `make grade` (tests put a
# stand-in there). CLASS_BUILDERS (default: one per CPU; 0: none) builds
# every student before the GPUs grade (no compiler beside a timing judge).
# What the workers and the Slurm jobs run: --task I --todo FILE (task I of
# the job array: its --per-task students of the to-do list), --worker GPU (a
# local worker), --builder (a local builder), --collect (the gradebook).
#
# This file reads the options and runs the steps; each job is a file of
# grader/class/: intake.sh (the lab, the submissions, the kernels),
# schedule.sh (the back ends), grading.sh (one student), gradebook.sh (the
# rows and the gradebook).
#
# Exit status: 0 done (whatever the grades), 1 a step failed, 2 usage, 3 no
# GPU here for the local back end (nothing was built).
set -uo pipefail

script=$(readlink -f "$0")
here=$(dirname "$script")

say() { printf '%s\n' "$*"; }
die() { printf 'class: %s\n' "$*" >&2; exit 1; }
usage() {
    sed -n '3,5p' "$script" | sed 's/^# \{0,1\}//' >&2
    [ -n "${1:-}" ] && printf 'class: %s\n' "$1" >&2
    exit 2
}

for part in intake gradebook grading schedule; do
    # shellcheck source=/dev/null
    . "$here/class/$part.sh" || { echo "class: $here/class/$part.sh is missing" >&2; exit 1; }
done

# ================================================================= options
# make grade's switches a class can turn on, as OPTION:VARIABLE: --OPTION
# grades every student with VARIABLE=1, and class.conf keeps it. One more
# switch of the grader is one more word here (and in the Makefile's class).
grade_switches="sanitize:SANITIZE unconfined:UNCONFINED judge:JUDGE once:ONCE"
submissions="" out="" backend=local stages_arg="" seed_arg="" switches_on="" wait_jobs=0 retry=0
mode=run task_index="" worker_gpu="" todo_file="" claims_dir="" per_task=1 per_task_given=0
while [ $# -gt 0 ]; do
    case $1 in
        --submissions | --out | --backend | --stages | --seed | --task | --worker | --todo | --claims | --per-task)
            [ $# -ge 2 ] && [ -n "$2" ] || usage "$1 needs a value"
            case $1 in
                --submissions) submissions=$2 ;;
                --out) out=$2 ;;
                --backend) backend=$2 ;;
                --stages) stages_arg=$2 ;;
                --seed) seed_arg=$2 ;;
                --task) mode=task task_index=$2 ;;
                --per-task) per_task=$2 per_task_given=1 ;;
                --worker) mode=worker worker_gpu=$2 ;;
                --todo) todo_file=$2 ;;
                --claims) claims_dir=$2 ;;
            esac
            shift 2
            ;;
        --wait) wait_jobs=1; shift ;;
        --retry) retry=1; shift ;;
        --status) mode=status; shift ;;
        --collect) mode=collect; shift ;;
        --builder) mode=builder; shift ;;
        -h | --help) sed -n '2,/^set -uo/p' "$script" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *)
            # --sanitize and the other switches of grade_switches
            [ "${1#--}" != "$1" ] && [ -n "$(switch_variable "${1#--}")" ] || usage "unknown argument '$1'"
            switches_on="$switches_on ${1#--}"
            shift
            ;;
    esac
done
if [ -z "$out" ]; then
    [ $mode = run ] || usage "--out DIR is needed"
    out=class-grades
fi
case $backend in local | slurm) ;; *) usage "--backend is local or slurm, not '$backend'" ;; esac
case $seed_arg in '' | *[!0-9]*) [ -z "$seed_arg" ] || usage "--seed takes a whole number" ;; esac
# students per Slurm array task: a whole number from 1 up; the local back
# end has no tasks to fill (its GPUs take the next student as they finish)
case $per_task in
    0* | '' | *[!0-9]*) usage "--per-task (PER_TASK) is how many students one Slurm array task grades: a whole number, 1 or more, not '$per_task'" ;;
esac
[ $mode != run ] || [ "$backend" = slurm ] || [ $per_task_given = 0 ] ||
    usage "--per-task (PER_TASK) is for the Slurm back end (BACKEND=slurm); the local back end gives each GPU the next student as it finishes"
task_time=${SLURM_TIME:-01:00:00}
if [ $mode = run ] && [ "$backend" = slurm ] && [ "$per_task" -gt 1 ]; then
    task_time=$(slurm_time_times "$task_time" "$per_task") ||
        usage "SLURM_TIME is one student's time limit in a form Slurm takes (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S), not '${SLURM_TIME:-}'"
fi

# make grade runs in copies of the lab: nothing of a make that called us
# (jobserver, command-line variables) and no git repository around OUT.
unset MAKEFLAGS MFLAGS MAKELEVEL
make_cmd=${CLASS_MAKE:-make}

# ============================================================ the class
# OUT/class.conf: key=value lines written at the first run.
conf_get() { sed -n "s/^$1=//p" "$out/class.conf" 2>/dev/null | head -n 1; }

# students.tsv: NAME<TAB>ENTRY (the file or folder in SUBMISSIONS), sorted.
students() { cut -f1 "$out/students.tsv"; }
entry_of() { awk -F'\t' -v n="$1" '$1 == n { print $2; exit }' "$out/students.tsv"; }

# Whether a student still needs grading: no row yet, or (--retry) a row
# whose status blames the machine.
needs_grading() {
    local row=$out/students/$1/row.csv
    [ -f "$row" ] || return 0
    [ $retry = 1 ] || return 1
    case $(row_status "$row") in "no GPU" | "no build tools" | "grader error" | "not confined") return 0 ;; esac
    return 1
}

done_count() {
    local n=0 s
    for s in $(students); do [ -f "$out/students/$s/row.csv" ] && n=$((n + 1)); done
    echo $n
}

# ================================================================== main
case $mode in
    status)
        [ -f "$out/class.conf" ] || die "$out holds no class"
        status_line
        summary
        exit 0
        ;;
    collect)
        collect
        exit 0
        ;;
    task)
        array_task "$task_index"
        exit 0
        ;;
    worker)
        worker "$worker_gpu" "$claims_dir"
        exit 0
        ;;
    builder)
        builder "$claims_dir"
        exit 0
        ;;
esac

[ -n "$submissions" ] || usage "--submissions DIR is needed"
[ -d "$submissions" ] || die "$submissions is not a folder"
# The local back end grades on this machine's GPUs: with none, the class
# stops before building anything, in one line (GPUS named by hand, or a
# stand-in CLASS_MAKE, is taken at its word). A class already begun in OUT
# first has its settings checked.
stop_without_gpu() {
    [ "$backend" = local ] && [ -z "${GPUS:-}${CLASS_MAKE:-}" ] || return 0
    nvidia-smi -L 2>/dev/null | grep -q '^GPU' && return 0
    if command -v sbatch >/dev/null; then
        printf 'class: no GPU here (nvidia-smi lists none): from a Slurm login node, BACKEND=slurm grades on the GPU nodes\n' >&2
    else
        printf 'class: no GPU here (nvidia-smi lists none) and no Slurm (sbatch): grade the class on a machine with an NVIDIA GPU\n' >&2
    fi
    exit 3
}
[ -f "$out/class.conf" ] || stop_without_gpu
case $out in *\'* | *$'\n'*) usage "the --out path may not hold a quote or a newline" ;; esac
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
if command -v flock >/dev/null; then
    exec 9>"$out/.lock"
    flock -n 9 || die "another make class is running on $out"
fi
setup_class
check_confinement
list_submissions
stop_without_gpu
m=$(students | wc -l)
[ "$m" -gt 0 ] || die "$submissions holds no submissions (one folder or archive per student)"

# intake here, for both back ends: refusals get their rows now, and the
# jobs read only OUT
todo=$out/work/todo.txt
: >"$todo"
refused=0 done_before=0
for name in $(students); do
    if ! needs_grading "$name"; then
        done_before=$((done_before + 1))
        continue
    fi
    if intake "$name"; then
        echo "$name" >>"$todo"
    else
        refused=$((refused + 1))
        say "[$(done_count)/$m] $name: $(row_status "$out/students/$name/row.csv"): $(row_notes "$out/students/$name/row.csv")"
    fi
done
n=$(wc -l <"$todo")
say "$m students, seed $(conf_get seed): $done_before graded before, $refused refused now, $n to grade ($backend)"
if [ "$n" = 0 ]; then
    collect
elif [ "$backend" = local ]; then
    run_local "$todo"
    collect
else
    # the gradebook job writes the gradebook
    run_slurm "$todo"
fi
