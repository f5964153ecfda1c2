#!/usr/bin/env bash
# records2ladder.sh: one family's ladder (every stage's kernel beside the
# library references) as a gnuplot data file, from the run records in a folder.
#
#   tools/records2ladder.sh [--references FILE] FAMILY DIR
#   tools/records2ladder.sh matmul measurements/h200-2026-11-21 > build/plots/ladder_matmul.dat
#
# The stages of FAMILY are those of stages.tsv with that family, in the
# table's order (build/stages.env, through tools/stages.sh); a stage whose record DIR/<stage>.json is missing is left out,
# so a new stage joins the ladder when its record appears. Each record is read
# with tools/records2dat.sh (the one reader of the record format).
#
# Output: "# key: value" header lines (family, metric, gpu, date, reference,
# title), then one tab-separated line "label rate pct role" per bar:
#   - one per stage, role "stage", labelled with the stage's folder: the kernel
#     under test (the solution in a solution's record, else the student's);
#   - one per library reference of tools/ladder-references.tsv, role
#     "reference", taken from the family's last record (in stage order); a
#     reference that record lacks is left out.
# pct is the rate as a percentage of the family's base reference measured in
# the same record (the same run), with one decimal; "-" where that record has
# no base reference.
#
# Exit status: 0 done; 2 bad usage, an unknown family or one without
# references; 3 no record of the family in DIR; 4 a record that cannot be read,
# names another stage, or disagrees with the others on the metric or the GPU.
set -u
references=tools/ladder-references.tsv
usage="usage: tools/records2ladder.sh [--references FILE] FAMILY DIR (prints gnuplot data)"
while [ $# -gt 0 ]; do
    case $1 in
    --references) references=${2:-}; shift 2 || { echo "$usage" >&2; exit 2; } ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# -ne 2 ]; then echo "$usage" >&2; exit 2; fi
family=$1 dir=$2
[ -f stages.tsv ] || { echo "records2ladder: no stages.tsv here (run from the repository root)" >&2; exit 2; }
[ -f "$references" ] || { echo "records2ladder: no table $references" >&2; exit 2; }
. tools/stages.sh
[ -d "$dir" ] || { echo "records2ladder: no records folder $dir" >&2; exit 2; }

family_stages=$(stages_of "$family")
if [ -z "$family_stages" ]; then
    echo "records2ladder: no stage of family '$family' in stages.tsv (families: $(printf '%s\n' $LAB_FAMILIES | sort | paste -sd " "))" >&2
    exit 2
fi
if ! awk -F'\t' -v fam="$family" '$1 == fam && $4 == "yes" { found = 1 } END { exit !found }' "$references"; then
    echo "records2ladder: no base reference for family '$family' in $references; add a line with base yes" >&2
    exit 2
fi

# every record of the family through records2dat.sh, each after a line "## record: <stage>"
data=
for stage in $family_stages; do
    record=$dir/$stage.json
    [ -f "$record" ] || continue
    if ! dat=$(tools/records2dat.sh "$record"); then
        echo "records2ladder: cannot read $record (tools/records2dat.sh failed)" >&2
        exit 4
    fi
    data+="## record: $stage"$'\n'"$dat"$'\n'
done
if [ -z "$data" ]; then
    echo "records2ladder: no record of family '$family' in $dir (looked for $(echo $family_stages | sed 's/\([^ ]*\)/\1.json/g'))" >&2
    exit 3
fi

awk -F'\t' -v fam="$family" -v dir="$dir" '
function fail(msg) { print "records2ladder: " msg > "/dev/stderr"; failed = 1; exit 4 }
# the references table: its own file, first
FNR == NR {
    if ($1 == fam) { nref++; ref_kernel[nref] = $2; ref_label[nref] = $3; if ($4 == "yes") base = $2 }
    next
}
/^## record: / { n++; stage[n] = substr($0, 12); next }
/^# stage: / {
    s = substr($0, 10)
    if (s != stage[n]) fail(dir "/" stage[n] ".json holds the record of stage " s ", not of " stage[n])
    next
}
/^# (metric|gpu|date): / {
    k = substr($0, 3); sub(/:.*/, "", k)
    v = $0; sub(/^# [a-z]+: /, "", v)
    if ((k == "metric" || k == "gpu") && n > 1 && v != meta[k])
        fail(dir "/" stage[n] ".json has " k " \"" v "\" but " dir "/" stage[n - 1] ".json has \"" meta[k] "\"; a ladder compares the records of one GPU and one metric")
    meta[k] = v
    next
}
/^#/ { next }
{
    split($0, f, " ")
    rate[n, f[1]] = f[2]
    if (f[1] == "solution" || f[1] == "student") tested[n] = f[2]
}
function pct(r, i) { return ((i, base) in rate) ? sprintf("%.1f", 100 * r / rate[i, base]) : "-" }
END {
    if (failed) exit 4
    title = fam " ladder"
    if (meta["gpu"] != "") title = title ", " meta["gpu"]
    if (meta["date"] != "") title = title ", " meta["date"]
    for (j = 1; j <= nref; j++) if (ref_kernel[j] == base) base_label = ref_label[j]
    print "# family: " fam
    print "# metric: " meta["metric"]
    print "# gpu: " meta["gpu"]
    print "# date: " meta["date"]
    print "# reference: " base_label
    print "# title: " title
    print "# label\trate\tpct\trole"
    for (i = 1; i <= n; i++) {
        if (!(i in tested)) fail(dir "/" stage[i] ".json has no kernel named solution or student")
        print stage[i] "\t" tested[i] "\t" pct(tested[i], i) "\tstage"
    }
    for (j = 1; j <= nref; j++)
        if ((n, ref_kernel[j]) in rate)
            print ref_label[j] "\t" rate[n, ref_kernel[j]] "\t" pct(rate[n, ref_kernel[j]], n) "\treference"
}' "$references" - <<<"$data"
