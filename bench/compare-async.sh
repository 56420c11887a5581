#!/usr/bin/env bash
# The asynchronous engines side by side with fio, on this machine, in one
# run: io_uring and libaio 4k random reads on /dev/zram0 (QD1; QD32 in
# batches of 8; io_uring also with fixed buffers and registered files), the
# null engine at QD1 and QD32, and io_uring NOPs at depth 128 in batches of
# 32 (ioscope's nop engine, `ioscope peak -N1` and the raw kernel NOP loop;
# fio has no NOP engine). Prints IOPS, mean latency and ioscope/fio.
#
# Usage: bench/compare-async.sh [--runtime=SECONDS] [--no-build] [--keep]
#   --runtime=S   seconds per measurement (default 10; env RUNTIME works too)
#   --no-build    use the binaries as they are (IOSCOPE=path, RAW_NOP=path)
#   --keep        keep the JSON results in the work directory
# Environment: FIO, IOSCOPE, RAW_NOP (default <target>/release/examples/raw_nop),
#   BENCH_DIR (default <target>/bench), CPU (the CPU every tool is pinned to,
#   default 0), PAIRS (fio and ioscope take turns this many times on each
#   row, which then shows each tool's median; default 1), NOP_PAIRS
#   (alternating peak/raw NOP runs, default 3).
#   The zram rows need root and the zram module; they take
#   /dev/zram0 under the flock /tmp/ioscope-zram.lock (the tests' lock),
#   set it up at 256 MiB, fill it, and reset it when done.
set -euo pipefail

SCRIPT=compare-async.sh
USAGE_LINES=2,21
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init "$@"
bench_build
RAW_NOP=${RAW_NOP:-$target/release/examples/raw_nop}
NOP_PAIRS=${NOP_PAIRS:-3}
if [ "$BUILD" = 1 ]; then
    echo "+ cargo build --release -p ioscope-engine --example raw_nop"
    (cd "$repo" && cargo build --release -p ioscope-engine --example raw_nop)
fi

