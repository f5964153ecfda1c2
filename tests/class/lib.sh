# tests/class/lib.sh: reading a class's gradebook in tests, sourced by
# tests/class/run.sh, by a part of it run alone (tests/class/intake.sh) and
# by tests/class/term.sh.
#   field CSV-LINE N, row OUT NAME, status_of OUT NAME, notes_of OUT NAME,
#   csv_tsv FILE
# field CSV-LINE N: field N (from 1) of a CSV line, quotes undone
field() {
    awk -v n="$2" '{
        line = $0
        for (f = 1; f <= n; f++) {
            v = ""
            if (line ~ /^"/) {
                line = substr(line, 2)
                while ((i = index(line, "\"")) > 0) {
                    v = v substr(line, 1, i - 1); line = substr(line, i + 1)
                    if (line !~ /^"/) break
                    v = v "\""; line = substr(line, 2)
                }
                line = substr(line, 2)
            } else if ((i = index(line, ",")) > 0) {
                v = substr(line, 1, i - 1); line = substr(line, i + 1)
            } else {
                v = line; line = ""
            }
        }
        print v }' <<<"$1"
}
# row OUT NAME: the student's line of OUT/gradebook.csv
row() { grep "^$2," "$1/gradebook.csv"; }
# status_of / notes_of OUT NAME: the column of that name in the student's row
column() { head -n 1 "$1/gradebook.csv" | tr ',' '\n' | grep -n -x "$2" | cut -d: -f1; }
status_of() { field "$(row "$1" "$2")" "$(column "$1" status)"; }
notes_of() { field "$(row "$1" "$2")" "$(column "$1" notes)"; }
# csv_tsv FILE: a CSV file read as an importer reads it (RFC 4180: a field
# in quotes may hold commas and "" for a quote; a quote elsewhere, or a
# line with another number of fields than the header, is an error), its
# records printed with their fields joined by tabs; status 1 and the line
# on stderr at the first that is not well formed
csv_tsv() {
    awk '
    function parse(line,   v, i, n) {
        n = 0; rec = ""
        while (1) {
            v = ""
            if (substr(line, 1, 1) == "\"") {
                line = substr(line, 2)
                while (1) {
                    if ((i = index(line, "\"")) == 0) return -1
                    v = v substr(line, 1, i - 1); line = substr(line, i + 1)
                    if (substr(line, 1, 1) != "\"") break
                    v = v "\""; line = substr(line, 2)
                }
                if (line != "" && substr(line, 1, 1) != ",") return -1
            } else {
                i = index(line, ",")
                v = i ? substr(line, 1, i - 1) : line
                if (index(v, "\"") || index(v, "\t")) return -1
                line = i ? substr(line, i) : ""
            }
            rec = rec (n ? "\t" : "") v; n++
            if (line == "") return n
            line = substr(line, 2)
            if (line == "") { rec = rec "\t"; return n + 1 }
        }
    }
    { n = parse($0)
      if (NR == 1) width = n
      if (n < 0 || n != width) { print FILENAME " line " NR " is not a CSV record of " width " fields: " $0 > "/dev/stderr"; exit 1 }
      print rec }' "$1"
}
