#!/usr/bin/env bash
# ioscope against fio's own t/io_uring, built from the source of the
# installed fio, in one run: io_uring NOPs at QD1 and at depth 128 (32 per
# submit, 32 per reap), and 4k random reads on /dev/zram0 at the same two
# depths. Each row runs t/io_uring (as it comes, which measures nothing,
# and with -t1, its latency histogram), `ioscope peak` (the minimal loop)
# and an ioscope job (latency, histograms and bandwidth tracked as by default),
# plus the raw kernel NOP loop on the NOP rows, taking turns PAIRS times,
# every one pinned to one CPU. Prints each tool's median IOPS, its cost per
# I/O in ns (1e9 / IOPS) and the difference from t/io_uring in ns per I/O:
# the median of the rounds' differences, each round run back to back.
#
# Usage: bench/qd1.sh [--runtime=SECONDS] [--no-build] [--keep]
#   --runtime=S   seconds per measurement (default 5, at least 2)
#   --no-build    use the binaries as they are
#   --keep        keep the outputs in the work directory
# Environment: PAIRS (rounds, default 5), CPU (default 0), FIO_SRC (a fio
#   source tree; default: bench/fio-source.sh target/fio-src, which needs
#   root for apt), T_IO_URING (a built t/io_uring), IOSCOPE, RAW_NOP,
#   BENCH_DIR. The zram rows need root and the zram module; they take
#   /dev/zram0 under the tests' flock /tmp/ioscope-zram.lock.
set -euo pipefail

SCRIPT=qd1.sh
USAGE_LINES=2,21
RUNTIME=${RUNTIME:-5}
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init "$@"
# t/io_uring prints its rate at the end of each whole second, and nothing
# for a run of one.
[ "$RUNTIME" -ge 2 ] || { echo "$SCRIPT: --runtime must be 2 or more (t/io_uring reports once a second)" >&2; exit 2; }
bench_build
RAW_NOP=${RAW_NOP:-$target/release/examples/raw_nop}
PAIRS=${PAIRS:-5}
if [ "$BUILD" = 1 ]; then
    echo "+ cargo build --release -p ioscope-engine --example raw_nop"
    (cd "$repo" && cargo build --release -p ioscope-engine --example raw_nop)
fi
[ -x "$RAW_NOP" ] || { echo "$SCRIPT: no raw_nop at $RAW_NOP (cargo build --release -p ioscope-engine --example raw_nop)" >&2; exit 1; }

# t/io_uring from fio's source: the Debian source package of the installed
# fio, configured and built once in its tree (a few seconds).
if [ -z "${T_IO_URING:-}" ]; then
    src=${FIO_SRC:-$("$repo/bench/fio-source.sh" "$target/fio-src")}
    T_IO_URING=$src/t/io_uring
    if [ ! -x "$T_IO_URING" ]; then
        echo "+ (cd $src && ./configure --disable-native && make t/io_uring)"
        (cd "$src" && ./configure --disable-native > "$work/configure.log" 2>&1 \
            && make t/io_uring > "$work/make.log" 2>&1) \
            || { echo "$SCRIPT: building t/io_uring failed:" >&2; tail -n 20 "$work/configure.log" "$work/make.log" >&2; exit 1; }
    fi
fi

cleanup() {
    zram_release
    if [ "$KEEP" = 0 ]; then rm -f "$work"/qd1-*.out "$work"/qd1-*.err; fi
}
trap cleanup EXIT

bench_machine_header
echo "t/io_uring: $T_IO_URING"
echo "rounds:  $PAIRS, the tools taking turns in each"
echo

pin=(taskset -c "$CPU")

# run_tool ROW TOOL CMD...: runs one measurement, prints and records its
# IOPS in iops[ROW.TOOL.ROUND]; a failure marks the run failed.
run_tool() {
    local row=$1 tool=$2 round=$3
    shift 3
    local out=$work/qd1-$row-$tool.out err=$work/qd1-$row-$tool.err v=
    echo "+ [$row $round/$PAIRS] $*"
    if "$@" > "$out" 2> "$err"; then
        case $tool in
            # t/io_uring prints a line a second; the mean of them is its rate.
            t_io_uring | t_io_uring_lat) v=$(awk -F'[=,]' '/^IOPS=/ {
                    x = $2; m = 1
                    if (x ~ /M$/) m = 1e6; else if (x ~ /K$/) m = 1e3
                    sub(/[MK]$/, "", x); s += x * m; n++ }
                    END { if (n) printf "%.0f", s / n }' "$out") ;;
            peak) v=$(sed -n 's/^Average IOPS=\([0-9.]*\).*/\1/p' "$out" | tail -n1) ;;
            job) v=$(json_iops "$out") ;;
            raw) v=$(sed -n 's/^raw NOP IOPS=\([0-9]*\).*/\1/p' "$out") ;;
        esac
    fi
    if [ -z "$v" ]; then
        echo "   $tool failed:" >&2
        sed 's/^/   | /' "$out" "$err" >&2 || true
        failed=1
        v=0
    fi
    iops[$row.$tool.$round]=$v
}

