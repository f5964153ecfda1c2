#!/usr/bin/env bash
# setup.sh: Gradescope runs it once, as root, when it builds the
# autograder's image (Ubuntu), with this bundle unpacked in
# /autograder/source. It makes sure the lab's tools are there (make, a C
# compiler, binutils; nvcc from the image's CUDA Toolkit, or Ubuntu's
# nvidia-cuda-toolkit when the image has none) and builds the lab once, so
# that each submission rebuilds only the student's kernels: for the GPU
# where the runner has one, else what a stage's runner links with, for
# AUTOGRADER_ARCH (default 90).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin
need=""
command -v make >/dev/null || need="$need make"
command -v gcc >/dev/null || need="$need gcc"
command -v nm >/dev/null || need="$need binutils"
command -v nvcc >/dev/null || need="$need nvidia-cuda-toolkit"
if [ -n "$need" ]; then
    echo "setup: installing$need"
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need
fi
command -v nvcc >/dev/null || { echo "setup: no nvcc: use an image with the CUDA Toolkit (12 or 13)" >&2; exit 1; }
# the bundle's intake: the lab's own (grader/intake/, make class's rules)
make -C "$here/lab" -s build/grader/take
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    make -C "$here/lab" -j"$(nproc)" all
else
    # without a GPU a submission's stages are compiled and linked into the
    # runner that would hold them (what a grade runs), for one architecture
    make -C "$here/lab" -s build/stages.env
    families=$(. "$here/lab/build/stages.env" && for s in $LAB_STAGES; do eval "echo \$LAB_FAMILY_$s"; done | sort -u)
    # (and the CPU emulator's programs of the skeletons, where the lab has it)
    emu=$(. "$here/lab/build/stages.env" && for s in $LAB_STAGES; do
        if make -n -s -C "$here/lab" "build/$s/exercise-emu" >/dev/null 2>&1; then echo "build/$s/exercise-emu"; fi
    done)
    make -C "$here/lab" -j"$(nproc)" CUDA_ARCH="${AUTOGRADER_ARCH:-90}" build/confine/confine build/grader/grade build/judge/runner.o \
        build/judge/forward.o build/judge/forward_runtime.o build/common/fdio.o build/judge/server $(for f in $families; do echo "build/judge/${f}_call.o"; done) $emu
fi
