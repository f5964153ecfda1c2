# grader/class/intake.sh: class grading (grader/class.sh), the intake: the
# class's lab and settings, the list of submissions, and each student's
# kernel.cu files taken out of their folder or archive. Sourced by
# grader/class.sh; uses its out, submissions, stages_arg, seed_arg,
# grade_switches and switches_on.

# Size limits of a submission: an archive, all it unpacks to, one kernel.cu.
MAX_ARCHIVE_BYTES=$((20 << 20))
MAX_UNPACKED_BYTES=$((64 << 20))
MAX_MEMBERS=10000
MAX_KERNEL_BYTES=$((1 << 20))

# The student's name: the entry's name without its archive extension, with
# anything but letters, digits, . _ - turned into _ (it names a folder and a
# gradebook row).
student_name() {
    local n=$1
    n=${n%.tar.gz}; n=${n%.tgz}; n=${n%.tar.xz}; n=${n%.txz}; n=${n%.tar.bz2}; n=${n%.tbz2}
    n=${n%.tar}; n=${n%.zip}
    n=$(printf '%s' "$n" | tr -c 'A-Za-z0-9._-' '_')
    case $n in [A-Za-z0-9]*) ;; *) n=s$n ;; esac
    printf '%s\n' "$n"
}

# List SUBMISSIONS into OUT/students.tsv. Fails on two entries that make one
# name (alice/ and alice.tar.gz): the instructor has to say which counts.
list_submissions() {
    local e base name tmp=$out/students.tsv.tmp
    : >"$tmp"
    for e in "$submissions"/*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        base=${e##*/}
        # OUT itself, when it lies in SUBMISSIONS
        [ "$(readlink -f "$e")" = "$out" ] && continue
        if [ ! -d "$e" ]; then
            case $base in
                *.tar | *.tar.gz | *.tgz | *.tar.xz | *.txz | *.tar.bz2 | *.tbz2 | *.zip) ;;
                *) say "class: ignored $e: not a folder, a tarball or a zip file" >&2; continue ;;
            esac
        fi
        name=$(student_name "$base")
        printf '%s\t%s\n' "$name" "$base" >>"$tmp"
    done
    sort -t $'\t' -k1,1 -o "$tmp" "$tmp"
    local dup both
    dup=$(cut -f1 "$tmp" | uniq -d | head -n 1)
    if [ -n "$dup" ]; then
        both=$(awk -F'\t' -v n="$dup" '$1 == n { printf "%s ", $2 }' "$tmp")
        rm -f "$tmp"
        die "these submissions are all student '$dup': $both(rename or remove one)"
    fi
    mv "$tmp" "$out/students.tsv"
}

# The stages to grade: every stage of the lab, or those --stages names.
resolve_stages() {
    local all want s found result=""
    all=$(awk -F'\t' '!/^#/ && NF >= 5 { print $1 }' "$out/lab/stages.tsv")
    [ -n "$1" ] || { echo $all; return; }
    for want in $1; do
        found=""
        for s in $all; do
            case $s in "$want"*) found=$s; break ;; esac
        done
        [ -n "$found" ] || die "no stage matches '$want'; the stages are: $(echo $all)"
        case " $result " in *" $found "*) ;; *) result="$result $found" ;; esac
    done
    echo $result
}

# The make variable of one of grade_switches: sanitize -> SANITIZE.
switch_variable() {
    local s
    for s in $grade_switches; do [ "${s%%:*}" = "$1" ] && echo "${s#*:}"; done
}

