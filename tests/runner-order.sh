#!/usr/bin/env bash
# tests/runner-order.sh: the order in which tests/runner.sh starts suites,
# on stand-in suites that leave a file when they start and when they end:
# a suite that must wait for one sharing its state lets a later one start
# first; a suite using all starts when every one before it has ended, and
# none after it starts before it ends. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT

# the stand-in suites, run by the runner in a shell of their own
order() {
    . tests/runner.sh
    # seen FILE: whether DIR/FILE exists within 20 s
    seen() { for _ in $(seq 200); do [ -e "$dir/$1" ] && return 0; sleep 0.1; done; return 1; }
    # said NAME WHETHER: an ok or FAIL line for NAME
    said() { if [ "$2" = 0 ]; then echo "ok    $1"; else echo "FAIL  $1"; fi; }
    a() { touch "$dir/a"; seen c; said "c started while a ran" $?; touch "$dir/a.end"; }
    b() { touch "$dir/b"; [ -e "$dir/a.end" ]; said "b, sharing a's state, started after a ended" $?; touch "$dir/b.end"; }
    c() { touch "$dir/c"; said "c ran" 0; touch "$dir/c.end"; }
    d() { [ -e "$dir/a.end" ] && [ -e "$dir/b.end" ] && [ -e "$dir/c.end" ] && [ ! -e "$dir/e" ]
          said "d (all) started after every suite before it, and before e" $?; touch "$dir/d.end"; }
    e() { touch "$dir/e"; [ -e "$dir/d.end" ]; said "e started after d (all) ended" $?; }
    suite --uses x a "a" a
    suite --uses x b "b" b
    suite c "c" c
    suite --uses all d "d" d
    suite e "e" e
    run_suites 2
}
out=$( (order) 2>&1)
while IFS='|' read -r by name; do
    grep -qxF "ok    $by: $name" <<<"$out"
    check "runner: $name" $? "$out"
done <<'CHECKS'
a|c started while a ran
b|b, sharing a's state, started after a ended
d|d (all) started after every suite before it, and before e
e|e started after d (all) ended
CHECKS
totals
