#!/usr/bin/env bash
# tests/class/similarity/run.sh: make similarity on a class made of the
# kernels in this folder, and the numbers that set its review threshold.
#
#   honest_a, honest_b   stages 03 and 07 filled in from the skeleton, each in
#                        its own way (03_tiled/indep_*.cu, 07_reduction/indep_*.cu)
#   honest_c             both written from scratch
#   copier               03: honest_a's kernel, renamed, reordered, comments gone
#   paster               07: the textbook reduction #6 (shared-memory tree,
#                        unrolled last warp), pasted in and adapted to floats
#   skel                 03: the skeleton as handed out (nothing of its own)
#   nested               one top folder, then exercises/03_tiled: the solution renamed
#   linked, archived     a link and a tarball: refused and skipped, each said so
#   marker               07: honest_b's kernel under a comment holding markup,
#                        which the page must escape
#   wrapper, semis       03 and 07: the solution as the body of one #define,
#                        and with every statement's ; doubled
#   peeker               03: #include of a file outside it, six spellings
#                        (make similarity preprocesses each kernel.cu)
#
# The copies (copier with honest_a, paster with the known public kernel,
# nested, wrapper and semis with the lab's solution) must rank above every
# honest pair (two honest students, or an honest student and any lab or
# known kernel) and be marked for review at their stage's mark
# (grader/class/report/marks.tsv), and no honest pair marked; the margins
# are printed. Then the corpus the marks are measured on (corpus.sh,
# honest.tsv): no honest pair of it marked, every copy marked at each stage
# that has a mark, each stage without one saying so on the page.
# SIM_KEEP=FILE keeps the csv (to measure a change). Ends with "N passed,
# N failed".
set -u
cd "$(dirname "$0")/../../.." || exit 2
export LC_ALL=C
. tests/lib.sh

tmp=$(mktemp -d) || exit 2
trap '[ -z "${SIM_KEEP:-}" ] || cp "$tmp/out/similarity.csv" "$SIM_KEEP"; rm -rf "$tmp"' EXIT
if ! out=$(make --no-print-directory -s build/grader/similarity 2>&1); then
    fail "build/grader/similarity builds" "$out"
    totals
    exit 1
fi
k=tests/class/similarity
. $k/corpus.sh
subs=$tmp/subs
put() { mkdir -p "$(dirname "$subs/$1")" && cp "$2" "$subs/$1"; }
for who in a b c; do
    put "honest_$who/03_tiled/kernel.cu" "$k/03_tiled/indep_$who.cu"
    put "honest_$who/exercises/07_reduction/kernel.cu" "$k/07_reduction/indep_$who.cu"
done
put copier/03_tiled/kernel.cu "$k/03_tiled/copy_of_a.cu"
put paster/07_reduction/kernel.cu "$k/07_reduction/pasted.cu"
put skel/03_tiled/kernel.cu exercises/03_tiled/kernel.cu
# the solution with its names changed: a student who copied the answer key
sed -e 's/\bAs\b/tileA/g; s/\bBs\b/tileB/g; s/\btemp\b/acc/g; s/matmul_tiled/mm/g' solutions/03_tiled/kernel.cu \
    >"$tmp/renamed.cu"
put nested/nested-lab/exercises/03_tiled/kernel.cu "$tmp/renamed.cu"
mkdir -p "$subs/linked/03_tiled" && ln -s "$PWD/solutions/03_tiled/kernel.cu" "$subs/linked/03_tiled/kernel.cu"
tar -C "$subs" -czf "$subs/archived.tar.gz" honest_a
{ echo '// </pre><script>alert(1)</script> & done'; cat "$k/07_reduction/indep_b.cu"; } >"$tmp/marker.cu"
put marker/07_reduction/kernel.cu "$tmp/marker.cu"

# two cheap disguises of the solution (03 and 07): wrapped whole as the
# body of one #define, its comments and pragmas gone (wrapper), and every
# statement's ; doubled (semis)
for s in 03_tiled 07_reduction; do
    sim_wrapped "solutions/$s/kernel.cu" >"$tmp/wrapped-$s.cu"
    put "wrapper/$s/kernel.cu" "$tmp/wrapped-$s.cu"
    sim_semis "solutions/$s/kernel.cu" >"$tmp/semis-$s.cu"
    put "semis/$s/kernel.cu" "$tmp/semis-$s.cu"
done
# peeker: 03, the solution behind #include lines that name a file outside
# the submission, spelled six ways; the preprocessor must read none of them
echo "secret_marker_$$" >"$tmp/secret.h"
{ printf '#include "%s"\n%%:include "%s"\n#/* c */include "%s"\n#inc\\\nlude "%s"\n' \
      "$tmp/secret.h" "$tmp/secret.h" "$tmp/secret.h" "$tmp/secret.h"
  printf '/* a comment\n */ #include "%s"\n# /* a comment\n */ include "%s"\n' "$tmp/secret.h" "$tmp/secret.h"
  cat "$k/03_tiled/indep_b.cu"; } >"$tmp/peeker.cu"
put peeker/03_tiled/kernel.cu "$tmp/peeker.cu"

