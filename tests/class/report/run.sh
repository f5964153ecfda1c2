#!/usr/bin/env bash
# tests/class/report/run.sh: make report on a made-up class
# (fixture-class.sh: six students, each a kind the page must show). The
# page is parsed, not looked at: it is well-formed (xmllint, as XML: every
# tag closed; and as HTML), one chart per stage, every tier's threshold
# drawn at the record's value, every timed student's dot at the record's
# value, every stage's points as the gradebook has them, the lost points,
# the flag, the time-out and the compile error listed, nothing of a
# submission unescaped, no script; anonymised, no name left. A headless
# browser (chromium), where there is one, renders it to a PNG.
# Prints "ok", "FAIL" and "skip" lines; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.." || exit 2
export LC_ALL=C
. tests/lib.sh

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if ! out=$(make --no-print-directory -s build/grader/report 2>&1); then
    fail "build/grader/report builds" "$out"
    totals
    exit 1
fi
class=$tmp/class
tests/class/report/fixture-class.sh "$class"
page=$class/report.html

out=$(make --no-print-directory report OUT="$class" 2>&1)
check "make report OUT=dir writes OUT/report.html" "$([ -s "$page" ] && grep -q "report: $page" <<<"$out"; ok)" "$out"

# well-formed: as XML every tag is closed; as HTML nothing is broken
# (libxml2's HTML parser knows HTML 4 only: its "Tag svg invalid" for
# HTML 5 and SVG elements is not an error of the page)
if command -v xmllint >/dev/null; then
    out=$(xmllint --noout "$page" 2>&1)
    check "the page is well-formed: every tag closed (xmllint)" $? "$out"
    out=$(xmllint --html --noout "$page" 2>&1 | grep -E 'parser (error|warning)' |
          grep -v -E 'Tag (svg|nav|section|text|rect|line|circle|title) invalid')
    check "the page parses as HTML (xmllint --html)" "$([ -z "$out" ]; ok)" "$out"
else
    skip "xmllint is not installed (apt-get install libxml2-utils): the page's tags are checked by awk alone"
fi
# our own check of the same, where xmllint is not: open and close tags pair up
out=$(sed 's/<!DOCTYPE[^>]*>//' "$page" | tr '\n' ' ' | grep -o '<[^>]*>' | awk '
    /\/>$/ { next }
    /^<\// { t = substr($0, 3); sub(/[ >].*/, "", t); if (n == 0 || st[n] != t) { print "unexpected </" t "> after <" st[n] ">"; bad = 1; exit } n--; next }
    { t = substr($0, 2); sub(/[ >].*/, "", t); st[++n] = t }
    END { if (!bad && n) print n " tags left open, the last <" st[n] ">"; exit bad || n }')
check "every tag of the page is closed, in order (awk)" $? "$out"

nstages=$(head -1 "$class/gradebook.csv" | tr ',' '\n' | grep -c '^[0-9][0-9]_')
check "one chart per stage ($nstages)" "$([ "$(grep -c '<svg class="stage-chart"' "$page")" = "$nstages" ]; ok)"
check "no script, and nothing fetched (no src= or external href)" \
    "$(! grep -qi '<script' "$page" && ! grep -qiE ' src=|href="(https?:)?//' "$page"; ok)"
check "a compile error's markup is escaped (&lt;script&gt;), and its & too" \
    "$(grep -q 'near &lt;script&gt;alert(1)&lt;/script&gt; &amp; more' "$page"; ok)"
check "the page has print CSS" "$(grep -q '@media print' "$page"; ok)"

# every tier's threshold, as the records have it
want=$(tools/json.sh flat "$class"/students/*/grade.json |
       awk -F'\t' '$1 ~ /\.tiers\.[0-9]+\.name$/ { n = $2 } $1 ~ /\.tiers\.[0-9]+\.threshold$/ { print n, $2 + 0 }' | sort -u)
got=$(grep -o 'data-tier="[^"]*" data-threshold="[^"]*"' "$page" | sed -E 's/data-tier="([^"]*)" data-threshold="([^"]*)"/\1 \2/' | awk '{ print $1, $2 + 0 }' | sort -u)
check "each tier's threshold drawn at the record's value" "$([ -n "$got" ] && [ "$want" = "$got" ]; ok)" \
    "records: $want
page: $got"

# every timed student's dot at the record's value, per stage and field: the
# charts are in stage order and each panel says its field
got=$(awk '/<section class="stage"/ { s = $0; sub(/.*id="stage-/, "", s); sub(/".*/, "", s) }
           /class="ttl">/ && /timing\./ { f = $0; sub(/.*\(timing/, "timing", f); sub(/\).*/, "", f) }
           /<circle/ { w = $0; sub(/.*data-student="/, "", w); sub(/".*/, "", w); v = $0; sub(/.*data-value="/, "", v); sub(/".*/, "", v)
                       print w "\t" s "\t" f "\t" v + 0 }' "$page" | sort)
want=$(awk -F'\t' '{ print $1 "\t" $2 "\t" $3 "\t" $4 + 0 }' "$class/expect.tsv" | sort)
check "each timed student's dot at the record's value ($(wc -l <<<"$want") dots)" "$([ "$want" = "$got" ]; ok)" \
    "$(diff <(echo "$want") <(echo "$got"))"
