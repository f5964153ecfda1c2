#!/usr/bin/env bash
# tests/judge/forward.sh: the runner without a GPU (part of make check):
# the student's host code linked with judge/forward_runtime.c instead of
# the CUDA runtime, talking to a fake device server (tests/judge/
# fake_server.c): its launches and queries become messages, and a kernel
# registered from a byte array (tests/grader/attacks/fatbin_blob) is asked
# for by name and never launched. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
NVCC=${NVCC:-nvcc}
CC=${CC:-cc}
out=build/tests/forward
mkdir -p "$out"
echo "== the runner and its device server (judge/forward.h)"
parts="build/judge/matmul_call.o build/judge/runner.o build/judge/forward.o build/judge/forward_runtime.o build/common/fdio.o"
fail_build() {
    echo "FAIL  forward: $1"
    sed 's/^/      /' "$out/build.log" | tail -n 15
    echo; echo "0 passed, 1 failed"; exit 1
}
make -s $parts >"$out/build.log" 2>&1 || fail_build "the runner's parts build"
$CC -O2 -std=c11 -Wall -Wextra -D_GNU_SOURCE -Icommon -Ijudge -I"$(dirname "$(command -v "$NVCC")")/../include" \
    tests/judge/fake_server.c judge/forward.c common/fdio.c -o "$out/fake-server" >"$out/build.log" 2>&1 ||
    fail_build "the fake server compiles"
# the attack lives with the grader's tests, which a student release leaves out
kinds="honest blob"
[ -f tests/grader/attacks/fatbin_blob/kernel.cu ] || kinds=honest
for k in $kinds; do
    src=tests/judge/forward_kernel.cu
    [ $k = blob ] && src=tests/grader/attacks/fatbin_blob/kernel.cu
    { $NVCC -arch=sm_90 -Icommon -c "$src" -o "$out/$k.o" &&
      $NVCC -arch=sm_90 "$out/$k.o" $parts -o "$out/$k-runner" -cudart none; } >"$out/build.log" 2>&1 ||
        fail_build "a runner holding $src links without the CUDA runtime"
done
results=$(for k in $kinds; do "$out/fake-server" "$out/$k-runner" $k; done)
# no CUDA runtime, no driver: nothing in a runner can reach a GPU itself
held=$(nm "$out/honest-runner" 2>/dev/null | awk '$3 ~ /^(cuInit|cudaMalloc|cudaIpcOpenMemHandle|cuModuleLoadData|cuLibraryLoadData)$/ { print $3 }' | head -n 3)
needed=$(readelf -d "$out/honest-runner" 2>/dev/null | grep -oE 'lib(cuda|cudart)[^]]*' | head -n 3)
if [ -z "$held" ] && [ -z "$needed" ] && nm "$out/honest-runner" | grep -q ' T cudaLaunchKernel$'; then
    results="$results
ok    forward: a runner holds no CUDA runtime and no driver (its cudaLaunchKernel is the forwarding one)"
else
    results="$results
FAIL  forward: a runner holds no CUDA runtime and no driver (its cudaLaunchKernel is the forwarding one)
      defined: ${held:-none}; needed: ${needed:-none}"
fi
echo "$results"
skipped=0
if [ "$kinds" = honest ]; then
    echo "skip  forward: the byte array's kernel (tests/grader/attacks/ is not part of a student release)"
    skipped=1
fi
passed=$(grep -c '^ok ' <<<"$results")
failed=$(grep -c '^FAIL ' <<<"$results")
echo
if [ $skipped -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ "$failed" = 0 ]
