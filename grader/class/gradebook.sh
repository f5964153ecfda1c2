# grader/class/gradebook.sh: class grading (grader/class.sh), the rows and
# the gradebook: each student's row (OUT/students/NAME/row.csv, written in
# one step), reading a row back, and OUT/gradebook.csv made from the rows.
# Sourced by grader/class.sh; uses its out.

# ================================================================== rows
# csv TEXT: one CSV field (quoted when it has a comma or a quote; newlines
# become spaces).
csv() {
    local v=${1//$'\n'/ }
    v=${v//$'\r'/ }
    if [[ $v == *[,\"]* ]]; then
        printf '"%s"' "${v//\"/\"\"}"
    else
        printf '%s' "$v"
    fi
}

# write_row NAME STATUS NOTES [POINTS-FILE]: the student's row, written to a
# temporary file and renamed, so that a row is either whole or absent.
# POINTS-FILE has "stage<TAB>points" lines and "score", "max", "seed" lines.
write_row() {
    local name=$1 status=$2 notes=$3 points=${4:-} dir=$out/students/$1 s p line
    line=$(csv "$name")
    for s in $(conf_get stages); do
        p=""
        [ -n "$points" ] && p=$(awk -F'\t' -v s="$s" '$1 == "stage" && $2 == s { print $3 }' "$points")
        line="$line,$p"
    done
    local total="" max="" seed
    seed=$(conf_get seed)
    if [ -n "$points" ]; then
        total=$(awk -F'\t' '$1 == "score" { print $2 }' "$points")
        max=$(awk -F'\t' '$1 == "max" { print $2 }' "$points")
        seed=$(awk -F'\t' -v d="$seed" '$1 == "seed" { d = $2 } END { print d }' "$points")
    fi
    line="$line,$total,$max,$(csv "$status"),$seed,$(csv "${notes:0:600}")"
    mkdir -p "$dir" && printf '%s\n' "$line" >"$dir/row.csv.tmp" && mv "$dir/row.csv.tmp" "$dir/row.csv"
}

# row_field FILE N: field N (from 1) of a one-line CSV file.
row_field() {
    awk -v n="$2" '
        { line = $0
          for (f = 1; f <= n; f++) {
              if (substr(line, 1, 1) == "\"") {
                  line = substr(line, 2); v = ""
                  while (1) {
                      i = index(line, "\""); if (i == 0) { v = v line; line = ""; break }
                      v = v substr(line, 1, i - 1); line = substr(line, i + 1)
                      if (substr(line, 1, 1) == "\"") { v = v "\""; line = substr(line, 2) } else break
                  }
                  line = substr(line, 2)
              } else {
                  i = index(line, ","); if (i == 0) i = length(line) + 1
                  v = substr(line, 1, i - 1); line = substr(line, i + 1)
              }
          }
          print v }' "$1"
}
# The status and the notes of a row file: columns after the stages' points,
# the total and the maximum.
row_status() { row_field "$1" $(($(wc -w <<<"$(conf_get stages)") + 4)); }
row_notes() { row_field "$1" $(($(wc -w <<<"$(conf_get stages)") + 6)); }

# ============================================================== gradebook
collect() {
    local header s name row tmp=$out/gradebook.csv.tmp missing=0
    header=student
    for s in $(conf_get stages); do header="$header,$s"; done
    header="$header,total,max,status,seed,notes"
    {
        echo "$header"
        for name in $(students); do
            row=$out/students/$name/row.csv
            if [ -f "$row" ]; then
                cat "$row"
            else
                missing=$((missing + 1))
                printf '%s' "$(csv "$name")"
                for s in $(conf_get stages); do printf ','; done
                printf ',,,not graded,%s,%s\n' "$(conf_get seed)" \
                    "no result: grading was stopped or its job ended first (run make class again; see $out/logs)"
            fi
        done
    } >"$tmp" && mv "$tmp" "$out/gradebook.csv" || die "cannot write $out/gradebook.csv"
    summary
}

# Counts of each status, on one line.
summary() {
    local name row counts="" m
    m=$(students | wc -l)
    counts=$(for name in $(students); do
        row=$out/students/$name/row.csv
        if [ -f "$row" ]; then row_status "$row"; else echo "not graded"; fi
    done | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%s%s", sep, substr($0, 2) ": ", n; sep = ", " }')
    say "gradebook: $out/gradebook.csv, $m student$([ "$m" = 1 ] || echo s)${counts:+ ($counts)}"
}
