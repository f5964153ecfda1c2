#!/usr/bin/env bash
# grader/class.sh: grade a whole class (make class). Instructors only.
#
#   grader/class.sh --submissions DIR [--out DIR] [--backend local|slurm]
#                   [--stages "03 04"] [--seed S] [--sanitize] [--wait] [--retry]
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
#   slurm   one sbatch job array, one task per student, one GPU each, at most
#           SLURM_THROTTLE (default 4) at a time, then a job that depends on
#           it (afterany) and writes the gradebook. OUT and the lab must be on
#           a file system the compute nodes share. Settings from the
#           environment: SLURM_PARTITION, SLURM_ACCOUNT, SLURM_TIME (one
#           student's limit, default 01:00:00), SLURM_THROTTLE, SLURM_GRES
#           (default gpu:1), SLURM_CPUS (per task, default 4), SLURM_EXTRA
#           (more sbatch options, split on spaces). --wait follows the jobs.
#
# Other settings: KEEP_WORK=1 keeps each student's copy of the lab in
# OUT/work/; CLASS_MAKE is the make that runs `make grade` (tests put a
# stand-in there). What the workers and the Slurm jobs run: --one NAME (one
# student), --worker GPU (a local worker), --collect (the gradebook).
#
# Exit status: 0 done (whatever the grades), 1 a step failed, 2 usage.
set -uo pipefail

script=$(readlink -f "$0")

# Size limits of a submission: an archive, all it unpacks to, one kernel.cu.
MAX_ARCHIVE_BYTES=$((20 << 20))
MAX_UNPACKED_BYTES=$((64 << 20))
MAX_MEMBERS=10000
MAX_KERNEL_BYTES=$((1 << 20))

say() { printf '%s\n' "$*"; }
die() { printf 'class: %s\n' "$*" >&2; exit 1; }
usage() {
    sed -n '3,5p' "$script" | sed 's/^# \{0,1\}//' >&2
    [ -n "${1:-}" ] && printf 'class: %s\n' "$1" >&2
    exit 2
}

# ================================================================= options
submissions="" out="" backend=local stages_arg="" seed_arg="" sanitize="" wait_jobs=0 retry=0
mode=run one="" worker_gpu="" todo_file="" claims_dir=""
while [ $# -gt 0 ]; do
    case $1 in
        --submissions | --out | --backend | --stages | --seed | --one | --worker | --todo | --claims)
            [ $# -ge 2 ] && [ -n "$2" ] || usage "$1 needs a value"
            case $1 in
                --submissions) submissions=$2 ;;
                --out) out=$2 ;;
                --backend) backend=$2 ;;
                --stages) stages_arg=$2 ;;
                --seed) seed_arg=$2 ;;
                --one) mode=one one=$2 ;;
                --worker) mode=worker worker_gpu=$2 ;;
                --todo) todo_file=$2 ;;
                --claims) claims_dir=$2 ;;
            esac
            shift 2
            ;;
        --sanitize) sanitize=1; shift ;;
        --wait) wait_jobs=1; shift ;;
        --retry) retry=1; shift ;;
        --status) mode=status; shift ;;
        --collect) mode=collect; shift ;;
        -h | --help) sed -n '2,/^set -uo/p' "$script" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) usage "unknown argument '$1'" ;;
    esac
done
if [ -z "$out" ]; then
    [ $mode = run ] || usage "--out DIR is needed"
    out=class-grades
fi
case $backend in local | slurm) ;; *) usage "--backend is local or slurm, not '$backend'" ;; esac
case $seed_arg in '' | *[!0-9]*) [ -z "$seed_arg" ] || usage "--seed takes a whole number" ;; esac

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

