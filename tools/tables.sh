#!/usr/bin/env bash
# tools/tables.sh: the stage tables of README.md and handouts/README.md,
# made from stages.tsv (make tables runs it; make check runs it with
# --check).
#
#   tools/tables.sh [--check] [--root DIR]
#
# Each table lies between the lines <!-- stages: made by make tables from
# stages.tsv --> and <!-- /stages --> and is written anew from the table's
# lines (tools/stages.sh):
#   README.md            stage | lesson | knob and sweep | against
#   handouts/README.md   one row per handout handouts/NN_*.md: its title (its
#                        first heading, without the number) | the stage's
#                        lesson | its todo. A handout that is no stage (00)
#                        keeps the row the page has for it.
# --check writes nothing: it names each page whose table is not what
# stages.tsv makes (exit 1), so that a stale table fails make check.
# --root DIR: the lab at DIR (the tests check copies). Exit 2 when a page
# has no markers or the stages cannot be read.
set -u
check=0
root=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=1; shift ;;
    --root) root=${2:-}; shift 2 ;;
    *) echo "usage: tools/tables.sh [--check] [--root DIR]" >&2; exit 2 ;;
    esac
done
cd "$root" || exit 2
. tools/stages.sh

begin='<!-- stages: made by make tables from stages.tsv -->'
end='<!-- /stages -->'
var() { local v=LAB_$1_$2; printf '%s' "${!v:-}"; }

readme_rows() {
    local s
    echo '| stage | lesson | knob (`make sweep`) | measured against |'
    echo '|---|---|---|---|'
    for s in $LAB_STAGES; do
        printf '| `%s` | %s | `%s` %s | %s |\n' "$s" "$(var LESSON "$s")" "$(var KNOB "$s")" "$(var SWEEP "$s")" \
            "$(var AGAINST "$s")"
    done
}

# $1: the page as it is (for the rows of handouts that are no stage)
handout_rows() {
    local f name num title kept
    echo '| stage | handout | the lesson in one line | what you write (the `TODO(lab)` parts) |'
    echo '|---|------------------------|----------------------------------|----------------------------------|'
    for f in handouts/[0-9][0-9]_*.md; do
        name=$(basename "$f" .md)
        num=${name%%_*}
        title=$(sed -n '1s/^# *\([0-9][0-9] \)\{0,1\}//p' "$f")
        if [[ " $LAB_STAGES " == *" $name "* ]]; then
            printf '| %s | [%s](%s.md) | %s | %s |\n' "$num" "$title" "$name" "$(var LESSON "$name")" "$(var TODO "$name")"
        else
            kept=$(grep -F "](${name}.md)" "$1" | grep '^| ' | head -n 1)
            if [ -n "$kept" ]; then echo "$kept"; else printf '| %s | [%s](%s.md) | | |\n' "$num" "$title" "$name"; fi
        fi
    done
}

# splice PAGE ROWS-FILE: the page with the rows between its markers, on stdout
splice() {
    awk -v b="$begin" -v e="$end" -v rows="$2" '
        # blank lines around the table: a page reader ends the comment there
        $0 == b { print; print ""; while ((getline line < rows) > 0) print line; print ""; skip = 1; found++; next }
        $0 == e { skip = 0 }
        !skip { print }
        END { if (found != 1 || skip) exit 3 }' "$1"
}

status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for page in README.md handouts/README.md; do
    case $page in
    README.md) readme_rows >"$tmp/rows" ;;
    *) handout_rows "$page" >"$tmp/rows" ;;
    esac
    if ! splice "$page" "$tmp/rows" >"$tmp/page"; then
        echo "tables: $page: no lines '$begin' and '$end' around its stage table" >&2
        exit 2
    fi
    if cmp -s "$page" "$tmp/page"; then
        continue
    elif [ $check = 1 ]; then
        echo "$page: its stage table is not what stages.tsv makes: run make tables"
        diff "$page" "$tmp/page" | sed 's/^/    /' | head -n 12
        status=1
    else
        cat "$tmp/page" >"$page"
        echo "tables: wrote the stage table of $page"
    fi
done
exit $status
