#!/usr/bin/env bash
# check-numbers.sh: every measured number that the lab's texts quote must be
# what its record holds (make docs-check runs it).
#
#   tools/check-numbers.sh [--records DIR] [--profile DIR] [--strict | --loose] [FILE...]
#
# The records are what tools/record-values.sh reads (see its --help): make
# bench's JSON files and the *.tsv tables under measurements/<gpu>-<date>/
# (DIR of --records), and Nsight Compute's tables under profile/ (--profile).
#
# Handouts, exercise READMEs and slides (handouts/*.md, exercises/*/README.md,
# slides/*.md; any FILE with --strict) name the record of each number:
#   - A path written in the text, measurements/<run>/ (every record of the
#     run), measurements/<run>/<file> or profile/<file>, names the records of
#     its paragraph (or table, or list) and of what follows, up to the next
#     heading or the next paragraph that names records; a heading's numbers
#     take all the records its section names. A paragraph that names records
#     and says a GPU (H200) or a date (2026-11-21) must say those of its
#     records.
#   - These numbers are checked, where records are named:
#       N GFLOP/s, N GB/s (3558-3645 GB/s is two), N.N s, N ms   a rate or time
#       N%                                     a percentage, or a ratio of rates
#       Nx, N times, a factor of N             a ratio of two rates
#       N, up to three words, then sectors, wavefronts or conflicts
#                                              an Nsight Compute counter
#       N, up to three words, then hazards     a racecheck count
#     and in a table, the numbers of each column whose heading says GFLOP/s,
#     GB/s, % of cuBLAS, memcpy or copy, occupancy, registers, sectors,
#     wavefronts or conflicts (and not "counted": a column of counts from
#     the indices; nor a heading with a number of its own). A rate, a time,
#     or a percentage of cuBLAS, memcpy or copy with no record named is an
#     error; the other kinds are checked only where a record is named
#     (elsewhere they are arithmetic: 8x the bytes, 32 wavefronts for 32
#     lanes in one bank).
#   - Each checked number names the one value it quotes, in a binding after
#     it on its line: <!-- =SELECTOR -->, one selector a number, split by ;
#     (a binding binds the last numbers before it, one a selector, back to
#     the binding before at most):
#       94.7% of cuBLAS <!-- =h200-2026-11-23-late/08_warptiling.json pct_of_reference -->
#       2215-2221 GB/s <!-- =rung6_gridstride_float4.json cublas rate; rung5_warp_shuffle.json cublas rate -->
#     A selector is [RECORD] KEY: RECORD the path of a record named here, or
#     its end (08_warptiling.json, h200-2026-11-23-late/sweeps.tsv); KEY a
#     key of tools/record-values.sh (student rate, student/cublas,
#     pct_of_reference, 08_warptiling BK=8 rate), or words each found in one
#     key. It must name one value of the kind of the number, and the number
#     must fit it: so no other value of the run passes (95.3% for 94.7% fails
#     though 95.3 is another kernel's). A ratio that no record holds is
#     "SELECTOR / SELECTOR", two rates (or times) named. A number without a
#     binding is an error that lists the values it fits.
#   - Measured rates are written in GFLOP/s and GB/s; TFLOP/s and TB/s are
#     left to specifications and arithmetic, and not checked.
# Other files (README.md, INSTRUCTORS.md, MEASUREMENTS.md, grader/README.md;
# any FILE with --loose): each rate and each time in seconds must be in some
# record of measurements/.
#
# A number with a leading zero (05) is a label, not a quantity. A number
# fits a value within the rounding of the digits it shows (37,865
# GFLOP/s fits 37864.5, 4.3x fits 4.27); after "about" or "~", within 1% too.
# Numbers that no record of the lab holds (other kernels, public ladders)
# are labelled as such in the text, and their paragraph or table follows a
# line <!-- numbers: why --> (a blank line between them is fine); the check
# skips it, up to its blank line. Text in ``` fences, in HTML comments and
# in `code` with digits is not searched.
#
# Prints one line per problem, "file:line: what", and exits 1 if there was
# any; 2 on bad usage.
set -u
records=measurements
profile=profile
mode=
files=()
while [ $# -gt 0 ]; do
    case $1 in
    --records) records=${2:-}; shift 2 ;;
    --profile) profile=${2:-}; shift 2 ;;
    --strict | --loose) mode=${1#--}; shift ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-numbers: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
    esac
done
if [ ${#files[@]} = 0 ]; then
    for f in README.md INSTRUCTORS.md MEASUREMENTS.md grader/README.md exercises/*/README.md \
        handouts/*.md slides/*.md; do
        [ -f "$f" ] && files+=("$f")
    done
fi
for f in "${files[@]}"; do [ -f "$f" ] || { echo "check-numbers: $f: no such file" >&2; exit 2; }; done

values=$(mktemp) || exit 2
trap 'rm -f "$values"' EXIT
"$(dirname "$0")/record-values.sh" --records "$records" --profile "$profile" >"$values" || exit 2
[ -s "$values" ] || { echo "check-numbers: no values in $records or $profile" >&2; exit 2; }

awk -v values="$values" -v mode="$mode" '
function num(s) { gsub(/,/, "", s); return s + 0 }
function decimals(s) { return index(s, ".") ? length(s) - index(s, ".") : 0 }
function scoped(src,    i) {
    if (!strict) return 1
    for (i = 1; i <= ncited; i++) if (src == cited[i] || index(src, cited[i] "/") == 1) return 1
    return 0
}
# why the quoted q (digits as shown) fits no value of this kind in scope, or ""
function tolerance(q, approx,    v, tol) {
    v = num(q)
    tol = 0.5 * 10 ^ -decimals(q) + 1e-9
    if (approx && v * 0.01 > tol) tol = v * 0.01
    return tol
}
function misfit(q, kind, approx,    v, tol, i, best, bestd, d) {
    v = num(q); tol = tolerance(q, approx)
    best = ""
    for (i = 1; i <= nv; i++) {
        if (vk[i] != kind || !scoped(vs[i])) continue
        d = vv[i] - v; if (d < 0) d = -d
        if (d <= tol) return ""
        if (best == "" || d < bestd) { best = vv[i]; bestd = d }
    }
    return best == "" ? "no value of that kind" : "nearest " best
}
# (file: the file being read; the last section of one is ended when the next begins)
function problem(line, what) { printf "%s:%d: %s\n", file, line, what; bad = 1 }
function names(    s, i) {
    if (!strict) return "the records"
    s = ""; for (i = 1; i <= ncited; i++) s = s (i > 1 ? ", " : "") cited[i]
    return s
}
# check one quoted number; required kinds must have a record named
# (pos: where the number is on its line, for its binding)
function check(line, q, kind, shown, approx, required, pos,    why) {
    if (q ~ /^0[0-9]/) return
    if (!strict && kind != "GFLOP/s" && kind != "GB/s" && kind != "s") return
    if (strict && ncited == 0) {
        if (required) problem(line, shown " names no record: write the path of its record " \
            "(measurements/<run>/..., profile/...) in its paragraph or earlier in its section")
        return
    }
    if (strict) { nq++; qpos[nq] = pos + nq / 1000; qq[nq] = q; qkind[nq] = kind; qshown[nq] = shown; qapprox[nq] = approx; return }
    why = misfit(q, kind, approx)
    if (why != "") problem(line, shown " is in no record named here (" names() "; " why ")")
}
# the matches of re in s whose first character follows no letter, digit,
# point, comma, slash or dash (so not 90 of sm_90, nor 21 of 2026-11-21);
# after[k] is the text that follows match k
function find_all(s, re, found,    k, pre, base) {
    k = 0; base = 0
    while (match(s, re)) {
        pre = RSTART > 1 ? substr(s, RSTART - 1, 1) : ""
        if (pre !~ /[A-Za-z0-9_.,\/-]/) { found[++k] = substr(s, RSTART, RLENGTH); after[k] = substr(s, RSTART + RLENGTH); at[k] = base + RSTART }
        base += RSTART + RLENGTH - 1
        s = substr(s, RSTART + RLENGTH)
    }
    return k
}
function approx_of(t) { return t ~ /^(about |~)/ }
function bare(t) { sub(/^(about |~)/, "", t); return t }
function leading_number(t) { match(t, NUM); return substr(t, RSTART, RLENGTH) }
# a line of prose: each kind of quoted number
function scan(line, t,    k, f, j, q, unit, qs, n2, i2, kind, req) {
    k = find_all(t, "(about |~)?" NUM "( ?- ?" NUM ")? ?(GFLOP/s|GB/s)", f)
    for (j = 1; j <= k; j++) {
        unit = f[j]; sub(/^[^G]*/, "", unit)
        q = bare(f[j]); sub(/ ?G.*$/, "", q)
        n2 = split(q, qs, / ?- ?/)
        for (i2 = 1; i2 <= n2; i2++) check(line, qs[i2], unit, qs[i2] " " unit, approx_of(f[j]), 1, at[j])
    }
    k = find_all(t, "(about |~)?" NUM " (s|ms)([ ,.;:)]|$)", f)
    for (j = 1; j <= k; j++) {
        unit = f[j] ~ / ms/ ? "ms" : "s"; q = leading_number(bare(f[j]))
        if (unit == "s" && q !~ /\./) continue
        check(line, q, unit, q " " unit, approx_of(f[j]), 1, at[j])
    }
    k = find_all(t, "(about |~)?" NUM "%", f)
    for (j = 1; j <= k; j++) {
        q = leading_number(bare(f[j]))
        req = after[j] ~ /^ +of (cuBLAS|memcpy|`cudaMemcpy`|cudaMemcpy|copy|the copy)/
        check(line, q, "%", q "%", approx_of(f[j]), req, at[j])
    }
    k = find_all(t, "(about |~)?" NUM "(x|( times))", f)
    for (j = 1; j <= k; j++) {
        if (f[j] ~ /x$/ && after[j] ~ /^[A-Za-z0-9]/) continue
        q = leading_number(bare(f[j]))
        check(line, q, "x", q (f[j] ~ /x$/ ? "x" : " times"), approx_of(f[j]), 0, at[j])
    }
    k = find_all(t, "factor of " NUM, f)
    for (j = 1; j <= k; j++) { q = leading_number(f[j]); check(line, q, "x", "a factor of " q, 0, 0, at[j]) }
    k = find_all(t, NUM "( [a-z/-]+)?( [a-z/-]+)?( [a-z/-]+)? (sectors|wavefronts|conflicts|hazards)", f)
    for (j = 1; j <= k; j++) {
        kind = f[j]; sub(/.* /, "", kind)
        q = leading_number(f[j])
        check(line, q, kind, q " " kind, 0, 0, at[j])
    }
}
# a table row: the heading row says which columns hold which kind
function table_row(line, t,    cells, k, j, f, n2, i2, h, h2, q, kind, off) {
    k = split(t, cells, "|")
    off[1] = 0
    for (j = 2; j <= k; j++) off[j] = off[j - 1] + length(cells[j - 1]) + 1
    if (t ~ /^ *\|[- :|]+\| *$/) return
    if (!table_rows++) {
        split("", colkind)
        for (j = 2; j < k; j++) {
            h = cells[j]
            # a heading with a number of its own (a rate it compares with) is
            # no column of records; a name of a GPU (H100) is not such a number
            h2 = h; gsub(/[A-Z][0-9][0-9][0-9]?[A-Z]?/, "", h2)
            if (h2 ~ /[0-9]/ || h ~ /counted/) continue
            colname[j] = h; gsub(/^ +| +$/, "", colname[j])
            if (h ~ /GFLOP\/s/) colkind[j] = "GFLOP/s"
            else if (h ~ /GB\/s/) colkind[j] = "GB/s"
            else if (h ~ /%/ && h ~ /(cuBLAS|memcpy|copy)/) colkind[j] = "%!"
            else if (h ~ /occupancy/) colkind[j] = "%"
            else if (h ~ /registers/) colkind[j] = "registers"
            else if (h ~ /sectors/) colkind[j] = "sectors"
            else if (h ~ /wavefronts/) colkind[j] = "wavefronts"
            else if (h ~ /conflicts/) colkind[j] = "conflicts"
        }
        return
    }
    for (j in colkind) {
        if (cells[j] ~ /(GFLOP\/s|GB\/s|%)/) continue
        n2 = find_all(cells[j], "(about |~)?" NUM "([^A-Za-z0-9-]|$)", f)
        for (i2 = 1; i2 <= n2; i2++) {
            q = leading_number(bare(f[i2]))
            kind = colkind[j]; sub(/!$/, "", kind)
            check(line, q, kind, q " (column " colname[j] ")", approx_of(f[i2]), colkind[j] ~ /(!|GFLOP|GB)/, off[j] + at[i2])
        }
    }
}
# ---- bindings: each measured number names the value it quotes -----------------
# The value a selector names, among the records named here: "[RECORD] KEY",
# RECORD the path of a record or its end (08_warptiling.json), KEY the key of a value
# as tools/record-values.sh prints it (student/cublas, student rate,
# 08_warptiling BK=8 pct_of_reference), or words each found in one key.
# Returns its index; 0 and why in sel_why when none or several fit.
function select(sel, kind,    w, n, rec, key, i, k, hit, nhit, exact, nexact, list) {
    gsub(/^ +| +$/, "", sel)
    n = split(sel, w, / +/)
    rec = ""; key = sel
    if (w[1] ~ /\.(json|tsv|txt)$/ || w[1] ~ /^(measurements|profile)\//) { rec = w[1]; key = substr(sel, length(w[1]) + 2); gsub(/^ +/, "", key) }
    nhit = 0; nexact = 0
    for (i = 1; i <= nv; i++) {
        if (vk[i] != kind || !scoped(vs[i])) continue
        if (rec != "" && vs[i] != rec && substr(vs[i], length(vs[i]) - length(rec)) != "/" rec) continue
        if (vkey[i] == key) { if (!((vs[i], vkey[i]) in seen_exact)) exact[++nexact] = i; seen_exact[vs[i], vkey[i]] = 1; continue }
        for (k = (rec != "" ? 2 : 1); k <= n; k++) if (!index(vkey[i], w[k])) break
        if (k > n && !((vs[i], vkey[i]) in seen_hit)) { hit[++nhit] = i; seen_hit[vs[i], vkey[i]] = 1 }
    }
    split("", seen_exact); split("", seen_hit)
    if (nexact == 1) return exact[1]
    if (nexact == 0 && nhit == 1) return hit[1]
    if (nexact) { nhit = nexact; for (k = 1; k <= nexact; k++) hit[k] = exact[k] }
    if (!nhit) { sel_why = "names no " kind " value of " names(); return 0 }
    list = ""
    for (k = 1; k <= nhit && k <= 3; k++) list = list (k > 1 ? ", " : "") "\"" vkey[hit[k]] "\" of " vs[hit[k]]
    sel_why = "fits " nhit " values (" list (nhit > 3 ? ", ..." : "") "): name its record or more of its key"
    return 0
}
# "A / B": the ratio of two rates (or times) that no record holds as one,
# each named as a selector names it (a rate of one record over another);
# sets got and what (the value and what it is), returns 1, or 0 and sel_why
function ratio(sel, kind,    part, a, b, u, n, units) {
    split(sel, part, " / ")
    n = split("GFLOP/s GB/s ms s", units, " ")
    for (u = 1; u <= n; u++) {
        if (!(a = select(part[1], units[u]))) continue
        if (!(b = select(part[2], units[u])) || vv[b] == 0) return 0
        got = vv[a] / vv[b] * (kind == "%" ? 100 : 1)
        what = "\"" vkey[a] "\" of " vs[a] " over \"" vkey[b] "\" of " vs[b]
        return 1
    }
    return 0
}
# the values of kind, in scope, that q fits: what a binding could name
function fits(q, kind, approx,    i, tol, list, k) {
    tol = tolerance(q, approx); k = 0; list = ""
    for (i = 1; i <= nv; i++) {
        if (vk[i] != kind || !scoped(vs[i])) continue
        if (vv[i] - num(q) > tol || num(q) - vv[i] > tol) continue
        if (++k <= 3) list = list (k > 1 ? "; " : "") vs[i] " " vkey[i]
    }
    return k ? "fits: " list (k > 3 ? "; ..." : "") : "fits no value of " names()
}
function unbound(line, i) {
    problem(line, qshown[i] " names no value: write <!-- =KEY --> after it (" fits(qq[i], qkind[i], qapprox[i]) ")")
}
# The binding comments of a line, <!-- =SELECTOR[; SELECTOR...] -->: each
# binds the numbers after the one before it (or the start of the line), one
# selector a number, in order. Checks the numbers check() kept (qq...).
function bind(line, raw,    nb, bpos, bsel, s, p, e, i, j, k, m, b, nsel, sels, v) {
    nb = 0; s = raw; p = 0
    while (match(s, /<!--[ \t]*=/)) {
        e = index(substr(s, RSTART), "-->")
        if (!e) break
        nb++; bpos[nb] = p + RSTART
        bsel[nb] = substr(s, RSTART + RLENGTH, e - 1 - RLENGTH); gsub(/^[ \t]+|[ \t]+$/, "", bsel[nb])
        p += RSTART + e + 2; s = substr(s, RSTART + e + 3)
    }
    # the numbers in the order of the line
    for (i = 2; i <= nq; i++) for (j = i; j > 1 && qpos[j - 1] > qpos[j]; j--) {
        v = qpos[j]; qpos[j] = qpos[j - 1]; qpos[j - 1] = v
        v = qq[j]; qq[j] = qq[j - 1]; qq[j - 1] = v
        v = qkind[j]; qkind[j] = qkind[j - 1]; qkind[j - 1] = v
        v = qshown[j]; qshown[j] = qshown[j - 1]; qshown[j - 1] = v
        v = qapprox[j]; qapprox[j] = qapprox[j - 1]; qapprox[j - 1] = v
    }
    # a binding binds the last numbers before it, one a selector; the
    # numbers before those, back to the binding before, have none
    i = 1
    for (b = 1; b <= nb; b++) {
        nsel = split(bsel[b], sels, ";")
        for (k = 1; k <= nsel; k++) gsub(/^[ \t]+|[ \t]+$/, "", sels[k])
        for (m = 0; i + m <= nq && qpos[i + m] < bpos[b]; m++) ;
        if (m < nsel) problem(line, "binding \"" bsel[b] "\" has " nsel " selectors, for " m " measured numbers before it")
        for (; m > nsel; m--) { unbound(line, i); i++ }
        for (k = 1; k <= m; k++) {
            if (index(sels[k], " / ") && (qkind[i] == "x" || qkind[i] == "%")) v = ratio(sels[k], qkind[i])
            else { v = select(sels[k], qkind[i]); if (v) { got = vv[v]; what = "\"" vkey[v] "\" of " vs[v] } }
            if (!v) problem(line, qshown[i] ": binding \"" sels[k] "\" " sel_why)
            else if (got - num(qq[i]) > tolerance(qq[i], qapprox[i]) || num(qq[i]) - got > tolerance(qq[i], qapprox[i]))
                problem(line, qshown[i] " is not " what ", which is " got)
            i++
        }
    }
    for (; i <= nq; i++) unbound(line, i)
    nq = 0
}
# the text searched for numbers: code spans with digits and comments left out
function blank(s) { gsub(/./, " ", s); return s }
# s with its HTML comments blanked, each on its own (a line may hold several)
function uncomment(s) {
    while (match(s, /<!--([^-]|-[^-]|--[^>])*-->/)) s = substr(s, 1, RSTART - 1) blank(substr(s, RSTART, RLENGTH)) substr(s, RSTART + RLENGTH)
    return s
}
function prose(s,    n, parts, i, out) {
    s = uncomment(s)
    n = split(s, parts, "`")
    out = parts[1]
    for (i = 2; i <= n; i++)
        out = out (i % 2 ? parts[i] : parts[i] ~ /[0-9]/ ? " " blank(parts[i]) " " : "`" parts[i] "`")
    return out
}
function set_cited(c) { cited[++ncited] = c; sec_cited[++nsec] = c }
# a paragraph, list or table, all at once: its records first, then its numbers
function flush(    j, k, f, t, c, i, n2, text, gpus, dates) {
    if (nblk == 0) return
    if (skip_next) { skip_next = 0; nblk = 0; return }
    if (strict) {
        text = ""; k = 0
        for (j = 1; j <= nblk; j++) {
            t = blk[j]; t = uncomment(t)
            while (match(t, /(measurements|profile)\/[A-Za-z0-9_.\/-]*/)) {
                c = substr(t, RSTART, RLENGTH); sub(/[.\/]+$/, "", c)
                # not a path inside another (tests/profile/...), nor a pattern (measurements/<run>/)
                if ((RSTART > 1 && substr(t, RSTART - 1, 1) ~ /[A-Za-z0-9_.\/-]/) || substr(t, RSTART + RLENGTH, 1) == "<") c = ""
                else if (!(c in known)) problem(blkno[j], "names " c ", which is no record (tools/record-values.sh lists them)")
                else { if (!k++) ncited = 0; set_cited(c) }
                t = substr(t, 1, RSTART - 1) " " substr(t, RSTART + RLENGTH)
            }
            text = text " " t
        }
        # a paragraph that names records says their GPUs and dates
        if (k) {
            split("", gpus); split("", dates)
            for (i = 1; i <= nv; i++) if ((vk[i] == "gpu" || vk[i] == "date") && scoped(vs[i])) {
                if (vk[i] == "gpu") gpus[vv[i]] = 1; else dates[vv[i]] = 1
            }
            n2 = find_all(text, "[A-Z][0-9][0-9][0-9]?[A-Z]?", f)
            for (j = 1; j <= n2; j++) if (!(f[j] in gpus)) problem(blkno[1], "says " f[j] ", which is not the GPU of " names())
            n2 = find_all(text, "20[0-9][0-9]-[01][0-9]-[0-3][0-9]", f)
            for (j = 1; j <= n2; j++) if (!(f[j] in dates)) problem(blkno[1], "says " f[j] ", which is not the date of " names())
        }
    }
    table_rows = 0
    for (j = 1; j <= nblk; j++) {
        t = prose(blk[j])
        if (blk[j] ~ /^ *\|/) table_row(blkno[j], t)
        else table_rows = 0
        scan(blkno[j], t)
        bind(blkno[j], blk[j])
    }
    nblk = 0
}
# a heading: its numbers wait for the records its whole section names
function end_section(    keep, i, saved) {
    flush()
    if (head_line != "") {
        keep = ncited; for (i = 1; i <= keep; i++) saved[i] = cited[i]
        ncited = 0; for (i = 1; i <= nsec; i++) cited[++ncited] = sec_cited[i]
        scan(head_no, prose(head_line))
        bind(head_no, head_line)
        ncited = keep; for (i = 1; i <= keep; i++) cited[i] = saved[i]
    }
    head_line = ""; ncited = 0; nsec = 0
}
BEGIN {
    NUM = "[0-9]+(,[0-9][0-9][0-9])*(\\.[0-9]+)?"
    while ((getline line < values) > 0) {
        if (split(line, f, "\t") < 3) continue
        nv++; vs[nv] = f[1]; vk[nv] = f[2]; vv[nv] = f[3] + 0; vkey[nv] = f[4]
        if (f[2] == "gpu" || f[2] == "date") vv[nv] = f[3]
        # a record is a file or the folder of a run, never all of measurements/
        c = f[1]; known[c] = 1
        while (sub(/\/[^\/]*$/, "", c) && c ~ /\//) known[c] = 1
    }
}
FNR == 1 {
    if (NR > 1) end_section()
    file = FILENAME
    strict = mode == "strict" || (mode == "" && FILENAME ~ /(^|\/)(handouts|slides)\/[^\/]*\.md$|(^|\/)exercises\/[^\/]+\/README\.md$/)
    fence = 0; skip_next = 0; nblk = 0; ncited = 0; nsec = 0; head_line = ""
}
/^ *(```|~~~)/ { flush(); fence = !fence; next }
fence { next }
/^<!-- numbers:/ { flush(); skip_next = 1; next }
/^[ \t]*$/ { flush(); next }
/^#+ / { end_section(); head_line = $0; head_no = FNR; next }
{ blk[++nblk] = $0; blkno[nblk] = FNR }
END { end_section(); exit bad }' "${files[@]}"
