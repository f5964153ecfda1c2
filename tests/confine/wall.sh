#!/usr/bin/env bash
# tests/confine/wall.sh: the wall's two sides that need no GPU (part of make
# check): what a kernel.cu's build can see (confine --build), and which
# libraries a confined run can load (its own, and a --read-list's).
#
# A lab in miniature: a solution, a classmate's kernel.cu and a gradebook
# beside the student's folder. Each attack is tried unconfined first, where
# it must succeed (or the test proves nothing), then inside the wall, where
# it must be refused. Ends with "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/../.." || exit 2

. tests/lib.sh
finish() {
    totals
    exit
}

confine=$(pwd)/build/confine/confine
CC=${CC:-cc}
out=$(pwd)/build/tests/wall
rm -rf "$out"
mkdir -p "$out"
echo "== the wall: builds and libraries (build/confine/confine)"
if [ ! -x "$confine" ]; then
    fail "wall: build/confine/confine was built (make build/confine/confine)"
    finish
fi
if ! probe=$("$confine" --probe 2>&1); then
    skip "wall: this machine cannot confine ($probe)"
    finish
fi

# ------------------------------------------------------------------ builds
lab=$out/lab
mkdir -p "$lab/exercises/03_tiled" "$lab/solutions/03_tiled" "$lab/common" "$lab/build/03_tiled" \
    "$out/class/bob"
echo 'float the_solutions_secret = 1.0f;' >"$lab/solutions/03_tiled/kernel.cu"
echo 'float bobs_secret = 2.0f;' >"$out/class/bob/kernel.cu"
printf 'student,points\nbob,70\n' >"$out/class/gradebook.csv"
echo 'int contract(void);' >"$lab/common/contract.h"
# what the build's tools are (tools/wall-paths.sh, as the Makefile asks it)
tools/wall-paths.sh compile "" "$CC" >"$out/compile.paths"
printf 'tool %s\n' "$(readlink -f /bin/sh)" "$(readlink -f "$(command -v sleep)")" >"$out/sh.paths"
# wall DIR SOURCE: the student's build as the Makefile runs it
wall() {
    (cd "$lab" && "$confine" --build --paths "$out/compile.paths" --read "$1" --read common/contract.h \
        --write build/03_tiled --label "$1" --time-limit 60 -- "$CC" -x c -Icommon -c "$1" -o build/03_tiled/k.o)
}
# attack NAME SOURCE-TEXT EXPECTED [MARKER]: unconfined the attempt works
# (it compiles, or its messages show MARKER, the file's content); inside the
# wall the build fails with EXPECTED in its messages, and MARKER nowhere
attack() {
    local src=exercises/03_tiled/kernel.cu marker=${4:-}
    printf '%s\n' "$2" >"$lab/$src"
    if ! (cd "$lab" && "$CC" -x c -Icommon -c "$src" -o build/03_tiled/k.o) >"$out/plain.log" 2>&1 &&
        ! { [ -n "$marker" ] && grep -q "$marker" "$out/plain.log"; }; then
        fail "wall: $1: the attempt works without the wall (else this test proves nothing)" "$(cat "$out/plain.log")"
        return
    fi
    rm -f "$lab/build/03_tiled/k.o"
    wall "$src" >"$out/walled.log" 2>&1
    local st=$?
    check "wall: $1: refused inside the wall ($3)" \
        "$([ $st != 0 ] && [ ! -e "$lab/build/03_tiled/k.o" ] && grep -q "$3" "$out/walled.log" &&
           ! { [ -n "$marker" ] && grep -q "$marker" "$out/walled.log"; }; echo $?)" "exit $st: $(cat "$out/walled.log")"
}
printf 'int contract(void) { return 1; }\n' >"$lab/exercises/03_tiled/kernel.cu"
wall exercises/03_tiled/kernel.cu >"$out/walled.log" 2>&1
check "wall: an honest kernel.cu builds inside the wall (its own file, the lab's header)" \
    "$([ -s "$lab/build/03_tiled/k.o" ]; echo $?)" "$(cat "$out/walled.log")"
attack "#include of the solution by a relative path" '#include "../../solutions/03_tiled/kernel.cu"' \
    "Permission denied"
attack "#include of a classmate's kernel.cu by its full path" "#include \"$out/class/bob/kernel.cu\"" \
    "Permission denied"
