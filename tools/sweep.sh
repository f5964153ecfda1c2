#!/usr/bin/env bash
# tools/sweep.sh: time one stage at each value of its knob, one table.
# Called by `make sweep EX=NN`; the builds are made before this runs.
#   tools/sweep.sh STAGE KNOB VARIANT "ARGS" BINARY...
# When the first build cannot run here at all (no GPU: the driver's exit
# status 3; 4 a CUDA error; 5 out of memory) it says so in one line and
# exits with that status, after, for no GPU, what the lab's records measured
# at each value on a GPU of compute capability LAB_COURSE_ARCH (make sweep
# passes the Makefile's COURSE_ARCH; tools/sweep-records.sh); otherwise it
# prints the table, writes its rows as a sweeps.tsv of measurements/ has
# them (build/sweep/STAGE-VARIANT.tsv) and exits 0.
#   tools/sweep.sh --no-gpu STAGE KNOB
# says at once what the first build would say where no GPU is, then the
# records, and exits 3 (make sweep, with no GPU here and no Slurm: nothing
# is built).
set -u
# no GPU: what the records of the course's GPU measured instead
records() { "$(dirname "$0")/sweep-records.sh" ${LAB_COURSE_ARCH:+--arch "$LAB_COURSE_ARCH"} "$1" "$2" >&2; }
if [ "${1:-}" = --no-gpu ]; then
    echo "sweep: cannot run $2 here: no usable CUDA GPU (nvidia-smi lists none, and no Slurm cluster is here to send the runs to)" >&2
    records "$2" "$3"
    exit 3
fi
stage=$1 knob=$2 variant=$3 args=$4
shift 4
mkdir -p build/sweep

# Read what a table needs from a record: status, the metric, and the median
# time and rate of the student's kernel and of the reference (the kernel
# listed second). Records hold one key per line, so awk can read them.
summarise() {
    [ -f "$1" ] || { printf 'no record'; return; }
    awk '
    /"status":/      { gsub(/[",]/, "", $2); status = $2 }
    /"metric":/      { gsub(/[",]/, "", $2); metric = $2 }
    /"pct_of_reference":/ { gsub(/,/, "", $2); pct = $2 }
    /"speedup_vs_baseline":/ { gsub(/,/, "", $2); speedup = $2 }
    /"name": "student"/ { in_student = 1 }
    /"name": "/ && !/"student"/ { in_student = 0 }
    in_student && /"median_ms":/ { gsub(/,/, "", $2); ms = $2 }
    in_student && /"rate":/      { gsub(/,/, "", $2); rate = $2 }
    END {
        if (status != "ok") { printf "%s", (status == "" ? "no record" : status); exit }
        printf "%.4g\t%.1f\t%s\t%.1f%%\t%.2fx", ms, rate, metric, pct, speedup
    }' "$1"
}

results=()
first=1
for bin in "$@"; do
    value=${bin%/*}; value=${value##*/k}
    record=build/sweep/$stage-$knob$value-$variant.json
    rm -f "$record"
    # shellcheck disable=SC2086  # args are several words on purpose
    "$bin" --quiet --json "$record" $args >"build/sweep/$stage-$knob$value-$variant.log" 2>&1
    status=$?
    if [ $first = 1 ]; then
        case $status in
        3 | 4 | 5)
            echo "sweep: cannot run $stage here: $(tail -n 1 "build/sweep/$stage-$knob$value-$variant.log")" >&2
            [ $status != 3 ] || records "$stage" "$knob"
            exit $status ;;
        esac
        echo "sweeping $knob for $stage ($variant): each build checked, then timed"
        first=0
    fi
    line=$(summarise "$record")
    [ $status -ne 0 ] && line="exit $status: see build/sweep/$stage-$knob$value-$variant.log"
    results+=("$knob=$value	$line")
    echo "  $knob=$value done"
done
echo
# the table, and its timed rows as a record's: measurements/<gpu>-<date>/sweeps.tsv
# takes them as they are (tools/sweep-records.sh shows them where no GPU is)
table=build/sweep/$stage-$variant.tsv
printf '# make sweep of %s (%s), %s\n# stage\tknob\tmedian_ms\trate\tunit\tpct_of_reference\tspeedup_vs_baseline\n' \
    "$stage" "$variant" "$(date -u '+%Y-%m-%d %H:%M UTC')" >"$table"
printf '%-10s %10s %12s %-8s %12s %10s\n' "$knob" "median ms" "rate" "unit" "% of ref" "speedup"
for r in "${results[@]}"; do
    IFS=$'\t' read -r k ms rate unit pct speedup <<<"$r"
    if [ -z "${rate:-}" ]; then
        printf '%-10s %s\n' "$k" "$ms"
    else
        printf '%-10s %10s %12s %-8s %12s %10s\n' "$k" "$ms" "$rate" "$unit" "$pct" "$speedup"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$stage" "$k" "$ms" "$rate" "$unit" "${pct%\%}" "${speedup%x}" >>"$table"
    fi
done
echo "(records in build/sweep/, the table's rows in $table; % of ref and speedup mean what they mean in make run's table)"
