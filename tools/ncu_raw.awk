# tools/ncu_raw.awk: turn Nsight Compute's raw page into a summary of one
# profiled call, one "key<TAB>value" a line. Used by tools/profile.sh:
#
#   ncu --import R.ncu-rep --csv --page raw --print-units base | awk -f tools/ncu_raw.awk
#   awk -v list=1 -f tools/ncu_raw.awk </dev/null    the metrics to ask ncu for
#   awk -v list=base -f tools/ncu_raw.awk </dev/null the same without the
#                                                    optional ones (an ncu that
#                                                    lacks them refuses all)
#
# The raw page is CSV: a row of column names ("ID", "Process ID", ...,
# "Kernel Name", ..., "Block Size", "Grid Size", "Device", "CC", then one
# column per metric), a row of units (empty under the fixed columns), then
# one row per kernel launch. Every field is quoted; a field may hold commas
# (template arguments, thousands separators in numbers) and doubled quotes.
# Columns are found by name, never by position. Lines that are not CSV rows
# (==PROF== messages, the program's own output) are skipped.
#
# Every launch in the file belongs to the one profiled call (a call may
# launch several kernels): counts are summed over the launches, occupancy
# and DRAM throughput are averaged weighted by each launch's time, and the
# launch configuration (block, grid, registers, shared memory) is that of
# the longest launch.

