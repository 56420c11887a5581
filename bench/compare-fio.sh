#!/usr/bin/env bash
# Runs fio and ioscope side by side, on this machine, in one run, and prints
# IOPS and mean latency of each and the ratio ioscope/fio. See bench/README.md.
#
# Usage: bench/compare-fio.sh [--runtime=SECONDS] [--no-build] [--keep]
#   --runtime=S   seconds per measurement (default 10; env RUNTIME works too)
#   --no-build    use the ioscope binary as it is (IOSCOPE=path to choose one)
#   --keep        keep the work directory (the JSON results and the data file)
# Environment: FIO (default fio), IOSCOPE (default <target>/release/ioscope),
#   BENCH_DIR (work directory, default <target>/bench; must not be tmpfs for
#   the numbers to mean a real file system), CPU (CPU to pin to, default 0),
#   ROWS (the rows to run, space-separated names, default all:
#   null-4k-qd1 null-4k-qd1-lat-log psync-4k-randread-cached
#   psync-4k-randread-rate).
set -euo pipefail

SCRIPT=compare-fio.sh
USAGE_LINES=2,15
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init "$@"
bench_build

if [ "$KEEP" = 0 ]; then
    trap 'rm -f "$work"/*.json "$work"/*.err "$work/cached-256m" "$work"/lat-*.log' EXIT
fi

bench_machine_header

# The cached file: 256 MiB written, then read once so it sits in the page cache.
data="$work/cached-256m"
if [ ! -f "$data" ] || [ "$(stat -c %s "$data")" != $((256 << 20)) ]; then
    echo "+ dd if=/dev/urandom of=$data bs=1M count=256"
    dd if=/dev/urandom of="$data" bs=1M count=256 status=none
fi
echo "+ cat $data > /dev/null"
cat "$data" > /dev/null
echo

# fio drops a file's pages from the cache before a job (invalidate=1, its
# default), which would turn the cached row into a disk benchmark: ask both
# tools not to. An ioscope that does not know the option yet never drops them.
fio_extra=(--invalidate=0)
ioscope_extra=()
if "$IOSCOPE" --parse-only --name=probe --ioengine=null --size=1m --invalidate=0 >/dev/null 2>&1; then
    ioscope_extra=(--invalidate=0)
fi

common=(--output-format=json --time_based "--runtime=$RUNTIME" --numjobs=1 "--cpus_allowed=$CPU")
args_null=(--name=null-4k-qd1 --ioengine=null --rw=read --bs=4k --iodepth=1 --size=1g)
args_psync=(--name=psync-4k-randread-cached --ioengine=psync --rw=randread --bs=4k --iodepth=1
            --size=256m "--filename=$data")

# wanted ROW: whether ROWS asks for this row (all rows when ROWS is empty).
wanted() {
    [ -z "${ROWS:-}" ] || [[ " $ROWS " == *" $1 "* ]]
}

if wanted null-4k-qd1; then
    measure null-4k-qd1 fio "$FIO" "${args_null[@]}" "${common[@]}"
    measure null-4k-qd1 ioscope "$IOSCOPE" "${args_null[@]}" "${common[@]}"
fi
# The same row with a latency log line per I/O (slat, clat and lat files;
# the null engine has no slat): what each tool's throughput loses to
# recording it. The files are written after the measured run, and removed.
if wanted null-4k-qd1-lat-log; then
    measure null-4k-qd1-lat-log fio "$FIO" "${args_null[@]}" "${common[@]}" \
        "--write_lat_log=$work/lat-fio"
    measure null-4k-qd1-lat-log ioscope "$IOSCOPE" "${args_null[@]}" "${common[@]}" \
        "--write_lat_log=$work/lat-ioscope"
    rm -f "$work"/lat-*.log
fi
if wanted psync-4k-randread-cached; then
    measure psync-4k-randread-cached fio "$FIO" "${args_psync[@]}" "${fio_extra[@]}" "${common[@]}"
    measure psync-4k-randread-cached ioscope "$IOSCOPE" "${args_psync[@]}" "${ioscope_extra[@]}" "${common[@]}"
fi
echo

table_header
wanted null-4k-qd1 && table_row null-4k-qd1 "null engine, 4k, QD1, latency tracked"
wanted null-4k-qd1-lat-log && table_row null-4k-qd1-lat-log "the same, write_lat_log (a line per I/O)"
wanted psync-4k-randread-cached && table_row psync-4k-randread-cached "psync 4k randread, 256 MiB cached file"
if wanted null-4k-qd1 && wanted null-4k-qd1-lat-log; then
    echo
    echo "== IOPS kept with write_lat_log (with / without; 1.000 = logging costs nothing)"
    for tool in fio ioscope; do
        printf "  %-8s %s\n" "$tool" \
            "$(ratio "${iops[null-4k-qd1-lat-log.$tool]:--}" "${iops[null-4k-qd1.$tool]:--}")"
    done
fi
# The rate-limited row: a cap both tools should land on, and the CPU each
# spends holding to it (usr+sys, percent of one CPU).
if wanted psync-4k-randread-rate; then
    rate_target=20000
    echo
    echo "== psync 4k randread, cached file, rate_iops=$rate_target: achieved rate and CPU"
    for tool in fio ioscope; do
        exe=$FIO extra=("${fio_extra[@]}")
        [ "$tool" = ioscope ] && exe=$IOSCOPE extra=("${ioscope_extra[@]}")
        out="$work/psync-4k-randread-rate.$tool.json"
        if "$exe" --name=psync-4k-randread-rate "${args_psync[@]:1}" "${extra[@]}" "${common[@]}" \
            "--rate_iops=$rate_target" > "$out" 2> "$out.err"; then
            python3 - "$out" "$rate_target" "$tool" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
target = float(sys.argv[2])
iops = j["read"]["iops"]
print(f"  {sys.argv[3]:<8} {iops:10.1f} IOPS  ({(iops / target - 1) * 100:+.2f}% of target)  "
      f"cpu {j['usr_cpu'] + j['sys_cpu']:.1f}%")
EOF
        else
            echo "   $tool failed on psync-4k-randread-rate:" >&2
            sed 's/^/   | /' "$out.err" >&2 || true
            failed=1
        fi
    done
fi
if [ "$KEEP" = 1 ]; then
    echo
    echo "JSON results kept in $work"
fi
exit "$failed"