# The student's name: the entry's name without its archive extension, with
# anything but letters, digits, . _ - turned into _ (it names a folder and a
# gradebook row).
student_name() {
    local n=$1
    n=${n%.tar.gz}; n=${n%.tgz}; n=${n%.tar.xz}; n=${n%.txz}; n=${n%.tar.bz2}; n=${n%.tbz2}
    n=${n%.tar}; n=${n%.zip}
    n=$(printf '%s' "$n" | tr -c 'A-Za-z0-9._-' '_')
    case $n in [A-Za-z0-9]*) ;; *) n=s$n ;; esac
    printf '%s\n' "$n"
}

# List SUBMISSIONS into OUT/students.tsv. Fails on two entries that make one
# name (alice/ and alice.tar.gz): the instructor has to say which counts.
list_submissions() {
    local e base name tmp=$out/students.tsv.tmp
    : >"$tmp"
    for e in "$submissions"/*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        base=${e##*/}
        # OUT itself, when it lies in SUBMISSIONS
        [ "$(readlink -f "$e")" = "$out" ] && continue
        if [ ! -d "$e" ]; then
            case $base in
                *.tar | *.tar.gz | *.tgz | *.tar.xz | *.txz | *.tar.bz2 | *.tbz2 | *.zip) ;;
                *) say "class: ignored $e: not a folder, a tarball or a zip file" >&2; continue ;;
            esac
        fi
        name=$(student_name "$base")
        printf '%s\t%s\n' "$name" "$base" >>"$tmp"
    done
    sort -t $'\t' -k1,1 -o "$tmp" "$tmp"
    local dup both
    dup=$(cut -f1 "$tmp" | uniq -d | head -n 1)
    if [ -n "$dup" ]; then
        both=$(awk -F'\t' -v n="$dup" '$1 == n { printf "%s ", $2 }' "$tmp")
        rm -f "$tmp"
        die "these submissions are all student '$dup': $both(rename or remove one)"
    fi
    mv "$tmp" "$out/students.tsv"
}

# The stages to grade: every stage of the lab, or those --stages names.
resolve_stages() {
    local all want s found result=""
    all=$(awk -F'\t' '!/^#/ && NF >= 5 { print $1 }' "$out/lab/stages.tsv")
    [ -n "$1" ] || { echo $all; return; }
    for want in $1; do
        found=""
        for s in $all; do
            case $s in "$want"*) found=$s; break ;; esac
        done
        [ -n "$found" ] || die "no stage matches '$want'; the stages are: $(echo $all)"
        case " $result " in *" $found "*) ;; *) result="$result $found" ;; esac
    done
    echo $result
}

# First run: the lab snapshot and class.conf. Later runs: check that the
# options agree with the stored ones, then use those.
setup_class() {
    local lab_dir
    lab_dir=$(cd "$(dirname "$script")/.." && pwd)
    mkdir -p "$out/students" "$out/logs" "$out/work" "$out/bin" || die "cannot create $out"
    if [ ! -f "$out/lab/stages.tsv" ]; then
        rm -rf "$out/lab"
        [ -x "$lab_dir/tools/release.sh" ] || die "$lab_dir has no tools/release.sh: class grading needs the instructors' copy of the lab"
        "$lab_dir/tools/release.sh" "$out/lab" >"$out/logs/release.log" 2>&1 ||
            die "could not copy the lab into $out/lab: $(tail -n 3 "$out/logs/release.log")"
        say "the lab every student is graded with: $out/lab, $(sed -n '1s/^release: \([0-9]* files of commit [0-9a-f]*\).*/\1/p' "$out/logs/release.log")"
        # uncommitted changes of the lab are graded with: say which
        sed -n '2,$p' "$out/logs/release.log" | grep -v 'is a git repository' | sed 's/^release: //'
    else
        say "the lab every student is graded with: $out/lab (made by the first run of this class)"
    fi
    local stages seed
    stages=$(resolve_stages "$stages_arg")
    if [ -f "$out/class.conf" ]; then
        [ -z "$stages_arg" ] || [ "$stages" = "$(conf_get stages)" ] ||
            die "$out was graded with stages '$(conf_get stages)', not '$stages': use another --out"
        [ -z "$seed_arg" ] || [ "$seed_arg" = "$(conf_get seed)" ] ||
            die "$out was graded with seed $(conf_get seed), not $seed_arg: use another --out"
        [ -z "$sanitize" ] || [ "$(conf_get sanitize)" = 1 ] ||
            die "$out was graded without SANITIZE=1: use another --out"
    else
        # one seed for the whole class: everyone gets the same inputs
        seed=${seed_arg:-$(($(od -An -N4 -tu4 /dev/urandom) % 1000000007))}
        {
            echo "seed=$seed"
            echo "stages=$stages"
            echo "sanitize=${sanitize:-0}"
            echo "created=$(date -u '+%Y-%m-%d %H:%M UTC')"
        } >"$out/class.conf.tmp" && mv "$out/class.conf.tmp" "$out/class.conf" || die "cannot write $out/class.conf"
    fi
    echo "submissions=$(cd "$submissions" && pwd)" >"$out/submissions.conf"
    # the Slurm tasks run this copy, so that editing the lab cannot change a running class
    cp "$script" "$out/bin/class.sh.tmp" && mv "$out/bin/class.sh.tmp" "$out/bin/class.sh"
}

