# tests/grader/links.sh: a submission's links (make grade GRADE_SRC=, the
# Gradescope layout). Sourced by tests/grader/run.sh: it uses that script's
# check, skip and $out.
#
# A student who knows where the lab keeps its solutions submits links to
# them: the kernel.cu itself, the stage's folder, or the whole exercises/
# folder. Every path a submission supplies must be a plain file reached
# without a link: the stage is then not submitted, and nothing of the
# link's target reaches the grader's copy of the lab (build/grade-src). A
# hard link is a plain file, but one to a file the student cannot read is
# impossible (and to one they may both read and write, it is theirs to copy).
echo "== grader: a submission's links to the solution (GRADE_SRC=)"
if [ ! -d solutions/03_tiled ] || ! command -v "$NVCC" >/dev/null 2>&1; then
    skip "grader: a submission's links: no solutions here (a student release) or no nvcc"
else
    links=$out/links
    sol=$(pwd)/solutions/03_tiled/kernel.cu
    for how in file folder exercises; do
        sub=$links/$how
        rm -rf "$sub"
        mkdir -p "$sub/03_tiled" "$sub/exercises"
        case $how in
            file) ln -s "$sol" "$sub/03_tiled/kernel.cu" ;;
            folder) rmdir "$sub/03_tiled" && ln -s "$(dirname "$sol")" "$sub/03_tiled" ;;
            exercises) rm -r "$sub/03_tiled" "$sub/exercises" && ln -s "$(pwd)/solutions" "$sub/exercises" ;;
        esac
        # unconfined, the link reads the solution (else the test proves nothing)
        cmp -s "$sol" "$sub/$( [ $how = exercises ] && echo exercises/)03_tiled/kernel.cu"
        check "grader: GRADE_SRC= with a link ($how): the link leads to the solution (the attempt is real)" $?
        rm -f build/grade-src/exercises/03_tiled/kernel.cu
        o=$(MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" built_grade --src "$sub" 03 --out "$links/report-$how" 2>&1)
        copied=build/grade-src/exercises/03_tiled/kernel.cu
        check "grader: GRADE_SRC= with a link ($how): nothing of the solution is graded, the stage is not submitted" \
            "$(! cmp -s "$sol" "$copied" && ! grep -q '03_tiled: compiles and links' <<<"$o" &&
               grep -q '03_tiled: .*\(not submitted\|no kernel.cu\|not a plain file\|link\|not graded\)' <<<"$o"; echo $?)" \
            "$o; build/grade-src's copy: $(cmp "$sol" "$copied" 2>&1 || true)"
    done
fi
