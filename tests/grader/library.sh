#!/usr/bin/env bash
# tests/grader/library.sh: header-only library code that would do a stage's
# work (grader/library.c); a suite of make check of its own (tests/run.sh),
# beside the grader's (tests/grader/run.sh), in build/tests/grader-library
# with the grader's test programs (tests/grader/programs.sh) and a stand-in
# nvidia-smi where no GPU is. First a submission's
# stage 07 that uses CUB, built by make grade: refused. Then kernel.cu files
# compiled here with nvcc -MD, as the Makefile does, graded in one run, each
# with the stand-in driver under a name that scores 10/10 if it runs:
#   refused, 0 points and the sentence: CUB's block reduction (through an
#     #include built by macros), warp and device reductions, Thrust,
#     cg::reduce, libcu++'s reduce (included in the device passes only),
#     CuTe where its headers are here;
#   refused because the grader cannot tell: no list, a list made with -MMD,
#     a list older than kernel.cu;
#   passing (10 points): cooperative groups' tiles, syncs and shuffles, and
#     every solution and skeleton of the lab (the lab's own objects of them,
#     build/<stage>/exercise.o and solution.o, not compiled again).
# Ends with "N passed, N failed[, N skipped]"; runs alone too:
#   bash tests/grader/library.sh
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
NVCC=${NVCC:-nvcc}
out=build/tests/grader-library fakebin=build/tests/grader-library/fakebin
mkdir -p "$out/bin" "$out/obj" "$fakebin"
if ! tests/grader/programs.sh "$out" 2>"$out/cc.log"; then
    fail "library: the grader's test programs compile" "$(cat "$out/cc.log")"
    totals
    exit 1
fi
have_nvcc=0
command -v "$NVCC" >/dev/null 2>&1 && have_nvcc=1
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    printf '#!/bin/sh\necho "GPU 0: Stand-in GPU (UUID: GPU-0)"\n' >"$fakebin/nvidia-smi"
    chmod +x "$fakebin/nvidia-smi"
fi

echo "== grader: header-only libraries (tests/grader/library.sh)"
# lib_object NAME SOURCE [FLAGS]: $out/obj/NAME.o and its list NAME.d, from
# SOURCE with FLAGS (default -MD)
lib_object() {
    local name=$1 source=$2
    shift 2
    [ "$out/obj/$name.o" -nt "$source" ] && [ -f "$out/obj/$name.d" ] && return 0
    "$NVCC" -O1 -std=c++17 -arch=sm_90 -Icommon "${@:--MD}" -c "$source" -o "$out/obj/$name.o" 2>"$out/obj/$name.log" ||
        { fail "library: $source compiles" "$(cat "$out/obj/$name.log")"; return 1; }
}

if [ $have_nvcc = 1 ]; then
    lib=tests/grader/library
    allowed="cooperative groups' tiles, syncs and shuffles are allowed"
    # through the Makefile's own rule, compiled now (stand-in nvidia-smi
    # where no GPU is); a kernel.cu that is the kernel below
    sub=$out/library-submission
    rm -rf "$sub" "$out/library-src" build/grade-src/build/07_reduction
    mkdir -p "$sub/07_reduction"
    # (its own file: an #include of the lab's, or of a header beside it, is
    # refused by the build's wall)
    awk -v h="$lib/two_passes.cuh" '/^#include "two_passes.cuh"/ { while ((getline l <h) > 0) print l; next } { print }' \
        "$lib/cub_block_macro.cu" >"$sub/07_reduction/kernel.cu"
    PATH=$fakebin:$PATH MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" \
        built_grade --src "$sub" 07 --out "$out/library-src" >"$out/library-src.log" 2>&1
    check "library: make grade builds kernel.cu with nvcc -MD, then refuses CUB's block reduction, naming stage 07's lesson" \
        "$(grep -q '/stdlib.h' build/grade-src/build/07_reduction/exercise.d &&
           "$out/json" get "$out/library-src/grade.json" stages.0.reason | grep -qF "refused: kernel.cu includes CUB's block reduction (cub/block/block_reduce.cuh): stage 07 asks you to write its kernels yourself (the reduction ladder: "
           echo $?)" "$(tail -n 12 "$out/library-src.log")"
    # stage|object (lib_NAME.o)|points|phrase in the reason
    cases=""
    while IFS='|' read -r stage source phrase; do
        lib_object "lib_$source" "$lib/$source.cu" && cases="$cases$stage|$source|0/10|$phrase
"
    done <<EOF
