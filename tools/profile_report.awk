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

function verdict(short, advice) {
    nverdicts++
    vshort[nverdicts] = short
    vadvice[nverdicts] = advice
}

function check_coalescing(key, what, verb,    s, ref) {
    s = y[key]
    ref = r[key]
    if (!is_number(s) || s <= 4.5)
        return
    if (is_number(ref) && s <= 1.1 * ref + 0.5)
        return
    verdict(sprintf("global %s: %.1f sectors per request (ideal 4): the %s are not coalesced",
                    what, s, verb),
            "the 32 threads of a warp touch scattered addresses, so one request needs many " \
            "32-byte sectors; let neighbouring threads (threadIdx.x) touch neighbouring floats")
}

function check_banks(key, conflicts, what,    s, ref, text) {
    s = y[key]
    ref = r[key]
    if (!is_number(s) || s <= 1.1)
        return
    if (is_number(ref) && s <= 1.1 * ref + 0.1)
        return
    text = "threads of a warp reach different words of the same bank, so each access is split"
    if (is_number(y[conflicts]))
        text = text " (ncu counted " grouped(y[conflicts]) " conflicts)"
    verdict(sprintf("shared %s: %.1f wavefronts per instruction (ideal 1): about %d-way bank conflicts",
                    what, s, int(s + 0.5)),
            text "; pad each row of the shared array by one float (e.g. [32][33]) or change " \
            "which thread touches which element")
}

function check_occupancy(    s, ref, theo) {
    s = y["occupancy"]
    ref = r["occupancy"]
    theo = y["theoretical"]
    if (!is_number(s))
        return
    if (is_number(ref)) {
        if (s < 0.7 * ref)
            verdict(sprintf("achieved occupancy %.0f%% (reference %.0f%%): fewer warps in flight to hide memory latency",
                            s, ref),
                    "compare the block size, registers per thread and shared memory per block " \
                    "with the reference's (rows above), and check that the grid has enough blocks")
    } else if (is_number(theo) && s < 0.6 * theo) {
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

# What is right, in one line, when nothing is flagged.
function all_good(    text) {
    text = "global accesses coalesced"
    if (is_number(y["shld_wpi"]) || is_number(y["shst_wpi"]))
        text = text ", no shared-memory bank conflicts"
    if (is_number(y["occupancy"]))
        text = text sprintf(", occupancy %.0f%%", y["occupancy"]) \
               (is_number(r["occupancy"]) ? sprintf(" (reference %.0f%%)", r["occupancy"]) : "")
    return text
}

END {
    have_ref = r["launches"] > 0
    check_coalescing("gld_spr", "loads", "reads")
    check_coalescing("gst_spr", "stores", "writes")
    check_banks("shld_wpi", "shld_conflicts", "loads")
    check_banks("shst_wpi", "shst_conflicts", "stores")
    check_occupancy()
    check_dram()

    # no shared accesses of a kind: no conflicts to speak of either
    if (y["shld_wpi"] == "none") y["shld_conflicts"] = "none"
    if (y["shst_wpi"] == "none") y["shst_conflicts"] = "none"
    if (r["shld_wpi"] == "none") r["shld_conflicts"] = "none"
    if (r["shst_wpi"] == "none") r["shst_conflicts"] = "none"

    if (mode == "brief") {
        if (nverdicts == 0)
            print all_good()
        for (i = 1; i <= nverdicts && i <= 3; i++)
            print vshort[i]
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
    row("global loads: sectors per request", "gld_spr", "ratio", "4 or fewer (32 floats in a row = 4 sectors)")
    row("global stores: sectors per request", "gst_spr", "ratio", "4")
    row("shared loads: wavefronts per instruction", "shld_wpi", "ratio", "1 (more: bank conflicts)")
    row("shared loads: bank conflicts", "shld_conflicts", "count", "0")
    row("shared stores: wavefronts per instruction", "shst_wpi", "ratio", "1")
    row("shared stores: bank conflicts", "shst_conflicts", "count", "0")
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
    if (nverdicts == 0)
        printf "  %s.\n", all_good()
    for (i = 1; i <= nverdicts; i++) {
        wrap(vshort[i] ".", "  - ", "    ", 100)
        wrap(vadvice[i] ".", "    ", "    ", 100)
    }
    print ""
    print "Counters measured by Nsight Compute with clocks locked to base and caches flushed;"
    print "the times from make run are at boost clocks and are the ones graded."
    printf "Full report: %s (open it in Nsight Compute).\n", report
}
