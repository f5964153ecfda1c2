#!/usr/bin/env bash
# tests/confine/run.sh: the wall around student code (build/confine/confine),
# tested without a GPU (part of make check).
#
# A class run in miniature: two students' folders, a gradebook, a grader
# process. tests/confine/attack.c tries, one attempt per run, what a hostile
# kernel.cu's host code would: write or read outside its run, start or leave
# processes, open sockets, signal or trace the grader, exec, raw and 32-bit
# system calls. Each attempt runs twice: unconfined first, where it must
# succeed (so the test can fail: the attempt is real), then confined, where
# it must be refused; the folders must hold afterwards what they held before.
# Where this machine cannot confine (no user namespaces, no Landlock), the
# suite says so and skips: the grader then says the same to its users.
# Ends with "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/../.." || exit 2

. tests/lib.sh
finish() {
    totals
    exit
}

confine=build/confine/confine
CC=${CC:-cc}
out=$(pwd)/build/tests/confine
rm -rf "$out"
mkdir -p "$out"
echo "== confinement (build/confine/confine)"
if [ ! -x $confine ]; then
    fail "confine: build/confine/confine was built (make build/confine/confine)"
    finish
fi
# the tiny library that the memory probes carry inside the program; linked
# as every confined program of the lab is: with judge/thread_names.c, exported
printf 'int lab_tiny(void) { return 42; }\n' >"$out/tiny.c"
if ! $CC -shared -fPIC "$out/tiny.c" -o "$out/tiny.so" 2>"$out/cc.log" ||
   ! $CC -O2 -Wall -pthread -rdynamic -DLAB_TINY_SO="\"$out/tiny.so\"" tests/confine/attack.c judge/thread_names.c \
       -o "$out/attack" -ldl 2>>"$out/cc.log"; then
    fail "confine: the attack program compiles" "$(cat "$out/cc.log")"
    finish
fi

out_probe=$($confine --probe 2>&1); st=$?
case $st in
    0) pass "confine: this machine confines: $out_probe" ;;
    126) check "confine: where it cannot confine, one line says why (exit 126)" \
             "$([ "$(wc -l <<<"$out_probe")" = 1 ] && grep -q '^not confined: ' <<<"$out_probe"; echo $?)" "$out_probe"
         skip "confine: the attacks: this machine cannot confine ($out_probe)"
         finish ;;
    *) fail "confine: --probe answers 0 or 126" "exit $st: $out_probe"; finish ;;
esac

# a class in miniature: the grader's lab (build folder), two students, a gradebook
lab=$out/lab class=$out/class
mkdir -p "$lab/build" "$class/alice" "$class/bob"
cp "$out/attack" "$lab/build/attack"
echo "__global__ void bob_s_secret_kernel() {}" >"$class/bob/kernel.cu"
printf 'student,points\nbob,70\n' >"$class/gradebook.csv"
snapshot() { (cd "$class" && find . -printf '%p %s %T@\n' | sort; cat gradebook.csv) | md5sum; }

# a process of the grader's that a submission would like to stop or spy on
sleep 300 >/dev/null 2>&1 &
grader_pid=$!
listener=""
trap 'kill $grader_pid $listener 2>/dev/null' EXIT

attack="$lab/build/attack"
run_confined() { $confine --read "$lab/build" -- "$attack" "$@"; }