attack "#include of the gradebook (its lines quoted in the compiler's errors)" \
    "#include \"$out/class/gradebook.csv\"" "Permission denied" "bob,70"
attack ".incbin of a classmate's kernel.cu" \
    "__asm__(\".section .rodata\\n.incbin \\\"$out/class/bob/kernel.cu\\\"\\n.previous\");" "file not found"
attack "#include of another stage's file (the lab's own folder)" '#include "../../solutions/03_tiled/../../exercises/03_tiled/../../build/03_tiled/../../solutions/03_tiled/kernel.cu"' \
    "Permission denied"
# what a compile never opens: the toolkit's libraries, /etc (but the
# loader's cache), root-only files
nvcc_path=$(command -v "${NVCC:-nvcc}" 2>/dev/null)
toolkit=""
# where the toolkit is, as nvcc says (the nvcc on PATH may be a wrapper script)
[ -n "$nvcc_path" ] && toolkit=$(readlink -f "$("$nvcc_path" -dryrun -c -x cu /dev/null -o /dev/null 2>&1 |
    sed -n 's/^#\$ _HERE_=//p' | head -n 1)/..")
cublas=""
[ -n "$toolkit" ] && cublas=$(ls "$toolkit"/lib64/libcublas.so* 2>/dev/null | head -n 1)
if [ -n "$cublas" ]; then
    attack ".incbin of the toolkit's cuBLAS (to rebuild it at run time)" \
        "__asm__(\".section .rodata\\n.incbin \\\"$cublas\\\", 0, 65536\\n.previous\");" "file not found"
else
    skip "wall: .incbin of cuBLAS: no CUDA Toolkit here"
fi
attack ".incbin of a file of /etc (/etc/passwd)" \
    "__asm__(\".section .rodata\\n.incbin \\\"/etc/passwd\\\"\\n.previous\");" "file not found"
if [ "$(id -u)" = 0 ]; then
    attack ".incbin of a root-only file (/etc/shadow), built as root" \
        "__asm__(\".section .rodata\\n.incbin \\\"/etc/shadow\\\"\\n.previous\");" "file not found"
    printf 'tool %s\n' "$(readlink -f /bin/sh)" "$(readlink -f "$(command -v id)")" >"$out/id.paths"
    o=$(cd "$lab" && "$confine" --build --paths "$out/id.paths" --write build/03_tiled -- /bin/sh -c 'id -u' 2>&1)
    if grep -q 'cannot reach' <<<"$o"; then
        # a lab beneath a folder only root may enter (mktemp -d): root without capabilities, said once
        check "wall: started as root where nobody cannot reach the lab, the build says so and stays root without capabilities" \
            "$(grep -q 'built as root without capabilities' <<<"$o"; echo $?)" "$o"
    else
        check "wall: started as root, the build runs as the user nobody" "$([ "$o" = "$(id -u nobody)" ]; echo $?)" "$o"
    fi
else
    skip "wall: .incbin of /etc/shadow and the build as nobody: not root here"
fi

