# tools/profile_report.awk: the counters of one call in plain words, beside
# the reference's and the ideal values, and what they say. Used by
# tools/profile.sh:
#
#   awk -v mode=full|brief -v ex=03 -v yours_label=... -v ref_label=... \
#       -v report=build/profile/X.ncu-rep -f tools/profile_report.awk YOURS.tsv REFERENCE.tsv
#
# Both files hold "key<TAB>value" lines as tools/ncu_raw.awk writes them
# (plus gpu, size and ncu from tools/profile.sh); REFERENCE.tsv may be empty.
# mode=full prints the table and the verdicts; mode=brief prints at most
# four lines, for make grade's hints.

BEGIN { FS = "\t" }
FILENAME == ARGV[1] { y[$1] = $2; next }
{ r[$1] = $2 }

function is_number(v) {
    return v ~ /^[-+]?[0-9]+\.?[0-9]*([eE][-+]?[0-9]+)?$/
}

# "void transpose_tile<32>(const float *, float *, int, int)" -> "transpose_tile<32>":
# drop the return type and the argument list (found from its closing bracket,
# since template arguments may hold brackets too)
function short_name(name,    i, depth, c) {
    sub(/^void /, "", name)
    if (substr(name, length(name), 1) != ")")
        return name
    depth = 0
    for (i = length(name); i > 0; i--) {
        c = substr(name, i, 1)
        if (c == ")")
            depth++
        else if (c == "(" && --depth == 0)
            return substr(name, 1, i - 1)
    }
    return name
}

# One value as the table shows it; kind says how.
function shown(v, kind) {
    if (v == "")
        return "n/a"
    if (!is_number(v))
        return v
    if (kind == "ratio")
        return sprintf("%.1f", v)
    if (kind == "pct")
        return sprintf(v < 10 ? "%.1f%%" : "%.0f%%", v)
    if (kind == "bytes")
        return sprintf("%d B", v)
    if (kind == "count")
        return grouped(v)
    if (kind == "time")
        return v >= 1000 ? sprintf("%.2f ms", v / 1000) : sprintf("%.1f us", v)
    return sprintf("%d", v)
}

# 65011712 -> 65,011,712
function grouped(v,    text) {
    text = sprintf("%d", v)
    while (text ~ /[0-9][0-9][0-9][0-9]/)
        sub(/[0-9][0-9][0-9]($|,)/, ",&", text)
    return text
}

# Print text in lines of at most width characters: the first after first,
# the others after rest.
function wrap(text, first, rest, width,    indent, line, n, i, words) {
    n = split(text, words, " ")
    indent = first
    line = ""
    for (i = 1; i <= n; i++) {
        if (line != "" && length(indent line " " words[i]) > width) {
            print indent line
            indent = rest
            line = ""
        }
        line = line == "" ? words[i] : line " " words[i]
    }
    if (line != "")
        print indent line
}

function row(label, key, kind, ideal) {
    printf "  %-42s %15s %15s  %s\n", label, shown(y[key], kind),
           have_ref ? shown(r[key], kind) : "-", ideal
}

# ----------------------------------------------------------- the verdicts
# Each verdict is a short line (the hint make grade shows) and a line of
# advice (make profile adds it). A value is flagged when it is off its ideal
# and, where there is a reference, clearly worse than the reference's: a
# kernel that matches the solution is not blamed for what the solution does.
# A value off its ideal that the reference shares is still said, as a note:
# no line may contradict the table above it.

function verdict(short, advice) {
    nverdicts++
    vshort[nverdicts] = short
    vadvice[nverdicts] = advice
}

# A note is not blamed on the kernel; brief: make grade's hints show it too
# (an explanation of the counters is for make profile's table only).
function note(short, advice, brief) {
    nnotes++
    nshort[nnotes] = short
    nadvice[nnotes] = advice
    nbrief[nnotes] = brief
}

# What is right, one phrase at a time, for the line that says so.
function right(text) {
    rights = rights == "" ? text : rights ", " text
}

# ------------------------------------------------------ global accesses
# The ideal sectors per request follow the access width: a warp of 4-byte
# loads asks for 128 bytes, 4 sectors of 32; of float4 loads 512 bytes, 16.
# The width comes from ncu's bytes per request where it gave them, else from
# the stage: the stages whose solution moves a float4 per access.
function stage_width(kind) {
    if (ex == "06")
        return 16
    if (ex == "07" && kind == "gld")
        return 16
    return 4
}