# ================================================================== rows
# csv TEXT: one CSV field (quoted when it has a comma or a quote; newlines
# become spaces).
csv() {
    local v=${1//$'\n'/ }
    v=${v//$'\r'/ }
    if [[ $v == *[,\"]* ]]; then
        printf '"%s"' "${v//\"/\"\"}"
    else
        printf '%s' "$v"
    fi
}

# write_row NAME STATUS NOTES [POINTS-FILE]: the student's row, written to a
# temporary file and renamed, so that a row is either whole or absent.
# POINTS-FILE has "stage<TAB>points" lines and "score", "max", "seed" lines.
write_row() {
    local name=$1 status=$2 notes=$3 points=${4:-} dir=$out/students/$1 s p line
    line=$(csv "$name")
    for s in $(conf_get stages); do
        p=""
        [ -n "$points" ] && p=$(awk -F'\t' -v s="$s" '$1 == "stage" && $2 == s { print $3 }' "$points")
        line="$line,$p"
    done
    local total="" max="" seed
    seed=$(conf_get seed)
    if [ -n "$points" ]; then
        total=$(awk -F'\t' '$1 == "score" { print $2 }' "$points")
        max=$(awk -F'\t' '$1 == "max" { print $2 }' "$points")
        seed=$(awk -F'\t' -v d="$seed" '$1 == "seed" { d = $2 } END { print d }' "$points")
    fi
    line="$line,$total,$max,$(csv "$status"),$seed,$(csv "${notes:0:600}")"
    mkdir -p "$dir" && printf '%s\n' "$line" >"$dir/row.csv.tmp" && mv "$dir/row.csv.tmp" "$dir/row.csv"
}

# row_field FILE N: field N (from 1) of a one-line CSV file.
row_field() {
    awk -v n="$2" '
        { line = $0
          for (f = 1; f <= n; f++) {
              if (substr(line, 1, 1) == "\"") {
                  line = substr(line, 2); v = ""
                  while (1) {
                      i = index(line, "\""); if (i == 0) { v = v line; line = ""; break }
                      v = v substr(line, 1, i - 1); line = substr(line, i + 1)
                      if (substr(line, 1, 1) == "\"") { v = v "\""; line = substr(line, 2) } else break
                  }
                  line = substr(line, 2)
              } else {
                  i = index(line, ","); if (i == 0) i = length(line) + 1
                  v = substr(line, 1, i - 1); line = substr(line, i + 1)
              }
          }
          print v }' "$1"
}
# The status and the notes of a row file: columns after the stages' points,
# the total and the maximum.
row_status() { row_field "$1" $(($(wc -w <<<"$(conf_get stages)") + 4)); }
row_notes() { row_field "$1" $(($(wc -w <<<"$(conf_get stages)") + 6)); }

# Whether a student still needs grading: no row yet, or (--retry) a row
# whose status blames the machine.
needs_grading() {
    local row=$out/students/$1/row.csv
    [ -f "$row" ] || return 0
    [ $retry = 1 ] || return 1
    case $(row_status "$row") in "no GPU" | "no build tools" | "grader error") return 0 ;; esac
    return 1
}

done_count() {
    local n=0 s
    for s in $(students); do [ -f "$out/students/$s/row.csv" ] && n=$((n + 1)); done
    echo $n
}

# ================================================================ intake
# unpack ARCHIVE DEST: unpack a student's archive, or print why not and fail.
# Every member is listed first; the listing decides; the unpacked tree is
# checked again for anything but plain files and folders.
unpack() {
    local a=$1 d=$2 list names types bad total count
    local size
    size=$(stat -c %s "$a" 2>/dev/null) || { echo "cannot read ${a##*/}"; return 1; }
    [ "$size" -le $MAX_ARCHIVE_BYTES ] || { echo "${a##*/} is larger than $((MAX_ARCHIVE_BYTES >> 20)) MiB"; return 1; }
    case $a in
        *.zip)
            command -v unzip >/dev/null || { echo "${a##*/} is a zip file and unzip is not installed here: install unzip or ask for a tarball"; return 1; }
            names=$(unzip -Z1 "$a" 2>/dev/null) || { echo "not a readable zip file"; return 1; }
            types=$(unzip -Z "$a" 2>/dev/null | sed '1,2d;$d' | cut -c1)
            total=$(unzip -Zt "$a" 2>/dev/null | sed -n 's/.* \([0-9]*\) bytes uncompressed.*/\1/p')
            ;;
        *)
            list=$(tar --numeric-owner -tvf "$a" 2>"$d.err") ||
                { echo "not a readable tar archive: $(grep -v '^tar: Exiting' "$d.err" | head -n 1)"; rm -f "$d.err"; return 1; }
            rm -f "$d.err"
            names=$(tar -tPf "$a" 2>/dev/null)
            types=$(cut -c1 <<<"$list")
            total=$(awk '{ s += $3 } END { printf "%.0f\n", s }' <<<"$list")
            ;;
    esac
    count=$(wc -l <<<"$names")
    [ "$count" -le $MAX_MEMBERS ] || { echo "holds more than $MAX_MEMBERS files"; return 1; }
    [ "${total:-0}" -le $MAX_UNPACKED_BYTES ] || { echo "unpacks to more than $((MAX_UNPACKED_BYTES >> 20)) MiB"; return 1; }
    bad=$(grep -m 1 '^/' <<<"$names")
    [ -z "$bad" ] || { echo "member with an absolute path: $bad"; return 1; }
    bad=$(grep -m 1 -E '(^|/)\.\.(/|$)' <<<"$names")
    [ -z "$bad" ] || { echo "member outside the archive's folder: $bad"; return 1; }
    bad=$(grep -c -v -E '^[-d]?$' <<<"$types")
    if [ "$bad" != 0 ]; then
        bad=$(paste -d' ' <(printf '%s\n' "$types") <(printf '%s\n' "$names") | grep -v -E '^[-d] ' | head -n 1)
        echo "member that is a link or a special file: ${bad#? }"
        return 1
    fi
    mkdir -p "$d"
    case $a in
        *.zip) list=$(unzip -q -o "$a" -d "$d" 2>&1) ;;
        *) list=$(tar -xf "$a" -C "$d" --no-same-owner --no-same-permissions 2>&1) ;;
    esac || { echo "could not unpack: $(head -n 1 <<<"$list")"; return 1; }
    bad=$(find "$d" ! -type f ! -type d -print -quit)
    [ -z "$bad" ] || { echo "member that is a link or a special file: ${bad#"$d"/}"; return 1; }
    chmod -R u+rwX "$d"
}

