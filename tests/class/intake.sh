#!/usr/bin/env bash
# tests/class/intake.sh: class grading's intake at its limits, with odd
# names and with names that try to rewrite the class, a zip made on macOS,
# a submission replaced between two runs; a suite of make check
# (tests/run.sh); ends with "N passed, N failed[, N skipped]". Run alone:
#   bash tests/class/intake.sh
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
echo "== make class: submissions at the limits, odd names"
sub8=$tmp/sub8 o14=$tmp/out14
mkdir -p "$sub8"
# big: a tarball that unpacks to more than 64 MiB (a file of zeros)
mkdir -p "$tmp/big/exercises/$s1" && cp "solutions/$s1/kernel.cu" "$tmp/big/exercises/$s1/" &&
    truncate -s 65M "$tmp/big/zeros" && tar -C "$tmp/big" -czf "$sub8/big.tar.gz" exercises zeros && rm -rf "$tmp/big"
# many: a tarball of 10001 members
mkdir -p "$tmp/many/m" && (cd "$tmp/many/m" && seq 10001 | xargs touch) && tar -C "$tmp/many" -cf "$sub8/many.tar" m &&
    rm -rf "$tmp/many"
# fat: a folder with a kernel.cu of 2 MiB
mkdir -p "$sub8/fat/$s1" && truncate -s 2M "$sub8/fat/$s1/kernel.cu"
# walter: a folder whose exercises/ is a link to a folder outside it
mkdir -p "$tmp/elsewhere/exercises/$s1" "$sub8/walter" && cp "solutions/$s1/kernel.cu" "$tmp/elsewhere/exercises/$s1/" &&
    ln -s "$tmp/elsewhere/exercises" "$sub8/walter/exercises"
# victor: a folder whose exercises/ is a link to a folder inside it (the
# path is opened with no link followed, wherever the link points)
mkdir -p "$sub8/victor/real/$s1" && cp "solutions/$s1/kernel.cu" "$sub8/victor/real/$s1/" &&
    ln -s real "$sub8/victor/exercises"
# names: a folder "Zoë Smith", a tarball _x.tgz with one top folder, and a
# folder whose only folder holds only a folder that holds the stages
mkdir -p "$sub8/Zoë Smith/$s1" "$tmp/x/top/$s1" "$sub8/nested/a/b/$s1"
cp "solutions/$s1/kernel.cu" "$sub8/Zoë Smith/$s1/"
cp "solutions/$s1/kernel.cu" "$tmp/x/top/$s1/" && tar -C "$tmp/x" -czf "$sub8/_x.tgz" top
cp "solutions/$s1/kernel.cu" "$sub8/nested/a/b/$s1/"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub8" --out "$o14" --stages "$class_stages" 2>&1); st=$?
check "an archive that unpacks to more than 64 MiB, or holds more than 10000 files, and a kernel.cu over 1 MiB: refused" \
    "$([ $st = 0 ] && [ "$(status_of "$o14" big)" = refused ] && grep -q "unpacks to more than 64 MiB" <<<"$(notes_of "$o14" big)" &&
       [ "$(status_of "$o14" many)" = refused ] && grep -q "holds more than 10000 files" <<<"$(notes_of "$o14" many)" &&
       [ "$(notes_of "$o14" fat)" = "fat: $s1/kernel.cu is larger than 1024 KiB" ]; ok)" "exit $st; $out; $(cat "$o14/gradebook.csv")"
check "a kernel.cu reached through a link to a folder outside the submission: refused" \
    "$([ "$(notes_of "$o14" walter)" = "walter: exercises/$s1/kernel.cu lies outside the submission" ]; ok)" \
    "$(row "$o14" walter)"
check "a kernel.cu reached through a link inside the submission: refused, the link named" \
    "$([ "$(status_of "$o14" victor)" = refused ] && grep -q "exercises/$s1/kernel.cu is not a plain file of its own (a link on its path)" <<<"$(notes_of "$o14" victor)"; ok)" \
    "$(row "$o14" victor)"
check "names: other characters become _, an s before one that begins with neither letter nor digit; nested folders found" \
    "$(row "$o14" Zo___Smith | grep -q "^Zo___Smith,10,0,10,20,graded," && row "$o14" s_x | grep -q "^s_x,10,0,10,20,graded," &&
       row "$o14" nested | grep -q "^nested,10,0,10,20,graded,"; ok)" "$(cat "$o14/gradebook.csv")"
