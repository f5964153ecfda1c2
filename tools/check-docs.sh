#!/usr/bin/env bash
# check-docs.sh: check the lab's Markdown (and optionally the HTML built from it).
#
#   tools/check-docs.sh [--root DIR] [--figures DIR] [--html DIR] [PATH...]
#
# PATH: Markdown files, or directories searched for *.md (default: handouts slides),
# relative to the root (default: the current directory). It fails on
#   - a relative link or image whose file does not exist (figures included),
#   - a link that leaves the root, or an absolute path,
#   - a link to #anchor that matches no heading of the target Markdown file,
#   - a file in the figures directory (default handouts/figures) that no PATH references.
# Anchors follow GitHub's rule, which the docs build also uses
# (pandoc -f markdown+gfm_auto_identifiers): lower case, punctuation other than
# '-' and '_' dropped, spaces to '-', repeats numbered -1, -2, ...
# Only ATX headings (# Title) are seen; text inside ``` or ~~~ fences and inside
# `code spans` is ignored.
#
# With --html DIR it also checks every *.html in DIR: no <img>, <script>, <link>,
# ... that loads from the network (the pages must work offline), and every
# relative href resolves to a file (and to an id="..." in it for #anchors).
#
# Prints one line per problem, "file:line: what", and exits 1 if there was any.
set -u

root=.
figures=handouts/figures
html=
paths=()
while [ $# -gt 0 ]; do
    case $1 in
    --root) root=$2; shift 2 ;;
    --figures) figures=$2; shift 2 ;;
    --html) html=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-docs: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) paths+=("$1"); shift ;;
    esac