# Sets ideal[kind] (sectors per request), width_text[kind] ("16-byte loads")
# and width_from[kind] (where the width comes from).
function global_ideal(kind, what,    bpr, w) {
    bpr = y[kind "_bpr"]
    if (is_number(bpr) && bpr > 0) {
        ideal[kind] = bpr / 32 < 1 ? 1 : bpr / 32
        w = bpr / 32
        width_text[kind] = (w == 4 || w == 8 || w == 16) ? sprintf("%d-byte %s", w, what) : \
                           sprintf("%s of %.0f bytes a request", what, bpr)
        width_from[kind] = "ncu's bytes per request"
    } else {
        w = stage_width(kind)
        ideal[kind] = w
        width_text[kind] = sprintf("%d-byte %s", w, what)
        width_from[kind] = sprintf("stage %s's solution (ncu gave no bytes per request)", ex)
    }
}

function ideal_shown(kind) {
    return sprintf("%.3g for %s", ideal[kind], width_text[kind])
}

# 1 when the accesses of kind are coalesced (or there are none to judge).
function check_coalescing(kind, what, verb,    s, ref, short, advice) {
    s = y[kind "_spr"]
    ref = r[kind "_spr"]
    if (!is_number(s))
        return 1
    if (s <= 1.125 * ideal[kind] || s <= ideal[kind] + 0.5)
        return 1
    short = sprintf("global %s: %.1f sectors per request (ideal %s): the %s are not coalesced",
                    what, s, ideal_shown(kind), verb)
    advice = "the 32 threads of a warp touch scattered addresses, so one request needs many " \
             "32-byte sectors; let neighbouring threads (threadIdx.x) touch neighbouring elements"
    if (is_number(ref) && s <= 1.1 * ref + 0.5)
        note(short ", as in the reference", advice, 1)
    else
        verdict(short, advice)
    return 0
}

# ------------------------------------------------------------ shared memory
# Judged by wavefronts per instruction: ~1 is conflict-free, ~32 is 32-way.
# A wide access needs several wavefronts without any conflict (a float4 read
# of a warp: 4), so the part of the wavefronts ncu counts as conflicts is
# told apart from the part the width needs; ncu's raw conflict count is not 0
# for conflict-free code on some GPUs, and is never the verdict alone.
# Sets degree[side kind] and base[side kind] for y (side "y") or r ("r").
function bank_degree(side, kind,    s, c, i, cpi, extra) {
    s = side == "y" ? y[kind "_wpi"] : r[kind "_wpi"]
    cpi = side == "y" ? y[kind "_cpi"] : r[kind "_cpi"]
    c = side == "y" ? y[kind "_conflicts"] : r[kind "_conflicts"]
    i = side == "y" ? y[kind "_inst"] : r[kind "_inst"]
    if (!is_number(s))
        return 0
    if (!is_number(cpi) && is_number(c) && is_number(i) && i > 0)
        cpi = c / i
    extra = is_number(cpi) ? cpi : s - 1
    if (extra > s - 1)
        extra = s - 1
    if (extra < 0)
        extra = 0
    base[side kind] = s - extra
    degree[side kind] = s / base[side kind]
    conflict_cost[side kind] = extra
    return 1
}

# The fix for bank conflicts, by stage: stage 05 is the lesson about them.
function bank_fix() {
    if (ex == "04")
        return "stage 05 removes them"
    if (ex == "05")
        return "pad the tile to [32][33], this stage's lesson"
    return "pad each row of the shared array by one float or change which thread touches " \
           "which element (stage 05 shows how)"
}