# every stage's points as the gradebook has them
want=$(awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9][0-9]_/) st[i] = $i; next }
                { for (i in st) print $1 "\t" st[i] "\t" $i }' "$class/gradebook.csv" | sort)
got=$(grep -o '<td class="pts" data-stage="[^"]*" data-student="[^"]*">[^<]*' "$page" |
      sed -E 's/.*data-stage="([^"]*)" data-student="([^"]*)">(.*)/\2\t\1\t\3/' | sort)
check "each student's points of each stage as in the gradebook" "$([ "$want" = "$got" ]; ok)" \
    "$(diff <(echo "$want") <(echo "$got"))"
# the histogram's counts add up to the students with a record
bars=$(awk '/<section class="stage" id="stage-03_tiled"/ { on = 1 } /<\/section>/ { on = 0 }
            on && /class="bar"/ { c = $0; sub(/.*data-count="/, "", c); sub(/".*/, "", c); n += c } END { print n }' "$page")
check "03_tiled's bars count every student with a record (5)" "$([ "$bars" = 5 ]; ok)" "bars: $bars"
lost=$(awk '/id="stage-03_tiled"/ { on = 1 } on && /<table class="lost">/ { t = 1 } t && /<\/table>/ { exit } t && /<tr><td>/' "$page")
check "03_tiled's lost points: bob (slow: 9.75% against 13%) and carol (did not compile), no one else" \
    "$(grep -q '<td>bob</td><td>6/10</td><td>correct; missed pass (9.75%, needs &gt;= 13%)' <<<"$lost" &&
       grep -q '<td>carol</td><td>0/10</td><td>did not compile' <<<"$lost" && [ "$(wc -l <<<"$lost")" = 2 ]; ok)" "$lost"
check "the flagged time (dave, 07) is red and said so, the time-out (erin, 05) and the compile error counted" \
    "$(grep -q 'class="flag"[^>]*data-student="dave"' "$page" &&
       grep -q '1 lost points; 0 flagged; 1 timed out; 0 did not compile' "$page" &&
       grep -q '3 lost points; 1 flagged; 0 timed out; 0 did not compile' "$page" &&
       grep -q '<pre class="err">carol: did not compile' "$page"; ok)"
check "the refused student (no record) has the gradebook's row" \
    "$(grep -q '<td>frank</td>.*<td>refused</td><td class="notes">refused: frank.tar.gz is not an archive' "$page"; ok)"

# anonymised: no name anywhere, not even in a compile error's path
out=$(make --no-print-directory report OUT="$class" ANON=1 2>&1)
anon=$class/report-anon.html
left=$(grep -o -w -E 'alice|bob|carol|dave|erin|frank' "$anon" | sort | uniq -c)
check "ANON=1: report-anon.html names no student (student-01 ... student-06)" \
    "$([ -s "$anon" ] && [ -z "$left" ] && [ "$(grep -o 'student-0[1-6]' "$anon" | sort -u | wc -l)" = 6 ]; ok)" "$out$left"
rows=$(awk '/<table class="totals">/ { on = 1 } on' "$anon" | grep -o '^<tr><td>student-[0-9]*' | sed 's/.*>//')
check "ANON=1: the totals in the pseudonyms' order, not the names'" "$([ "$rows" = "$(sort <<<"$rows")" ]; ok)" "$rows"
check "ANON=1: the named report is left as it was" "$(grep -q '<td>alice</td>' "$page"; ok)"

# bad input: one line, a distinct status
out=$(make --no-print-directory report 2>&1); st=$?
check "make report without OUT: one line saying what to give, status 2" \
    "$([ $st = 2 ] && grep -q 'say which class' <<<"$out"; ok)" "$out"
out=$(build/grader/report --out "$tmp/none" 2>&1); st=$?
check "a folder without a gradebook: one line saying to run make class first, status 1" \
    "$([ $st = 1 ] && grep -q 'run make class first' <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ]; ok)" "$out"
mkdir -p "$tmp/bad" && echo "name,points" >"$tmp/bad/gradebook.csv"
out=$(build/grader/report --out "$tmp/bad" 2>&1); st=$?
check "a gradebook that is not make class's: refused, status 1" "$([ $st = 1 ] && grep -q "header" <<<"$out"; ok)" "$out"

# a real browser, where there is one: the page renders
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$browser" ]; then
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --window-size=1000,2400 \
        --screenshot="$tmp/report.png" "file://$page" >"$tmp/browser.log" 2>&1
    check "a headless browser renders the page to a PNG ($(basename "$browser"))" \
        "$([ -s "$tmp/report.png" ] && [ "$(head -c 4 "$tmp/report.png" | tail -c 3)" = PNG ]; ok)" "$(tail -3 "$tmp/browser.log")"
    [ -n "${REPORT_PNG:-}" ] && cp "$tmp/report.png" "$REPORT_PNG"
else
    skip "no headless browser (chromium): the page is not rendered (apt-get install chromium)"
fi
totals