# Where the wall's probe fails, --or-unconfined builds plainly: started as
# root, as the user nobody (its output root's after), or, where nobody is
# no user, not at all, in one line. Two machines that cannot confine: one
# whose unshare is refused (a container's default system-call profile:
# build/no-namespaces), and a user namespace mapping root alone.
cat >"$out/no-namespaces.c" <<'EOF'
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
/* PROGRAM with unshare refused (EPERM), as a container's default profile refuses it */
int main(int argc, char **argv)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
        return 125;
    execv(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
EOF
if [ "$(id -u)" = 0 ] && "$CC" "$out/no-namespaces.c" -o "$lab/build/no-namespaces" && unshare -U -r true 2>/dev/null; then
    rm -rf "$lab/build/03_tiled" && mkdir -p "$lab/build/03_tiled"
    unwalled_id() { # the build's id -u, written into its output folder, started by $1 ($2...)
        (cd "$lab" && "$@" "$confine" --build --or-unconfined --paths "$out/id.paths" --write build/03_tiled \
            --label k.cu -- /bin/sh -c 'id -u >build/03_tiled/uid')
    }
    o=$(unwalled_id build/no-namespaces 2>&1); st=$?
    # the user nobody reaches the lab only where every folder above it lets
    # all users through (a lab under a folder only root may enter: not built)
    reachable=1 p=$lab
    while p=$(dirname "$p"); [ "$p" != / ]; do
        [ "$(stat -c %A "$p" | cut -c 10)" != - ] || reachable=0
    done
    if [ $reachable = 1 ]; then
        check "wall: --or-unconfined as root where the probe fails: built as the user nobody, not root, the output root's after" \
            "$([ $st = 0 ] && [ "$(cat "$lab/build/03_tiled/uid")" = "$(id -u nobody)" ] &&
               [ "$(stat -c %u "$lab/build/03_tiled/uid")" = 0 ] && grep -q 'built as the user nobody without its wall' <<<"$o"; ok)" \
            "exit $st: $o"
    else
        check "wall: --or-unconfined as root where the probe fails, the lab beyond the user nobody's reach: not built, not root" \
            "$([ $st != 0 ] && [ ! -e "$lab/build/03_tiled/uid" ]; ok)" "exit $st: $o"
    fi
    rm -f "$lab/build/03_tiled/uid"
    o=$(unwalled_id unshare -U -r 2>&1); st=$?
    check "wall: --or-unconfined as root where the probe fails and nobody is no user: not built, one line" \
        "$([ $st = 126 ] && [ ! -e "$lab/build/03_tiled/uid" ] && [ "$(wc -l <<<"$o")" = 1 ] &&
           grep -q 'error: not built: this machine cannot confine' <<<"$o"; ok)" "exit $st: $o"
else
    skip "wall: --or-unconfined where the probe fails: needs root, a C compiler and user namespaces"
fi

# an object over the build's file-size cap (64 MiB: an honest one is a few MB)
head -c $((80 << 20)) /dev/zero >"$lab/big.bin"
printf 'int x;\n__asm__(".section .rodata\\n.incbin \\"big.bin\\"\\n.previous");\n' >"$lab/exercises/03_tiled/kernel.cu"
o=$(cd "$lab" && "$confine" --build --paths "$out/compile.paths" --read exercises/03_tiled/kernel.cu --read big.bin \
    --write build/03_tiled --label exercises/03_tiled/kernel.cu -- "$CC" -x c -c exercises/03_tiled/kernel.cu \
    -o build/03_tiled/k.o 2>&1); st=$?
check "wall: a build cannot write an object over 64 MiB (an .incbin of 80 MiB it may read)" \
    "$([ $st != 0 ] && [ "$(stat -c %s "$lab/build/03_tiled/k.o" 2>/dev/null || echo 0)" -le $((64 << 20)) ]; echo $?)" "exit $st: $o"
rm -f "$lab/big.bin" "$lab/build/03_tiled/k.o"
# /dev/zero is never compiled unconfined: it would eat memory without end
printf '#include "/dev/zero"\n' >"$lab/exercises/03_tiled/kernel.cu"
wall exercises/03_tiled/kernel.cu >"$out/walled.log" 2>&1
check "wall: #include \"/dev/zero\" is refused, not read without end" \
    "$([ $? != 0 ] && grep -q 'Permission denied' "$out/walled.log"; echo $?)" "$(cat "$out/walled.log")"
# the output goes to its own folder only
printf 'int x;\n' >"$lab/exercises/03_tiled/kernel.cu"
(cd "$lab" && "$confine" --build --paths "$out/compile.paths" --read exercises/03_tiled/kernel.cu --write build/03_tiled \
    -- "$CC" -x c -c exercises/03_tiled/kernel.cu -o "$out/class/bob/overwritten.o") >"$out/walled.log" 2>&1
check "wall: the compiler cannot write outside its output folder (the class folder)" \
    "$([ $? != 0 ] && [ ! -e "$out/class/bob/overwritten.o" ]; echo $?)" "$(cat "$out/walled.log")"

# limits: time (everything stopped, one line naming the file) and memory
o=$(cd "$lab" && "$confine" --build --paths "$out/sh.paths" --time-limit 1 --label exercises/03_tiled/kernel.cu -- /bin/sh -c 'sleep 30 & sleep 30' 2>&1); st=$?
check "wall: a build past its time limit is stopped: exit 124, one line naming the file" \
    "$([ $st = 124 ] && grep -q '^exercises/03_tiled/kernel.cu: error: the build ran past its time limit' <<<"$o"; echo $?)" \
    "exit $st: $o"