# 1 when the shared accesses of kind are free of bank conflicts.
function check_banks(kind, what,    s, c, n, short, advice, ideal_text, extra) {
    if (!bank_degree("y", kind))
        return 1
    s = y[kind "_wpi"]
    c = y[kind "_conflicts"]
    if (degree["y" kind] < 1.5) {
        if (base["y" kind] >= 1.5)
            note(sprintf("shared %s: %.1f wavefronts per instruction, none from bank conflicts", what, s),
                 sprintf("wide accesses (float2, float4) need several wavefronts each without any " \
                         "conflict; the %s conflicts ncu counted cost %.2f wavefronts per instruction",
                         is_number(c) ? grouped(c) : "n/a", conflict_cost["y" kind]), 0)
        else if (is_number(c) && c > 0 && s > 1.05)
            note(sprintf("shared %s: %.2f wavefronts per instruction: conflict-free in effect", what, s),
                 sprintf("the %s conflicts ncu counts cost %.2f wavefronts per instruction, where an " \
                         "n-way conflict costs n - 1: about 1 wavefront per instruction is " \
                         "conflict-free", grouped(c), conflict_cost["y" kind]), 0)
        return 1
    }
    n = int(degree["y" kind] + 0.5)
    if (n > 32)
        n = 32  # a warp has 32 threads: at most 32-way
    ideal_text = base["y" kind] >= 1.5 ? sprintf("%.0f for their width", base["y" kind]) : "1"
    short = sprintf("%d-way bank conflicts on shared %s (%.1f wavefronts per instruction, ideal %s)",
                    n, what, s, ideal_text)
    extra = is_number(c) ? " (ncu counted " grouped(c) " conflicts)" : ""
    advice = "threads of a warp reach different words of the same bank, so each access is split " \
             n " ways" extra
    if (have_ref && bank_degree("r", kind) && degree["y" kind] <= 1.1 * degree["r" kind] + 0.1)
        note(short ", as in the reference: " bank_fix(), advice, 1)
    else
        verdict(short ": " bank_fix(), advice)
    return 0
}

function check_occupancy(    s, ref, theo) {
    s = y["occupancy"]
    ref = r["occupancy"]
    theo = y["theoretical"]
    if (!is_number(s))
        return
    if (is_number(ref)) {
        if (s < 0.7 * ref && ++occupancy_flagged)
            verdict(sprintf("achieved occupancy %.0f%% (reference %.0f%%): fewer warps in flight to hide memory latency",
                            s, ref),
                    "compare the block size, registers per thread and shared memory per block " \
                    "with the reference's (rows above), and check that the grid has enough blocks")
    } else if (is_number(theo) && s < 0.6 * theo) {
        occupancy_flagged = 1
        verdict(sprintf("achieved occupancy %.0f%% of a possible %.0f%%: few warps in flight to hide memory latency",
                        s, theo),
                "the grid may have too few blocks to fill the GPU, or blocks finish unevenly")
    }
}

function check_dram(    s, ref) {
    s = y["dram"]
    ref = r["dram"]
    if (is_number(s) && is_number(ref) && ref >= 40 && s < 0.7 * ref)
        verdict(sprintf("DRAM throughput %.0f%% of peak (reference %.0f%%): memory is moved more slowly than it could be",
                        s, ref),
                "for a memory-bound kernel this is the time lost; the rows above say why " \
                "(coalescing, bank conflicts, occupancy)")
}

# What is right, in one line: only what the counters show.
function what_is_right(coalesced_ld, coalesced_st, banks_ld, banks_st) {
    if (coalesced_ld && coalesced_st)
        right("global accesses coalesced")
    else if (coalesced_ld && is_number(y["gld_spr"]))
        right("global loads coalesced")
    else if (coalesced_st && is_number(y["gst_spr"]))
        right("global stores coalesced")
    if (is_number(y["shld_wpi"]) || is_number(y["shst_wpi"])) {
        if (banks_ld && banks_st)
            right("no shared-memory bank conflicts")
        else if (banks_ld && is_number(y["shld_wpi"]))
            right("no bank conflicts on shared loads")
        else if (banks_st && is_number(y["shst_wpi"]))
            right("no bank conflicts on shared stores")
    }
    if (is_number(y["occupancy"]) && !occupancy_flagged)
        right(sprintf("occupancy %.0f%%", y["occupancy"]) \
              (is_number(r["occupancy"]) ? sprintf(" (reference %.0f%%)", r["occupancy"]) : ""))
    return rights
}

