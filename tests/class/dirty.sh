#!/usr/bin/env bash
# tests/class/dirty.sh: an answer left uncommitted in the instructors' working
# tree: make release and make class from it, and a stage not submitted
# where it has one; a suite of make check (tests/run.sh); ends with "N passed, N
# failed[, N skipped]". Run alone:
#   bash tests/class/dirty.sh
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
cd "$(dirname "$0")/../.." && . tests/class/lib.sh && class_alone || exit 2
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

echo "== a stage not submitted, an answer uncommitted in the instructor's tree"
# a clone of this commit with the answer of stage 2 typed into its skeleton
# and not committed; grace sends stage 1 only: her stage 2 scores 0, "not
# submitted", and is not graded (the fake make grade logs what it grades);
# the class's lab has HEAD's skeleton
dl=$tmp/dirty-class
if git clone -q "$lab" "$dl" 2>/dev/null && git -C "$dl" checkout -q "$(git rev-parse HEAD)" 2>/dev/null &&
    mkdir -p "$dl/build/grader" "$dl/build/release" && cp build/grader/class "$dl/build/grader/" &&
    cp build/release/transpose_unpadded.o "$dl/build/release/"; then
    cp "solutions/$s2/kernel.cu" "$dl/exercises/$s2/kernel.cu"
    mk "$tmp/sub-ns/grace/$s1/kernel.cu" "solutions/$s1/kernel.cu"
    ons=$tmp/out-ns
    out=$(CLASS_MAKE="$fake" FAKE_GRADE_ARGS="$tmp/ns-args" "$dl/build/grader/class" --submissions "$tmp/sub-ns" \
        --out "$ons" --stages "$class_stages" --seed 5 2>&1); st=$?
    check "a stage not submitted: 0 'not submitted' in the gradebook, the whole maximum, not graded; the lab is HEAD's" \
        "$([ $st = 0 ] && [ "$(row "$ons" grace)" = "grace,10,0,10,20,graded,5,not submitted: $s2" ] &&
           grep -q "EX=$s1\$" "$tmp/ns-args" && ! grep -q "EX=.*$s2" "$tmp/ns-args" &&
           cmp -s "exercises/$s2/kernel.cu" "$ons/lab/exercises/$s2/kernel.cu" &&
           grep -q "uncommitted changes left out" <<<"$out"; ok)" \
        "exit $st; $out; $(cat "$ons/gradebook.csv" "$tmp/ns-args" 2>&1)"
    rm -rf "$dl"
else
    skip "a stage not submitted with an uncommitted answer: cannot clone the lab here (not a git checkout?)"
fi

totals
