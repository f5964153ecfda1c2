#!/usr/bin/env bash
# tests/profile/run.sh: tests of make profile that need no GPU and no ncu.
#
# The program behind tools/profile.sh (build/tools/profile-report, from
# profile/*.c; built here first) reads hand-written CSV files in fixtures/,
# laid out as `ncu --import R --csv --page raw --print-units base` prints
# them (--summary); tools/profile.sh runs against a stand-in ncu (bin/ncu,
# put first on PATH) and a stand-in program (fake-driver), through every way
# it can end: counters shown, ncu missing, counters restricted
# (ERR_NVGPUCTRPERM), the program failing its checks, no GPU, nothing
# profiled, stored reference values, an ncu without the optional metrics.
# The verdicts are checked on stored counter tables modelled on real runs
# (stage 04 on an H100, 06, 03): a verdict must never contradict its own
# table. Pages that lack metrics, a kernel name or values (n/a), and calls
# of several kernels are read as well. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
here=tests/profile
fixtures=$here/fixtures

passed=0 failed=0
check() { # check NAME STATUS [DETAILS]: STATUS 0 is a pass
    if [ "$2" = 0 ]; then
        passed=$((passed + 1))
        printf 'ok    %s\n' "$1"
    else
        failed=$((failed + 1))
        printf 'FAIL  %s\n' "$1"
        [ -n "${3:-}" ] && printf '%s\n' "$3" | tail -n 20 | sed 's/^/      /'
    fi
    return 0
}
ok() { echo $?; } # the status of the last test command, for check

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

program=build/tools/profile-report
out=$(make --no-print-directory -s "$program" 2>&1); st=$?
check "the program behind tools/profile.sh builds without a warning" "$([ $st = 0 ] && [ -z "$out" ]; ok)" "$out"
[ -x "$program" ] || { echo; echo "$passed passed, $failed failed"; exit 1; }

# summary FIXTURE: what the parser makes of a fixture
summary() { "$program" --summary "$fixtures/$1.csv"; }
# has SUMMARY KEY VALUE: the summary says KEY is VALUE
has() { awk -F'\t' -v k="$2" -v v="$3" '$1 == k && $2 == v { found = 1 } END { exit !found }' <<<"$1"; }
# flat TEXT: the text on one line, runs of spaces and newlines made one space
# (the report wraps its sentences)
flat() { tr -s ' \n' '  ' <<<"$1"; }
# lacks SUMMARY KEY: the summary has no line for KEY
lacks() { ! awk -F'\t' -v k="$2" '$1 == k { found = 1 } END { exit !found }' <<<"$1"; }

echo "== the metrics asked for"
list=$("$program" --metrics)
missing=""
for m in l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
    l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum \
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum smsp__sass_inst_executed_op_shared_ld.sum \
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
    sm__warps_active.avg.pct_of_peak_sustained_active dram__throughput.avg.pct_of_peak_sustained_elapsed \
    launch__registers_per_thread launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic \
    launch__block_size launch__grid_size; do
    grep -q "\(^\|,\)$m\(,\|$\)" <<<"$list" || missing="$missing $m"
done
check "every metric the table needs is asked for" "$([ -z "$missing" ]; ok)" "missing:$missing"
check "the metric list is one comma-separated line, no spaces" \
    "$([ "$(wc -l <<<"$list")" = 1 ] && ! grep -q ' ' <<<"$list"; ok)" "$list"
base=$("$program" --metrics base)
check "the bytes per request are asked for, and left out of the base list" \
    "$(grep -q 'sm__sass_data_bytes_mem_global_op_ld.sum' <<<"$list" &&
       ! grep -q 'sm__sass_data_bytes' <<<"$base" && grep -q 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum' <<<"$base"; ok)" "$base"

echo "== parsing the raw page"
s=$(summary matmul_naive)
check "01 solution: one launch, its name and launch configuration" \
    "$(has "$s" launches 1 && has "$s" kernel "matmul_naive(const float *, const float *, float *, int)" &&
       has "$s" block "(32, 32, 1)" && has "$s" grid "(64, 64, 1)" && has "$s" registers 28 && has "$s" smem 0; ok)" "$s"
