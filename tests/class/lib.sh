# tests/class/lib.sh: reading a class's gradebook in tests, sourced by
# tests/class/run.sh and by a part of it run alone (tests/class/intake.sh).
#   field CSV-LINE N, row OUT NAME, status_of OUT NAME, notes_of OUT NAME
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