cat >"$out/eat.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
int main(void) { for (int i = 0; i < 64; i++) { char *p = malloc(64 << 20); if (!p) return 3; memset(p, 1, 64 << 20); } return 0; }
EOF
"$CC" -O0 "$out/eat.c" -o "$lab/build/eat"
(cd "$lab" && build/eat); plain=$?
o=$(cd "$lab" && "$confine" --build --memory-mb 512 --label exercises/03_tiled/kernel.cu -- build/eat 2>&1); st=$?
check "wall: a build past its memory limit fails (4 GiB asked, 512 MiB allowed), saying so" \
    "$([ $plain = 0 ] && [ $st = 3 ] && grep -q 'reached its memory limit (512 MiB' <<<"$o"; echo $?)" \
    "unconfined exit $plain; walled exit $st: $o"
o=$(cd /usr && "$confine" --build --label x.cu -- /bin/true 2>&1); st=$?
check "wall: a build in a folder every build may read (the lab beneath /usr) is refused, saying why" \
    "$([ $st = 126 ] && grep -q 'move the lab' <<<"$o"; echo $?)" "exit $st: $o"

# the lab's own build of a submission (make grade GRADE_SRC=, as a class's
# grading runs it): the solutions are next door, and out of reach
if [ ! -d solutions ]; then
    skip "wall: make grade GRADE_SRC=: a student release has no solutions to reach for"
elif [ -x build/grader/grade ] && command -v "${NVCC:-nvcc}" >/dev/null; then
    sub=$out/submission
    mkdir -p "$sub/03_tiled" "$sub/02_temp_accumulator"
    printf '#include "../../solutions/03_tiled/kernel.cu"\n' >"$sub/03_tiled/kernel.cu"
    printf '#include "matmul.h"\n__asm__(".section .rodata\\n.incbin \\"%s/solutions/02_temp_accumulator/kernel.cu\\"\\n.previous");\nvoid matmul(const float *A, const float *B, float *C, int n) {}\n' \
        "$(pwd)" >"$sub/02_temp_accumulator/kernel.cu"
    o=$(MAKEFLAGS="CUDA_ARCH=${CUDA_ARCH:-90}" built_grade --src "$sub" 02 03 --out "$out/reports" 2>&1); st=$?
    check "wall: make grade GRADE_SRC=: a kernel.cu that #includes the solution does not compile (Permission denied)" \
        "$(grep -q '03_tiled: did not compile: .*Permission denied' <<<"$o"; echo $?)" "exit $st: $o"
    check "wall: make grade GRADE_SRC=: a kernel.cu that .incbins the solution does not compile (file not found)" \
        "$(grep -q '02_temp_accumulator: did not compile:' <<<"$o" && grep -q 'file not found' build/grade-build.log; echo $?)" \
        "exit $st: $o"
else
    skip "wall: make grade GRADE_SRC=: no nvcc or no build/grader/grade here"
fi