check "01 solution: 3 load and 4 store sectors per request (thousands separators read)" \
    "$(has "$s" gld_spr 3.00 && has "$s" gst_spr 4.00 && has "$s" gld_sectors 2415919104; ok)" "$s"
check "01 solution: no shared memory: wavefronts per instruction 'none'" \
    "$(has "$s" shld_wpi none && has "$s" shst_wpi none; ok)" "$s"
check "01 solution: occupancy, theoretical occupancy, DRAM, time" \
    "$(has "$s" occupancy 97.8 && has "$s" theoretical 100.0 && has "$s" dram 9.3 && has "$s" time_us 11452.2; ok)" "$s"

s=$(summary matmul_rows_mapped)
check "rows mapped: 32 store sectors per request, 16.5 load" \
    "$(has "$s" gst_spr 32.00 && has "$s" gld_spr 16.50; ok)" "$s"

s=$(summary transpose_naive)
check "naive transpose: template name with commas kept whole, 32 store sectors" \
    "$(has "$s" kernel "void transpose_naive<32, 8>(const float *, float *, int, int)" && has "$s" gst_spr 32.00 &&
       has "$s" gld_spr 4.00 && has "$s" block "(32, 8, 1)"; ok)" "$s"

s=$(summary transpose_tile32)
check "tile [32][32]: 32 shared-load wavefronts per instruction, conflicts counted" \
    "$(has "$s" shld_wpi 32.00 && has "$s" shld_conflicts 65011712 && has "$s" shst_wpi 1.00 && has "$s" smem 4096; ok)" "$s"

s=$(summary transpose_padded)
check "tile [32][33]: 1 wavefront per instruction, 0 conflicts, 4224 bytes" \
    "$(has "$s" shld_wpi 1.00 && has "$s" shld_conflicts 0 && has "$s" shst_conflicts 0 && has "$s" smem 4224; ok)" "$s"

s=$(summary reduction_two_launches)
check "two launches in one call: counts summed" \
    "$(has "$s" launches 2 && has "$s" gld_requests 524321 && has "$s" gld_spr 4.00 && has "$s" shld_inst 8456; ok)" "$s"
check "two launches: occupancy and DRAM weighted by time, time summed" \
    "$(has "$s" occupancy 82.0 && has "$s" dram 77.3 && has "$s" time_us 44.0; ok)" "$s"
check "two launches: the launch configuration is the longest launch's" \
    "$(has "$s" grid "(1056, 1, 1)"; ok)" "$s"

s=$(summary odd_units)
check "CRLF, ==PROF== lines, doubled quotes in a kernel name" \
    "$(has "$s" launches 1 && has "$s" kernel 'odd_kernel<"a,b">(float *, int)'; ok)" "$s"
check "prefixed units scaled back (Ksector, Krequest, usecond, Kbyte/block)" \
    "$(has "$s" gld_spr 4.00 && has "$s" gst_spr 32.00 && has "$s" time_us 12.5 && has "$s" smem 4224; ok)" "$s"
check "n/a leaves the metric out" "$(lacks "$s" dram; ok)" "$s"

s=$(summary matmul_coarse_h100)
check "float4 loads and stores: 16 sectors and 512 bytes per request" \
    "$(has "$s" gld_spr 16.00 && has "$s" gld_bpr 512.00 && has "$s" gst_bpr 512.00 && has "$s" gld_bytes 536870912; ok)" "$s"
check "conflicts per shared instruction beside the wavefronts: 3.12 on stores, 0.00 on loads" \
    "$(has "$s" shst_wpi 4.12 && has "$s" shst_cpi 3.12 && has "$s" shld_wpi 3.00 && has "$s" shld_cpi 0.00; ok)" "$s"
s=$(summary matmul_coarse_nobytes)
check "no bytes columns: no bytes per request" "$(lacks "$s" gld_bpr && lacks "$s" gst_bpr && has "$s" gld_spr 16.00; ok)" "$s"

