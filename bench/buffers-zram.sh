#!/usr/bin/env bash
# Large sequential writes side by side with fio, on this machine, in one run:
# 16 MiB blocks to /dev/zram0, direct, through io_uring (or libaio), at
# iodepth 1 and 64, with the default buffer contents (random data scrambled
# a little before every write). Prints MB/s per row, ioscope/fio per row and
# QD64/QD1 per tool: where preparing write buffers costs more than the
# device, the deeper queue gains little.
#
# Usage: bench/buffers-zram.sh [--runtime=SECONDS] [--no-build] [--keep]
#   --runtime=S   seconds per measurement (default 10; env RUNTIME works too)
#   --no-build    use the ioscope binary as it is (IOSCOPE=path to choose one)
#   --keep        keep the JSON results in the work directory
# Environment: FIO, IOSCOPE, BENCH_DIR (default <target>/bench), CPU (the CPU
#   both tools are pinned to, default 0), ENGINE (io_uring or libaio, default
#   io_uring). Needs root and the zram module: it takes /dev/zram0 under the
#   flock /tmp/ioscope-zram.lock (the tests' lock), sets it up at 2 GiB,
#   fills it once, and resets it when done; without it, it says why and
#   exits 0 having measured nothing.
set -euo pipefail

SCRIPT=buffers-zram.sh
USAGE_LINES=2,18
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init "$@"
ENGINE=${ENGINE:-io_uring}
case "$ENGINE" in
    io_uring|libaio) ;;
    *) echo "$SCRIPT: ENGINE must be io_uring or libaio, got '$ENGINE'" >&2; exit 2 ;;
esac

bench_build
bench_take_zram 2G zram16m
# Every measurement then overwrites stored pages, as the first one would
# not on an empty device.
echo "+ dd if=/dev/urandom of=/dev/zram0 bs=16M count=128 oflag=direct"
dd if=/dev/urandom of=/dev/zram0 bs=16M count=128 oflag=direct status=none
echo

declare -A bw
# write_mbps FILE: jobs[0].write.bw_bytes of a fio-schema JSON file, in MB/s.
write_mbps() {
    if [ "$JSONTOOL" = jq ]; then
        jq -r '.jobs[0].write.bw_bytes / 1e6' "$1"
    else
        python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["write"]["bw_bytes"] / 1e6)' "$1"
    fi
}
# measure_bw ROW TOOL EXE ARGS...: one measurement; its write MB/s goes to
# bw[ROW.TOOL] ("-" and failed=1 if it fails).
measure_bw() {
    local row=$1 tool=$2 exe=$3 v
    shift 3
    local out="$work/zram16m-$row.$tool.json"
    echo "+ $exe $* > $out"
    if "$exe" "$@" > "$out" 2> "$work/zram16m-$row.$tool.err" \
        && v=$(write_mbps "$out") && [ -n "$v" ] && [ "$v" != null ]; then
        bw[$row.$tool]=$v
    else
        echo "   $tool failed on $row:" >&2
        sed 's/^/   | /' "$work/zram16m-$row.$tool.err" >&2 || true
        bw[$row.$tool]=-
        failed=1
    fi
}

job=(--filename=/dev/zram0 --rw=write --bs=16m --size=2g --direct=1 "--ioengine=$ENGINE"
     --output-format=json --time_based "--runtime=$RUNTIME" --numjobs=1 "--cpus_allowed=$CPU")
for qd in 1 64; do
    measure_bw "qd$qd" fio "$FIO" "--name=zram16m-qd$qd" "${job[@]}" "--iodepth=$qd"
    measure_bw "qd$qd" ioscope "$IOSCOPE" "--name=zram16m-qd$qd" "${job[@]}" "--iodepth=$qd"
done
echo

fmt="%-44s %12s %12s %12s\n"
echo "== results (MB/s, higher is better; ratio = ioscope / fio)"
printf "$fmt" "row" "fio MB/s" "ioscope MB/s" "ratio"
for qd in 1 64; do
    printf "$fmt" "$ENGINE 16m seq write zram, QD$qd" "$(num "${bw[qd$qd.fio]}")" \
        "$(num "${bw[qd$qd.ioscope]}")" "$(ratio "${bw[qd$qd.ioscope]}" "${bw[qd$qd.fio]}")"
done
printf "$fmt" "QD64 / QD1" "$(ratio "${bw[qd64.fio]}" "${bw[qd1.fio]}")" \
    "$(ratio "${bw[qd64.ioscope]}" "${bw[qd1.ioscope]}")" ""
echo "load:    $(uptime | sed 's/.*load average/load average/')"
if [ "$KEEP" = 1 ]; then
    echo
    echo "JSON results kept in $work"
fi
exit "$failed"
