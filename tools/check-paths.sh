#!/usr/bin/env bash
# check-paths.sh: every file of the lab that a comment or a text names must
# exist (make check runs it, from tests/docs/run.sh).
#
#   tools/check-paths.sh [--root DIR] [FILE...]
#
# Reads FILE..., or every file of the tree under DIR (default: the lab's
# root; what git tracks there, or every file where it is not a checkout),
# but for what names paths on purpose or as history: the doc sets with
# broken links in tests/docs/bad-*/, the raw logs and records of
# measurements/ (their *.tsv tables are read: their # lines are docs), the
# figures and plots, build/ and results/.
#
# A path is a word that starts with a folder of the lab (common/, judge/,
# grader/, tools/, tests/, exercises/, solutions/, references/, handouts/,
# slides/, measurements/, profile/, research/, .ci/, or any other top-level
# folder of DIR) and is not part of a longer path ($dir/tools/x, /usr/...).
# It exists when DIR holds it, as a file or a folder; placeholders stand for
# any name: <stage>, NN (two digits), *, and the path fits when some file
# fits the pattern. A path written with a line, common/gpu.cu:40, names the
# file. Words under build/ and results/ are what make writes, not checked.
#
# Prints one line per problem, "file:line: path names no file of the lab",
# and exits 1 if there was any; 2 on bad usage.
set -u
root=.
files=()
while [ $# -gt 0 ]; do
    case $1 in
    --root) root=${2:-}; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-paths: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
    esac
done
[ -d "$root" ] || { echo "check-paths: no folder $root" >&2; exit 2; }
here=$PWD
cd "$root" || exit 2

# the files to read, relative to the root (FILE... relative to where we were)
read_files=()
if [ ${#files[@]} -gt 0 ]; then
    for f in "${files[@]}"; do
        case $f in /*) ;; *) f=$here/$f ;; esac
        [ -f "$f" ] || { echo "check-paths: no file $f" >&2; exit 2; }
        read_files+=("$f")
    done
else
    # a checkout's files, or (a copy whose git tracks nothing here) every file
    mapfile -t files < <(git ls-files --cached --others --exclude-standard -- . 2>/dev/null | sort -u)
    [ ${#files[@]} -gt 0 ] ||
        mapfile -t files < <(find . \( -path ./.git -o -path ./build -o -path ./results -o -path ./class-grades \) -prune \
                             -o -type f -print | sed 's|^\./||' | sort)
    skip_re='^(build|results)/|^tests/docs/bad-|^measurements/.*\.(json|log|txt|csv)$|\.(svg|png|pdf|o|json|csv)$'
    for f in "${files[@]}"; do
        [[ $f =~ $skip_re ]] || { [ -f "$f" ] && read_files+=("$f"); }
    done
fi
[ ${#read_files[@]} -gt 0 ] || exit 0

# the folders a path may start with: the lab's, and those of this tree
folders="common judge grader tools tests exercises solutions references handouts slides measurements profile research .ci"
for d in */ .ci/; do
    d=${d%/}
    case $d in build | results | '*' | .ci) ;; *) folders="$folders $d" ;; esac
done
folders_re=$(tr ' ' '\n' <<<"$folders" | sort -u | sed 's/\./\\./g' | paste -sd'|')

# every file:line:path, in the order of the files: in a text (Markdown and
# the like) every line; in code its comments only (C and CUDA: /* */ and
# //; Lua: --; the rest: # at the start of a word), where a path is prose
mapfile -t found < <(LC_ALL=C awk -v re="$folders_re" -v prefix="$here/" '
    FNR == 1 {
        name = FILENAME; if (index(name, prefix) == 1) name = substr(name, length(prefix) + 1)
        base = name; sub(/.*\//, "", base)
        kind = base ~ /\.(c|cu|h|cuh|cpp|css)$/ ? "c" : base ~ /\.lua$/ ? "lua" : \
               base ~ /\.(md|txt|html|tex)$/ || base !~ /\./ && base !~ /^Makefile$/ && FNR == 1 && $0 !~ /^#!/ ? "text" : "hash"
        in_c = 0
    }
    {
        line = $0; text = ""
        if (kind == "text") text = line
        else if (kind == "lua") { if ((i = index(line, "--"))) text = substr(line, i + 2) }
        else if (kind == "hash") { if (match(line, /(^|[ \t])#/)) text = substr(line, RSTART + RLENGTH) }
        else while (line != "") {
            if (in_c) {
                if ((i = index(line, "*/"))) { text = text " " substr(line, 1, i - 1); line = substr(line, i + 2); in_c = 0 }
                else { text = text " " line; line = "" }
            } else {
                i = index(line, "/*"); j = index(line, "//")
                if (j && (!i || j < i)) { text = text " " substr(line, j + 2); line = "" }
                else if (i) { line = substr(line, i + 2); in_c = 1 }
                else line = ""
            }
        }
        while (match(text, "(^|[^A-Za-z0-9_./$@{}-])(" re ")/[A-Za-z0-9_.*<>+/-]*")) {
            path = substr(text, RSTART, RLENGTH)
            text = substr(text, RSTART + RLENGTH)
            sub(/^[^A-Za-z0-9_.]/, "", path)
            sub(/[.]+$/, "", path)
            # what a build writes (an object) is no file of the tree
            if (path !~ /\.o$/) print name ":" FNR ":" path
        }
    }' "${read_files[@]}")

status=0
declare -A seen=()
for entry in "${found[@]}"; do
    path=${entry#*:*:}
    where=${entry%":$path"}
    if [ -z "${seen[$path]+x}" ]; then
        pattern=$path
        # placeholders: <name> and NN and ... stand for any name
        pattern=$(sed -E 's/<[^>]*>/*/g; s/NN_name/NN_*/g; s/NN/[0-9][0-9]/g; s/\.\.\.+/*/g' <<<"$pattern")
        pattern=${pattern%/}
        if [ -e "$pattern" ] || compgen -G "$pattern" >/dev/null; then seen[$path]=0
        else seen[$path]=1; fi
    fi
    if [ "${seen[$path]}" = 1 ]; then
        echo "$where: $path names no file of the lab"
        status=1
    fi
done
exit $status