s=$(summary no_launches)
check "header and units only: 0 launches" "$([ "$s" = "launches	0" ]; ok)" "$s"
s=$(printf '==PROF== nothing\nsome output\n' | "$program" --summary -)
check "no CSV at all: 0 launches" "$([ "$s" = "launches	0" ]; ok)" "$s"

s=$(summary missing_metrics)
check "only the global columns: their ratios, no line for the metrics ncu did not give" \
    "$(has "$s" gld_spr 4.00 && has "$s" gst_spr 4.00 && lacks "$s" shld_wpi && lacks "$s" shld_conflicts &&
       lacks "$s" occupancy && lacks "$s" theoretical && lacks "$s" time_us && lacks "$s" registers && lacks "$s" smem; ok)" "$s"
s=$(summary no_kernel_name)
check "no Kernel Name, Block Size or Grid Size columns: an empty name, block and grid from the launch metrics" \
    "$(has "$s" kernel "" && has "$s" block 256 && has "$s" grid 4096 && has "$s" registers 30 && has "$s" time_us 5.1; ok)" "$s"
s=$(summary na_values)
check "n/a times: occupancy a plain mean; an n/a rate left out of its mean; n/a counts not summed" \
    "$(has "$s" occupancy 70.0 && has "$s" dram 42.0 && lacks "$s" time_us && has "$s" gst_sectors 1024 &&
       lacks "$s" gst_requests && lacks "$s" gst_spr; ok)" "$s"
check "n/a on the longest launch's registers: the earlier launch's value" "$(has "$s" registers 16; ok)" "$s"
s=$(summary three_kernels)
check "three kernels in one call: the longest one's name, block, grid and shared memory" \
    "$(has "$s" launches 3 && has "$s" kernel "void scan_sums<1024>(float *, int)" && has "$s" block "(1024, 1, 1)" &&
       has "$s" grid "(1, 1, 1)" && has "$s" smem 8192; ok)" "$s"
check "three kernels: registers from an earlier launch where the longest has n/a" "$(has "$s" registers 32; ok)" "$s"
check "three kernels: counts summed over all three, occupancy weighted by time" \
    "$(has "$s" gld_requests 2010 && has "$s" gld_sectors 8040 && has "$s" shld_wpi 2.48 && has "$s" occupancy 38.0 &&
       has "$s" time_us 5.0; ok)" "$s"
s=$(summary shared_zero_wavefronts)
check "shared instructions without wavefronts: 0.00 per instruction, not 'none'" \
    "$(has "$s" shld_wpi 0.00 && has "$s" shld_cpi 0.00 && has "$s" shst_wpi 1.00; ok)" "$s"
s=$("$program" --summary "$tmp/absent.csv" 2>&1); st=$?
check "--summary of a file that is not there: exit 2 and says so" "$([ $st = 2 ] && grep -q "cannot read" <<<"$s"; ok)" "$s"

