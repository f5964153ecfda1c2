#!/usr/bin/env bash
# research/diagnose/cuda-in-confine.sh: where the GPU works unconfined but not
# in the confinement (the grader's line "the GPU works here, but not inside
# the confinement"), find which layer refuses what. Runs build/confine/
# cuda-probe unconfined, confined, confined without each layer in turn, and
# confined with failing C-library calls printed (research/diagnose/
# failed-calls.c) and Landlock's denials logged (confine --log, then dmesg).
# Run from anywhere on the machine with the GPU; prints everything.
cd "$(dirname "$0")/../.." || exit 2
make -s build/confine/confine build/confine/cuda-probe || exit 2
gcc -shared -fPIC -O2 -o build/failed-calls.so research/diagnose/failed-calls.c -ldl || exit 2
toolkit=$(dirname "$(dirname "$(command -v nvcc)")")
confine=(build/confine/confine --read "$PWD/build" --read "$toolkit")
probe=$PWD/build/confine/cuda-probe
before=$(dmesg 2>/dev/null | wc -l)
echo "== the machine"
id; uname -r; ls -la /dev | grep -E 'nvidia|dxg'; ls -la /dev/nvidia-caps 2>&1 | head; ls /proc/driver/nvidia 2>&1
build/confine/confine --probe
try() {
    echo "== $*"
    "$@" 2>&1 | tail -n 60
    echo "(exit ${PIPESTATUS[0]})"
}
try "$probe"
shim=(env LD_PRELOAD="$PWD/build/failed-calls.so")
try "${shim[@]}" "${confine[@]}" --log -- "$probe"
try "${shim[@]}" "${confine[@]}" --without seccomp -- "$probe"
try "${shim[@]}" "${confine[@]}" --without landlock -- "$probe"
try "${shim[@]}" "${confine[@]}" --without caps -- "$probe"
try "${shim[@]}" "${confine[@]}" --without landlock --without seccomp -- "$probe"
try "${shim[@]}" "${confine[@]}" --without landlock --without seccomp --without caps -- "$probe"
echo "== the kernel's log: Landlock and seccomp"
dmesg 2>&1 | tail -n +$((before + 1)) | grep -i -E 'landlock|audit|seccomp|denied' | tail -n 60
