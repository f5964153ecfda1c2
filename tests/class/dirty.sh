# tests/class/dirty.sh: an answer left uncommitted in the instructors' working
# tree. Sourced by tests/class/run.sh (its variables: lab, tmp, fake, stages,
# have_gpu, s1; its helpers: check, row, field, column, notes_of), whose counts it
# adds to.
#
# In a git copy of the lab, the skeletons are committed, then the solutions
# of the first stage and of 03_tiled are copied over them and left
# uncommitted, as an instructor trying an answer would. make release must
# ship HEAD's skeleton, saying in one line that the tree differs; make class
# must grade in a lab made from HEAD: a student who submitted only 03 gets
# nothing for the first stage (not submitted), whatever the working tree
# holds. Without a GPU, class grading runs with the stand-in for make grade
# (which scores a kernel.cu without TODO(lab) 10 of 10, as the real grader
# scored the uncommitted answer on an H100); with one, with the real grader.
echo "== make release and make class from a working tree with an uncommitted answer"
t3=$(grep -m 1 '^03_' <<<"$stages")
dl=$tmp/dirty-lab
if [ -z "$t3" ] || [ "$t3" = "$s1" ] || ! command -v git >/dev/null; then
    skip "an uncommitted answer: needs git, and a stage 03 other than the first"
else
    lab_copy "$dl"
    rm -rf "$dl/build/grader" "$dl/build/grade-src"
    git -C "$dl" init -q && git -C "$dl" add -A &&
        git -C "$dl" -c user.name=lab -c user.email=lab@localhost commit -q -m "the lab as handed out"
    for s in "$s1" "$t3"; do cp "solutions/$s/kernel.cu" "$dl/exercises/$s/kernel.cu"; done
    dirty=$(git -C "$dl" status --porcelain --untracked-files=no)
    check "an uncommitted answer: the copy's working tree holds the two answers, HEAD the skeletons (the attempt is real)" \
        "$([ "$(wc -l <<<"$dirty")" = 2 ] && cmp -s "solutions/$t3/kernel.cu" "$dl/exercises/$t3/kernel.cu" &&
           git -C "$dl" show "HEAD:exercises/$t3/kernel.cu" | grep -q 'TODO(lab)'; ok)" "$dirty"

    # make release
    out=$(make --no-print-directory -C "$dl" release DEST="$tmp/dirty-release" 2>&1); st=$?
    check "make release from a dirty tree: ships HEAD's skeleton of $t3, not the uncommitted answer" \
        "$([ $st = 0 ] && git -C "$dl" show "HEAD:exercises/$t3/kernel.cu" | cmp -s - "$tmp/dirty-release/exercises/$t3/kernel.cu"; ok)" \
        "exit $st: $out; shipped: $(grep -c 'TODO(lab)' "$tmp/dirty-release/exercises/$t3/kernel.cu" 2>&1) TODO(lab) lines"
    check "make release from a dirty tree: one line names what differs from HEAD" \
        "$(grep "exercises/$t3/kernel.cu" <<<"$out" | grep -qiv 'error'; ok)" "$out"

    # make class: sam submits stage 03 alone (the skeleton: nothing to score)
    subd=$tmp/dirty-subs
    mkdir -p "$subd/sam/$t3"
    git -C "$dl" show "HEAD:exercises/$t3/kernel.cu" >"$subd/sam/$t3/kernel.cu"
    if ! make --no-print-directory -s -C "$dl" build/grader/class >"$tmp/dirty-build.log" 2>&1; then
        fail "an uncommitted answer: the copy's build/grader/class builds" "$(cat "$tmp/dirty-build.log")"
    else
        od=$tmp/dirty-out
        if [ $have_gpu = 1 ]; then
            out=$("$dl/build/grader/class" --submissions "$subd" --out "$od" --stages "$s1 $t3" 2>&1); st=$?
            how="on the GPU"
        else
            out=$(CLASS_MAKE=$fake "$dl/build/grader/class" --submissions "$subd" --out "$od" --stages "$s1 $t3" 2>&1); st=$?
            how="with the stand-in for make grade"
        fi
        check "make class from a dirty tree: the class's lab holds HEAD's skeleton of $s1, not the uncommitted answer" \
            "$(git -C "$dl" show "HEAD:exercises/$s1/kernel.cu" | cmp -s - "$od/lab/exercises/$s1/kernel.cu"; ok)" \
            "exit $st: $out"
        check "make class from a dirty tree, $how: sam submitted $t3 alone: 0 for $s1 (not submitted), 0 in all" \
            "$([ $st = 0 ] && [ "$(field "$(row "$od" sam)" 2)" = 0 ] && [ "$(field "$(row "$od" sam)" "$(column "$od" total)")" = 0 ] &&
               grep -q "not submitted: *$s1" <<<"$(notes_of "$od" sam)"; ok)" "exit $st: $out; $(cat "$od/gradebook.csv" 2>&1)"
    fi
fi
