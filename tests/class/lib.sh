# tests/class/lib.sh: making submissions and reading a class's gradebook in
# tests, sourced by each suite of tests/class/ (run.sh, release.sh,
# intake.sh, dirty.sh, check.sh, attackers.sh, gradescope.sh,
# slurm-stand-in.sh, slurm.sh, term.sh).
#   field CSV-LINE N, row OUT NAME, status_of OUT NAME, notes_of OUT NAME,
#   csv_tsv FILE
#   mk DEST FILE, first_submissions SUBS, attackers SUB OUT STAGE
#   class_alone: what each of those suites starts with
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
# mk DEST FILE: FILE copied to DEST, its folders made
mk() { mkdir -p "$(dirname "$1")" && cp "$2" "$1"; }
# first_submissions SUBS: alice, bob and carol of tests/class/run.sh's
# class, which the Slurm tests grade too: alice a folder,
# exercises/NN_name/kernel.cu, the solutions of s1 and s2, and a Makefile
# and a common/gpu.cu that must not reach her copy of the lab; bob a tarball
# with one top folder, NN/kernel.cu, the skeletons; carol a file named
# .tar.gz that is not a tarball
first_submissions() {
    mk "$1/alice/exercises/$s1/kernel.cu" "solutions/$s1/kernel.cu"
    mk "$1/alice/exercises/$s2/kernel.cu" "solutions/$s2/kernel.cu"
    echo 'grade: ; @echo forged' >"$1/alice/Makefile"
    mk "$1/alice/common/gpu.cu" /dev/null
    mk "$tmp/bob/bob-lab/$s1/kernel.cu" "exercises/$s1/kernel.cu"
    mk "$tmp/bob/bob-lab/$s2/kernel.cu" "exercises/$s2/kernel.cu"
    tar -C "$tmp/bob" -czf "$1/bob.tar.gz" bob-lab
    echo "this is not a tarball" >"$1/carol.tar.gz"
}
# attackers SUB OUT STAGE: a class in SUB (graded into OUT) at STAGE, a
# matmul stage: alice with the solution; mallory, whose constructor reaches
# for the gradebook, alice's row and the class folder
# (tests/grader/attacks/class_escape); ivan, who compiles alice's collected
# kernel.cu into his own; ines, who .incbins it and prints it from her
# runner (into her own report)
attackers() {
    mk "$1/alice/$3/kernel.cu" "solutions/$3/kernel.cu"
    mk "$1/mallory/$3/kernel.cu" tests/grader/attacks/class_escape/kernel.cu
    mkdir -p "$1/ivan/$3" "$1/ines/$3"
    printf '#include "../../../../students/alice/kernels/%s/kernel.cu"\n' "$3" >"$1/ivan/$3/kernel.cu"
    printf '#include <stdio.h>\n#include "matmul.h"\n__asm__(".section .rodata\\n.globl stolen\\nstolen:\\n.incbin \\"%s\\"\\n.byte 0\\n.previous");\nextern const char stolen[];\nvoid matmul(const float *A, const float *B, float *C, int n) { puts(stolen); }\n' \
        "$2/students/alice/kernels/$3/kernel.cu" >"$1/ines/$3/kernel.cu"
}
# class_alone: for a suite of class grading's tests (tests/class/run.sh and
# its parts, each a suite of make check), from the lab's root: set -u,
# LC_ALL=C, tests/lib.sh; lab, tmp (removed at the end), cls (built), fake,
# stages, s1, s2, class_stages, have_gpu (1 where nvidia-smi lists a GPU);
# exits when the class program does not build
class_alone() {
    set -u
    export LC_ALL=C
    . tests/lib.sh
    lab=$PWD cls=$PWD/build/grader/class fake=$PWD/tests/class/fake-make
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    if ! out=$(make --no-print-directory -s build/grader/class 2>&1); then
        fail "build/grader/class builds" "$out"
        totals
        exit 1
    fi
    . tools/stages.sh
    stages=$(printf '%s\n' $LAB_STAGES)
    s1=$(sed -n 1p <<<"$stages") s2=$(sed -n 2p <<<"$stages")
    class_stages="$s1 $s2"
    have_gpu=0
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then have_gpu=1; fi
}

# The first student of a FAKE_BUILD_LOG (tests/class/fake-make) built while
# another was graded ("bob while grading alice"), or nothing.
built_while_grading() {
    awk '$2 == "build" { n++; bn[n] = $1; bs[n] = $3; be[n] = $4 }
        $2 == "grade" { m++; gn[m] = $1; gs[m] = $3; ge[m] = $4 }
        END { for (i = 1; i <= n; i++) for (j = 1; j <= m; j++)
                  if (bn[i] != gn[j] && bs[i] < ge[j] && gs[j] < be[i]) { print bn[i] " while grading " gn[j]; exit } }' "$1"
}