BEGIN {
    # our name, ncu's metric name; "count" metrics are summed over launches,
    # "rate" metrics averaged by time, "launch" ones taken from the longest;
    # "optional" ones are left out when this ncu does not know them
    n_metrics = 0
    metric("gld_sectors",     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",          "count")
    metric("gld_requests",    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",         "count")
    metric("gst_sectors",     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",          "count")
    metric("gst_requests",    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",         "count")
    # the bytes the threads asked for: per request, the access width (a warp
    # of 4-byte loads asks for 128, of float4 loads 512)
    metric("gld_bytes",       "sm__sass_data_bytes_mem_global_op_ld.sum",                "count", 1)
    metric("gst_bytes",       "sm__sass_data_bytes_mem_global_op_st.sum",                "count", 1)
    metric("shld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",    "count")
    metric("shld_inst",       "smsp__sass_inst_executed_op_shared_ld.sum",               "count")
    metric("shld_conflicts",  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "count")
    metric("shst_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",    "count")
    metric("shst_inst",       "smsp__sass_inst_executed_op_shared_st.sum",               "count")
    metric("shst_conflicts",  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "count")
    metric("time_ns",         "gpu__time_duration.sum",                                  "count")
    metric("occupancy",       "sm__warps_active.avg.pct_of_peak_sustained_active",       "rate")
    metric("dram",            "dram__throughput.avg.pct_of_peak_sustained_elapsed",      "rate")
    metric("theoretical",     "sm__maximum_warps_per_active_cycle_pct",                  "launch")
    metric("registers",       "launch__registers_per_thread",                            "launch")
    metric("smem_static",     "launch__shared_mem_per_block_static",                     "launch")
    metric("smem_dynamic",    "launch__shared_mem_per_block_dynamic",                    "launch")
    metric("threads",         "launch__block_size",                                      "launch")
    metric("blocks",          "launch__grid_size",                                       "launch")

    if (list) {
        text = ""
        for (i = 1; i <= n_metrics; i++)
            if (list != "base" || !optional[i])
                text = text (text != "" ? "," : "") ncu_name[i]
        print text
        exit
    }
    have_header = 0
    launches = 0
    best = 0
}

function metric(key, name, kind, is_optional) {
    n_metrics++
    our_key[n_metrics] = key
    ncu_name[n_metrics] = name
    how[n_metrics] = kind
    optional[n_metrics] = is_optional
}

# Split one CSV line into f[1..n]; returns n. Quotes group, "" is a quote.
function split_csv(line, f,    n, i, len, c, field, quoted) {
    n = 0
    field = ""
    quoted = 0
    len = length(line)
    for (i = 1; i <= len; i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") {
                field = field "\""
                i++
            } else if (c == "\"") {
                quoted = 0
            } else {
                field = field c
            }
        } else if (c == "\"") {
            quoted = 1
        } else if (c == ",") {
            f[++n] = field
            field = ""
        } else {
            field = field c
        }
    }
    f[++n] = field
    return n
}

# The value of a metric field in base units, or "" when it is not a number
# ("n/a"). Thousands separators are dropped. --print-units base should leave
# no prefixed units; if ncu scaled one anyway (Ksector, Mbyte/block,
# usecond), it is scaled back, decimal as ncu prints them.
function value(text, unit,    v) {
    gsub(/,/, "", text)
    if (text !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/)
        return ""
    v = text + 0
    if (unit == "usecond" || unit == "us")
        v *= 1e3
    else if (unit == "msecond" || unit == "ms")
        v *= 1e6
    else if (unit == "second" || unit == "s")
        v *= 1e9
    else if (unit ~ /^K[a-z]/)
        v *= 1e3
    else if (unit ~ /^M[a-z]/)
        v *= 1e6
    else if (unit ~ /^G[a-z]/)
        v *= 1e9
    return v
}

{ sub(/\r$/, "") }
substr($0, 1, 1) != "\"" { next }
{ nf = split_csv($0, f) }

# the header: remember where each column is
!have_header {
    if (f[1] != "ID")
        next
    for (i = 1; i <= nf; i++)
        column[f[i]] = i
    have_header = 1
    next
}

# the units row has an empty ID
f[1] == "" {
    for (i = 1; i <= nf; i++)
        unit[i] = f[i]
    next
}

# one kernel launch
f[1] ~ /^[0-9]+$/ {
    launches++
    t = ""
    if ("gpu__time_duration.sum" in column)
        t = value(f[column["gpu__time_duration.sum"]], unit[column["gpu__time_duration.sum"]])
    if (t == "")
        t = 0
    longest = launches == 1 || t > best_time
    if (longest) {
        best_time = t
        kernel = ("Kernel Name" in column) ? f[column["Kernel Name"]] : ""
        block = ("Block Size" in column) ? f[column["Block Size"]] : ""
        grid = ("Grid Size" in column) ? f[column["Grid Size"]] : ""
    }
    for (m = 1; m <= n_metrics; m++) {
        name = ncu_name[m]
        if (!(name in column))
            continue
        v = value(f[column[name]], unit[column[name]])
        if (v == "")
            continue
        key = our_key[m]
        seen[key] = 1
        if (how[m] == "count") {
            total[key] += v
        } else if (how[m] == "rate") {
            weighted[key] += v * t
            weight[key] += t
            plain[key] += v
            count[key]++
        } else if (longest) {
            total[key] = v
        } else if (!(key in total)) {
            total[key] = v
        }
    }
}

function emit(key, text) {
    gsub(/[\t\n]/, " ", text)
    printf "%s\t%s\n", key, text
}

# sectors per request, wavefronts per instruction: "none" when there were
# no requests or instructions of that kind at all
function ratio(key, num, den) {
    if (!(num in seen) || !(den in seen))
        return
    emit(key, total[den] > 0 ? sprintf("%.2f", total[num] / total[den]) : "none")
}

function count_of(key) {
    if (key in seen)
        emit(key, sprintf("%.0f", total[key]))
}

END {
    if (list)
        exit
    emit("launches", launches)
    if (launches == 0)
        exit
    emit("kernel", kernel)
    if (block == "" && ("threads" in seen))
        block = sprintf("%.0f", total["threads"])
    if (grid == "" && ("blocks" in seen))
        grid = sprintf("%.0f", total["blocks"])
    if (block != "")
        emit("block", block)
    if (grid != "")
        emit("grid", grid)
    ratio("gld_spr", "gld_sectors", "gld_requests")
    ratio("gst_spr", "gst_sectors", "gst_requests")
    ratio("shld_wpi", "shld_wavefronts", "shld_inst")
    ratio("shst_wpi", "shst_wavefronts", "shst_inst")
    ratio("gld_bpr", "gld_bytes", "gld_requests")
    ratio("gst_bpr", "gst_bytes", "gst_requests")
    # conflicts per instruction: with wavefronts per instruction, what part of
    # the wavefronts conflicts cost and what part the access width needs
    ratio("shld_cpi", "shld_conflicts", "shld_inst")
    ratio("shst_cpi", "shst_conflicts", "shst_inst")
    count_of("shld_conflicts")
    count_of("shst_conflicts")
    for (m = 1; m <= n_metrics; m++) {
        key = our_key[m]
        if (how[m] != "rate" || !(key in seen))
            continue
        v = weight[key] > 0 ? weighted[key] / weight[key] : plain[key] / count[key]
        emit(key, sprintf("%.1f", v))
    }
    if ("theoretical" in seen)
        emit("theoretical", sprintf("%.1f", total["theoretical"]))
    count_of("registers")
    if (("smem_static" in seen) || ("smem_dynamic" in seen))
        emit("smem", sprintf("%.0f", total["smem_static"] + total["smem_dynamic"]))
    if ("time_ns" in seen)
        emit("time_us", sprintf("%.1f", total["time_ns"] / 1e3))
    # the sums behind the ratios, for anyone who wants to check them
    count_of("gld_sectors"); count_of("gld_requests")
    count_of("gst_sectors"); count_of("gst_requests")
    count_of("shld_wavefronts"); count_of("shld_inst")
    count_of("shst_wavefronts"); count_of("shst_inst")
    count_of("gld_bytes"); count_of("gst_bytes")
}
