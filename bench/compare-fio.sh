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
#   the numbers to mean a real file system), CPU (CPU to pin to, default 0).
set -euo pipefail

RUNTIME=${RUNTIME:-10}
BUILD=1
KEEP=0
for a in "$@"; do
    case "$a" in
        --runtime=*) RUNTIME=${a#--runtime=} ;;
        --no-build) BUILD=0 ;;
        --keep) KEEP=1 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "compare-fio.sh: unknown argument '$a' (try --help)" >&2; exit 2 ;;
    esac
done
case "$RUNTIME" in
    ''|*[!0-9]*|0) echo "compare-fio.sh: --runtime wants a whole number of seconds, got '$RUNTIME'" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
FIO=${FIO:-fio}
IOSCOPE=${IOSCOPE:-$target/release/ioscope}
CPU=${CPU:-0}
work=${BENCH_DIR:-$target/bench}

command -v "$FIO" >/dev/null || { echo "compare-fio.sh: fio not found (apt-get install fio)" >&2; exit 1; }
if command -v jq >/dev/null; then
    JSONTOOL=jq
elif command -v python3 >/dev/null; then
    JSONTOOL=python3
else
    echo "compare-fio.sh: needs jq or python3 to read the JSON results" >&2
    exit 1
fi

if [ "$BUILD" = 1 ]; then
    echo "+ cargo build --release --bin ioscope"
    (cd "$repo" && cargo build --release --bin ioscope)
fi
[ -x "$IOSCOPE" ] || { echo "compare-fio.sh: no ioscope binary at $IOSCOPE" >&2; exit 1; }

mkdir -p "$work"
if [ "$KEEP" = 0 ]; then
    trap 'rm -f "$work"/*.json "$work"/*.err "$work/cached-256m"' EXIT
fi

# read.iops and read mean latency (lat_ns, or clat_ns when lat is not
# tracked) from a fio-schema JSON file, as "IOPS LAT_NS".
extract() {
    if [ "$JSONTOOL" = jq ]; then
        jq -r '.jobs[0].read as $r
               | [$r.iops,
                  (if ($r.lat_ns.N // 0) > 0 then $r.lat_ns.mean else $r.clat_ns.mean end)]
               | map(tostring) | join(" ")' "$1"
    else
        python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
lat = r["lat_ns"] if r.get("lat_ns", {}).get("N", 0) > 0 else r["clat_ns"]
print(r["iops"], lat["mean"])
EOF
    fi
}

echo "== machine"
echo "host:    $(uname -n), kernel $(uname -r), $(nproc) CPUs"
echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
echo "fio:     $("$FIO" --version)"
echo "ioscope: $("$IOSCOPE" --version 2>&1 | head -n1)"
echo "runtime: ${RUNTIME}s per measurement, pinned to CPU $CPU"
echo

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
names=(null-4k-qd1 psync-4k-randread-cached)
labels=("null engine, 4k, QD1, latency tracked" "psync 4k randread, 256 MiB cached file")
args_null=(--name=null-4k-qd1 --ioengine=null --rw=read --bs=4k --iodepth=1 --size=1g)
args_psync=(--name=psync-4k-randread-cached --ioengine=psync --rw=randread --bs=4k --iodepth=1
            --size=256m "--filename=$data")

failed=0
declare -A iops lat
for i in 0 1; do
    name=${names[$i]}
    if [ "$i" = 0 ]; then rowargs=("${args_null[@]}"); else rowargs=("${args_psync[@]}"); fi
    for tool in fio ioscope; do
        if [ "$tool" = fio ]; then
            exe=$FIO; extra=("${fio_extra[@]}")
        else
            exe=$IOSCOPE; extra=("${ioscope_extra[@]}")
        fi
        if [ "$i" = 0 ]; then extra=(); fi
        out="$work/$name.$tool.json"
        echo "+ $exe ${rowargs[*]} ${extra[*]} ${common[*]} > $out"
        if "$exe" "${rowargs[@]}" "${extra[@]}" "${common[@]}" > "$out" 2> "$work/$name.$tool.err" \
            && read -r a b < <(extract "$out") && [ -n "${b:-}" ]; then
            iops[$name.$tool]=$a
            lat[$name.$tool]=$b
        else
            echo "   $tool failed on $name:" >&2
            sed 's/^/   | /' "$work/$name.$tool.err" >&2 || true
            iops[$name.$tool]=-
            lat[$name.$tool]=-
            failed=1
        fi
    done
done
echo

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3f", a / b }'
}
num() {
    awk -v a="$1" 'BEGIN { if (a == "-") print "-"; else printf "%.0f", a }'
}
fmt="%-40s %12s %12s %8s %14s %14s %8s\n"
echo "== results (ratio = ioscope / fio; IOPS: higher is better, latency: lower is better)"
printf "$fmt" "row" "fio IOPS" "ioscope IOPS" "ratio" "fio lat ns" "ioscope lat ns" "ratio"
for i in 0 1; do
    name=${names[$i]}
    fi_=${iops[$name.fio]}; ii=${iops[$name.ioscope]}
    fl=${lat[$name.fio]}; il=${lat[$name.ioscope]}
    printf "$fmt" "${labels[$i]}" "$(num "$fi_")" "$(num "$ii")" "$(ratio "$ii" "$fi_")" \
        "$(num "$fl")" "$(num "$il")" "$(ratio "$il" "$fl")"
done
if [ "$KEEP" = 1 ]; then
    echo
    echo "JSON results kept in $work"
fi
exit "$failed"