END {
    have_ref = r["launches"] > 0
    global_ideal("gld", "loads")
    global_ideal("gst", "stores")
    coalesced_ld = check_coalescing("gld", "loads", "reads")
    coalesced_st = check_coalescing("gst", "stores", "writes")
    banks_ld = check_banks("shld", "loads")
    banks_st = check_banks("shst", "stores")
    check_occupancy()
    check_dram()
    what_is_right(coalesced_ld, coalesced_st, banks_ld, banks_st)

    # no shared accesses of a kind: no conflicts to speak of either
    if (y["shld_wpi"] == "none") y["shld_conflicts"] = "none"
    if (y["shst_wpi"] == "none") y["shst_conflicts"] = "none"
    if (r["shld_wpi"] == "none") r["shld_conflicts"] = "none"
    if (r["shst_wpi"] == "none") r["shst_conflicts"] = "none"

    if (mode == "brief") {
        # at most three lines: what is wrong, then what the reference shares,
        # then what is right
        nshown = 0
        for (i = 1; i <= nverdicts && nshown < 3; i++) {
            print vshort[i]
            nshown++
        }
        for (i = 1; i <= nnotes && nshown < 3; i++)
            if (nbrief[i]) {
                print nshort[i]
                nshown++
            }
        if (rights != "" && nshown < 3)
            print rights
        printf "(hardware counters from Nsight Compute, a hint, not scored; details: make profile EX=%s)\n", ex
        exit
    }

    printf "Hardware counters of one call at %s on %s (Nsight Compute %s)\n",
           y["size"], y["gpu"], y["ncu"] == "" ? "version unknown" : y["ncu"]
    printf "  yours:     %s: %s, %d launch%s\n", yours_label, short_name(y["kernel"]),
           y["launches"], y["launches"] == 1 ? "" : "es"
    if (have_ref)
        printf "  reference: %s: %s, %d launch%s\n", ref_label, short_name(r["kernel"]),
               r["launches"], r["launches"] == 1 ? "" : "es"
    else
        printf "  reference: %s\n", ref_label
    print ""
    printf "  %-42s %15s %15s  %s\n", "", "yours", "reference", "ideal"
    row("global loads: sectors per request", "gld_spr", "ratio", ideal_shown("gld") " or fewer")
    row("global stores: sectors per request", "gst_spr", "ratio", ideal_shown("gst"))
    row("shared loads: wavefronts per instruction", "shld_wpi", "ratio", "1 a 4-byte access (float4: 4)")
    row("shared loads: bank conflicts", "shld_conflicts", "count", "0 (judge by the row above)")
    row("shared stores: wavefronts per instruction", "shst_wpi", "ratio", "1 a 4-byte access (float4: 4)")
    row("shared stores: bank conflicts", "shst_conflicts", "count", "0 (judge by the row above)")
    row("achieved occupancy (% of the SM's warps)", "occupancy", "pct",
        is_number(y["theoretical"]) ? sprintf("close to the theoretical %.0f%%", y["theoretical"]) : "as high as the launch allows")
    row("theoretical occupancy", "theoretical", "pct", "set by block size, registers, shared memory")
    row("DRAM throughput (% of peak)", "dram", "pct", "near 100% if the kernel is memory-bound")
    row("registers per thread", "registers", "count", "")
    row("shared memory per block", "smem", "bytes", "")
    row("threads per block", "block", "text", "")
    row("blocks in the grid", "grid", "text", "")
    row("time of the call under ncu", "time_us", "time", "(base clocks: not the graded time)")
    if (y["shld_wpi"] == "none" || y["shst_wpi"] == "none" || r["shld_wpi"] == "none")
        print "  (none: the kernel makes no accesses of that kind)"
    if (y["launches"] > 1 || r["launches"] > 1)
        print "  (several launches in one call: counts summed, occupancy and DRAM averaged by time,\n" \
              "   block, grid, registers and shared memory those of the longest launch)"

    print ""
    print "What the counters say:"
    for (i = 1; i <= nverdicts; i++) {
        wrap(vshort[i] ".", "  - ", "    ", 100)
        wrap(vadvice[i] ".", "    ", "    ", 100)
    }
    for (i = 1; i <= nnotes; i++) {
        wrap(nshort[i] ".", "  - ", "    ", 100)
        wrap(nadvice[i] ".", "    ", "    ", 100)
    }
    if (rights != "")
        wrap(toupper(substr(rights, 1, 1)) substr(rights, 2) ".", "  ", "  ", 100)
    if (is_number(y["gld_spr"]) || is_number(y["gst_spr"]))
        wrap("(the ideal sectors per request follow the access width: " \
             (width_from["gst"] == width_from["gld"] ? \
                 width_text["gld"] " and " width_text["gst"] ", from " width_from["gld"] : \
                 width_text["gld"] " from " width_from["gld"] ", " width_text["gst"] " from " width_from["gst"]) \
             ")", "  ", "   ", 100)
    print ""
    print "Counters measured by Nsight Compute with clocks locked to base and caches flushed;"
    print "the times from make run are at boost clocks and are the ones graded."
    printf "Full report: %s (open it in Nsight Compute).\n", report
}
