# grader/class/grade-json.awk: a student's grade.json, as make grade wrote it,
# into the lines class grading needs (grader/class/grading.sh):
#
#   score<TAB>S   max<TAB>M   seed<TAB>SEED   bonus<TAB>B   bonus_max<TAB>BM
#   stage<TAB>NAME<TAB>POINTS<TAB>PHRASE     one per stage
#
# PHRASE says in a few words (60 characters at most) why the stage lost
# points, empty when it lost none: the head of the grader's reason ("wrong
# result at n=17", "timed out after 60 s", "did not compile: " and the
# compiler's first error), or the speed tiers a correct kernel missed. The
# details stay in the student's grade.log and grade.json.
#
# The grader writes one key per line; a stage's own keys are indented like
# its "stage" key, its tiers' keys deeper.

function value(line) {
    sub(/^[^:]*: /, "", line); sub(/,$/, "", line)
    if (line ~ /^".*"$/) {
        line = substr(line, 2, length(line) - 2)
        gsub(/\\n|\\t/, " ", line); gsub(/\\"/, "\"", line); gsub(/\\\\/, "\\", line)
    }
    return line
}
function indent(line) { match(line, /^ */); return RLENGTH }

# The text before its first ": " or "; " outside parentheses; what is left,
# when still longer than 60 characters, without its first parenthesis on.
function head(text,   i, c, depth) {
    depth = 0
    for (i = 1; i < length(text); i++) {
        c = substr(text, i, 1)
        if (c == "(") depth++
        else if (c == ")" && depth > 0) depth--
        else if (depth == 0 && (c == ":" || c == ";") && substr(text, i + 1, 1) == " ") {
            text = substr(text, 1, i - 1)
            break
        }
    }
    if (length(text) > 60 && (i = index(text, " (")) > 0) text = substr(text, 1, i - 1)
    return text
}

function phrase(   p, i) {
    if (points != "" && maxp != "" && points + 0 >= maxp + 0) return ""
    if (reason == "") {
        if (flagged == "true") p = "correct; its time cannot be real: no speed points"
        else if (missed != "") p = "correct, too slow for the " missed " tier" (missed ~ /, / ? "s" : "")
        else p = "lost points (see grade.log)"
    } else if (reason ~ /^did not compile/) {
        # the compiler's first error, without the file and line before it
        p = "did not compile"
        if ((i = index(reason, "error: ")) > 0) p = p ": " substr(reason, i + 7)
    } else if (reason ~ /^(crashed|refused|compute-sanitizer): /) {
        i = index(reason, ": ")
        p = substr(reason, 1, i + 1) head(substr(reason, i + 2))
    } else {
        p = head(reason)
    }
    if (reason ~ /TODO\(lab\)/ && p !~ /TODO\(lab\)/) p = p " (TODO(lab) left)"
    if (length(p) > 60) p = substr(p, 1, 57) "..."
    return p
}

function flush() {
    if (stage != "") printf "stage\t%s\t%s\t%s\n", stage, points, phrase()
    stage = ""
}

/^  "score": /     { print "score\t" value($0) }
/^  "max_score": / { print "max\t" value($0) }
/^  "seed": /      { print "seed\t" value($0) }
/^  "bonus_score": / { print "bonus\t" value($0) }
/^  "bonus_max": /   { print "bonus_max\t" value($0) }
/^ *"stage": /     {
    flush(); stage = value($0); depth = indent($0)
    points = maxp = reason = flagged = missed = tier = tier_points = ""
    next
}
stage != "" && indent($0) == depth {
    if (/^ *"points": /) points = value($0)
    else if (/^ *"max_points": /) maxp = value($0)
    else if (/^ *"reason": /) reason = value($0)
    else if (/^ *"flagged": /) flagged = value($0)
}
# a speed tier: its name, then its points, then the most it could give
stage != "" && indent($0) > depth {
    if (/^ *"name": /) tier = value($0)
    else if (/^ *"points": /) tier_points = value($0)
    else if (/^ *"max_points": / && tier != "" && tier_points + 0 < value($0) + 0)
        missed = missed (missed == "" ? "" : ", ") tier
}
END { flush() }
