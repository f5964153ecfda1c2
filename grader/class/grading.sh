# grader/class/grading.sh: class grading (grader/class.sh), grading one
# student: make grade in a copy of the class's lab with the student's
# kernel.cu files, and the row made from its grade.json. Sourced by
# grader/class.sh; uses its out and make_cmd, and a Slurm array task's
# task_lab where it has one.

# ============================================================== grading
# grade.json into "key<TAB>value" lines: score, max, seed, and
# "stage<TAB>NAME<TAB>POINTS<TAB>PHRASE" per stage (grade-json.awk).
read_grade_json() { awk -f "$here/class/grade-json.awk" "$1"; }

# grade_one NAME: grade one student whose kernels are in OUT/students/NAME/
# kernels, in a fresh copy of OUT/lab; write the row.
grade_one() {
    prepare_one "$1" && grade_prepared "$1"
}

# prepare_one NAME [ahead]: a fresh copy of OUT/lab (or of the array task's
# lab, built once for its students) in OUT/work/NAME with the
# student's kernel.cu files put in; with "ahead", their stages built there
# too, every program of the grade (on the CPUs, before any GPU grades: make
# grade PREBUILT=1 then builds nothing, so no compiler runs beside a judge
# that is timing). Each kernel.cu is compiled inside the wall (Makefile,
# "The wall around a kernel.cu's build"). Fails, with the student's row
# written, when the lab cannot be copied.
prepare_one() {
    local name=$1 dir=$out/students/$1 work=$out/work/$1 s stages targets judged
    stages=$(conf_get stages)
    rm -rf "$work" "$dir/grade.json" "$dir/results.json" "$dir/points.tsv"
    if ! cp -a "${task_lab:-$out/lab}" "$work" 2>"$dir/grade.log"; then
        write_row "$name" "grader error" "cannot copy the lab to $work: $(head -n 1 "$dir/grade.log")"
        return 1
    fi
    rm -f "$work/build/grade-build.log" # made by the build ahead alone (PREBUILT=1)
    # what make grade would build before it grades: the grader, the
    # confinement, and each stage's program (with the judge: its judge and
    # the runner that holds the student's code)
    targets=(build/grader/grade build/confine/confine build/confine/cuda-probe)
    judged=$([ "$(conf_get judge)" = 1 ] && echo 1)
    [ -n "$judged" ] && targets+=(build/judge/echo-runner)
    for s in $stages; do
        [ -f "$dir/kernels/$s/kernel.cu" ] && cp "$dir/kernels/$s/kernel.cu" "$work/exercises/$s/kernel.cu"
        targets+=("build/$s/exercise")
        [ -n "$judged" ] && targets+=("build/$s/exercise-judge" "build/$s/exercise-runner")
    done
    # a stage that does not build is left to make grade, which reports it
    # from the build's messages; the copy's programs (built from the
    # skeletons) go first, so that none is graded in place of the student's
    if [ "${2:-}" = ahead ]; then
        for s in "${targets[@]}"; do
            case $s in build/[0-9]*) rm -f "$work/$s" ;; esac
        done
        mkdir -p "$work/build"
        (cd "$work" && $make_cmd -s -k --no-print-directory REQUIRE_CONFINEMENT=1 "${targets[@]}") \
            >"$work/build/grade-build.log" 2>&1 </dev/null
    fi
    return 0
}

# grade_prepared NAME: make grade in the student's prepared copy; the row.
grade_prepared() {
    local name=$1 dir=$out/students/$1 work=$out/work/$1 log st status notes="" points="" t0=$SECONDS
    local stages missing="" s grade_status line make_args
    stages=$(conf_get stages)
    # HINTS=0: no hardware counters after the table (make grade gives them
    # when EX is set). Not scored, they took 28 s of a student's 53 s on an
    # H200, on the GPU; a student sees them with make grade.
    # PREBUILT=1 when the student's stages were built ahead (prepare_one):
    # make grade then compiles nothing.
    # PROBED=1 once a student has been graded in this process (a worker of
    # the local back end, a Slurm task), on its GPU: the GPU inside the
    # confinement and the judge's sharing of GPU memory were found to work
    # then, and are not checked again (a second or two a student)
    # BASELINES: the naive baselines this process's first student's grade
    # timed, reused by the later ones on the same GPU (a second or two a
    # student; grader/README.md)
    make_args=(SEED="$(conf_get seed)" EX="$stages" REQUIRE_CONFINEMENT=1 HINTS=0 PROBED="${gpu_probed:-0}"
        PREBUILT="$([ -f "$work/build/grade-build.log" ] && echo 1 || echo 0)"
        BASELINES="$out/work/baselines.$(hostname -s 2>/dev/null).$$.tsv")
    # each switch said, on or off (make grade's own defaults may differ: the
    # judge is on unless JUDGE=0)
    for s in $grade_switches; do
        make_args+=("${s#*:}=$([ "$(conf_get "${s%%:*}")" = 1 ] && echo 1 || echo 0)")
    done
    log=$dir/grade.log
    for s in $stages; do
        [ -f "$dir/kernels/$s/kernel.cu" ] || missing="$missing $s"
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
            gpu_probed=1
            # the stages not submitted once, then a phrase for each other
            # stage that lost points
            [ -n "$missing" ] && notes="not submitted:$missing"
            if [ -n "$points" ]; then
                local phrases
                phrases=$(awk -F'\t' -v missing="$missing " '$1 == "stage" && $4 != "" && index(missing, " " $2 " ") == 0 {
                    printf "%s%s: %s", sep, $2, $4; sep = " | " }' "$points")
                [ -n "$phrases" ] && notes="${notes:+$notes | }$phrases"
            else
                status="grader error"
                notes="make grade wrote no grade.json (see grade.log)"
            fi
            ;;
        3) status="no GPU" notes=${said:-"make grade found no GPU"} ;;
        5) status="not confined" notes=${said:-"make grade could not confine the runs"} ;;
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
    [ "$(conf_get unconfined)" = 1 ] && notes="not confined (UNCONFINED=1)${notes:+ | $notes}"
    write_row "$name" "$status" "$notes" "$points"
    [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
    local score=""
    [ -n "$points" ] && [ "$status" = graded ] &&
        score=", $(awk -F'\t' '$1 == "score" { s = $2 } $1 == "max" { m = $2 }
            $1 == "bonus" { b = $2 } $1 == "bonus_max" { bm = $2 }
            END { printf "%s/%s points", s, m; if (bm > 0) printf " + %s/%s bonus", b, bm }' "$points")"
    say "[$(done_count)/$(students | wc -l)] $name: $status$score ($((SECONDS - t0)) s)"
}
