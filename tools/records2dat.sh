#!/usr/bin/env bash
# records2dat.sh: turn one run record (results/<stage>.json) into a gnuplot data file.
#
#   tools/records2dat.sh results/03_tiled.json > build/plots/03_tiled.dat
#
# Output: "# key: value" header lines (stage, metric, gpu, date, title), then
# one line "name rate" per kernel, in the order of the record.
#
# This is the one place that knows the record format, which is not final. What it
# assumes: a JSON document whose top-level object has string fields "stage" and
# "metric" (and optionally "date", and "gpu" or "device", either a string or an
# object with a "name"), and, at any depth, kernel objects that have both a string
# "name" and a number "rate". Anything else is skipped. It is a small JSON
# tokenizer, not a validator; adapt the assignments in value() if the format changes.
set -u
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "usage: tools/records2dat.sh RECORD.json (one run record; prints gnuplot data)" >&2
    exit 2
fi

awk '
# called for every scalar value: the current object (depth d) and the key it was given under
function value(v, is_string,    k) {
    k = key[d]
    key[d] = ""
    if (k == "" || kind[d] != "object") return
    if (is_string) v = unquote(v)
    if (d == 1 && is_string && (k == "stage" || k == "metric" || k == "date")) meta[k] = v
    if (d == 1 && is_string && (k == "gpu" || k == "device")) meta["gpu"] = v
    if (d == 1 && is_string && k == "variant") meta["variant"] = v
    # the drivers of the lab keep the metric inside the "timing" object
    if (d == 2 && parent[d] == "timing" && k == "metric" && is_string) meta["metric"] = v
    if (d == 2 && (parent[d] == "gpu" || parent[d] == "device") && k == "name" && is_string) meta["gpu"] = v
    if (k == "name" && is_string) name[d] = v
    if (k == "rate" && !is_string && v != "null" && v != "true" && v != "false") rate[d] = v
}
function unquote(s) {
    s = substr(s, 2, length(s) - 2)
    gsub(/\\"/, "\"", s)
    return s
}
function open_container(type) {
    # a container inherits the key it stands under, or its array parent key
    d++
    kind[d] = type
    parent[d] = (kind[d - 1] == "object") ? key[d - 1] : parent[d - 1]
    key[d - 1] = ""
    key[d] = ""; name[d] = ""; rate[d] = ""
}
function close_container() {
    if (kind[d] == "object" && name[d] != "" && rate[d] != "" && parent[d] != "gpu" && parent[d] != "device") {
        n = name[d]
        # a record of a solution: its kernel is the solution, not a student kernel
        if (n == "student" && meta["variant"] == "solution") n = "solution"
        gsub(/[ \t]/, "_", n)
        rows[++nrows] = n " " rate[d]
    }
    d--
}
{ text = text $0 "\n" }
END {
    d = 0; kind[0] = "top"; nrows = 0
    len = length(text)
    i = 1
    while (i <= len) {
        c = substr(text, i, 1)
        if (c == "{") { open_container("object"); i++; continue }
        if (c == "[") { open_container("array"); i++; continue }
        if (c == "}" || c == "]") { close_container(); i++; continue }
        if (c == "\"") {                       # a string: a key if a colon follows
            j = i + 1
            while (j <= len) {
                ch = substr(text, j, 1)
                if (ch == "\\") { j += 2; continue }
                if (ch == "\"") break
                j++
            }
            s = substr(text, i, j - i + 1)
            rest = substr(text, j + 1, 40)
            if (kind[d] == "object" && key[d] == "" && rest ~ /^[ \t\r\n]*:/) key[d] = unquote(s)
            else value(s, 1)
            i = j + 1
            continue
        }
        if (c ~ /[-0-9tfn]/) {                 # a number, true, false or null
            j = i
            while (j <= len && substr(text, j, 1) ~ /[-+0-9.eEtruefalsn]/) j++
            value(substr(text, i, j - i), 0)
            i = j
            continue
        }
        i++                                    # blanks, commas and colons
    }
    if (meta["stage"] == "") meta["stage"] = stage_from_file
    title = meta["stage"]
    if (meta["gpu"] != "") title = title ", " meta["gpu"]
    if (meta["date"] != "") title = title ", " meta["date"]
    print "# stage: " meta["stage"]
    print "# metric: " meta["metric"]
    print "# gpu: " meta["gpu"]
    print "# date: " meta["date"]
    print "# title: " title
    print "# name rate"
    for (r = 1; r <= nrows; r++) print rows[r]
    if (nrows == 0) {
        print "records2dat: no kernel entries with a name and a rate in " FILENAME > "/dev/stderr"
        exit 1
    }
}' stage_from_file="$(basename "$1" .json)" "$1"