out=$("$cls" --status --out "$o14" 2>&1); st=$?
check "--status: N of M done, and the gradebook's counts" \
    "$([ $st = 0 ] && [ "$out" = "$(printf '8 of 8 done\ngradebook: %s/gradebook.csv, 8 students (graded: 3, refused: 5)' "$o14")" ]; ok)" \
    "exit $st; $out"

# ============================================ names that rewrite the class
echo "== make class: entry names with a newline and a tab"
# the class's list of students is NAME<TAB>ENTRY lines: an entry named
# "zz<NL>alice<TAB>mallory" adds the line "alice<TAB>mallory" (alice graded
# from mallory's folder), and "zz<NL>..<TAB>." a student named .. (the
# intake empties OUT/students/.., the class folder)
sub10=$tmp/sub10 o15=$tmp/out15 sub11=$tmp/sub11 o16=$tmp/out16
mkdir -p "$sub10/alice/$s1" "$sub10/mallory/$s1" "$sub10/zz"$'\n'"alice"$'\t'"mallory/$s1"
cp "solutions/$s1/kernel.cu" "$sub10/alice/$s1/kernel.cu"
cp "exercises/$s1/kernel.cu" "$sub10/mallory/$s1/kernel.cu"
cp "exercises/$s1/kernel.cu" "$sub10/zz"$'\n'"alice"$'\t'"mallory/$s1/kernel.cu"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub10" --out "$o15" --stages "$s1" 2>&1); st=$?
check "an entry named zz<NL>alice<TAB>mallory: the class stops before anyone is graded (exit 6), the name shown escaped" \
    "$([ $st = 6 ] && grep -qF "'zz\\nalice\\tmallory'" <<<"$out" && grep -q "rename" <<<"$out" &&
       [ ! -e "$o15/gradebook.csv" ] && [ ! -e "$o15/students/alice" ]; ok)" \
    "exit $st; $out; $(cat "$o15/gradebook.csv" 2>/dev/null)"
mkdir -p "$sub11/alice/$s1" "$sub11/zz"$'\n'".."$'\t'"./$s1"
cp "solutions/$s1/kernel.cu" "$sub11/alice/$s1/kernel.cu"
cp "exercises/$s1/kernel.cu" "$sub11/zz"$'\n'".."$'\t'"./$s1/kernel.cu"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub11" --out "$o16" --stages "$s1" 2>&1); st=$?
check "an entry named zz<NL>..<TAB>.: exit 6, the class folder kept (class.conf, lab/)" \
    "$([ $st = 6 ] && [ -f "$o16/class.conf" ] && [ -f "$o16/lab/stages.tsv" ] && [ -d "$o16/students" ] &&
       grep -qF "'zz\\n..\\t.'" <<<"$out"; ok)" "exit $st; $out; $(ls -a "$o16" 2>&1)"
# renamed as the message says, the class is graded under the clean name
mv "$sub10/zz"$'\n'"alice"$'\t'"mallory" "$sub10/zz"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub10" --out "$o15" --stages "$s1" 2>&1); st=$?
check "renamed, the same class is graded: alice from her own folder, mallory and zz from theirs" \
    "$([ $st = 0 ] && row "$o15" alice | grep -q "^alice,10,10,10,graded," && row "$o15" mallory | grep -q "^mallory,0,0,10,graded," &&
       row "$o15" zz | grep -q "^zz,0,0,10,graded,"; ok)" "exit $st; $out; $(cat "$o15/gradebook.csv" 2>/dev/null)"
# two entries for one student: both named
mkdir -p "$sub10/ann lee/$s1" "$sub10/ann_lee/$s1"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub10" --out "$o15" --stages "$s1" 2>&1); st=$?
check "two entries that make one name (ann lee, ann_lee): exit 6, both named" \
    "$([ $st = 6 ] && grep -q "student 'ann_lee': 'ann lee' 'ann_lee'" <<<"$out"; ok)" "exit $st; $out"
rm -rf "$sub10/ann lee" "$sub10/ann_lee"

