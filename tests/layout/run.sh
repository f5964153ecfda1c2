#!/usr/bin/env bash
# tests/layout/run.sh: what the tree promises about itself (part of make
# check): the execution backends are chosen at link time (no LAB_JUDGE
# conditional outside judge/), no source file passes 500 lines, no function
# 80, no stage number is compared in code, and the family files
# (common/*_family.cu) share no run of 6 identical lines; it prints the
# lines of code outside tests/ (tools/count-lines.sh). Ends with "N passed,
# N failed". LAB_LAYOUT_ROOT: check that tree instead (tests plant faults
# in a copy).
set -u
lab=$(cd "$(dirname "$0")/../.." && pwd)
root=${LAB_LAYOUT_ROOT:-$lab}
cd "$root" || exit 2
pass=0 fail=0
check() { # name, status (0 = pass), details
    if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "ok    $1"
    else fail=$((fail + 1)); echo "FAIL  $1"; [ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/      /' | head -n 12; fi
}
sources() { git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cu' '*.sh' '*.awk' '*.mk' Makefile 2>/dev/null ||
            find . -path ./build -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.sh' \
                 -o -name '*.awk' -o -name '*.mk' -o -name Makefile \) -print | sed 's|^\./||'; }

echo "== layout: the tree's own promises"
found=$(sources | grep -v '^judge/' | while read -r f; do
    [ -f "$f" ] && grep -Hn '^[[:space:]]*#[[:space:]]*if.*LAB_JUDGE' "$f"; done)
check "no LAB_JUDGE conditional outside judge/ (the backend is chosen at link time)" "$([ -z "$found" ]; echo $?)" "$found"

long=$(sources | while read -r f; do
    [ -f "$f" ] && n=$(wc -l < "$f") && [ "$n" -gt 500 ] && echo "$f: $n lines"; done)
check "no source file over 500 lines" "$([ -z "$long" ]; echo $?)" "$long"

# tools/check-function-length.sh: what fails is ENFORCED's; the rest is listed
long=$("$lab/tools/check-function-length.sh" --root . 2>&1); st=$?
check "no function over 80 lines in common/, grader/, judge/, profile/ and emu/" \
    "$st" "$(grep -v 'reported only' <<<"$long")"

# a stage is known by its lines of stages.tsv, never by its number in code
# (issue 46: a family is one place): no comparison with "NN" or "NN_name"
found=$(sources | grep -E '^(common|grader|judge|profile|emu)/.*\.(c|cc|cu|h)$' | while read -r f; do
    [ -f "$f" ] && grep -HnE 'str(n)?cmp\([^;]*"[0-9][0-9](_[A-Za-z0-9_]*)?"' "$f"; done)
check "no stage number compared in code (what a stage needs is a line of stages.tsv)" "$([ -z "$found" ]; echo $?)" "$found"

# every window of 6 lines (trimmed; those with fewer than four lines of more
# than braces and blanks left out) of each family file, then the windows
# found in two files
shared=$(for f in common/*_family.cu; do
    awk -v f="$f" '{ sub(/^[ \t]+/, ""); sub(/[ \t]+$/, ""); line[NR] = $0 }
        END { for (i = 1; i + 5 <= NR; i++) {
                  w = ""; big = 0
                  for (k = 0; k < 6; k++) { w = w "\x1f" line[i + k]; if (length(line[i + k]) > 3) big++ }
                  if (big >= 4) print f "\t" i "\t" w } }' "$f"
    done | sort -t "$(printf '\t')" -k3,3 | awk -F'\t' '$3 == prev && $1 != pf { print pf ":" pl " and " $1 ":" $2 }
        { prev = $3; pf = $1; pl = $2 }')
check "the family files share no run of 6 identical lines" "$([ -z "$shared" ]; echo $?)" "$shared"

names=$(bash "$lab/tests/layout/names.sh" --root . 2>&1); st=$?
check "every global function is named lab_... or after its folder (tests/layout/names.sh)" "$st" "$names"

# each check can fail: a copy with one fault of each kind planted
if [ -z "${LAB_LAYOUT_ROOT:-}" ]; then
    # the lines of code outside tests/ (issue 46, item 6): printed, and
    # counted right on a small tree of known lines
    echo "the lines of code outside tests/ (tools/count-lines.sh):"
    "$lab/tools/count-lines.sh" "$root" | sed 's/^/      /'
    t=$(mktemp -d)
    mkdir -p "$t/a" "$t/tests" "$t/gradescope"
    seq 3 > "$t/a/x.cu"; seq 5 > "$t/tests/y.c"; seq 2 > "$t/Makefile"; seq 7 > "$t/a/notes.md"
    seq 4 > "$t/gradescope/run_autograder"
    counted=$("$lab/tools/count-lines.sh" "$t" | tr -s ' ' | tr '\n' ';')
    "$lab/tools/count-lines.sh" "$t/none" 2>/dev/null; st=$?
    check "tools/count-lines.sh counts code outside tests/ by folder, and refuses a missing tree (status 2)" \
        "$([ "$counted" = ". 2;a 3;gradescope 4;total 9;" ] && [ "$st" = 2 ]; echo $?)" "got: $counted (status $st)"
    rm -rf "$t"
    t=$(mktemp -d)
    mkdir -p "$t/common" "$t/judge"
    cp common/*_family.cu "$t/common/"
    printf '#ifdef LAB_JUDGE\n#endif\n' > "$t/common/planted.cu"
    printf '#if defined(LAB_JUDGE)\n#endif\n' > "$t/judge/allowed.cu"
    seq 501 > "$t/common/long.sh"
    { printf 'int grow(void)\n{\n'; seq -f '    x += %g;' 90; printf '}\n'; } > "$t/common/grow.c"
    sed 's/grow/grow_judged/' "$t/common/grow.c" > "$t/judge/grow.c"
    mkdir -p "$t/profile"
    printf 'int wide(const char *ex) { return !strcmp(ex, "06"); }\n' > "$t/profile/wide.c"
    sed -n '/^static int judge/,/^}/p' common/matmul_family.cu > "$t/shared"
    cat "$t/shared" "$t/shared" >> "$t/common/transpose_family.cu"
    mkdir -p "$t/tests/layout"
    echo "common/gone.c old_name" > "$t/tests/layout/names.txt"; : > "$t/common/gone.c"
    got=$(LAB_LAYOUT_ROOT=$t bash "$0" 2>&1)
    planted=0
    for want in "FAIL  no LAB_JUDGE conditional" "common/planted.cu:1" "FAIL  no source file over 500" \
                "common/long.sh: 501 lines" "FAIL  no function over 80" "common/grow.c:1: grow is 93 lines" \
                "judge/grow.c:1: grow_judged is 93 lines" \
                "FAIL  no stage number compared" "profile/wide.c:1" \
                "FAIL  the family files share no run" "FAIL  every global function" "common/grow.c: grow" \
                "common/gone.c old_name" "0 passed, 6 failed"; do
        case $got in *"$want"*) ;; *) planted=1; echo "      missing: $want" ;; esac
    done
    case $got in *judge/allowed.cu*) planted=1; echo "      judge/'s LAB_JUDGE conditional was flagged" ;; esac
    check "each of these checks fails on a tree with its fault planted" "$planted"
    rm -rf "$t"
fi

echo
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