echo "== tools/profile.sh with a stand-in ncu"
mkdir -p "$tmp/apps"
for f in "$fixtures"/*.csv; do
    ln -s "$PWD/$here/fake-driver" "$tmp/apps/$(basename "$f" .csv)"
done
ln -s "$PWD/$here/fake-driver" "$tmp/apps/no_fixture"
export PATH="$PWD/$here/bin:$PATH" FAKE_NCU_FIXTURES="$PWD/$fixtures" PROFILE_DIR="$tmp/out"
export PROFILE_EXPECTED="$tmp/expected.tsv"
unset NCU FAKE_NCU_MODE FAKE_APP_STATUS FAKE_GPU
apps=$tmp/apps

out=$(tools/profile.sh 01_naive "$apps/matmul_rows_mapped" "$apps/matmul_naive" 2>&1); st=$?
check "table: exit 0, header with size, GPU and ncu version" \
    "$([ $st = 0 ] && grep -q "one call at n=2048 on NVIDIA H200 (Nsight Compute 2099.1.0.0)" <<<"$out"; ok)" "$out"
check "table: stores 32.0 beside the reference's 4.0, ideal 4 for 4-byte stores" \
    "$(grep -Eq '^  global stores: sectors per request +32\.0 +4\.0  4 for 4-byte stores$' <<<"$out"; ok)" "$out"
check "table: every row in plain words" \
    "$(for r in "global loads: sectors per request" "shared loads: wavefronts per instruction" \
        "shared loads: bank conflicts" "shared stores: bank conflicts" "achieved occupancy" \
        "DRAM throughput (% of peak)" "registers per thread" "shared memory per block" \
        "threads per block" "blocks in the grid"; do grep -qF "  $r" <<<"$out" || exit 1; done; ok)" "$out"
check "table: the verdict names the uncoalesced writes" \
    "$(grep -q "32.0 sectors per request (ideal 4 for 4-byte stores): the writes are not coalesced" <<<"$(flat "$out")"; ok)" "$out"
check "table: says the clocks were locked to base and which times are graded" \
    "$(grep -q "clocks locked to base" <<<"$out" && grep -q "boost clocks and are the ones graded" <<<"$out"; ok)" "$out"
check "table: names the report file" \
    "$(grep -q "Full report: $tmp/out/.*matmul_rows_mapped.ncu-rep" <<<"$out"; ok)" "$out"
check "table: no shared memory shows as 'none'" \
    "$(grep -Eq '^  shared loads: bank conflicts +none +none' <<<"$out"; ok)" "$out"

out=$(tools/profile.sh --brief 01_naive "$apps/matmul_rows_mapped" "$apps/matmul_naive" 2>&1); st=$?
check "brief: 2 to 4 lines, exit 0" \
    "$(n=$(wc -l <<<"$out"); [ $st = 0 ] && [ "$n" -ge 2 ] && [ "$n" -le 4 ]; ok)" "$out"
check "brief: global stores: 32.0 sectors per request (ideal 4 for 4-byte stores): the writes are not coalesced" \
    "$(grep -qx "global stores: 32.0 sectors per request (ideal 4 for 4-byte stores): the writes are not coalesced" <<<"$out"; ok)" "$out"
check "brief: says it is a hint, not scored" "$(grep -q "not scored" <<<"$out"; ok)" "$out"

out=$(tools/profile.sh --brief 05_bank_conflicts "$apps/transpose_tile32" "$apps/transpose_padded" 2>&1)
check "brief: the [32][32] tile's 32-way bank conflicts" \
    "$(grep -qx "32-way bank conflicts on shared loads (32.0 wavefronts per instruction, ideal 1): pad the tile to \[32\]\[33\], this stage's lesson" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh --brief 05_bank_conflicts "$apps/transpose_padded" "$apps/transpose_padded" 2>&1)
check "brief: a kernel like the reference gets one line of what is right" \
    "$(grep -q "^global accesses coalesced, no shared-memory bank conflicts, occupancy 87% (reference 87%)$" <<<"$out" &&
       [ "$(wc -l <<<"$out")" = 2 ]; ok)" "$out"
out=$(tools/profile.sh --brief 02_temp_accumulator "$apps/matmul_naive" "$apps/matmul_naive" 2>&1)
check "brief: a kernel equal to its reference is not blamed for broadcasts or DRAM" \
    "$(grep -q "^global accesses coalesced, occupancy 98% (reference 98%)$" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 04_transpose "$apps/transpose_naive" 2>&1); st=$?
check "no reference anywhere: says so, still judges against the ideal" \
    "$([ $st = 0 ] && grep -q "reference: none: no solution here" <<<"$out" &&
       grep -q "the writes are not coalesced" <<<"$(flat "$out")"; ok)" "$out"
out=$(tools/profile.sh 01_naive "$apps/matmul_naive" -- --n 512 2>&1)
check "driver arguments after -- reach the program" "$(grep -q "one call at n=512 on" <<<"$out"; ok)" "$out"

out=$(tools/profile.sh 01_naive "$apps/matmul_naive" "$apps/no_fixture" 2>&1); st=$?
check "a reference that cannot be measured: exit 0, says so and where its log is, no reference column" \
    "$([ $st = 0 ] && grep -qF "reference: $apps/no_fixture could not be measured (see $tmp/out/" <<<"$out" &&
       grep -Eq '^  global stores: sectors per request +4\.0 +-  4 for 4-byte stores$' <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 01_naive "$apps/matmul_naive" "$apps/matmul_naive" 2>&1)
yours=$(ls "$tmp/out" | grep 'matmul_naive\.tsv$'); theirs=$(ls "$tmp/out" | grep 'matmul_naive-reference\.tsv$')
check "a reference that is the same program: its files get their own names (-reference)" \
    "$([ -n "$yours" ] && [ -n "$theirs" ]; ok)" "$(ls "$tmp/out")"
check "the summary left for gpu-check.sh: launches, ratios, then gpu, size, knob and ncu" \
    "$(s=$(cat "$tmp/out/$yours"); has "$s" launches 1 && has "$s" gst_spr 4.00 && has "$s" gpu "NVIDIA H200" &&
       has "$s" size n=2048 && has "$s" knob "" && has "$s" ncu 2099.1.0.0; ok)" "$(cat "$tmp/out/$yours")"
out=$(tools/profile.sh 01_naive "$apps/matmul_naive" "$apps/matmul_naive" extra 2>&1); st=$?
check "a word after the reference that is not --: exit 2 and the usage" "$([ $st = 2 ] && grep -q "usage:" <<<"$out"; ok)" "$out"

echo "== pages that lack something, and calls of several kernels"
out=$(tools/profile.sh 01_naive "$apps/missing_metrics" 2>&1); st=$?
check "missing metrics: exit 0, n/a in their rows, the global rows judged" \
    "$([ $st = 0 ] && grep -Eq '^  shared loads: wavefronts per instruction +n/a +-' <<<"$out" &&
       grep -Eq '^  achieved occupancy \(% of the SM.s warps\) +n/a +-  as high as the launch allows$' <<<"$out" &&
       grep -Eq '^  time of the call under ncu +n/a' <<<"$out" && grep -q "^  Global accesses coalesced\.$" <<<"$out" &&
       ! grep -q "occupancy [0-9]" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh --brief 01_naive "$apps/missing_metrics" 2>&1)
check "missing metrics, brief: what the counters there show, and the hint line" \
    "$([ "$(wc -l <<<"$out")" = 2 ] && grep -qx "global accesses coalesced" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 01_naive "$apps/no_kernel_name" 2>&1); st=$?
check "no kernel name: exit 0, the launch counted, block and grid from the launch metrics" \
    "$([ $st = 0 ] && grep -qF "  yours:     $apps/no_kernel_name: , 1 launch" <<<"$out" &&
       grep -Eq '^  threads per block +256 +-' <<<"$out" && grep -Eq '^  blocks in the grid +4096 +-' <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 01_naive "$apps/na_values" 2>&1); st=$?
check "n/a values: exit 0, stores with no requests shown n/a, and no word on coalescing" \
    "$([ $st = 0 ] && grep -Eq '^  global stores: sectors per request +n/a' <<<"$out" && ! grep -q "coalesced" <<<"$out" &&
       grep -q "^  Occupancy 70%\.$" <<<"$out" &&
       grep -Eq '^  DRAM throughput \(% of peak\) +42%' <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 07_reduction "$apps/three_kernels" "$apps/reduction_two_launches" 2>&1); st=$?
check "three kernels: the longest one named, 3 launches, the note on what is summed" \
    "$([ $st = 0 ] && grep -qF "  yours:     $apps/three_kernels: scan_sums<1024>, 3 launches" <<<"$out" &&
       grep -qF "(several launches in one call: counts summed" <<<"$out" &&
       grep -Eq '^  shared memory per block +8192 B' <<<"$out"; ok)" "$out"
out=$(tools/profile.sh --brief 03_tiled "$apps/shared_zero_wavefronts" 2>&1); st=$?
check "0 wavefronts per shared instruction: no bank conflicts claimed, no nonsense degree" \
    "$([ $st = 0 ] && ! grep -q -- "-way" <<<"$out" && grep -qx "no shared-memory bank conflicts" <<<"$out"; ok)" "$out"

echo "== verdicts that agree with their table (counters as the issue quotes them)"
# stage 04's solution on an H100, against itself (make profile EX=04 SOLUTION=1)
out=$(tools/profile.sh 04_transpose "$apps/transpose_tile32_h100" "$apps/transpose_tile32_h100" 2>&1)
f=$(flat "$out")
check "04 on an H100: 32.5 wavefronts per shared load are named 32-way conflicts, shared with the reference" \
    "$(grep -qF "32-way bank conflicts on shared loads (32.5 wavefronts per instruction, ideal 1), as in the reference: stage 05 removes them." <<<"$f"; ok)" "$out"
check "04 on an H100: no line claims there are no shared-memory bank conflicts" \
    "$(! grep -q "no shared-memory bank conflicts" <<<"$out" && grep -q "no bank conflicts on shared stores" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh --brief 04_transpose "$apps/transpose_tile32_h100" "$apps/transpose_tile32_h100" 2>&1)
check "04 on an H100, brief: the conflicts first, then what is right" \
    "$([ "$(sed -n 1p <<<"$out")" = "32-way bank conflicts on shared loads (32.5 wavefronts per instruction, ideal 1), as in the reference: stage 05 removes them" ] &&
       [ "$(sed -n 2p <<<"$out")" = "global accesses coalesced, no bank conflicts on shared stores, occupancy 94% (reference 94%)" ]; ok)" "$out"
out=$(PROFILE_EXPECTED=profile/expected.tsv tools/profile.sh --brief 04_transpose "$apps/transpose_tile32_h100" 2>&1)
check "04 against the lab's stored H200 values: the same conflicts, as in the reference" \
    "$(grep -q "^32-way bank conflicts on shared loads (32.5 wavefronts per instruction, ideal 1), as in the reference" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh --brief 04_transpose "$apps/transpose_tile32_h100" 2>&1)
check "04 with no reference: the conflicts are blamed, and stage 05 named" \
    "$(grep -qx "32-way bank conflicts on shared loads (32.5 wavefronts per instruction, ideal 1): stage 05 removes them" <<<"$out"; ok)" "$out"

# stage 06's solution: float4 global accesses, 4.12 wavefronts per shared store
out=$(tools/profile.sh 06_coarsening "$apps/matmul_coarse_h100" "$apps/matmul_coarse_h100" 2>&1)
f=$(flat "$out")
check "06: the ideal of float4 loads is 16 sectors per request, from ncu's bytes per request" \
    "$(grep -Eq '^  global loads: sectors per request +16\.0 +16\.0  16 for 16-byte loads or fewer$' <<<"$out" &&
       grep -qF "16-byte loads and 16-byte stores, from ncu's bytes per request" <<<"$f" &&
       ! grep -q "not coalesced" <<<"$out"; ok)" "$out"
check "06: 4.12 wavefronts per shared store are 4-way conflicts, shared with the reference" \
    "$(grep -qF "4-way bank conflicts on shared stores (4.1 wavefronts per instruction, ideal 1), as in the reference" <<<"$f"; ok)" "$out"
check "06: 3.0 wavefronts per shared load with 1,686 conflicts are the float4 width, not conflicts" \
    "$(grep -qF "shared loads: 3.0 wavefronts per instruction, none from bank conflicts." <<<"$f" &&
       grep -qF "no bank conflicts on shared loads" <<<"$f" && ! grep -q "no shared-memory bank conflicts" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 06_coarsening "$apps/matmul_coarse_nobytes" 2>&1)
check "06 without bytes per request: the width comes from the stage, and the report says so" \
    "$(grep -Eq '^  global loads: sectors per request +16\.0 +-  16 for 16-byte loads or fewer$' <<<"$out" &&
       grep -qF "from stage 06's solution (ncu gave no bytes per request)" <<<"$(flat "$out")"; ok)" "$out"
out=$(tools/profile.sh --brief 06_coarsening "$apps/matmul_coarse_strided" 2>&1)
check "06 with strided 4-byte loads: 16 sectors per request are not excused by the stage's float4" \
    "$(grep -qx "global loads: 16.0 sectors per request (ideal 4 for 4-byte loads): the reads are not coalesced" <<<"$out"; ok)" "$out"
out=$(FAKE_NCU_MODE=old tools/profile.sh 06_coarsening "$apps/matmul_coarse_nobytes" 2>&1); st=$?
check "an ncu without the bytes metrics: asked again without them, the width from the stage" \
    "$([ $st = 0 ] && grep -qF "ncu gave no bytes per request" <<<"$(flat "$out")"; ok)" "$out"

# stage 03's solution: 1.9 million store conflicts counted, 1.11 wavefronts
out=$(tools/profile.sh 03_tiled "$apps/matmul_tiled_h200" "$apps/matmul_tiled_h200" 2>&1)
f=$(flat "$out")
check "03: 1.11 wavefronts per shared store are conflict-free in effect, and the counted conflicts explained" \
    "$(grep -qF "shared stores: 1.11 wavefronts per instruction: conflict-free in effect." <<<"$f" &&
       grep -qF "the 1,892,252 conflicts ncu counts cost 0.11 wavefronts per instruction" <<<"$f" &&
       ! grep -q -- "-way bank conflicts" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh --brief 03_tiled "$apps/matmul_tiled_h200" "$apps/matmul_tiled_h200" 2>&1)
check "03, brief: one line of what is right, no explanation of counters it does not show" \
    "$([ "$(wc -l <<<"$out")" = 2 ] &&
       grep -qx "global accesses coalesced, no shared-memory bank conflicts, occupancy 98% (reference 98%)" <<<"$out"; ok)" "$out"

echo "== ncu missing, counters restricted, nothing to profile"
out=$(NCU=/nonexistent/ncu tools/profile.sh 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "ncu missing: exit 0 and one line saying so" \
    "$([ $st = 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "ncu) is not installed here" <<<"$out"; ok)" "$out"
out=$(NCU=/nonexistent/ncu tools/profile.sh --brief 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "ncu missing, brief: exit 0, one line" "$([ $st = 0 ] && [ "$(wc -l <<<"$out")" = 1 ]; ok)" "$out"
out=$(NCU=/nonexistent/ncu tools/profile.sh --expected 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "ncu missing, --expected: exit 1 (nothing can be stored)" "$([ $st = 1 ]; ok)" "$out"

out=$(FAKE_NCU_MODE=perm tools/profile.sh 01_naive "$apps/matmul_naive" "$apps/matmul_naive" 2>&1); st=$?
check "ERR_NVGPUCTRPERM: exit 0 and one line (after the progress line)" "$([ $st = 0 ] && [ "$(wc -l <<<"$out")" = 2 ]; ok)" "$out"
check "ERR_NVGPUCTRPERM: names the module option and root / CAP_SYS_ADMIN" \
    "$(grep -q "ERR_NVGPUCTRPERM" <<<"$out" && grep -q "NVreg_RestrictProfilingToAdminUsers=0" <<<"$out" &&
       grep -q "CAP_SYS_ADMIN" <<<"$out"; ok)" "$out"
out=$(FAKE_NCU_MODE=perm tools/profile.sh --brief 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "ERR_NVGPUCTRPERM, brief: exit 0, one line" "$([ $st = 0 ] && [ "$(wc -l <<<"$out")" = 1 ]; ok)" "$out"

out=$(FAKE_APP_STATUS=1 tools/profile.sh 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "kernel fails its checks: exit 1, says so, shows the failure, points to make run" \
    "$([ $st = 1 ] && grep -q "failed (wrong result); make it pass its checks first" <<<"$out" &&
       grep -q "make run EX=01" <<<"$out" && grep -q "FAILED" <<<"$out"; ok)" "$out"
out=$(FAKE_APP_STATUS=1 tools/profile.sh --brief 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "kernel fails its checks, brief: one line" "$([ $st = 1 ] && [ "$(wc -l <<<"$out")" = 1 ]; ok)" "$out"
out=$(FAKE_APP_STATUS=3 tools/profile.sh 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "no GPU: exit 3 and says so" "$([ $st = 3 ] && grep -q "no usable CUDA GPU" <<<"$out"; ok)" "$out"
out=$(FAKE_NCU_MODE=empty tools/profile.sh 01_naive "$apps/matmul_naive" 2>&1); st=$?
check "no kernel profiled: exit 1, shows ncu's warning" \
    "$([ $st = 1 ] && grep -q "measured no kernel" <<<"$out" && grep -q "No kernels were profiled" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 01_naive "$apps/no_launches" 2>&1); st=$?
check "a report with no launches: exit 1" "$([ $st = 1 ] && grep -q "measured no kernel" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 2>&1); st=$?
check "no arguments: exit 2 and the usage" "$([ $st = 2 ] && grep -q "usage:" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 01_naive "$tmp/absent" 2>&1); st=$?
check "a program that is not there: exit 2, says build it" "$([ $st = 2 ] && grep -q "make" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh --expected 01_naive "$apps/matmul_naive" "$apps/matmul_naive" 2>&1); st=$?
check "--expected with a reference: exit 2" "$([ $st = 2 ]; ok)" "$out"

echo "== stored reference values (profile/expected.tsv)"
tools/profile.sh --expected 01_naive "$apps/matmul_naive" >/dev/null 2>&1
tools/profile.sh --expected 01_naive "$apps/matmul_naive" >/dev/null 2>&1
FAKE_GPU="NVIDIA H100" tools/profile.sh --expected 01_naive "$apps/matmul_naive" >/dev/null 2>&1
tools/profile.sh --expected 05_bank_conflicts "$apps/transpose_padded" >/dev/null 2>&1
file=$(cat "$PROFILE_EXPECTED" 2>&1)
check "--expected writes stage, GPU, key, value lines" \
    "$(grep -q "^01_naive	NVIDIA H200	gst_spr	4.00$" <<<"$file" &&
       grep -q "^05_bank_conflicts	NVIDIA H200	shld_wpi	1.00$" <<<"$file"; ok)" "$file"
check "--expected again replaces that stage and GPU, keeps the others" \
    "$([ "$(grep -c "^01_naive	NVIDIA H200	gst_spr	" <<<"$file")" = 1 ] &&
       grep -q "^01_naive	NVIDIA H100	gst_spr	4.00$" <<<"$file"; ok)" "$file"
check "--expected stores the date and the ncu version, not the raw sums" \
    "$(grep -q "^01_naive	NVIDIA H200	date	[0-9-]*$" <<<"$file" && grep -q "	ncu	2099.1.0.0$" <<<"$file" &&
       ! grep -q "_sectors	" <<<"$file"; ok)" "$file"
check "every line is a comment or has four fields" \
    "$(awk -F'\t' '!/^#/ && NF != 4 { bad = 1 } END { exit bad }' "$PROFILE_EXPECTED"; ok)" "$file"
out=$(tools/profile.sh 01_naive "$apps/matmul_rows_mapped" 2>&1)
check "no solution: the stored values are the reference" \
    "$(grep -q "reference: the solution, stored in" <<<"$out" &&
       grep -Eq '^  global stores: sectors per request +32\.0 +4\.0  4 for 4-byte stores$' <<<"$out"; ok)" "$out"
out=$(FAKE_GPU="NVIDIA A100" tools/profile.sh 01_naive "$apps/matmul_rows_mapped" 2>&1)
check "another GPU: the first stored GPU's values, with a warning" \
    "$(grep -q "on NVIDIA H100: occupancy and DRAM differ between GPUs" <<<"$out"; ok)" "$out"
out=$(tools/profile.sh 01_naive "$apps/matmul_rows_mapped" -- --n 512 2>&1)
check "another size than the stored one: says at which size they were measured" \
    "$(grep -q "at n=2048" <<<"$out"; ok)" "$out"
check "the lab's own profile/expected.tsv: comments or four fields a line" \
    "$(awk -F'\t' '!/^#/ && NF != 4 { bad = 1 } END { exit bad }' profile/expected.tsv; ok)"

echo
echo "$passed passed, $failed failed"
[ $failed = 0 ]
