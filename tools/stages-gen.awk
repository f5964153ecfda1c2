# tools/stages-gen.awk: the facts of stages.tsv, made once, for everything
# that needs them (the Makefile runs it: make build/stages.env):
#
#   awk -v out=build -f tools/stages-gen.awk stages.tsv
#
# writes four files into the folder out:
#   stages.mk      the Makefile's: STAGES, and FAMILY_, KNOB_, SWEEP_, SIZES_
#                  and TIMED_ of each stage (the last two empty: the family's);
#                  COMPILED_ of a family with compiled lines
#   references.mk  the Makefile's rules for each tier's reference kernel
#                  (binary_rules: build/<stage>/<tier>/<source>)
#   stages.env     the scripts' (sourced): LAB_STAGES, LAB_FAMILIES,
#                  LAB_COMPILED (every family's compiled files), and
#                  LAB_FAMILY_, LAB_KNOB_, LAB_SWEEP_, LAB_LESSON_,
#                  LAB_AGAINST_, LAB_TODO_, LAB_SIZES_, LAB_TIMED_ and
#                  LAB_POINTS_ of each stage
#   stages.h       the grader's: LAB_STAGE_COUNT and LAB_STAGE_TABLE, the rows
#                  as { dir, family, knob, sweep, lesson } initializers;
#                  LAB_STAGE_RUBRIC, the rubric's lines of the table as
#                  { line, "text" } (grader/rubric.c reads them before
#                  grader/rubric.tsv); LAB_STAGE_REFERENCES, the tiers'
#                  reference kernels as { stage, tier, source, flags, kernel };
#                  LAB_STAGE_TECHNIQUES, the technique lines as { stage,
#                  name, measure, op, limit, with } (emu/technique.cc);
#                  LAB_STAGE_FIGURES, the figure lines as { family, field,
#                  words } (grader/class/report/report.c); LAB_STAGE_PROFILES,
#                  the profile lines as { stage, load bytes, store bytes,
#                  bank advice } (profile/verdicts.c); for the judge's
#                  worker (judge/worker.cu), LAB_STAGE_FAMILIES(X), X(family)
#                  for each family, and LAB_STAGE_SIZES, the stages as
#                  { dir, family, checked sizes, timed size }
# Nothing else reads stages.tsv (its header says what each kind of line
# holds). A line of a kind this does not know, or without its fields, or
# naming a stage or tier no line above defines, a tier scored on a field
# without a figure line for its family, or a family without its two files
# (common/<family>.h and common/<family>_family.cu), is an error: this
# says which line and writes nothing.
BEGIN { FS = "\t"; n = 0; bad = 0; nrub = 0; nref = 0; ntech = 0 }
/^#/ || /^[ \t]*$/ { next }
function need(cond, what) { if (!cond && why == "") why = what }
function number(s) { return s ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
{
    # runs of tabs are one separator, as in a table aligned by hand
    gsub(/\t+/, "\t")
    sub(/\t$/, "")
    nf = split($0, f, "\t")
    kind = f[1]; s = f[2]; why = ""
    if (kind == "stage") {
        need(nf >= 6, "a stage line: stage, dir, family, knob, sweep, lesson (tab-separated), not " nf " fields")
        need(s ~ /^[0-9][0-9]_[A-Za-z0-9_]+$/, "a folder named NN_name, not '" s "'")
        need(!(s in seen), "a stage listed once: " s " is on line " seen[s] " too")
        need(f[3] ~ /^[a-z][a-z0-9_]*$/, "a family of lowercase letters, not '" f[3] "'")
        need(f[4] ~ /^[A-Za-z_][A-Za-z0-9_]*$/, "a knob that is a macro name, not '" f[4] "'")
        need(f[5] ~ /^[0-9]+( [0-9]+)*$/, "sweep values that are numbers, one blank apart, not '" f[5] "'")
    } else if (kind == "figure") {
        # figure FAMILY FIELD WORDS: the family's, not a stage's
        need(nf == 4 && f[3] ~ /^[a-z_.]+$/, "a figure line: figure, family, field, words")
        need(why != "" || s in fam, "a figure of a family whose first stage line is above it, not '" s "'")
        need(why != "" || !((s, f[3]) in figure), "figure " f[3] " of " s " said once")
    } else if (kind == "compiled") {
        # compiled FAMILY NAME: the family's, not a stage's
        need(nf == 3 && f[3] ~ ("^" s "_[a-z0-9_]+$"), "a compiled line: compiled, family, a file name <family>_name")
        need(why != "" || s in fam, "a compiled file of a family whose first stage line is above it, not '" s "'")
    } else if (kind == "margin") {
        # the rubric's order: margin TIER FACTOR STAGE
        need(nf == 4 && number(f[3]) && f[3] > 0, "a margin line: margin, tier, factor > 0, stage")
        need(why != "" || (f[4], f[2]) in tiers, "a margin for a tier defined above, not '" f[2] "' of '" f[4] "'")
    } else if (kind !~ /^(against|todo|sizes|points|tier|threshold|reference|bonus|barriers|technique|profile)$/) {
        why = "a known kind of line (stage, against, todo, sizes, points, tier, threshold, reference, bonus, barriers, margin, technique, figure, profile, compiled), not '" kind "'"
    } else if (!(s in seen)) {
        why = "a stage whose stage line is above it, not '" s "'"
    } else if (kind == "against" || kind == "todo") {
        need(nf >= 3, "a " kind " line: " kind ", stage, text")
    } else if (kind == "sizes") {
        need(nf == 3 || nf == 4, "a sizes line: sizes, stage, checked sizes, [timed size]")
        need(f[3] ~ /^[0-9]+(x[0-9]+)?(,[0-9]+(x[0-9]+)?)*$/, "checked sizes such as 256,1,17 or 256x256,33x65, not '" f[3] "'")
        need(nf < 4 || f[4] ~ /^[0-9]+(x[0-9]+)?$/, "a timed size such as 4096 or 8192x8192, not '" f[4] "'")
    } else if (kind == "points") {
        need(nf >= 3 && f[3] ~ /^[0-9]+$/, "a points line: points, stage, a whole number [, seconds or -, arguments]")
        need(nf < 4 || f[4] == "-" || number(f[4]), "a time limit in seconds or -, not '" f[4] "'")
    } else if (kind == "tier") {
        need(nf == 8, "a tier line: tier, stage, name, points, field, >= or <=, unit, advice")
        need(f[4] ~ /^[0-9]+$/ && (f[6] == ">=" || f[6] == "<="), "whole points and >= or <=")
        need(!((s, f[3]) in tiers), "tier " f[3] " of " s " defined once")
    } else if (kind == "threshold") {
        need(nf == 5 && f[4] == "default" && number(f[5]),
             "a threshold line: threshold, stage, tier, default, a number (a GPU's own rows: grader/rubric.tsv)")
        need((s, f[3]) in tiers, "a threshold of a tier defined above, not '" f[3] "'")
    } else if (kind == "technique") {
        need(nf == 7 && f[4] ~ /^[a-z_]+$/ && (f[5] == ">=" || f[5] == "<=") && number(f[6]),
             "a technique line: technique, stage, name, measure, >= or <=, a number, what it is with the technique or -")
    } else if (kind == "profile") {
        need(nf == 5 && f[3] ~ /^(4|8|16)$/ && f[4] ~ /^(4|8|16)$/,
             "a profile line: profile, stage, bytes a load, bytes a store (4, 8 or 16), advice on bank conflicts or -")
    } else if (kind == "reference") {
        need(nf == 6 && (f[4] == "solution" || f[4] == "reference"),
             "a reference line: reference, stage, tier, solution or reference, flags or -, what it is")
        need((s, f[3]) in tiers, "a reference of a tier defined above, not '" f[3] "'")
    }
    if (why != "") {
        printf "%s:%d: %s needs %s\n", FILENAME, FNR, kind == "" ? "a line" : "a " kind " line", why > "/dev/stderr"
        bad = 1
        next
    }
    if (kind == "stage") {
        seen[s] = FNR
        n++
        stage_no[s] = n
        dir[n] = s; family[n] = f[3]; knob[n] = f[4]; sweep[n] = f[5]
        lesson[n] = f[6]
        for (k = 7; k <= nf; k++) lesson[n] = lesson[n] "\t" f[k]
        if (!(f[3] in fam)) { fam[f[3]] = 1; families = families (families == "" ? "" : " ") f[3] }
    } else if (kind == "compiled") {
        compiled[s] = compiled[s] (compiled[s] == "" ? "" : " ") f[3]; all_compiled = all_compiled " " f[3]
    } else if (kind == "figure") {
        figure[s, f[3]] = f[4]; nfig++; fs[nfig] = s; ffield[nfig] = f[3]
    } else if (kind == "against" || kind == "todo") {
        text[kind, s] = f[3]
    } else if (kind == "sizes") {
        sizes[s] = f[3]; timed[s] = f[4]
    } else if (kind == "reference") {
        nref++; rs[nref] = s; rt[nref] = f[3]; rsrc[nref] = f[4]; rflags[nref] = f[5]; rkernel[nref] = f[6]
    } else if (kind == "profile") {
        nprof++; ps[nprof] = s; pload[nprof] = f[3]; pstore[nprof] = f[4]; pbanks[nprof] = f[5] == "-" ? "" : f[5]
    } else if (kind == "technique") {
        ntech++; ts[ntech] = s; tname[ntech] = f[3]; tmeasure[ntech] = f[4]; top[ntech] = f[5]; tlimit[ntech] = f[6]
        twith[ntech] = f[7] == "-" ? "" : f[7]
    } else {
        # the rubric's lines: the grader reads them as it reads grader/rubric.tsv
        if (kind == "tier") { tiers[s, f[3]] = 1; ntf++; tfs[ntf] = s; tfield[ntf] = f[5]; tline[ntf] = FNR }
        if (kind == "points") points[s] = f[3]
        nrub++; rline[nrub] = FNR; rtext[nrub] = $0
    }
}
function sh(s) { gsub(/'/, "'\\''", s); return "'" s "'" }
function c(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, "\\t", s); return "\"" s "\"" }
END {
    # every family has its two files beside this table: its contract
    # (common/<family>.h, with LAB_CONTRACT: common/contract.h) and its
    # lab_family_this (common/<family>_family.cu, family.h)
    root = FILENAME ~ /\// ? FILENAME : "./" FILENAME
    sub(/\/[^\/]*$/, "", root)
    nfam = split(families, fl, " ")
    for (i = 1; i <= nfam; i++)
        for (k = 1; k <= 2; k++) {
            file = "common/" fl[i] (k == 1 ? ".h" : "_family.cu")
            holds = k == 1 ? "its contract function and LAB_CONTRACT: common/contract.h" : "its lab_family_this: common/family.h"
            if ((getline line < (root "/" file)) < 0) {
                printf "%s: the family %s has no %s (%s)\n", FILENAME, fl[i], file, holds > "/dev/stderr"
                bad = 1
            }
            close(root "/" file)
        }
    # every field a tier is scored on has its words for the stage's family
    for (i = 1; i <= ntf; i++)
        if (!((family[stage_no[tfs[i]]], tfield[i]) in figure)) {
            printf "%s:%d: a tier of %s is scored on %s, which has no figure line for the family %s (its words)\n",
                   FILENAME, tline[i], tfs[i], tfield[i], family[stage_no[tfs[i]]] > "/dev/stderr"
            bad = 1
        }
    if (bad) exit 1
    if (n == 0) { print FILENAME ": no stages" > "/dev/stderr"; exit 1 }
    if (out == "") out = "build"
    head = "made by tools/stages-gen.awk from stages.tsv: do not edit"
    mk = out "/stages.mk"; env = out "/stages.env"; h = out "/stages.h"; refs = out "/references.mk"
    print "# " head > mk
    print "# " head > env
    print "# " head > refs
    print "/* " head " */" > h
    all = ""
    for (i = 1; i <= n; i++) {
        s = dir[i]
        print "STAGES += " s > mk
        print "FAMILY_" s " := " family[i] > mk
        print "KNOB_" s " := " knob[i] > mk
        print "SWEEP_" s " := " sweep[i] > mk
        print "SIZES_" s " := " sizes[s] > mk
        print "TIMED_" s " := " timed[s] > mk
        print "LAB_FAMILY_" s "=" family[i] > env
        print "LAB_KNOB_" s "=" knob[i] > env
        print "LAB_SWEEP_" s "=" sh(sweep[i]) > env
        print "LAB_LESSON_" s "=" sh(lesson[i]) > env
        print "LAB_AGAINST_" s "=" sh(text["against", s]) > env
        print "LAB_TODO_" s "=" sh(text["todo", s]) > env
        print "LAB_SIZES_" s "=" sh(sizes[s]) > env
        print "LAB_TIMED_" s "=" sh(timed[s]) > env
        print "LAB_POINTS_" s "=" sh(points[s]) > env
        all = all (i > 1 ? " " : "") s
    }
    print "LAB_STAGES=" sh(all) > env
    print "LAB_FAMILIES=" sh(families) > env
    print "LAB_COMPILED=" sh(substr(all_compiled, 2)) > env
    for (fm in compiled)
        print "COMPILED_" fm " := " compiled[fm] > mk
    # a reference that is the solution without flags is the stage's own build
    for (i = 1; i <= nref; i++)
        if (!(rsrc[i] == "solution" && rflags[i] == "-"))
            printf "$(eval $(call binary_rules,%s,%s,build/%s/%s,%s,%s reference))\n", rs[i], rsrc[i], rs[i], rt[i],
                   rflags[i] == "-" ? "" : rflags[i], rt[i] > refs
    print "#define LAB_STAGE_COUNT " n > h
    print "#define LAB_STAGE_TABLE \\" > h
    for (i = 1; i <= n; i++)
        printf "    {%s, %s, %s, %s, %s}%s\n", c(dir[i]), c(family[i]), c(knob[i]), c(sweep[i]), c(lesson[i]),
               i < n ? ", \\" : "" > h
    # the judge's worker (judge/worker.cu): each family's definition, and
    # each stage's family and sizes
    nfl = split(families, fl, " ")
    printf "#define LAB_STAGE_FAMILIES(X)" > h
    for (i = 1; i <= nfl; i++)
        printf " X(%s)", fl[i] > h
    print "" > h
    print "#define LAB_STAGE_SIZES \\" > h
    for (i = 1; i <= n; i++)
        printf "    {%s, %s, %s, %s}%s\n", c(dir[i]), c(family[i]), c(sizes[dir[i]]), c(timed[dir[i]]),
               i < n ? ", \\" : "" > h
    # each list ends with an empty row, so that none is an empty initializer
    print "#define LAB_STAGE_RUBRIC \\" > h
    for (i = 1; i <= nrub; i++)
        printf "    {%d, %s}, \\\n", rline[i], c(rtext[i]) > h
    print "    {0, 0}" > h
    print "#define LAB_STAGE_REFERENCES \\" > h
    for (i = 1; i <= nref; i++)
        printf "    {%s, %s, %s, %s, %s}, \\\n", c(rs[i]), c(rt[i]), c(rsrc[i]), c(rflags[i] == "-" ? "" : rflags[i]),
               c(rkernel[i]) > h
    print "    {0, 0, 0, 0, 0}" > h
    print "#define LAB_STAGE_TECHNIQUES \\" > h
    for (i = 1; i <= ntech; i++)
        printf "    {%s, %s, %s, %s, %s, %s}, \\\n", c(ts[i]), c(tname[i]), c(tmeasure[i]), c(top[i]), tlimit[i],
               c(twith[i]) > h
    print "    {0, 0, 0, 0, 0, 0}" > h
    print "#define LAB_STAGE_FIGURES \\" > h
    for (i = 1; i <= nfig; i++)
        printf "    {%s, %s, %s}, \\\n", c(fs[i]), c(ffield[i]), c(figure[fs[i], ffield[i]]) > h
    print "    {0, 0, 0}" > h
    print "#define LAB_STAGE_PROFILES \\" > h
    for (i = 1; i <= nprof; i++)
        printf "    {%s, %d, %d, %s}, \\\n", c(ps[i]), pload[i], pstore[i], c(pbanks[i]) > h
    print "    {0, 0, 0, 0}" > h
    close(mk); close(env); close(h); close(refs)
}