done
[ ${#paths[@]} -gt 0 ] || paths=(handouts slides)
cd "$root" || { echo "check-docs: no directory $root" >&2; exit 2; }

# the Markdown files to check, relative to the root, without a leading ./
mdfiles=()
for p in "${paths[@]}"; do
    if [ -d "$p" ]; then
        while IFS= read -r f; do mdfiles+=("${f#./}"); done < <(find "$p" -name '*.md' | LC_ALL=C sort)
    elif [ -f "$p" ]; then
        mdfiles+=("${p#./}")
    else
        echo "check-docs: $p: no such file or directory" >&2
        exit 2
    fi
done
figlist=
[ -d "$figures" ] && figlist=$(find "$figures" -type f | sed 's|^\./||' | LC_ALL=C sort)

# awk functions both checks share: resolve "." and ".." in a relative path (a
# result starting with ".." leaves the root), and the directory part of a path
awk_paths='
function normalize(path,    n, parts, i, out, k, stack) {
    n = split(path, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == ".." && k > 0 && stack[k] != "..") { k--; continue }
        stack[++k] = parts[i]
    }
    out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") stack[i]
    return out
}
function dirname(path) { return (path ~ /\//) ? substr(path, 1, match(path, /\/[^\/]*$/) - 1) : "." }
'

status=0

# ---- Markdown sources ---------------------------------------------------------
if [ ${#mdfiles[@]} -gt 0 ]; then
awk -v figlist="$figlist" "$awk_paths"'
function exists(path) { return system("test -e \"" path "\"") == 0 }
function is_fence(line) { return line ~ /^ *(```|~~~)/ }

# GitHub-style anchor of a heading text; repeats get -1, -2, ... per file
function slug(text, file,    s, base) {
    s = text
    gsub(/<!--([^-]|-[^-]|--[^>])*-->/, "", s)          # comments (the binding of a number) are no text
    while (match(s, /\[[^]]*]\([^)]*\)/)) {            # [text](target): keep the text
        base = substr(s, RSTART, RLENGTH); sub(/]\([^)]*\)$/, "", base); sub(/^\[/, "", base)
        s = substr(s, 1, RSTART - 1) base substr(s, RSTART + RLENGTH)
    }
    s = tolower(s)
    gsub(/[^a-z0-9 _-]/, "", s)
    gsub(/ /, "-", s)
    base = s
    if ((file, base) in seen) s = base "-" seen[file, base]
    seen[file, base]++
    return s
}

# record every anchor of a Markdown file once
function scan_headings(file,    line, infence, text, id) {
    if (file in scanned) return
    scanned[file] = 1
    infence = 0
    while ((getline line < file) > 0) {
        if (is_fence(line)) { infence = !infence; continue }
        if (infence || line !~ /^ *#+[ \t]/) continue
        text = line
        sub(/^ *#+[ \t]+/, "", text); sub(/[ \t]+#+[ \t]*$/, "", text); sub(/[ \t]+$/, "", text)
        if (match(text, /[ \t]*\{#[^}]+\}$/)) {         # explicit {#id}
            id = substr(text, RSTART, RLENGTH); sub(/^[ \t]*\{#/, "", id); sub(/\}$/, "", id)
            anchors[file, id] = 1
            text = substr(text, 1, RSTART - 1)
        }
        anchors[file, slug(text, file)] = 1
    }
    close(file)
}

function problem(file, lineno, msg) { printf "%s:%d: %s\n", file, lineno, msg; bad = 1 }

function check_target(file, lineno, target,    path, anchor, p, resolved, what) {
    sub(/^</, "", target); sub(/>$/, "", target)
    if (target == "" || target ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/) return   # empty, or a URL
    if (target ~ /^\//) { problem(file, lineno, "absolute path " target ": use a relative one"); return }
    p = index(target, "#")
    path = p ? substr(target, 1, p - 1) : target
    anchor = p ? substr(target, p + 1) : ""
    resolved = (path == "") ? file : normalize(dirname(file) "/" path)
    what = (path ~ /\.(svg|png|jpe?g|gif|pdf)$/) ? "missing figure" : "broken link"
    if (resolved == "" || resolved ~ /^\.\.(\/|$)/) { problem(file, lineno, target ": points outside the repository"); return }
    if (!exists(resolved)) { problem(file, lineno, what " " target " (no file " resolved ")"); return }
    referenced[resolved] = 1
    if (anchor != "" && resolved ~ /\.md$/) {
        scan_headings(resolved)
        if (!((resolved, anchor) in anchors))
            problem(file, lineno, "broken link " target " (no heading #" anchor " in " resolved ")")
    }
}

function check_file(file,    line, lineno, infence, rest, t) {
    lineno = 0; infence = 0
    while ((getline line < file) > 0) {
        lineno++
        if (is_fence(line)) { infence = !infence; continue }
        if (infence) continue
        gsub(/`[^`]*`/, "", line)                              # code spans are not links
        if (match(line, /^ *\[[^]]+]:[ \t]*/)) {              # [ref]: target
            t = substr(line, RSTART + RLENGTH); sub(/[ \t].*$/, "", t)
            check_target(file, lineno, t)
            continue
        }
        rest = line
        # (advance rest before check_target: its match() calls reset RSTART and RLENGTH)
        while (match(rest, /]\([^)]*\)/)) {                   # [text](target "title")
            t = substr(rest, RSTART + 2, RLENGTH - 3)
            rest = substr(rest, RSTART + RLENGTH)
            sub(/^[ \t]+/, "", t); sub(/[ \t].*$/, "", t)
            check_target(file, lineno, t)
        }
        rest = line
        while (match(rest, /(src|href)="[^"]*"/)) {            # raw HTML
            t = substr(rest, RSTART, RLENGTH)
            rest = substr(rest, RSTART + RLENGTH)
            sub(/^[a-z]+="/, "", t); sub(/"$/, "", t)
            check_target(file, lineno, t)
        }
    }
    close(file)
}

BEGIN {
    for (i = 1; i < ARGC; i++) { scan_headings(ARGV[i]); check_file(ARGV[i]) }
    n = split(figlist, figs, "\n")
    for (i = 1; i <= n; i++)
        if (figs[i] != "" && !(figs[i] in referenced)) {
            printf "%s: figure that nothing references (link it from a handout or slide, or delete it)\n", figs[i]
            bad = 1
        }
    exit bad
}' "${mdfiles[@]}" || status=1
fi

# ---- built HTML ------------------------------------------------------------------
if [ -n "$html" ]; then
    if [ ! -d "$html" ]; then
        echo "check-docs: $html: no such directory (build the docs first)" >&2
        exit 2
    fi
    htmlfiles=()
    while IFS= read -r f; do htmlfiles+=("$f"); done < <(find "$html" -name '*.html' | LC_ALL=C sort)
    if [ ${#htmlfiles[@]} -eq 0 ]; then
        echo "$html: no HTML files"
        status=1
    else
    awk "$awk_paths"'
function problem(file, msg) { printf "%s: %s\n", file, msg; bad = 1 }
# the whole file as one line, so that tags split over lines are still seen
function slurp(file,    line, s) {
    s = ""
    while ((getline line < file) > 0) s = s " " line
    close(file)
    return s
}
function has_id(file, id,    s) {
    if (!(file in text)) text[file] = slurp(file)
    return index(text[file], "id=\"" id "\"") > 0
}
BEGIN {
    for (a = 1; a < ARGC; a++) {
        file = ARGV[a]
        s = slurp(file); text[file] = s
        rest = s
        while (match(rest, /<(img|script|link|iframe|video|audio|source|embed)[ \t][^>]*(src|href)="(https?:)?\/\/[^"]*"/)) {
            problem(file, "loads from the network, will not work offline: " substr(rest, RSTART, RLENGTH > 120 ? 120 : RLENGTH))
            rest = substr(rest, RSTART + RLENGTH)
        }
        if (s ~ /url\([ \t"'\'']*(https?:)?\/\//) problem(file, "CSS url() that loads from the network")
        rest = s
        while (match(rest, /<a[ \t][^>]*href="[^"]*"/)) {
            t = substr(rest, RSTART, RLENGTH); sub(/^.*href="/, "", t); sub(/"$/, "", t)
            rest = substr(rest, RSTART + RLENGTH)
            if (t == "" || t ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/) continue
            p = index(t, "#")
            path = p ? substr(t, 1, p - 1) : t
            anchor = p ? substr(t, p + 1) : ""
            target = (path == "") ? file : normalize(dirname(file) "/" path)
            if (system("test -e \"" target "\"") != 0) { problem(file, "broken link " t); continue }
            if (anchor != "" && target ~ /\.html$/ && !has_id(target, anchor))
                problem(file, "broken link " t " (no id=\"" anchor "\" in " target ")")
        }
    }
    exit bad
}' "${htmlfiles[@]}" || status=1
    fi
fi

exit $status