# find_kernels ROOT: "stage<TAB>path" for each stage with a kernel.cu, as
# exercises/<stage>/kernel.cu or <stage>/kernel.cu under ROOT, or under
# ROOT's only folder when ROOT holds nothing else.
find_kernels() {
    local root=$1 s f found="" only
    for s in $(conf_get stages); do
        for f in "$root/exercises/$s/kernel.cu" "$root/$s/kernel.cu"; do
            if [ -e "$f" ] || [ -L "$f" ]; then
                printf '%s\t%s\n' "$s" "$f"
                found=1
                break
            fi
        done
    done
    if [ -z "$found" ]; then
        only=$(find "$root" -mindepth 1 -maxdepth 1 ! -name '.*' | head -n 2)
        if [ "$(wc -l <<<"$only")" = 1 ] && [ -d "$only" ] && [ ! -L "$only" ]; then
            find_kernels "$only"
        fi
    fi
}

# intake NAME: the student's kernel.cu files into OUT/students/NAME/kernels/,
# or a row saying why there are none. Returns 0 when there is something to grade.
intake() {
    local name=$1 entry dir=$out/students/$1 src root why kernels s f real rootreal
    entry=$(entry_of "$name")
    src=$(conf_get_sub)/$entry
    rm -rf "$dir" "$out/work/$name.unpacked"
    mkdir -p "$dir/kernels"
    if [ -d "$src" ] && [ ! -L "$src" ]; then
        root=$src
    else
        root=$out/work/$name.unpacked
        if ! why=$(unpack "$src" "$root"); then
            rm -rf "$root"
            write_row "$name" refused "$entry: $why"
            return 1
        fi
    fi
    kernels=$(find_kernels "$root")
    if [ -z "$kernels" ]; then
        write_row "$name" "no submission" \
            "$entry has no kernel.cu of a graded stage (expected exercises/NN_name/kernel.cu or NN_name/kernel.cu)"
        rm -rf "$out/work/$name.unpacked"
        return 1
    fi
    rootreal=$(readlink -f "$root")
    while IFS=$'\t' read -r s f; do
        real=$(readlink -f "$f")
        why=""
        if [ -L "$f" ] || [ ! -f "$f" ]; then
            why="${f#"$root"/} is not a plain file (a link?): submit the file itself"
        elif [[ $real != "$rootreal"/* ]]; then
            why="${f#"$root"/} lies outside the submission"
        elif [ "$(stat -c %s "$f")" -gt $MAX_KERNEL_BYTES ]; then
            why="${f#"$root"/} is larger than $((MAX_KERNEL_BYTES >> 10)) KiB"
        fi
        if [ -n "$why" ]; then
            rm -rf "$out/work/$name.unpacked" "$dir/kernels"
            write_row "$name" refused "$entry: $why"
            return 1
        fi
        mkdir -p "$dir/kernels/$s" && cp "$f" "$dir/kernels/$s/kernel.cu" || {
            write_row "$name" refused "$entry: cannot read ${f#"$root"/}"
            return 1
        }
    done <<<"$kernels"
    rm -rf "$out/work/$name.unpacked"
    return 0
}
conf_get_sub() { sed -n 's/^submissions=//p' "$out/submissions.conf"; }

# ============================================================== grading
# grade.json into "key<TAB>value" lines: score, max, seed, and
# "stage<TAB>NAME<TAB>POINTS<TAB>REASON" per stage. The grader writes one key
# per line; a stage's own keys are indented like its "stage" key.
read_grade_json() {
    awk '
        function value(line) {
            sub(/^[^:]*: /, "", line); sub(/,$/, "", line)
            if (line ~ /^".*"$/) {
                line = substr(line, 2, length(line) - 2)
                gsub(/\\n|\\t/, " ", line); gsub(/\\"/, "\"", line); gsub(/\\\\/, "\\", line)
            }
            return line
        }
        function indent(line) { match(line, /^ */); return RLENGTH }
        function flush() { if (stage != "") printf "stage\t%s\t%s\t%s\n", stage, points, reason; stage = "" }
        /^  "score": /     { print "score\t" value($0) }
        /^  "max_score": / { print "max\t" value($0) }
        /^  "seed": /      { print "seed\t" value($0) }
        /^ *"stage": /     { flush(); stage = value($0); depth = indent($0); points = ""; reason = ""; next }
        stage != "" && indent($0) == depth && /^ *"points": / { points = value($0) }
        stage != "" && indent($0) == depth && /^ *"reason": / { reason = value($0) }
        END { flush() }' "$1"
}

