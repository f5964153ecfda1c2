#!/usr/bin/env bash
# tools/grade-build.sh: the build before a grade (make grade and make
# calibrate run it, before the grader; tests too).
#
#   tools/grade-build.sh [GRADER OPTIONS] [STAGE...]
#
# Asks build/grader/grade --plan, with the options the grade will have,
# which programs it runs (the grader removes the old ones first, so that
# none is graded from an earlier build, and for --src makes the copy of the
# lab in build/grade-src), then builds them all with make -k, so that a
# stage that does not compile stops no other. make's messages go to
# build/grade-build.log, where the grader finds each failed stage's reason
# (the compiler's first error, the linker's undefined symbols); those of
# the CPU emulation's programs, built after, to build/grade-build-emu.log. The grader
# itself never runs make. make class builds ahead and writes that log
# itself (make grade PREBUILT=1 then builds nothing).
#
# Exit status: 0 when the build ran, whatever it built; the grader's when
# --plan refused (2 usage, 3 no GPU to calibrate on, 4 no nvcc or nm).
set -u
cd "$(dirname "$0")/.." || exit 2
plan=$(build/grader/grade --plan "$@") || exit $?
[ -n "$plan" ] || exit 0
# make's variables of the command line come along in MAKEFLAGS as they are
# (CUDA_ARCH="80 90" with its escaped blanks), but not the jobserver of a
# make that runs this script
MAKEFLAGS=$(sed -E 's/(^| )--jobserver-(auth|fds)=[^ ]*//g' <<<"${MAKEFLAGS:-}")
export MAKEFLAGS
jobs=${plan#*-j}
printf 'building (make -k -j%s)...' "${jobs%% *}"
t0=$(date +%s)
# the CPU emulation's programs (for the cause of a wrong result, built
# with the host compiler) after the rest and into a log of their own: the
# compiler's first error that a stage's reason quotes is nvcc's
options=() programs=() emulated=() dir=0
for w in $plan; do
    if [ $dir = 1 ]; then options+=("$w"); dir=0; continue; fi
    case $w in
        -C) options+=("$w"); dir=1 ;;
        -*) options+=("$w") ;;
        *-emu) emulated+=("$w") ;;
        *) programs+=("$w") ;;
    esac
done
make -k -s --no-print-directory "${options[@]}" "${programs[@]}" >build/grade-build.log 2>&1
st=$?
if [ ${#emulated[@]} -gt 0 ]; then
    make -k -s --no-print-directory "${options[@]}" "${emulated[@]}" >build/grade-build-emu.log 2>&1
fi
printf ' %d s%s\n' $(($(date +%s) - t0)) "$([ $st = 0 ] || echo '; some programs did not build (build/grade-build.log)')"
exit 0