# Every attempt: NAME|ARG|what it would do. Each runs unconfined first (it
# must work, or the test proves nothing: skipped where it does not), and
# what it did is undone; then the class is snapshotted, and each runs
# confined, where it must be refused.
sock=$out/listener.sock
dsock=$out/datagram.sock
attempts="write-file|$class/alice|a file created in the class folder
raw-write-file|$class/alice|a file created with a raw syscall instruction
append-file|$class/gradebook.csv|the gradebook changed
dlsym-fopen|$class/alice|grade.json written through fopen found with dlsym
read-file|$class/bob/kernel.cu|another student's kernel.cu read
read-file|$lab/build/../../class/bob/kernel.cu|a file read through ../../
list-dir|$class|the class folder listed
read-file|$HOME/.bashrc|a file of the user's home read
proc-root|$class/bob/kernel.cu|a file read through /proc/self/root
fork||a process started with fork
spawn||a process started with posix_spawn (system, popen)
daemon|$out/daemon-alive|a background process left to outlive the run
exec||another program exec'd (/bin/sh)
exec-memfd||a program written into memory and exec'd
socket-inet||a TCP socket
socket-unix|$sock|a connection to a UNIX socket on the machine
socket-unix-dgram|$dsock|a datagram to a UNIX socket on the machine
ptrace|$grader_pid|the grader traced (ptrace)
proc-environ|$grader_pid|the grader's environment read (/proc/PID/environ)
renice|$grader_pid|the grader reniced
write-proc|$grader_pid|the grader's /proc entry written
task-mem||its own code rewritten through /proc/self/task/TID/mem (memory become code)
unshare||a new user namespace (to gain privilege)
io-uring||io_uring (file access around the system-call filter)
memfd-dlopen||a library written into memory (memfd_create) and loaded through /proc/self/fd
tmpfile-dlopen|/dev/shm|a library written into an unnamed file (O_TMPFILE in /dev/shm) and loaded
openat2-dlopen|/dev/shm|a library written into an unnamed file made by openat2 and loaded
file-dlopen|/dev/shm|a library written into a file of its own (/dev/shm) and loaded
mmap-exec||code run in anonymous memory mapped executable (mmap PROT_EXEC)
mprotect-exec||code run in anonymous memory made executable (mprotect)
pkey-mprotect-exec||code run in anonymous memory made executable (pkey_mprotect)
mprotect-data||code run in the program's own data made executable (mprotect)
file-mmap-wx|$lab/build/attack|code run in a private mapping of its own program, writable and executable
file-mprotect-exec|$lab/build/attack|code run in a written private mapping of its own program made executable (mprotect)
proc-self-mem||its own code rewritten through /proc/self/mem (which ignores page protections)
shmat-exec||code run in shared memory attached executable (shmat SHM_EXEC)
read-implies-exec||code run in memory mapped without PROT_EXEC (personality READ_IMPLIES_EXEC)"
if command -v python3 >/dev/null; then
    python3 -c "import socket,time; s=socket.socket(socket.AF_UNIX); s.bind('$sock'); s.listen(64); time.sleep(120)" >/dev/null 2>&1 &
    listener=$!
    python3 -c "import socket,time; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind('$dsock'); time.sleep(120)" >/dev/null 2>&1 &
    dlistener=$!
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -S "$sock" ] && [ -S "$dsock" ] && break; sleep 0.2; done
fi
declare -A works
cp "$class/gradebook.csv" "$out/gradebook.saved"
while IFS='|' read -r name arg what; do
    o=$("$attack" "$name" "$arg" 2>&1) && works[$name:$arg]=1 || works[$name:$arg]="$o"
done <<<"$attempts"
sleep 4 # the unconfined daemon writes its file after 3 s
rm -f "$class/alice/planted-by-attack" "$class/alice/planted-by-raw-syscall" "$class/alice/grade.json" \
    "$out/daemon-alive"
cp "$out/gradebook.saved" "$class/gradebook.csv"
before=$(snapshot)
while IFS='|' read -r name arg what; do
    if [ "${works[$name:$arg]}" != 1 ]; then
        skip "confine: $what: the attempt does not work here even unconfined (${works[$name:$arg]})"
        continue
    fi
    o=$(run_confined "$name" "$arg" 2>&1); st=$?
    check "confine: $what: refused" "$([ $st != 0 ] && ! grep -q ESCAPED <<<"$o"; echo $?)" "exit $st: $o"
done <<<"$attempts"
[ -n "$listener" ] && kill "$listener" "$dlistener" 2>/dev/null
# killing is the last attempt on the grader's process: unconfined it works
o=$(run_confined kill "$grader_pid" 2>&1); st=$?
check "confine: the grader signalled (kill): refused" \
    "$([ $st != 0 ] && kill -0 $grader_pid 2>/dev/null; echo $?)" "exit $st: $o"
if [ "$(uname -m)" = x86_64 ]; then
    o=$(run_confined int80 "" 2>&1); st=$?
    check "confine: a 32-bit system call (int 0x80): the process is killed (SIGSYS)" \
        "$([ $st = $((128 + 31)) ] && ! grep -q ESCAPED <<<"$o"; echo $?)" "exit $st: $o"
fi
name=confine-test-$$
o=$(run_confined dev-shm "$name" 2>&1); st=$?
check "confine: /dev/shm is private to the run (usable inside, nothing left outside)" \
    "$([ $st = 0 ] && [ ! -e "/dev/shm/$name" ]; echo $?)" "exit $st: $o"