# First run: the lab snapshot and class.conf. Later runs: check that the
# options agree with the stored ones, then use those.
setup_class() {
    local lab_dir
    lab_dir=$(cd "$(dirname "$script")/.." && pwd)
    mkdir -p "$out/students" "$out/logs" "$out/work" "$out/bin" || die "cannot create $out"
    if [ ! -f "$out/lab/stages.tsv" ]; then
        rm -rf "$out/lab"
        [ -x "$lab_dir/tools/release.sh" ] || die "$lab_dir has no tools/release.sh: class grading needs the instructors' copy of the lab"
        "$lab_dir/tools/release.sh" "$out/lab" >"$out/logs/release.log" 2>&1 ||
            die "could not copy the lab into $out/lab: $(tail -n 3 "$out/logs/release.log")"
        say "the lab every student is graded with: $out/lab, $(sed -n '1s/^release: \([0-9]* files of commit [0-9a-f]*\).*/\1/p' "$out/logs/release.log")"
        # uncommitted changes of the lab are graded with: say which
        sed -n '2,$p' "$out/logs/release.log" | grep -v 'is a git repository' | sed 's/^release: //'
    else
        say "the lab every student is graded with: $out/lab (made by the first run of this class)"
    fi
    local stages seed switch
    stages=$(resolve_stages "$stages_arg")
    if [ -f "$out/class.conf" ]; then
        [ -z "$stages_arg" ] || [ "$stages" = "$(conf_get stages)" ] ||
            die "$out was graded with stages '$(conf_get stages)', not '$stages': use another --out"
        [ -z "$seed_arg" ] || [ "$seed_arg" = "$(conf_get seed)" ] ||
            die "$out was graded with seed $(conf_get seed), not $seed_arg: use another --out"
        for switch in $switches_on; do
            [ "$(conf_get "$switch")" = 1 ] ||
                die "$out was graded without $(switch_variable "$switch")=1: use another --out"
        done
    else
        # one seed for the whole class: everyone gets the same inputs
        seed=${seed_arg:-$(($(od -An -N4 -tu4 /dev/urandom) % 1000000007))}
        {
            echo "seed=$seed"
            echo "stages=$stages"
            for switch in $grade_switches; do
                switch=${switch%%:*}
                case " $switches_on " in *" $switch "*) echo "$switch=1" ;; *) echo "$switch=0" ;; esac
            done
            echo "created=$(date -u '+%Y-%m-%d %H:%M UTC')"
        } >"$out/class.conf.tmp" && mv "$out/class.conf.tmp" "$out/class.conf" || die "cannot write $out/class.conf"
    fi
    echo "submissions=$(cd "$submissions" && pwd)" >"$out/submissions.conf"
    # the Slurm tasks run this copy, so that editing the lab cannot change a running class
    rm -rf "$out/bin/class.tmp" && mkdir -p "$out/bin/class.tmp" && cp "$here"/class/*.sh "$out/bin/class.tmp/" &&
        rm -rf "$out/bin/class" && mv "$out/bin/class.tmp" "$out/bin/class" || die "cannot copy the class scripts to $out/bin"
    cp "$script" "$out/bin/class.sh.tmp" && mv "$out/bin/class.sh.tmp" "$out/bin/class.sh"
}

# ================================================================ intake
# unpack ARCHIVE DEST: unpack a student's archive, or print why not and fail.
# Every member is listed first; the listing decides; the unpacked tree is
# checked again for anything but plain files and folders.
unpack() {
    local a=$1 d=$2 list names types bad total count
    local size
    size=$(stat -c %s "$a" 2>/dev/null) || { echo "cannot read ${a##*/}"; return 1; }
    [ "$size" -le $MAX_ARCHIVE_BYTES ] || { echo "${a##*/} is larger than $((MAX_ARCHIVE_BYTES >> 20)) MiB"; return 1; }
    case $a in
        *.zip)
            command -v unzip >/dev/null || { echo "${a##*/} is a zip file and unzip is not installed here: install unzip or ask for a tarball"; return 1; }
            names=$(unzip -Z1 "$a" 2>/dev/null) || { echo "not a readable zip file"; return 1; }
            types=$(unzip -Z "$a" 2>/dev/null | sed '1,2d;$d' | cut -c1)
            total=$(unzip -Zt "$a" 2>/dev/null | sed -n 's/.* \([0-9]*\) bytes uncompressed.*/\1/p')
            ;;
        *)
            list=$(tar --numeric-owner -tvf "$a" 2>"$d.err") ||
                { echo "not a readable tar archive: $(grep -v '^tar: Exiting' "$d.err" | head -n 1)"; rm -f "$d.err"; return 1; }
            rm -f "$d.err"
            names=$(tar -tPf "$a" 2>/dev/null)
            types=$(cut -c1 <<<"$list")
            total=$(awk '{ s += $3 } END { printf "%.0f\n", s }' <<<"$list")
            ;;
    esac
    count=$(wc -l <<<"$names")
    [ "$count" -le $MAX_MEMBERS ] || { echo "holds more than $MAX_MEMBERS files"; return 1; }
    [ "${total:-0}" -le $MAX_UNPACKED_BYTES ] || { echo "unpacks to more than $((MAX_UNPACKED_BYTES >> 20)) MiB"; return 1; }
    bad=$(grep -m 1 '^/' <<<"$names")
    [ -z "$bad" ] || { echo "member with an absolute path: $bad"; return 1; }
    bad=$(grep -m 1 -E '(^|/)\.\.(/|$)' <<<"$names")
    [ -z "$bad" ] || { echo "member outside the archive's folder: $bad"; return 1; }
    bad=$(grep -c -v -E '^[-d]?$' <<<"$types")
    if [ "$bad" != 0 ]; then
        bad=$(paste -d' ' <(printf '%s\n' "$types") <(printf '%s\n' "$names") | grep -v -E '^[-d] ' | head -n 1)
        echo "member that is a link or a special file: ${bad#? }"
        return 1
    fi
    mkdir -p "$d"
    case $a in
        *.zip) list=$(unzip -q -o "$a" -d "$d" 2>&1) ;;
        *) list=$(tar -xf "$a" -C "$d" --no-same-owner --no-same-permissions 2>&1) ;;
    esac || { echo "could not unpack: $(head -n 1 <<<"$list")"; return 1; }
    bad=$(find "$d" ! -type f ! -type d -print -quit)
    [ -z "$bad" ] || { echo "member that is a link or a special file: ${bad#"$d"/}"; return 1; }
    chmod -R u+rwX "$d"
}