out=$tmp/out
log=$(make --no-print-directory similarity SUBMISSIONS="$subs" OUT="$out" EX="03 07" 2>&1); st=$?
csv=$out/similarity.csv html=$out/similarity.html
check "make similarity writes similarity.csv and similarity.html" "$([ $st = 0 ] && [ -s "$csv" ] && [ -s "$html" ]; ok)" "$log"
check "the csv: stage,student,other,score,review, by stage, highest first within each" \
    "$([ "$(head -1 "$csv")" = stage,student,other,score,review ] &&
       tail -n +2 "$csv" | cut -d, -f1,4 | sort -t, -k1,1 -k2,2rn -sc; ok)" "$(head -3 "$csv")"
check "a link is refused, and said so" \
    "$(grep -q 'linked: 03_tiled/kernel.cu is a link: refused' <<<"$log" && ! grep -q '^[^,]*,linked,' "$csv"; ok)" "$log"
check "an archive is skipped, with what to do instead" "$(grep -q 'archived.tar.gz: an archive, skipped: make class' <<<"$log"; ok)" "$log"
check "#include of a file outside the submission, six ways: nothing of it read into the pages; the one the blanking misses said so" \
    "$(! grep -rq "secret_marker_$$" "$out" &&
       grep -q "peeker: does not preprocess (it reads a header, which similarity does not allow): compared as written" <<<"$log" &&
       [ "$(grep -c 'does not preprocess' <<<"$log")" = 1 ]; ok)" "$log"
check "the skeleton as handed out has nothing of its own: in no pair" "$(! grep -q ',skel,\|,skel$' "$csv"; ok)"

# the scores: copies against honest pairs
score() { awk -F, -v s="$1" -v a="$2" -v b="$3" -v f="${4:-4}" '$1 == s && (($2 == a && $3 == b) || ($2 == b && $3 == a)) { print $f }' "$csv"; }
marked() { [ "$(score "$1" "$2" "$3" 5)" = yes ]; }
copy=$(score 03_tiled copier honest_a)
paste=$(score 07_reduction paster known:07_reduction/harris_reduce6.cu)
answer=$(score 03_tiled nested lab:solutions/03_tiled/kernel.cu)
honest=$(awk -F, 'NR > 1 && $2 ~ /^honest_/ && ($3 ~ /^honest_/ || $3 ~ /^(lab|known):/)' "$csv" |
    cut -d, -f1-4 | sort -t, -k4,4 -rn | head -1)
top=${honest##*,}
margin() { awk -v a="${1:-0}" -v b="${top:-100}" 'BEGIN { printf "%.1f", a - b }'; }
check "a renamed and reordered copy (03: copier, honest_a) scores $copy: marked, $(margin "$copy") over the highest honest pair" \
    "$(marked 03_tiled copier honest_a && awk -v m="$(margin "$copy")" 'BEGIN { exit !(m > 0) }'; ok)"
check "the pasted textbook reduction (07: paster, the known kernel) scores $paste: marked, $(margin "$paste") over the highest honest pair" \
    "$(marked 07_reduction paster known:07_reduction/harris_reduce6.cu && awk -v m="$(margin "$paste")" 'BEGIN { exit !(m > 0) }'; ok)"
check "the answer key renamed (03: nested, the lab's solution) scores $answer: marked" \
    "$(marked 03_tiled nested lab:solutions/03_tiled/kernel.cu; ok)"
check "no honest pair marked: the highest is $top (${honest%,*})" \
    "$(! awk -F, 'NR > 1 && $2 ~ /^honest_/ && ($3 ~ /^honest_/ || $3 ~ /^(lab|known):/) && $5 == "yes"' "$csv" | grep -q .; ok)"
for s in 03_tiled 07_reduction; do
    wrapped=$(score $s wrapper "lab:solutions/$s/kernel.cu") semis=$(score $s semis "lab:solutions/$s/kernel.cu")
    check "$s: the solution wrapped in one #define scores ${wrapped:-nothing}, with ;; ${semis:-nothing}: both marked" \
        "$(marked $s wrapper "lab:solutions/$s/kernel.cu" && marked $s semis "lab:solutions/$s/kernel.cu"; ok)" \
        "$(grep -E ',(wrapper|semis),' "$csv")"
done
# how alike the lab's solution and an independently written kernel are
for s in 03_tiled 07_reduction; do
    v=$(for w in a b c; do printf '%s ' "$(score $s honest_$w "lab:solutions/$s/kernel.cu")"; done)
    check "$s: the lab's solution and each honest kernel score ${v% }: none marked" \
        "$(for w in a b c; do marked $s honest_$w "lab:solutions/$s/kernel.cu" && exit 1; done
           [ "$(wc -w <<<"$v")" = 3 ]; ok)"
done

# the page: well-formed, no script, the markup of a submission escaped, the matches marked
if command -v xmllint >/dev/null; then
    err=$(xmllint --noout "$html" 2>&1)
    check "similarity.html is well-formed (xmllint)" $? "$err"
else
    skip "xmllint is not installed: similarity.html's form is not checked"