echo "== confinement: what a kernel launcher needs still works"
o=$(run_confined thread "" 2>&1); st=$?
check "confine: threads can be started (the CUDA runtime starts some)" "$([ $st = 0 ]; echo $?)" "$o"
# a runner with no GPU (the judge's, of the student's host code) has no
# CUDA runtime: threads of its own could only keep the cores busy while the
# judge times an empty batch beside it
o=$($confine --no-gpu --read "$lab/build" -- "$attack" thread "" 2>&1); st=$?
check "confine --no-gpu: a thread cannot be started" "$([ $st != 0 ] && ! grep -q ESCAPED <<<"$o"; echo $?)" "exit $st: $o"
o=$(run_confined thread-name "" 2>&1); st=$?
check "confine: a thread can be named (/proc/self/task/TID/comm: the CUDA driver fails without it)" \
    "$([ $st = 0 ]; echo $?)" "$o"
o=$(run_confined mps-probe "$sock" 2>&1); st=$?
check "confine: a UNIX stream socket opens, and its connection is refused as if nobody listened (the CUDA driver's look for MPS)" \
    "$([ $st = 0 ]; echo $?)" "$o"
if [ "$(id -u)" = 0 ]; then
    o=$($confine -- "$(command -v id)" -u 2>&1); st=$?
    check "confine: started as root, the program runs as nobody, not root" \
        "$([ $st = 0 ] && [ "$o" = "$(id -u nobody 2>/dev/null || echo 65534)" ]; echo $?)" "exit $st: $o"
    mkdir -p "$out/root-only/build" && chmod 700 "$out/root-only" && cp "$attack" "$out/root-only/build/"
    o=$($confine --read "$out/root-only/build" -- "$out/root-only/build/attack" stdout "" 2>&1); st=$?
    check "confine: as root, a lab in a folder only root may enter still runs (opened before the change to nobody)" \
        "$([ $st = 0 ] && grep -q 'hello from the confined' <<<"$o"; echo $?)" "exit $st: $o"
else
    skip "confine: started as root, the program runs as nobody: this test runs as $(id -un), not root"
fi
o=$(run_confined stdout "" 2>&1); st=$?
check "confine: stdout reaches the grader" "$([ $st = 0 ] && grep -q 'hello from the confined' <<<"$o"; echo $?)" "$o"
o=$( { $confine --read "$lab/build" -- /bin/sh -c 'echo record >&3' ; } 3>&1 2>&1 )
check "confine: a descriptor the grader hands over (the record's) stays open" \
    "$(grep -qx record <<<"$o"; echo $?)" "$o"
# (as root the program runs as nobody, which reads by path only what every
# user may reach: not inside a folder only root may enter)
reachable_by_all() {
    local p=$1
    [ "$(stat -c %A "$p" | cut -c 8)" = r ] || return 1
    while p=$(dirname "$p"); [ "$p" != / ]; do
        [ "$(stat -c %A "$p" | cut -c 10)" != - ] || return 1
    done
}
if [ "$(id -u)" = 0 ] && ! reachable_by_all "$lab/build/attack"; then
    skip "confine: the folder named with --read can be read: as root the program is nobody, and $lab is inside a folder only root may enter"
else
    o=$(run_confined read-file "$lab/build/attack" 2>&1); st=$?
    check "confine: the folder named with --read can be read" "$([ $st = 0 ]; echo $?)" "$o"
fi
run_confined exit 42 >/dev/null 2>&1; st=$?
check "confine: the program's exit status comes through (42)" "$([ $st = 42 ]; echo $?)" "exit $st"
run_confined abort "" >/dev/null 2>&1; st=$?
check "confine: the program's signal comes through (SIGABRT, 134)" "$([ $st = 134 ]; echo $?)" "exit $st"
o=$($confine -- /nonexistent/program 2>&1); st=$?
check "confine: a program that is not there: exit 127 and a message" \
    "$([ $st = 127 ] && grep -q 'cannot find' <<<"$o"; echo $?)" "exit $st: $o"
o=$($confine --bogus 2>&1); st=$?
check "confine: an unknown option: exit 125" "$([ $st = 125 ]; echo $?)" "exit $st: $o"

sleep 4 # a confined daemon, had one started, would have written by now
after=$(snapshot)
check "confine: the class folder holds exactly what it held before" "$([ "$before" = "$after" ]; echo $?)" \
    "$(cd "$class" && find . -type f)"
[ ! -e "$out/daemon-alive" ]
check "confine: nothing started inside outlived the run" $?
finish