# find_kernels ROOT: "stage<TAB>path" for each stage with a kernel.cu, as
# exercises/<stage>/kernel.cu or <stage>/kernel.cu under ROOT, or under
# ROOT's only folder when ROOT holds nothing else.
find_kernels() {
    local root=$1 s f found="" only
    for s in $(conf_get stages); do
        for f in "$root/exercises/$s/kernel.cu" "$root/$s/kernel.cu"; do
            if [ -e "$f" ] || [ -L "$f" ]; then
                printf '%s\t%s\n' "$s" "$f"
                found=1
                break
            fi
        done
    done
    if [ -z "$found" ]; then
        only=$(find "$root" -mindepth 1 -maxdepth 1 ! -name '.*' | head -n 2)
        if [ "$(wc -l <<<"$only")" = 1 ] && [ -d "$only" ] && [ ! -L "$only" ]; then
            find_kernels "$only"
        fi
    fi
}

# intake NAME: the student's kernel.cu files into OUT/students/NAME/kernels/,
# or a row saying why there are none. Returns 0 when there is something to grade.
intake() {
    local name=$1 entry dir=$out/students/$1 src root why kernels s f real rootreal
    entry=$(entry_of "$name")
    src=$(conf_get_sub)/$entry
    rm -rf "$dir" "$out/work/$name.unpacked"
    mkdir -p "$dir/kernels"
    # a folder, or the instructor's link to one: its kernel.cu files must
    # lie in the folder it names
    if [ -d "$src" ]; then
        root=$src
    else
        root=$out/work/$name.unpacked
        if ! why=$(unpack "$src" "$root"); then
            rm -rf "$root"
            write_row "$name" refused "$entry: $why"
            return 1
        fi
    fi
    kernels=$(find_kernels "$root")
    if [ -z "$kernels" ]; then
        write_row "$name" "no submission" \
            "$entry has no kernel.cu of a graded stage (expected exercises/NN_name/kernel.cu or NN_name/kernel.cu)"
        rm -rf "$out/work/$name.unpacked"
        return 1
    fi
    rootreal=$(readlink -f "$root")
    while IFS=$'\t' read -r s f; do
        real=$(readlink -f "$f")
        why=""
        if [ -L "$f" ] || [ ! -f "$f" ]; then
            why="${f#"$root"/} is not a plain file (a link?): submit the file itself"
        elif [[ $real != "$rootreal"/* ]]; then
            why="${f#"$root"/} lies outside the submission"
        elif [ "$(stat -c %s "$f")" -gt $MAX_KERNEL_BYTES ]; then
            why="${f#"$root"/} is larger than $((MAX_KERNEL_BYTES >> 10)) KiB"
        fi
        if [ -n "$why" ]; then
            rm -rf "$out/work/$name.unpacked" "$dir/kernels"
            write_row "$name" refused "$entry: $why"
            return 1
        fi
        mkdir -p "$dir/kernels/$s" && cp "$f" "$dir/kernels/$s/kernel.cu" || {
            write_row "$name" refused "$entry: cannot read ${f#"$root"/}"
            return 1
        }
    done <<<"$kernels"
    rm -rf "$out/work/$name.unpacked"
    return 0
}
conf_get_sub() { sed -n 's/^submissions=//p' "$out/submissions.conf"; }

# ========================================================== confinement
# A class is graded confined (judge/README.md, "The threat model"): every
# student's make grade asks for it, and here, before anyone is graded, the
# class stops (exit 5) where the machine cannot confine, unless the
# instructor said --unconfined (UNCONFINED=1), which every row then notes.
# The probe is confine itself, built from the class's lab with the C
# compiler (CLASS_CONFINE names another program to probe: tests).
check_confinement() {
    # (not confinement, but as much a matter of trust: each grade.json says
    # "judged": false too)
    [ "$(conf_get judge)" = 1 ] ||
        say "the grades are NOT the judge's (JUDGE=0): a student's own process makes their results"
    if [ "$(conf_get unconfined)" = 1 ]; then
        say "the runs are NOT confined (UNCONFINED=1): every row of the gradebook says so"
        return 0
    fi
    [ "$(conf_get sanitize)" = 1 ] &&
        { printf 'class: SANITIZE=1 runs compute-sanitizer, which cannot run confined: add UNCONFINED=1 to grade with it\n' >&2; exit 5; }
    local probe=${CLASS_CONFINE:-$out/bin/confine} said
    if [ -z "${CLASS_CONFINE:-}" ]; then
        ${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -I"$out/lab/confine" "$out"/lab/confine/*.c -o "$probe" \
            >"$out/logs/confine-build.log" 2>&1 || probe=""
    fi
    said=$([ -n "$probe" ] && "$probe" --probe 2>&1)
    case $said in
        "confined: "*) say "the runs are confined: ${said#confined: }" ;;
        *)
            printf 'class: cannot confine the students'"'"' runs here (%s); grade the class where user namespaces and Landlock work, or say UNCONFINED=1 (every row then says so)\n' \
                "${said:-confine could not be built: $(tail -n 1 "$out/logs/confine-build.log" 2>/dev/null)}" >&2
            exit 5
            ;;
    esac
}