# ------------------------------------------------------- the object's sections
# build/confine/objcheck reads a compiled object before any link or tool:
# GCC's link-time bytecode (whose options the LTO plugin would run at link
# time) and an executable stack are refused; what nvcc -c makes passes.
objcheck=$(pwd)/build/confine/objcheck
if [ -x "$objcheck" ]; then
    printf 'int twice(int x) { return 2 * x; }\n' >"$out/lto.c"
    "$CC" -c "$out/lto.c" -o "$out/plain.o"
    o=$("$objcheck" "$out/plain.o" 2>&1)
    check "objcheck: a plain object passes" $? "$o"
    if "$CC" -flto -c "$out/lto.c" -o "$out/lto.o" 2>/dev/null && readelf -SW "$out/lto.o" | grep -q gnu.lto_; then
        o=$("$objcheck" --label kernel.cu "$out/lto.o" 2>&1); st=$?
        check "objcheck: an object of GCC's link-time bytecode is refused, saying so" \
            "$([ $st = 1 ] && grep -q "^kernel.cu: error: .*link-time bytecode" <<<"$o"; echo $?)" "exit $st: $o"
    else
        skip "objcheck: $CC makes no link-time bytecode here"
    fi
    printf '__asm__(".section .gnu.lto_.opts,\\"e\\",@progbits\\n.string \\"-Wa,-o,/tmp/x\\"\\n.previous");\nint y;\n' >"$out/asm.c"
    "$CC" -c "$out/asm.c" -o "$out/asm.o"
    o=$("$objcheck" "$out/asm.o" 2>&1); st=$?
    check "objcheck: a .gnu.lto_ section made by top-level asm is refused" \
        "$([ $st = 1 ] && grep -q 'gnu.lto_.opts' <<<"$o"; echo $?)" "exit $st: $o"
    printf '__asm__(".section .linker_options,\\"a\\"\\n.previous");\nint y;\n' >"$out/odd.c"
    "$CC" -c "$out/odd.c" -o "$out/odd.o"
    o=$("$objcheck" "$out/odd.o" 2>&1); st=$?
    check "objcheck: any section a CUDA compile does not make is refused (.linker_options)" "$([ $st = 1 ]; echo $?)" "$o"
    "$CC" -c -Wa,--execstack "$out/lto.c" -o "$out/stack.o"
    o=$("$objcheck" "$out/stack.o" 2>&1); st=$?
    check "objcheck: an object asking for an executable stack is refused" \
        "$([ $st = 1 ] && grep -q 'executable stack' <<<"$o"; echo $?)" "exit $st: $o"
    o=$("$objcheck" "$out/lto.c" 2>&1); st=$?
    check "objcheck: a file that is no ELF object is refused" "$([ $st = 1 ]; echo $?)" "$o"
    # the device code: nvcc's one fat binary is written out whole (all the
    # judge's device server loads); bytes a kernel.cu's host asm adds to
    # that section (a fat binary of its own) are refused
    if command -v "${NVCC:-nvcc}" >/dev/null 2>&1; then
        printf '__global__ void k(float *x) { x[0] = 1; }\n' >"$out/dev.cu"
        { cat "$out/dev.cu"; printf '__asm__(".pushsection .nv_fatbin,\\"a\\"\\n.quad 0xBA55ED50\\n.popsection");\n'; } \
            >"$out/devasm.cu"
        "${NVCC:-nvcc}" -arch=sm_90 -c "$out/dev.cu" -o "$out/dev.o" && objcopy -O binary --only-section=.nv_fatbin "$out/dev.o" "$out/dev.want"
        rm -f "$out/dev.fatbin"
        o=$("$objcheck" --fatbin "$out/dev.fatbin" "$out/dev.o" 2>&1)
        check "objcheck --fatbin: nvcc's device code is written out whole" \
            "$(cmp -s "$out/dev.want" "$out/dev.fatbin" && [ -s "$out/dev.fatbin" ]; echo $?)" "$o"
        "${NVCC:-nvcc}" -arch=sm_90 -c "$out/devasm.cu" -o "$out/devasm.o"
        rm -f "$out/devasm.fatbin"
        o=$("$objcheck" --label kernel.cu --fatbin "$out/devasm.fatbin" "$out/devasm.o" 2>&1); st=$?
        check "objcheck --fatbin: bytes a kernel.cu's asm adds to the device code's section are refused, none written" \
            "$([ $st = 1 ] && grep -q 'not one fat binary' <<<"$o" && [ ! -e "$out/devasm.fatbin" ]; echo $?)" "exit $st: $o"
    else
        skip "objcheck --fatbin: no nvcc here"
    fi
    bad=""
    for f in build/*/*.o build/common/*.o build/judge/*.o; do
        [ -f "$f" ] && ! "$objcheck" "$f" >/dev/null 2>&1 && bad+=" $f"
    done
    check "objcheck: every object the lab builds passes (the list of sections is what nvcc -c makes)" \
        "$([ -z "$bad" ]; echo $?)" "refused:$bad"
else
    fail "objcheck: build/confine/objcheck was built (make build/confine/objcheck)"
fi

# ---------------------------------------- the Makefile's build: what it reads
# In a copy of the lab (lab_copy), the attack is the stage's exercise, built
# by make's own rule: bytes a compile never needs, copied into the object
# with .incbin "FILE", SKIP, COUNT (a library of the toolkit, whose code
# the runner could load from memory; a file only root may read, when the
# grader is root), or an object far larger than any honest one. Each
# compiles with a plain nvcc first (the attempt is real).
if [ -z "$toolkit" ] || [ ! -e build/flags.txt ] || [ ! -e build/common/harness.o ]; then
    skip "wall: make's build of a kernel.cu: no nvcc, or the lab is not built here (make all)"
else
    mlab=$out/make-lab
    lab_copy "$mlab"
    # made ATTACK-NAME WHAT ASM [MARKER]: the attack compiles plainly (the
    # object then holds MARKER), and make's build of it fails and leaves no object
    made() {
        local o=$mlab/build/03_tiled/exercise.o
        printf '__asm__(".section .rodata\\n%s\\n.previous");\nvoid matmul(const float *, const float *, float *, int) {}\n' \
            "$3" >"$mlab/exercises/03_tiled/kernel.cu"
        if ! (cd "$mlab" && "$nvcc_path" -arch=sm_90 -c exercises/03_tiled/kernel.cu -o "$out/plain.o") \
            >"$out/plain.log" 2>&1 || { [ -n "${4:-}" ] && ! grep -qF -- "$4" "$out/plain.o"; }; then
            fail "wall: make: $2: the attempt works without the wall (else this test proves nothing)" \
                "$(cat "$out/plain.log")"
            return
        fi
        rm -f "$out/plain.o" "$o"
        (cd "$mlab" && make --no-print-directory build/03_tiled/exercise.o) >"$out/make-$1.log" 2>&1
        local st=$?
        check "wall: make: $2: does not compile, no object left" \
            "$([ $st != 0 ] && [ ! -e "$o" ]; echo $?)" \
            "exit $st, object $(ls -la "$o" 2>&1); $(tail -n 4 "$out/make-$1.log")"
        rm -f "$o"
    }
    cublas=$(ls "$toolkit"/lib64/libcublas.so.* 2>/dev/null | head -n 1)
    if [ -n "$cublas" ]; then
        made cublas ".incbin of the toolkit's cuBLAS (its first MiB)" ".incbin \\\"$cublas\\\", 0, 1048576"
    else
        skip "wall: make: .incbin of the toolkit's cuBLAS: no lib64/libcublas.so.* in $toolkit"
    fi
    cudart=$toolkit/lib64/libcudart_static.a
    if [ -e "$cudart" ]; then
        made cudart ".incbin of the toolkit's static CUDA runtime (a library a compile never opens)" \
            ".incbin \\\"$cudart\\\", 0, 65536"
    fi
    if [ "$(id -u)" = 0 ] && [ -r /etc/shadow ]; then
        made shadow ".incbin of /etc/shadow, graded as root" ".incbin \\\"/etc/shadow\\\"" "root:"
    else
        skip "wall: make: .incbin of /etc/shadow: this test runs as $(id -un), who cannot read it (as root it must not compile)"
    fi
    made big "an object of 200 MiB (.skip), far above any honest one" ".skip 209715200"
    # the nvcc on PATH a wrapper script elsewhere (as /usr/local/bin/nvcc
    # may be, running the toolkit's): the wall still holds the toolkit's
    # headers, as nvcc itself says where they are
    mkdir -p "$out/wrapper"
    printf '#!/bin/sh\nexec %s "$@"\n' "$toolkit/bin/nvcc" >"$out/wrapper/nvcc"
    chmod 755 "$out/wrapper/nvcc"
    PATH=$out/wrapper:$PATH tools/wall-paths.sh compile nvcc "$CC" >"$out/wrapper.paths"
    printf '#include <cuda_runtime.h>\n__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n' \
        >"$lab/exercises/03_tiled/kernel.cu"
    rm -f "$lab/build/03_tiled/k.o"
    o=$(cd "$lab" && PATH=$out/wrapper:$PATH "$confine" --build --paths "$out/wrapper.paths" \
        --read exercises/03_tiled/kernel.cu --write build/03_tiled --label kernel.cu --time-limit 120 \
        -- nvcc -arch=sm_90 -c exercises/03_tiled/kernel.cu -o build/03_tiled/k.o 2>&1)
    st=$?
    check "wall: nvcc on PATH a wrapper script: an honest kernel.cu still builds inside the wall" \
        "$([ $st = 0 ] && [ -s "$lab/build/03_tiled/k.o" ]; echo $?)" "exit $st: $o; paths: $(cat "$out/wrapper.paths")"
fi

# --------------------------------------------------------------- libraries
# A library the program is linked with (found through its RUNPATH), and one
# beside it that it is not: the first loads confined, the second only when a
# --read-list names it. The toolkit's cuBLAS, where installed, never.
# (in a folder of its own that anyone may enter: as root, confine runs the
# program as the user nobody, and the lab may sit in a folder only root
# may enter)
libs=$(mktemp -d "${TMPDIR:-/tmp}/lab-wall.XXXXXX") || exit 2
trap 'rm -rf "$libs"' EXIT
chmod 755 "$libs"
echo 'int linked(void) { return 7; }' >"$libs/linked.c"
echo 'int other(void) { return 8; }' >"$libs/other.c"
"$CC" -shared -fPIC "$libs/linked.c" -o "$libs/liblinked.so"
"$CC" -shared -fPIC "$libs/other.c" -o "$libs/libother.so"
cat >"$libs/loader.c" <<'EOF'
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
int linked(void);
/* argv[1]: a library to dlopen; it is also opened as a file, as a loader of
 * one's own would (read it, map it) */
