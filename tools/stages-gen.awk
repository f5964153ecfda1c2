# tools/stages-gen.awk: the facts of stages.tsv, made once, for everything
# that needs them (the Makefile runs it: make build/stages.env):
#
#   awk -v out=build -f tools/stages-gen.awk stages.tsv
#
# writes three files into the folder out:
#   stages.mk   the Makefile's: STAGES, and FAMILY_, KNOB_ and SWEEP_ of each stage
#   stages.env  the scripts' (sourced): LAB_STAGES, LAB_FAMILIES, and
#               LAB_FAMILY_<stage>, LAB_KNOB_<stage>, LAB_SWEEP_<stage>,
#               LAB_LESSON_<stage> of each
#   stages.h    the grader's: LAB_STAGE_COUNT and LAB_STAGE_TABLE, the rows
#               as { dir, family, knob, sweep, lesson } initializers
# Nothing else reads stages.tsv. A line that is not a comment must have its
# five tab-separated fields, a folder named NN_name and a family, knob and
# sweep of plain words; otherwise this says which line and writes nothing.
BEGIN { FS = "\t"; n = 0; bad = 0 }
/^#/ || /^[ \t]*$/ { next }
{
    # runs of tabs are one separator, as in a table aligned by hand
    gsub(/\t+/, "\t")
    nf = split($0, f, "\t")
    why = ""
    if (nf < 5) why = "five tab-separated fields (dir, family, knob, sweep, lesson), not " nf
    else if (f[1] !~ /^[0-9][0-9]_[A-Za-z0-9_]+$/) why = "a folder named NN_name, not '" f[1] "'"
    else if (f[1] in seen) why = "a stage listed once: " f[1] " is on line " seen[f[1]] " too"
    else if (f[2] !~ /^[a-z][a-z0-9_]*$/) why = "a family of lowercase letters, not '" f[2] "'"
    else if (f[3] !~ /^[A-Za-z_][A-Za-z0-9_]*$/) why = "a knob that is a macro name, not '" f[3] "'"
    else if (f[4] !~ /^[0-9]+( [0-9]+)*$/) why = "sweep values that are numbers, one blank apart, not '" f[4] "'"
    if (why != "") {
        printf "%s:%d: a stage needs %s\n", FILENAME, FNR, why > "/dev/stderr"
        bad = 1
        next
    }
    seen[f[1]] = FNR
    n++
    dir[n] = f[1]; family[n] = f[2]; knob[n] = f[3]; sweep[n] = f[4]
    lesson[n] = f[5]
    for (k = 6; k <= nf; k++) lesson[n] = lesson[n] "\t" f[k]
    if (!(f[2] in fam)) { fam[f[2]] = 1; families = families (families == "" ? "" : " ") f[2] }
}
function sh(s) { gsub(/'/, "'\\''", s); return "'" s "'" }
function c(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, "\\t", s); return "\"" s "\"" }
END {
    if (bad) exit 1
    if (n == 0) { print FILENAME ": no stages" > "/dev/stderr"; exit 1 }
    if (out == "") out = "build"
    head = "made by tools/stages-gen.awk from stages.tsv: do not edit"
    mk = out "/stages.mk"; env = out "/stages.env"; h = out "/stages.h"
    print "# " head > mk
    print "# " head > env
    print "/* " head " */" > h
    all = ""
    for (i = 1; i <= n; i++) {
        s = dir[i]
        print "STAGES += " s > mk
        print "FAMILY_" s " := " family[i] > mk
        print "KNOB_" s " := " knob[i] > mk
        print "SWEEP_" s " := " sweep[i] > mk
        print "LAB_FAMILY_" s "=" family[i] > env
        print "LAB_KNOB_" s "=" knob[i] > env
        print "LAB_SWEEP_" s "=" sh(sweep[i]) > env
        print "LAB_LESSON_" s "=" sh(lesson[i]) > env
        all = all (i > 1 ? " " : "") s
    }
    print "LAB_STAGES=" sh(all) > env
    print "LAB_FAMILIES=" sh(families) > env
    print "#define LAB_STAGE_COUNT " n > h
    print "#define LAB_STAGE_TABLE \\" > h
    for (i = 1; i <= n; i++)
        printf "    {%s, %s, %s, %s, %s}%s\n", c(dir[i]), c(family[i]), c(knob[i]), c(sweep[i]), c(lesson[i]),
               i < n ? ", \\" : "" > h
    close(mk); close(env); close(h)
}