# grade_one NAME: grade one student whose kernels are in OUT/students/NAME/
# kernels, in a fresh copy of OUT/lab; write the row.
grade_one() {
    local name=$1 dir=$out/students/$1 work=$out/work/$1 log st status notes="" points="" t0=$SECONDS
    local stages missing="" s grade_status line make_args
    stages=$(conf_get stages)
    make_args=(SEED="$(conf_get seed)" EX="$stages")
    [ "$(conf_get sanitize)" = 1 ] && make_args+=(SANITIZE=1)
    rm -rf "$work" "$dir/grade.json" "$dir/results.json" "$dir/points.tsv"
    log=$dir/grade.log
    if ! cp -a "$out/lab" "$work" 2>"$log"; then
        write_row "$name" "grader error" "cannot copy the lab to $work: $(head -n 1 "$log")"
        return
    fi
    for s in $stages; do
        if [ -f "$dir/kernels/$s/kernel.cu" ]; then
            cp "$dir/kernels/$s/kernel.cu" "$work/exercises/$s/kernel.cu"
        else
            missing="$missing $s"
        fi
    done
    {
        echo "class grading of $name with seed $(conf_get seed), stages: $stages"
        echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-(not set)}"
        echo "submitted: $(cd "$dir/kernels" && echo *)"
        echo
    } >"$log"
    # no git repository above the copy: the grader's note about local changes
    # would be about OUT, not about the lab
    (cd "$work" && GIT_CEILING_DIRECTORIES=$out/work $make_cmd --no-print-directory grade "${make_args[@]}") \
        >>"$log" 2>&1 </dev/null
    st=$?
    # make's own status is 2 whatever the grader's was; make names it
    grade_status=$st
    line=$(grep -o '\*\*\* \[[^]]*grade\] Error [0-9]*' "$log" | tail -n 1)
    [ -n "$line" ] && grade_status=${line##* }
    [ -f "$work/grade.json" ] && cp "$work/grade.json" "$dir/grade.json"
    [ -f "$work/results.json" ] && cp "$work/results.json" "$dir/results.json"
    if [ -f "$dir/grade.json" ]; then
        read_grade_json "$dir/grade.json" >"$dir/points.tsv"
        points=$dir/points.tsv
    fi
    # the grader's own one-line complaint, without make's line
    local said
    said=$(grep -E '^grade: ' "$log" | tail -n 1 | sed 's/^grade: //')
    case $grade_status in
        0)
            status=graded
            [ -n "$missing" ] && notes="not submitted (graded as the skeleton):$missing"
            if [ -n "$points" ]; then
                local reasons
                reasons=$(awk -F'\t' '$1 == "stage" && $4 != "" { printf "%s%s: %s", sep, $2, $4; sep = " | " }' "$points")
                [ -n "$reasons" ] && notes="${notes:+$notes | }$reasons"
            else
                status="grader error"
                notes="make grade wrote no grade.json (see grade.log)"
            fi
            ;;
        3) status="no GPU" notes=${said:-"make grade found no GPU"} ;;
        4) status="no build tools" notes=${said:-"make grade found no nvcc, make or nm"} ;;
        *)
            status="grader error"
            if grep -q "No rule to make target 'grade'" "$log"; then
                notes="this lab has no make grade (no grader/)"
            else
                notes="make grade ended with status $grade_status: ${said:-$(grep -v '^make: \*\*\*' "$log" | grep . | tail -n 1)}"
            fi
            ;;
    esac
    write_row "$name" "$status" "$notes" "$points"
    [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
    local score=""
    [ -n "$points" ] && [ "$status" = graded ] &&
        score=", $(awk -F'\t' '$1 == "score" { s = $2 } $1 == "max" { m = $2 } END { print s "/" m }' "$points") points"
    say "[$(done_count)/$(students | wc -l)] $name: $status$score ($((SECONDS - t0)) s)"
}

