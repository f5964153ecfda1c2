# tests/grader/resources.sh: the sentence a correct stage that missed a
# tier gets about its kernel's registers, local memory and loads
# (grader/resources.c), by tests/grader/resources_check.c on real cuobjdump
# and ptxas output (tests/grader/resources/) and a stand-in cuobjdump. No
# GPU. Sourced by tests/grader/run.sh: it uses that script's pass, fail,
# $CC and $out.
echo "== grader: what the compiler gave a kernel that missed a tier (grader/resources.c)"
if $CC -O2 -std=c11 -Wall -Wextra -Wno-format-truncation -D_GNU_SOURCE -Igrader -Igrader/intake -Ibuild -Icommon \
        tests/grader/resources_check.c $(grader_parts) $(host_lib) -lm \
        -o "$out/resources-check" 2>"$out/cc-resources.log"; then
    rm -rf "$out/resources"
    while read -r word name; do
        case $word in
            ok) pass "$name" ;;
            FAIL) fail "$name" ;;
            *) printf '%s %s\n' "$word" "$name" ;;
        esac
    done < <("$out/resources-check" "$out/resources")
else
    fail "grader: tests/grader/resources_check.c compiles" "$(cat "$out/cc-resources.log")"
fi