# zram_take, zram_fill and zram_release come from lib.sh; the zram rows
# are skipped (not the whole run) where zram cannot be had.
cleanup() {
    zram_release
    if [ "$KEEP" = 0 ]; then rm -f "$work"/*.json "$work"/*.err; fi
}
trap cleanup EXIT

bench_machine_header
common=(--output-format=json --time_based "--runtime=$RUNTIME" --numjobs=1 "--cpus_allowed=$CPU")
batch8=(--iodepth=32 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8)

# ---------------------------------------------------------------- zram rows
zram_rows=(uring-qd1 uring-qd32-b8 uring-qd32-b8-fixed libaio-qd1 libaio-qd32-b8)
declare -A zram_label=(
    [uring-qd1]="io_uring 4k randread zram, QD1"
    [uring-qd32-b8]="io_uring 4k randread zram, QD32 batch 8/8"
    [uring-qd32-b8-fixed]="io_uring ... QD32 batch 8/8 fixedbufs registerfiles"
    [libaio-qd1]="libaio 4k randread zram, QD1"
    [libaio-qd32-b8]="libaio 4k randread zram, QD32 batch 8/8"
)
zram_skip=
if zram_take $((256 << 20)); then
    zram_fill
    echo
    zram=(--filename=/dev/zram0 --rw=randread --bs=4k --direct=1)
    for row in "${zram_rows[@]}"; do
        case $row in
            uring-qd1) a=(--ioengine=io_uring --iodepth=1) ;;
            uring-qd32-b8) a=(--ioengine=io_uring "${batch8[@]}") ;;
            uring-qd32-b8-fixed) a=(--ioengine=io_uring "${batch8[@]}" --fixedbufs=1 --registerfiles=1) ;;
            libaio-qd1) a=(--ioengine=libaio --iodepth=1) ;;
            libaio-qd32-b8) a=(--ioengine=libaio "${batch8[@]}") ;;
        esac
        measure_both "$row" "--name=$row" "${zram[@]}" "${a[@]}" "${common[@]}"
    done
    echo
fi
zram_release

# ---------------------------------------------------------------- null rows
null=(--ioengine=null --rw=randread --bs=4k --size=1g)
measure_both null-qd1 --name=null-qd1 "${null[@]}" --iodepth=1 "${common[@]}"
measure_both null-qd32 --name=null-qd32 "${null[@]}" --iodepth=32 "${common[@]}"
echo

# ---------------------------------------------------------------- NOP rows
# fio 3.33 has no NOP engine (t/io_uring -N1 has one, but distributions do
# not ship t/io_uring: bench/qd1.sh builds it from fio's source and compares
# against it): these rows compare ioscope with the raw kernel loop.
nop=(--ioengine=nop --rw=randread --bs=4k --size=1g --iodepth=128
     --iodepth_batch_submit=32 --iodepth_batch_complete_min=32)
measure nop ioscope "$IOSCOPE" --name=nop "${nop[@]}" "${common[@]}"

# peak and the raw loop take turns, NOP_PAIRS times: this VM's rate drifts
# by tens of percent from one second to the next (other guests share the
# host), and a pair run back to back sees the same drift. The ratio quoted
# is the median of the pairs' ratios.
peak_cmd=("$IOSCOPE" peak -N1 -d128 -s32 -c32 -r "$RUNTIME" --cpus "$CPU")
raw_cmd=(taskset -c "$CPU" "$RAW_NOP" "$RUNTIME")
peak_runs=() raw_runs=() pair_ratios=()
for pair in $(seq "$NOP_PAIRS"); do
    echo "+ [pair $pair/$NOP_PAIRS] ${peak_cmd[*]}"
    p=
    if "${peak_cmd[@]}" > "$work/peak.out" 2> "$work/peak.err"; then
        p=$(sed -n 's/^Average IOPS=\([0-9.]*\).*/\1/p' "$work/peak.out" | tail -n1)
    fi
    if [ -z "$p" ]; then
        echo "   ioscope peak failed:" >&2; sed 's/^/   | /' "$work/peak.out" "$work/peak.err" >&2 || true
        failed=1; break
    fi
    echo "+ [pair $pair/$NOP_PAIRS] ${raw_cmd[*]}   (cargo run --release -p ioscope-engine --example raw_nop -- $RUNTIME)"
    r=
    if [ -x "$RAW_NOP" ] && "${raw_cmd[@]}" > "$work/raw_nop.out" 2> "$work/raw_nop.err"; then
        r=$(sed -n 's/^raw NOP IOPS=\([0-9]*\).*/\1/p' "$work/raw_nop.out")
    fi
    if [ -z "$r" ]; then
        echo "   raw_nop failed or missing at $RAW_NOP" >&2; failed=1; break
    fi
    peak_runs+=("$p"); raw_runs+=("$r"); pair_ratios+=("$(ratio "$p" "$r")")
    echo "   peak $(num "$p")  raw $(num "$r")  ratio ${pair_ratios[-1]}"
done
peak_iops=$(median "${peak_runs[@]}")
raw_iops=$(median "${raw_runs[@]}")
pair_ratio=$(median "${pair_ratios[@]}")
rm -f "$work/peak.out" "$work/peak.err" "$work/raw_nop.out" "$work/raw_nop.err"
echo

# ---------------------------------------------------------------- tables
[ "${PAIRS:-1}" = 1 ] || echo "(each row: the median of $PAIRS runs per tool, the tools taking turns)"
table_header
for row in "${zram_rows[@]}"; do
    if [ -n "$zram_skip" ]; then
        printf "%-58s %s\n" "${zram_label[$row]}" "skipped: $zram_skip"
    else
        table_row "$row" "${zram_label[$row]}"
    fi
done
table_row null-qd1 "null engine 4k randread, QD1"
table_row null-qd32 "null engine 4k randread, QD32"
printf "$TABLE_FMT" "io_uring NOP, depth 128 batch 32 (ioscope nop engine)" "no NOP (1)" \
    "$(num "${iops[nop.ioscope]}")" "-" "-" "$(num "${lat[nop.ioscope]}")" "-"
echo "(1) fio $("$FIO" --version | sed 's/^fio-//') has no NOP engine; the NOP rows are compared with the raw kernel loop below."
echo
echo "== io_uring NOP, depth 128, 32 per submit and per reap (ratio = IOPS / raw kernel NOP loop)"
echo "   peak and raw: median IOPS of $NOP_PAIRS alternating runs; pair ratios: ${pair_ratios[*]:-none}"
nfmt="%-58s %12s %8s\n"
printf "$nfmt" "row" "IOPS" "ratio"
printf "$nfmt" "ioscope --ioengine=nop (full job: latency, histograms)" "$(num "${iops[nop.ioscope]}")" "$(ratio "${iops[nop.ioscope]}" "$raw_iops")"
printf "$nfmt" "ioscope peak -N1 -d128 -s32 -c32 (median of the pairs' ratios)" "$(num "$peak_iops")" "$pair_ratio"
printf "$nfmt" "raw kernel NOP loop (examples/raw_nop)" "$(num "$raw_iops")" "$(ratio "$raw_iops" "$raw_iops")"
if [ "$KEEP" = 1 ]; then
    echo
    echo "JSON results kept in $work"
fi
exit "$failed"