fi
check "similarity.html has no script; a comment's markup is escaped" \
    "$(! grep -qi '<script' "$html" && grep -q '// &lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; done' "$html"; ok)"
check "the copied pair is shown side by side, the shared runs marked in both" \
    "$(awk -v RS='</section>' '/<section class="pair"/ && /copier and honest_a/' "$html" >"$tmp/pair1"
       grep -q 'copier and honest_a' "$tmp/pair1" && [ "$(grep -o '<mark>' "$tmp/pair1" | wc -l)" -ge 4 ]; ok)"

# the corpus the marks are measured on (research/similarity-class.sh marks),
# held to the committed marks
sim_corpus "$tmp/corpus" || fail "the corpus of honest kernels and copies is laid out"
log=$(build/grader/similarity --lab . --submissions "$tmp/corpus/subs" --out "$tmp/corpus" 2>&1)
sim_pairs "$tmp/corpus/similarity.csv" "$tmp/corpus/who.tsv" >"$tmp/corpus/pairs.tsv"
marks=grader/class/report/marks.tsv
n=$(awk -F'\t' '$2 == "honest"' "$tmp/corpus/pairs.tsv" | wc -l)
bad=$(awk -F'\t' '$2 == "honest" && $4 == "yes"' "$tmp/corpus/pairs.tsv")
check "no honest pair of the lab's kernels marked ($n pairs, honest.tsv)" "$([ "$n" -gt 100 ] && [ -z "$bad" ]; ok)" "$bad$log"
for s in $(grep -v '^#' "$marks" | cut -f1); do
    mark=$(awk -F'\t' -v s=$s '$1 == s { print $2 }' "$marks")
    copies=$(awk -F'\t' -v s=$s '$1 == s && $2 == "copy"' "$tmp/corpus/pairs.tsv")
    if [ "$mark" = none ]; then
        section=$(awk -v s="$s" '$0 ~ "<section class=\"stage\" id=\"stage-" s "\">" { on = 1 } on && /<\/section>/ { exit } on' \
                  "$tmp/corpus/similarity.html")
        check "$s has no usable mark: its section of the page says so, and marks none of its pairs" \
            "$(grep -q '<p class="no-mark">No mark at this stage: honest kernels of this stage cannot be told apart' <<<"$section" &&
               ! grep -q "^$s,.*,yes$" "$tmp/corpus/similarity.csv"; ok)" "$section"
    else
        missed=$(awk -F'\t' '$4 != "yes"' <<<"$copies")
        check "$s: every copy marked at $mark, its names changed or disguised ($(wc -l <<<"$copies") copies)" \
            "$([ -n "$copies" ] && [ -z "$missed" ]; ok)" "$missed"
    fi
done

# a class's OUT: the kernels make class took in (OUT/students/NAME/kernels)
cls=$tmp/class
mkdir -p "$cls/students/x/kernels/03_tiled" "$cls/students/y/kernels/03_tiled"
cp "$k/03_tiled/indep_a.cu" "$cls/students/x/kernels/03_tiled/kernel.cu"
cp "$k/03_tiled/copy_of_a.cu" "$cls/students/y/kernels/03_tiled/kernel.cu"
log=$(make --no-print-directory similarity OUT="$cls" EX=03 2>&1)
check "make similarity OUT=class: the kernels of the class's intake" "$(grep -q '^03_tiled,x,y,\|^03_tiled,y,x,' "$cls/similarity.csv"; ok)" "$log"
# names as make class gives them: "ann lee" is ann_lee in both CSVs; an
# entry with a newline in its name stops it, as it stops make class
names=$tmp/names
mkdir -p "$names/ann lee/03_tiled" "$names/bo/03_tiled"
cp "$k/03_tiled/indep_a.cu" "$names/ann lee/03_tiled/kernel.cu"
cp "$k/03_tiled/copy_of_a.cu" "$names/bo/03_tiled/kernel.cu"
log=$(make --no-print-directory similarity SUBMISSIONS="$names" OUT="$tmp/names-out" EX=03 2>&1)
check "a folder named 'ann lee' is student ann_lee, as make class names it" \
    "$(grep -q '^03_tiled,ann_lee,bo,\|^03_tiled,bo,ann_lee,' "$tmp/names-out/similarity.csv" &&
       ! grep -q 'ann lee' "$tmp/names-out/similarity.csv"; ok)" "$log; $(cat "$tmp/names-out/similarity.csv")"
mkdir -p "$names/zz"$'\n'"bo"$'\t'"x/03_tiled"
log=$(build/grader/similarity --lab . --submissions "$names" --out "$tmp/names-out" --stages 03 2>&1); st=$?
check "an entry named zz<NL>bo<TAB>x: exit 6, the name shown escaped" \
    "$([ $st = 6 ] && grep -qF "'zz\\nbo\\tx'" <<<"$log"; ok)" "exit $st; $log"
log=$(make --no-print-directory similarity OUT="$tmp/nothing" 2>&1); st=$?
check "make similarity without SUBMISSIONS or a class: one line, status 2" "$([ $st = 2 ] && grep -q 'say whose work' <<<"$log"; ok)" "$log"
totals