int main(int argc, char **argv)
{
    if (linked() != 7)
        return 4;
    int fd = open(argv[1], O_RDONLY);
    void *h = dlopen(argv[1], RTLD_NOW);
    printf("%s: %s, %s\n", argv[1], fd >= 0 ? "readable" : "not readable", h ? "loaded" : dlerror());
    return fd >= 0 || h ? 0 : 1;
}
EOF
"$CC" "$libs/loader.c" -o "$libs/loader" -L"$libs" -llinked -Wl,-rpath,'$ORIGIN' -ldl
chmod a+rX "$libs"/*
cp "$lab/build/03_tiled/k.o" "$libs/solution.o" 2>/dev/null || echo x >"$libs/solution.o"
chmod a+r "$libs/solution.o"
"$libs/loader" "$libs/libother.so" >"$out/plain.log" 2>&1
check "libraries: unconfined, the program loads a library beside its own (the attempt is real)" \
    "$(grep -q 'readable, loaded' "$out/plain.log"; echo $?)" "$(cat "$out/plain.log")"
o=$("$confine" -- "$libs/loader" "$libs/libother.so" 2>&1); st=$?
check "libraries: confined, it starts (its own library, found through \$ORIGIN) but cannot read or load another" \
    "$([ $st = 1 ] && grep -q 'not readable' <<<"$o"; echo $?)" "exit $st: $o"
echo "$libs/libother.so" >"$out/list"
o=$("$confine" --read-list "$out/list" -- "$libs/loader" "$libs/libother.so" 2>&1); st=$?
check "libraries: a file of --read-list (as the GPU driver's are) can be loaded" \
    "$([ $st = 0 ] && grep -q 'readable, loaded' <<<"$o"; echo $?)" "exit $st: $o"
o=$("$confine" -- "$libs/loader" libm.so.6 2>&1); st=$?
check "libraries: a system library it is not linked with (libm) cannot be loaded by name" \
    "$([ $st = 1 ] && ! grep -q 'loaded' <<<"${o/not readable/}"; echo $?)" "exit $st: $o"
if [ -n "$cublas" ]; then
    o=$("$confine" -- "$libs/loader" "$cublas" 2>&1); st=$?
    check "libraries: the toolkit's cuBLAS ($cublas) can be neither read nor loaded" \
        "$([ $st = 1 ] && grep -q 'not readable' <<<"$o"; echo $?)" "exit $st: $o"
    o=$("$confine" -- "$libs/loader" libcublas.so."${cublas##*.so.}" 2>&1); st=$?
    check "libraries: nor found by its name through the loader's cache" \
        "$([ $st = 1 ] && ! grep -q ', loaded' <<<"$o"; echo $?)" "exit $st: $o"
else
    skip "libraries: cuBLAS: no CUDA Toolkit here"
fi
o=$("$confine" -- "$libs/loader" "$libs/solution.o" 2>&1); st=$?
check "libraries: a file beside the program (a solution's object in its build folder) cannot be read" \
    "$([ $st = 1 ] && grep -q 'not readable' <<<"$o"; echo $?)" "exit $st: $o"

finish