# json_iops FILE: jobs[0].read.iops of an ioscope JSON result.
json_iops() {
    if [ "$JSONTOOL" = jq ]; then
        jq -r '.jobs[0].read.iops' "$1"
    else
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' "$1"
    fi
}

# row NAME DEPTH BATCH [FILE]: the round-robin measurements of one row.
row() {
    local name=$1 depth=$2 batch=$3 file=${4:-}
    local tio=("$T_IO_URING" -d "$depth" -s "$batch" -c "$batch" -r "$RUNTIME")
    local peak=("$IOSCOPE" peak -d "$depth" -s "$batch" -c "$batch" -r "$RUNTIME")
    # Uniform random offsets without a random map, as t/io_uring draws them.
    local job=("$IOSCOPE" --name="$name" --rw=randread --norandommap=1 --bs=4k --iodepth="$depth"
        --iodepth_batch_submit="$batch" --iodepth_batch_complete_min="$batch"
        --time_based --runtime="$RUNTIME" --output-format=json)
    if [ -z "$file" ]; then
        tio+=(-N1)
        peak+=(-N1)
        job+=(--ioengine=nop --size=1g)
    else
        # t/io_uring's defaults: polled (no poll queues here: off), fixed
        # buffers, registered files, O_DIRECT, random.
        tio+=(-p0 -B1 -F1 -O1 -R1 "$file")
        peak+=(-p0 -B1 -F1 "$file")
        job+=(--ioengine=io_uring --direct=1 --fixedbufs=1 --registerfiles=1 --filename="$file")
    fi
    local round
    for round in $(seq "$PAIRS"); do
        run_tool "$name" t_io_uring "$round" "${pin[@]}" "${tio[@]}"
        run_tool "$name" t_io_uring_lat "$round" "${pin[@]}" "${tio[@]}" -t1
        run_tool "$name" peak "$round" "${pin[@]}" "${peak[@]}"
        run_tool "$name" job "$round" "${pin[@]}" "${job[@]}"
        if [ -z "$file" ]; then
            run_tool "$name" raw "$round" "${pin[@]}" "$RAW_NOP" "$RUNTIME" "$depth" "$batch"
        fi
    done
    echo
}

# ns_per_io IOPS: 1e9 / IOPS with one decimal.
ns_per_io() {
    awk -v x="$1" 'BEGIN { if (x > 0) printf "%.1f", 1e9 / x; else print "-" }'
}

# report NAME LABEL TOOLS...: median IOPS, ns per I/O and the median of the
# rounds' differences from t/io_uring, per tool.
report() {
    local name=$1 label=$2
    shift 2
    echo "== $label"
    printf "%-44s %12s %10s %16s %14s\n" "tool" "IOPS" "ns per I/O" "- t/io_uring ns" "IOPS ratio"
    local tool round runs diffs ratios
    for tool in t_io_uring "$@"; do
        runs=() diffs=() ratios=()
        for round in $(seq "$PAIRS"); do
            local v=${iops[$name.$tool.$round]} t=${iops[$name.t_io_uring.$round]}
            runs+=("$v")
            diffs+=("$(awk -v a="$v" -v b="$t" 'BEGIN { if (a > 0 && b > 0) printf "%.1f", 1e9 / a - 1e9 / b; else print "nan" }')")
            ratios+=("$(ratio "$v" "$t")")
        done
        local med; med=$(median "${runs[@]}")
        local d r
        d=$(printf '%s\n' "${diffs[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
        r=$(median "${ratios[@]}")
        local what
        case $tool in
            t_io_uring) what="t/io_uring (fio $("$FIO" --version | sed 's/^fio-//'))"; d="-"; r="-" ;;
            t_io_uring_lat) what="t/io_uring -t1 (latency histogram)" ;;
            peak) what="ioscope peak" ;;
            job) what="ioscope job (latency tracked)" ;;
            raw) what="raw kernel NOP loop (examples/raw_nop)" ;;
        esac
        printf "%-44s %12s %10s %16s %14s\n" "$what" "$(num "$med")" "$(ns_per_io "$med")" "$d" "$r"
    done
    echo
}

row nop-qd1 1 1
row nop-d128 128 32

zram_skip=
if zram_take $((256 << 20)); then
    zram_fill
    row zram-qd1 1 1 /dev/zram0
    row zram-d128 128 32 /dev/zram0
fi
zram_release

echo "(medians of $PAIRS rounds; '- t/io_uring ns': the median of the rounds' differences in ns per I/O, negative is cheaper than t/io_uring)"
report nop-qd1 "io_uring NOP, QD1" t_io_uring_lat peak job raw
report nop-d128 "io_uring NOP, depth 128, 32 per submit and per reap" t_io_uring_lat peak job raw
if [ -n "$zram_skip" ]; then
    echo "== zram rows skipped: $zram_skip"
else
    report zram-qd1 "io_uring 4k randread /dev/zram0, QD1, O_DIRECT, fixed buffers, registered file" t_io_uring_lat peak job
    report zram-d128 "io_uring 4k randread /dev/zram0, depth 128, 32/32, O_DIRECT, fixed buffers, registered file" t_io_uring_lat peak job
fi
[ "$KEEP" = 0 ] || echo "outputs kept in $work"
exit "$failed"