# =========================================== a macOS zip, a changed archive
echo "== make class: a zip made on macOS, a submission replaced"
sub12=$tmp/sub12 o17=$tmp/out17
mkdir -p "$sub12" "$tmp/mac/bea/exercises/$s1" "$tmp/mac/__MACOSX/bea/exercises/$s1"
cp "solutions/$s1/kernel.cu" "$tmp/mac/bea/exercises/$s1/kernel.cu"
echo "resource fork" >"$tmp/mac/__MACOSX/bea/exercises/$s1/._kernel.cu"
echo "finder" >"$tmp/mac/bea/.DS_Store"
(cd "$tmp/mac" && zip -qr "$sub12/bea.zip" bea __MACOSX)
mkdir -p "$tmp/cy1/$s1" "$tmp/cy2/$s1"
cp "exercises/$s1/kernel.cu" "$tmp/cy1/$s1/kernel.cu"
cp "solutions/$s1/kernel.cu" "$tmp/cy2/$s1/kernel.cu"
tar -C "$tmp/cy1" -czf "$sub12/cy.tar.gz" "$s1"
mkdir -p "$sub12/dan/$s1" && cp "exercises/$s1/kernel.cu" "$sub12/dan/$s1/kernel.cu"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub12" --out "$o17" --stages "$s1" 2>&1); st=$?
check "a zip made on macOS (bea/ beside __MACOSX/, a .DS_Store): graded as bea" \
    "$([ $st = 0 ] && row "$o17" bea | grep -q "^bea,10,10,10,graded,"; ok)" "exit $st; $out; $(cat "$o17/gradebook.csv" 2>/dev/null)"
# cy replaces the skeleton by the solution, dan edits his folder: both
# graded again on the next run, and said so; an unchanged one is not
tar -C "$tmp/cy2" -czf "$sub12/cy.tar.gz" "$s1"
cp "solutions/$s1/kernel.cu" "$sub12/dan/$s1/kernel.cu"
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub12" --out "$o17" --stages "$s1" 2>&1); st=$?
check "a replaced archive and an edited folder: graded again on the next run, each named; bea kept" \
    "$([ $st = 0 ] && row "$o17" cy | grep -q "^cy,10,10,10,graded," && row "$o17" dan | grep -q "^dan,10,10,10,graded," &&
       grep -q "cy: the submission changed since it was graded: grading it again" <<<"$out" &&
       grep -q "dan: the submission changed" <<<"$out" && ! grep -q "bea: the submission changed" <<<"$out" &&
       grep -q "1 graded before, 0 refused now, 2 to grade" <<<"$out"; ok)" "exit $st; $out; $(cat "$o17/gradebook.csv" 2>/dev/null)"

# =================================================== a Gradescope export
echo "== make class: Gradescope's Export Submissions"
sub13=$tmp/sub13 o18=$tmp/out18
mkdir -p "$sub13/submission_101/exercises/$s1" "$sub13/submission_102/$s1"
cp "solutions/$s1/kernel.cu" "$sub13/submission_101/exercises/$s1/kernel.cu"
cp "exercises/$s1/kernel.cu" "$sub13/submission_102/$s1/kernel.cu"
cat >"$sub13/submission_metadata.yml" <<'YML'
submission_101:
  :submitters:
  - :name: Ann Lee
    :sid: '1001'
    :email: ann@example.edu
  :created_at: 2026-11-20 10:00:00.000000000 -08:00
  :score:
submission_102:
  :submitters:
  - :name: "Bo Chen"
    :sid: '1002'
  :created_at: 2026-11-20 11:00:00.000000000 -08:00
YML
out=$(CLASS_MAKE=$fake "$cls" --submissions "$sub13" --out "$o18" --stages "$s1" 2>&1); st=$?
check "a Gradescope export (submission_NNN/ and submission_metadata.yml): graded under the students' names, their SIDs the ids, the metadata no stray file" \
    "$([ $st = 0 ] && row "$o18" Ann_Lee | grep -q "^Ann_Lee,1001,10,10,10,graded," && row "$o18" Bo_Chen | grep -q "^Bo_Chen,1002,0,0,10,graded," &&
       [ "$(grep -c . "$o18/gradebook.csv")" = 3 ] && ! grep -q "ignored" <<<"$out"; ok)" \
    "exit $st; $out; $(cat "$o18/gradebook.csv" 2>/dev/null)"

totals
