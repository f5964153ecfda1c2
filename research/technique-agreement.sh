#!/usr/bin/env bash
# research/technique-agreement.sh OUTDIR: how often the CPU emulation's word
# on a stage's technique (emu/technique.cc) agrees with the speed tier the
# kernel earns on a GPU, for every kernel of tests/emu/technique.tsv (the
# solutions, the tiers' reference kernels, the public kernels of tests/,
# the reduction ladder, three wrong techniques a stage; its tier column says
# what the GPU gave each, measured or inferred, and from which record).
# Runs tests/emu/technique.sh (each kernel through the one launcher, as make
# grade on the CPU runs it; needs make emu-all), then sets each verdict's
# word beside the tier:
#
#   agree        present and a tier earned (pass, stretch), or missing and
#                none; wrong on the CPU and wrong on the GPU
#   disagree     present and no tier, missing and a tier; wrong on one only
#   cannot tell  a stage without technique lines (08), or correct on the
#                CPU where the GPU found it wrong (what the CPU does not run)
#   no tier known  a kernel never run on a GPU (its word is tested alone)
#
# OUTDIR gets machine.txt, test.log (the test's own lines), logs/ (each
# run's output, its verdict last), agreement.tsv (a line a kernel: name,
# stage, the CPU's word, the GPU's tier, the agreement, measured or
# inferred, the verdict) and summary.txt (the counts). Exit status: 0 done,
# 1 the test failed (its log says which), 2 usage.
set -u
out=${1:-}
[ -n "$out" ] && [ "${out#-}" = "$out" ] || { echo "usage: research/technique-agreement.sh OUTDIR" >&2; exit 2; }
mkdir -p "$out/logs" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.." || exit 2

{
    echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with changes)')"
    echo "$(uname -srm), $(nproc) cores, $(grep -m 1 'model name' /proc/cpuinfo | sed 's/.*: //')"
    echo "$(g++ --version | head -n 1)"
    command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null || echo "no GPU"
    date -u '+%Y-%m-%d %H:%M UTC'
} >"$out/machine.txt"

TECHNIQUE_LOGS=$out/logs tests/emu/technique.sh >"$out/test.log" 2>&1
status=$?

# the CPU's word of one run: present, missing, none (correct, no word) or wrong
awk -F'\t' -v logs="$out/logs" '
    /^#/ || NF < 8 { next }
    {
        verdict = ""
        file = logs "/" $2 "-" $1 ".log"
        while ((getline line < file) > 0) verdict = line
        close(file)
        cpu = "not run"
        if (verdict ~ /^verdict: correct; [^:]* present: /) cpu = "present"
        else if (verdict ~ /^verdict: correct; [^:]* missing: /) cpu = "missing"
        else if (verdict == "verdict: correct") cpu = "none"
        else if (verdict ~ /^verdict: (wrong|refused)/) cpu = "wrong"
        tier = $7
        earned = tier == "pass" || tier == "stretch"
        if (tier == "unknown")
            agree = "no tier known"
        else if ((cpu == "present" && earned) || (cpu == "missing" && tier == "none") || (cpu == "wrong" && tier == "wrong"))
            agree = "agree"
        else if (cpu == "none" || ((cpu == "present" || cpu == "missing") && tier == "wrong"))
            agree = "cannot tell"
        else
            agree = "disagree"
        split($8, how, ":")
        sub(/^verdict: /, "", verdict)
        print $1 "\t" $2 "\t" cpu "\t" tier "\t" agree "\t" how[1] "\t" verdict
    }' tests/emu/technique.tsv >"$out/agreement.tsv"

# the counts: of the technique (a word and a tier), and of correctness (wrong on either side)
awk -F'\t' '
    { kind = ($3 == "wrong" || $4 == "wrong") ? "correctness" : "technique"; n[kind]++; c[kind, $5]++
      c[kind, $5, $6]++ }
    END {
        for (k = 1; k <= 2; k++) {
            kind = k == 1 ? "technique" : "correctness"
            printf "%s: %d kernels: agree %d (measured %d, inferred %d), disagree %d (measured %d, inferred %d), cannot tell %d, no tier known %d\n",
                   kind, n[kind], c[kind, "agree"], c[kind, "agree", "measured"], c[kind, "agree", "inferred"],
                   c[kind, "disagree"], c[kind, "disagree", "measured"], c[kind, "disagree", "inferred"],
                   c[kind, "cannot tell"], c[kind, "no tier known"]
        }
    }' "$out/agreement.tsv" >"$out/summary.txt"
cat "$out/summary.txt"
[ $status = 0 ] || { echo "tests/emu/technique.sh failed: $out/test.log"; exit 1; }