07_reduction|cub_block_macro|kernel.cu includes CUB's block reduction (cub/block/block_reduce.cuh): stage 07 asks you to write its kernels yourself (the reduction ladder: sequential addressing, first add during load, warp shuffle, grid-stride float4 loads); $allowed
policy_lib_cub_warp|cub_warp|kernel.cu includes CUB's warp reduction (cub/warp/warp_reduce.cuh): stage policy_lib_cub_warp asks you to write its kernels yourself; $allowed
policy_lib_cub_device|cub_device|kernel.cu includes CUB's device reduction (cub/device/device_reduce.cuh)
policy_lib_thrust|thrust_reduce|kernel.cu includes Thrust (thrust/execution_policy.h)
policy_lib_cg_reduce|cg_reduce|kernel.cu includes cooperative groups' cg::reduce (cooperative_groups/reduce.h)
policy_lib_libcuxx|libcuxx_device_only|kernel.cu includes libcu++'s cuda::std::reduce, accumulate and scans (cuda/std/numeric)
EOF

    # CUTLASS and CuTe are not in the CUDA Toolkit: tested where installed
    cute=""
    for dir in ${CUTLASS_DIR:+"$CUTLASS_DIR/include"} /usr/local/include /usr/include /opt/cutlass/include; do
        [ -f "$dir/cute/tensor.hpp" ] && cute=$dir && break
    done
    if [ -n "$cute" ]; then
        mkdir -p "$out/src"
        printf '#include <cute/tensor.hpp>\n#include "matmul.h"\nvoid matmul(const float *A, const float *B, float *C, int n) {}\n' \
            >"$out/src/cute.cu"
        lib_object lib_cute "$out/src/cute.cu" -MD -I"$cute" &&
            cases="${cases}policy_lib_cute|cute|0/10|kernel.cu includes CuTe (cute/tensor.hpp)
"
    else
        skip "library: CUTLASS and CuTe: no headers here (CUTLASS_DIR=... to test them; check.c tests their names)"
    fi

    # the list missing, made with -MMD (no system headers), or older than kernel.cu
    if lib_object lib_cg_tiles "$lib/cg_tiles.cu" && lib_object lib_mmd "$lib/cg_tiles.cu" -MMD; then
        cp "$out/obj/lib_cg_tiles.o" "$out/obj/lib_no_list.o"
        rm -f "$out/obj/lib_no_list.d"
        cp "$out/obj/lib_cg_tiles.o" "$out/obj/lib_stale.o"
        cp "$out/obj/lib_cg_tiles.d" "$out/obj/lib_stale.d"
        touch -d '2000-01-01 00:00' "$out/obj/lib_stale.d"
        cases="${cases}policy_lib_cg_tiles|cg_tiles|10/10|
policy_lib_no_list|no_list|0/10|lib_no_list.d is missing or unreadable): the grader cannot tell which libraries it uses
policy_lib_mmd|mmd|0/10|lib_mmd.d names no system header: it was written without nvcc -MD
policy_lib_stale|stale|0/10|lib_stale.d is older than kernel.cu
"
    fi

    # every skeleton and solution passes the header check and the symbol
    # check: the lab's own objects of them, build/<stage>/exercise.o and
    # solution.o with the lists nvcc -MD wrote beside them (what make grade
    # checks; make check has built them, so they are not compiled again
    # here), copied with their dates
    objects=()
    for source in exercises/*/kernel.cu solutions/*/kernel.cu; do
        [ -f "$source" ] || continue
        name=$(dirname "$source")
        objects+=("build/${name#*/}/${name%s/*}.o")
    done
    made=$(make --no-print-directory -s -k "${objects[@]}" 2>&1)
    for object in "${objects[@]}"; do
        stage=${object#build/} stage=${stage%/*} variant=${object##*/} variant=${variant%.o}
        source=${variant}s/$stage/kernel.cu name=${variant}_$stage
        if [ "$object" -nt "$source" ] && cp -p "$object" "$out/obj/lib_$name.o" && cp -p "${object%.o}.d" "$out/obj/lib_$name.d"; then
            cases="${cases}policy_lib_$name|$name|10/10|
"
        else
            fail "library: $source compiles (make $object)" "$made"
        fi
    done

    # one run: correctness only (10 points), the stand-in program a good run
    printf 'setting\tlimit_s\t3\nsetting\tcorrect_points\t10\n' >"$out/library-rubric.tsv"
    programs=()
    while IFS='|' read -r stage object _; do
        ln -sf ../fake "$out/bin/$stage"
        programs+=(--program "$stage=$out/bin/$stage:$out/obj/lib_$object.o:common/reduce.h")
    done <<<"${cases%$'\n'}"
    rm -rf "$out/library"
    build/grader/grade --lab . --rubric "$out/library-rubric.tsv" --seed 3 --out "$out/library" "${programs[@]}" \
        >"$out/library.log" 2>&1
    check "library: the grader grades every case in one run (exit 0)" $? "$(tail -n 20 "$out/library.log")"
    i=0
    while IFS='|' read -r stage _ expect phrase; do
        said=$("$out/json" get "$out/library/grade.json" "stages.$i.reason" 2>/dev/null)
        points="$("$out/json" get "$out/library/grade.json" "stages.$i.points" 2>/dev/null)/10"
        check "library: $stage scores $expect${phrase:+ (\"${phrase:0:90}...\")}" \
            "$([ "$points" = "$expect" ] && { [ -z "$phrase" ] || grep -qF -- "$phrase" <<<"$said"; }; echo $?)" \
            "got $points: $said"
        i=$((i + 1))
    done <<<"${cases%$'\n'}"
else
    skip "library: header-only libraries: $NVCC is not here"
fi

totals
