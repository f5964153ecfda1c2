# tests/class/intake.sh: class grading's intake at its limits and with odd
# names: sourced by tests/class/run.sh (its variables and helpers: tmp, cls,
# fake, s1, class_stages, row, status_of, notes_of), whose counts it adds to.
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
    "$([ "$(status_of "$o14" victor)" = refused ] && grep -q "exercises/$s1/kernel.cu is not a plain file in plain folders (a link on its path)" <<<"$(notes_of "$o14" victor)"; ok)" \
    "$(row "$o14" victor)"
check "names: other characters become _, an s before one that begins with neither letter nor digit; nested folders found" \
    "$(row "$o14" Zo___Smith | grep -q "^Zo___Smith,10,0,10,20,graded," && row "$o14" s_x | grep -q "^s_x,10,0,10,20,graded," &&
       row "$o14" nested | grep -q "^nested,10,0,10,20,graded,"; ok)" "$(cat "$o14/gradebook.csv")"
out=$("$cls" --status --out "$o14" 2>&1); st=$?
check "--status: N of M done, and the gradebook's counts" \
    "$([ $st = 0 ] && [ "$out" = "$(printf '8 of 8 done\ngradebook: %s/gradebook.csv, 8 students (graded: 3, refused: 5)' "$o14")" ]; ok)" \
    "exit $st; $out"
