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
# file. Words under build/ and results/ are what make writes, not checked;
# nor is commit:path (7797b88:research/x.cu), a file as that commit holds it.
#
# A bare file name (timing.cu, gpu.h: a word ending in .c, .cu, .h,
# .cuh, .sh, .mk, .awk, .lua or .gp, not part of a path) must name a file
# of the folder that names it or of a folder below it (for a file at the
# root: anywhere), of the root, of common/ or of every stage's folder
# (kernel.cu); a name that exists only in some other folder is stale (a
# comment of judge/ that names a file of grader/, not its own). Placeholders
# (x.cu, FILE.cu), the C library's and CUDA's headers, and the few names
# that only a run writes (listed below) are not checked, nor bare names on
# a line that names a commit (history).
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
mapfile -t found < <(LC_ALL=C awk -v re="$folders_re" -v exts="c|cu|h|cuh|sh|mk|awk|lua|gp" -v prefix="$here/" '
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
        else if (kind == "hash") {
            # not the #include of C written out in a script (a here-document)
            if (match(line, /(^|[ \t])#/) && line !~ /^[ \t]*#[ \t]*include[ \t]/) text = substr(line, RSTART + RLENGTH)
        }
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
        whole = text
        while (match(text, "(^|[^A-Za-z0-9_./$@{}-])(" re ")/[A-Za-z0-9_.*<>+/-]*")) {
            path = substr(text, RSTART, RLENGTH)
            pre = substr(text, 1, RSTART)
            text = substr(text, RSTART + RLENGTH)
            sub(/^[^A-Za-z0-9_.]/, "", path)
            sub(/[.]+$/, "", path)
            # commit:path, a file as an earlier commit holds it
            if (pre ~ /[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]:$/) continue
            # what a build writes (an object) is no file of the tree
            if (path !~ /\.o$/) print name ":" FNR ":" path
        }
        # bare file names (timing.cu), not part of a path, an #include <...>
        # or a longer word (x.cu.o, f.cpp); a line that names a commit speaks
        # of history
        if (whole ~ /[Cc]ommit [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]/) next
        while (match(whole, "(^|[^A-Za-z0-9_./$@{}<>*=-])[A-Za-z0-9_][A-Za-z0-9_+-]*[.](" exts ")")) {
            word = substr(whole, RSTART, RLENGTH)
            whole = substr(whole, RSTART + RLENGTH)
            if (whole ~ /^([A-Za-z0-9_]|[.][A-Za-z])/) continue
            sub(/^[^A-Za-z0-9_]/, "", word)
            print name ":" FNR ":=" word
        }
    }' "${read_files[@]}")

# A bare name in file $1, $2, names a file of the lab when one of these holds
# it: the folder of $1 or a folder below it (as C's #include "..." finds a
# sibling); the root (Makefile, docs.mk); common/, the shared harness whose
# files the whole lab names bare;
# every stage's folder (kernel.cu, the file a student edits). Not checked:
# placeholders (a stem of one letter, or with a word in capitals: FILE.cu,
# job-ID.sh), and the names below, which are not files of the tree.
outside_names="stdlib.h cuda_runtime.h cooperative_groups.h memcpy_async.h iter_swap.h
    stages.mk stages.h references.mk no_second_barrier.cu"
# (the C library's and CUDA's headers; what tools/stages-gen.awk writes
# under build/; the copy research/profile-records.sh makes of a kernel)
bare_name() {
    local dir=${1%/*} stem=${2%.*}
    [ "$dir" = "$1" ] && dir=.
    [[ $stem =~ ^[A-Za-z]$ || $stem =~ (^|[-_])[A-Z][A-Z]+([-_]|$) ]] && return 0
    for n in $outside_names; do [ "$n" = "$2" ] && return 0; done
    [ -e "$dir/$2" ] || [ -e "$2" ] || [ -e "common/$2" ] || compgen -G "exercises/*/$2" >/dev/null && return 0
    [ -n "$(find "$dir" -name "$2" -print -quit 2>/dev/null)" ]
}

status=0
declare -A seen=()
for entry in "${found[@]}"; do
    path=${entry#*:*:}
    where=${entry%":$path"}
    if [ "${path:0:1}" = = ]; then
        bare_name "${where%:*}" "${path#=}" || { echo "$where: ${path#=} names no file of the lab"; status=1; }
        continue
    fi
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