# ============================================================== gradebook
collect() {
    local header s name row tmp=$out/gradebook.csv.tmp missing=0
    header=student
    for s in $(conf_get stages); do header="$header,$s"; done
    header="$header,total,max,status,seed,notes"
    {
        echo "$header"
        for name in $(students); do
            row=$out/students/$name/row.csv
            if [ -f "$row" ]; then
                cat "$row"
            else
                missing=$((missing + 1))
                printf '%s' "$(csv "$name")"
                for s in $(conf_get stages); do printf ','; done
                printf ',,,not graded,%s,%s\n' "$(conf_get seed)" \
                    "no result: grading was stopped or its job ended first (run make class again; see $out/logs)"
            fi
        done
    } >"$tmp" && mv "$tmp" "$out/gradebook.csv" || die "cannot write $out/gradebook.csv"
    summary
}

# Counts of each status, on one line.
summary() {
    local name row counts="" m
    m=$(students | wc -l)
    counts=$(for name in $(students); do
        row=$out/students/$name/row.csv
        if [ -f "$row" ]; then row_status "$row"; else echo "not graded"; fi
    done | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%s%s", sep, substr($0, 2) ": ", n; sep = ", " }')
    say "gradebook: $out/gradebook.csv, $m student$([ "$m" = 1 ] || echo s)${counts:+ ($counts)}"
}

# ============================================================ back ends
# One worker of the local back end: grades the students of the to-do list
# that no other worker has claimed, on its GPU.
worker() {
    local gpu=$1 claims=$2 name
    [ "$gpu" = none ] || export CUDA_VISIBLE_DEVICES=$gpu
    while IFS= read -r name; do
        mkdir "$claims/$name" 2>/dev/null || continue
        say "grading $name$([ "$gpu" = none ] || echo " on GPU $gpu")"
        grade_one "$name"
    done <"$todo_file"
}

run_local() {
    local todo=$1 gpus claims pid pids=()
    local listed
    listed=$(nvidia-smi -L 2>/dev/null | sed -n 's/^GPU \([0-9]*\):.*/\1/p' | tr '\n' ' ')
    gpus=${GPUS:-$listed}
    gpus=${gpus//,/ }
    [ -n "${gpus// /}" ] || gpus=none
    if [ -n "$listed" ] && [ -z "${CLASS_MAKE:-}" ] && command -v nvcc >/dev/null &&
        [ ! -f "$out/lab/build/flags.txt" ]; then
        # build the harness and the skeletons once; each copy rebuilds only
        # what the student changed (a stand-in CLASS_MAKE builds nothing)
        say "building the lab once in $out/lab (its objects are copied for each student)"
        make -C "$out/lab" -s -j"$(nproc)" all >"$out/logs/lab-build.log" 2>&1 ||
            say "class: the lab's own build failed (see $out/logs/lab-build.log); each student's copy builds from scratch"
    fi
    claims=$out/work/claims.$$
    mkdir -p "$claims"
    # each worker in a session of its own, so that stopping the class stops
    # all of a worker's processes (make, the grader, the student's program)
    trap 'for pid in "${pids[@]}"; do kill -TERM -- -"$pid" 2>/dev/null; done; wait; rm -rf "$claims"; echo "class: stopped; run the same command again to grade the rest"; exit 130' INT TERM
    for gpu in $gpus; do
        setsid "$script" --worker "$gpu" --out "$out" --todo "$todo" --claims "$claims" &
        pids+=($!)
    done
    wait
    trap - INT TERM
    rm -rf "$claims"
}

run_slurm() {
    local todo=$1 n array collector opts=() stamp
    command -v sbatch >/dev/null || die "sbatch is not here: run make class BACKEND=slurm on a Slurm login node"
    n=$(wc -l <"$todo")
    stamp=$(date +%Y%m%d-%H%M%S)
    cp "$todo" "$out/logs/todo-$stamp.txt"
    todo=$out/logs/todo-$stamp.txt
    [ -n "${SLURM_PARTITION:-}" ] && opts+=(--partition="$SLURM_PARTITION")
    [ -n "${SLURM_ACCOUNT:-}" ] && opts+=(--account="$SLURM_ACCOUNT")
    # shellcheck disable=SC2206 # SLURM_EXTRA is a list of options
    [ -n "${SLURM_EXTRA:-}" ] && opts+=($SLURM_EXTRA)
    array=$(sbatch --parsable --job-name=lab-grade "${opts[@]}" \
        --array="0-$((n - 1))%${SLURM_THROTTLE:-4}" --gres="${SLURM_GRES:-gpu:1}" \
        --ntasks=1 --cpus-per-task="${SLURM_CPUS:-4}" --time="${SLURM_TIME:-01:00:00}" \
        --output="$out/logs/grade-%A_%a.log" <<EOF
#!/bin/bash
# one student of the class: line SLURM_ARRAY_TASK_ID + 1 of the to-do list
name=\$(sed -n "\$((SLURM_ARRAY_TASK_ID + 1))p" '$todo')
exec '$out/bin/class.sh' --one "\$name" --out '$out'
EOF
    ) || die "sbatch refused the array job (see its message above)"
    array=${array%%;*}
    collector=$(sbatch --parsable --job-name=lab-gradebook "${opts[@]}" \
        --dependency="afterany:$array" --ntasks=1 --time=00:10:00 \
        --output="$out/logs/gradebook-%j.log" <<EOF
#!/bin/bash
exec '$out/bin/class.sh' --collect --out '$out'
EOF
    ) || die "sbatch refused the gradebook job (the array $array is queued: scancel $array)"
    collector=${collector%%;*}
    say "submitted job array $array ($n student$([ "$n" = 1 ] || echo s), at most ${SLURM_THROTTLE:-4} at a time) and job $collector, which writes $out/gradebook.csv when the array has ended"
    say "follow: squeue -j $array,$collector; logs in $out/logs/; progress: $script --status --out $out"
    [ $wait_jobs = 1 ] || return 0
    # until squeue knows neither job; a failed squeue (a busy controller)
    # is asked again, one that says the jobs are gone is not
    local last="" now queued
    while :; do
        if queued=$(squeue -h -j "$array,$collector" -o %i 2>&1); then
            [ -n "$queued" ] || break
        else
            grep -qi "invalid job id" <<<"$queued" && break
        fi
        now=$(status_line "$array" "$todo")
        [ "$now" = "$last" ] || say "$now"
        last=$now
        sleep 2
    done
    cat "$out/logs/gradebook-$collector.log" 2>/dev/null
}

# N of M done, and who is being graded now (Slurm: the running tasks).
status_line() {
    local array=${1:-} todo=${2:-} running=""
    if [ -n "$array" ]; then
        running=$(squeue -h -j "$array" -t R -o %K 2>/dev/null | while read -r i; do
            sed -n "$((i + 1))p" "$todo"
        done | tr '\n' ' ')
    fi
    echo "$(done_count) of $(students | wc -l) done${running:+; grading now: ${running% }}"
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
    one)
        grade_one "$one"
        exit 0
        ;;
    worker)
        worker "$worker_gpu" "$claims_dir"
        exit 0
        ;;
esac

[ -n "$submissions" ] || usage "--submissions DIR is needed"
[ -d "$submissions" ] || die "$submissions is not a folder"
case $out in *\'* | *$'\n'*) usage "the --out path may not hold a quote or a newline" ;; esac
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
if command -v flock >/dev/null; then
    exec 9>"$out/.lock"
    flock -n 9 || die "another make class is running on $out"
fi
setup_class
list_submissions
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
