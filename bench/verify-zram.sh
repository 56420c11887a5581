#!/usr/bin/env bash
# Write-then-verify side by side with fio, on this machine, in one run: 512
# MiB to /dev/zram0 in 64 KiB blocks, direct, io_uring at iodepth 8, once
# per verify method both tools have (crc32c, md5, sha256, xxhash; both
# compute fio's variants, which both write). Prints the write phase's and the
# verify phase's MB/s per tool and ioscope/fio per row: where checksums
# cost more than the device, the cheaper implementation shows.
#
# Usage: bench/verify-zram.sh [--no-build] [--keep]
#   --no-build    use the ioscope binary as it is (IOSCOPE=path to choose one)
#   --keep        keep the JSON results in the work directory
# Environment: FIO, IOSCOPE, BENCH_DIR (default <target>/bench), CPU (the CPU
#   both tools are pinned to, default 0), METHODS (the verify methods, default
#   "crc32c md5 sha256 xxhash"; any both tools have, e.g. "crc16 sha3-256").
#   Needs root and the zram module: it
#   takes /dev/zram0 under the tests' flock, sets it up at 1 GiB and resets
#   it when done; without it, it says why and exits 0 having measured
#   nothing. Each tool's verify phase reads back what that tool wrote.
set -euo pipefail

SCRIPT=verify-zram.sh
USAGE_LINES=2,19
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init "$@"
bench_build
bench_take_zram 1G verify

declare -A bw
# phase_mbps FILE DIR: jobs[0].DIR.bw_bytes (write: the write phase, read:
# the verify phase) of a fio-schema JSON file, in MB/s.
phase_mbps() {
    if [ "$JSONTOOL" = jq ]; then
        jq -r ".jobs[0].$2.bw_bytes / 1e6" "$1"
    else
        python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]["bw_bytes"] / 1e6)' "$1" "$2"
    fi
}
measure_verify() {
    local method=$1 tool=$2 exe=$3 out err
    shift 3
    out="$work/verify-$method.$tool.json"
    err="$work/verify-$method.$tool.err"
    echo "+ $exe $* > $out"
    # In the work directory: fio leaves its verify state files where it runs.
    if (cd "$work" && "$exe" "$@") > "$out" 2> "$err"; then
        bw[$method.$tool.w]=$(phase_mbps "$out" write)
        bw[$method.$tool.r]=$(phase_mbps "$out" read)
    else
        echo "   $tool failed on verify=$method:" >&2
        sed 's/^/   | /' "$err" >&2 || true
        bw[$method.$tool.w]=-
        bw[$method.$tool.r]=-
        failed=1
    fi
}

read -r -a methods <<< "${METHODS:-crc32c md5 sha256 xxhash}"
for m in "${methods[@]}"; do
    job=(--name=verify-$m --filename=/dev/zram0 --rw=write --bs=64k --size=512m --direct=1
         --ioengine=io_uring --iodepth=8 "--verify=$m" --output-format=json "--cpus_allowed=$CPU")
    measure_verify "$m" fio "$FIO" "${job[@]}"
    measure_verify "$m" ioscope "$IOSCOPE" "${job[@]}"
done
rm -f "$work"/local-verify-*-verify.state
echo

fmt="%-26s %10s %12s %8s %10s %12s %8s\n"
echo "== results (MB/s, higher is better; ratio = ioscope / fio)"
printf "$fmt" "verify=" "fio write" "ioscope write" "ratio" "fio check" "ioscope check" "ratio"
for m in "${methods[@]}"; do
    printf "$fmt" "$m" "$(num "${bw[$m.fio.w]}")" "$(num "${bw[$m.ioscope.w]}")" \
        "$(ratio "${bw[$m.ioscope.w]}" "${bw[$m.fio.w]}")" "$(num "${bw[$m.fio.r]}")" \
        "$(num "${bw[$m.ioscope.r]}")" "$(ratio "${bw[$m.ioscope.r]}" "${bw[$m.fio.r]}")"
done
echo "load:    $(uptime | sed 's/.*load average/load average/')"
if [ "$KEEP" = 1 ]; then
    echo
    echo "JSON results kept in $work"
fi
exit "$failed"
