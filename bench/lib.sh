# Shared by the bench/compare-*.sh scripts (sourced, not run): arguments,
# tool discovery, the machine header, running one measurement, reading
# fio-schema JSON, and the results table. See bench/README.md.
#
# A script sets SCRIPT (its name for messages) and USAGE_LINES (the sed range
# of its header comment that --help prints), then calls bench_init "$@".

# bench_init ARGS...: parses --runtime=S --no-build --keep --help and sets
# RUNTIME BUILD KEEP repo target FIO IOSCOPE CPU work JSONTOOL.
bench_init() {
    RUNTIME=${RUNTIME:-10}
    BUILD=1
    KEEP=0
    local a
    for a in "$@"; do
        case "$a" in
            --runtime=*) RUNTIME=${a#--runtime=} ;;
            --no-build) BUILD=0 ;;
            --keep) KEEP=1 ;;
            -h|--help) sed -n "${USAGE_LINES}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) echo "$SCRIPT: unknown argument '$a' (try --help)" >&2; exit 2 ;;
        esac
    done
    case "$RUNTIME" in
        ''|*[!0-9]*|0) echo "$SCRIPT: --runtime wants a whole number of seconds, got '$RUNTIME'" >&2; exit 2 ;;
    esac

    repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    target=${CARGO_TARGET_DIR:-$repo/target}
    FIO=${FIO:-fio}
    IOSCOPE=${IOSCOPE:-$target/release/ioscope}
    CPU=${CPU:-0}
    work=${BENCH_DIR:-$target/bench}

    command -v "$FIO" >/dev/null || { echo "$SCRIPT: fio not found (apt-get install fio)" >&2; exit 1; }
    if command -v jq >/dev/null; then
        JSONTOOL=jq
    elif command -v python3 >/dev/null; then
        JSONTOOL=python3
    else
        echo "$SCRIPT: needs jq or python3 to read the JSON results" >&2
        exit 1
    fi
    mkdir -p "$work"
    failed=0
    declare -gA iops lat
}

# bench_build [CARGO ARGS...]: cargo build --release --bin ioscope (and the
# extra targets given) unless --no-build; then checks the binary is there.
bench_build() {
    if [ "$BUILD" = 1 ]; then
        echo "+ cargo build --release --bin ioscope $*"
        (cd "$repo" && cargo build --release --bin ioscope "$@")
    fi
    [ -x "$IOSCOPE" ] || { echo "$SCRIPT: no ioscope binary at $IOSCOPE" >&2; exit 1; }
}

bench_machine_header() {
    echo "== machine"
    echo "host:    $(uname -n), kernel $(uname -r), $(nproc) CPUs"
    echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
    echo "fio:     $("$FIO" --version)"
    echo "ioscope: $("$IOSCOPE" --version 2>&1 | head -n1)"
    echo "runtime: ${RUNTIME}s per measurement, pinned to CPU $CPU"
    echo
}

# extract FILE: jobs[0].read.iops and the read mean latency (lat_ns, or
# clat_ns when lat is not tracked) of a fio-schema JSON file, as "IOPS LAT_NS".
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

# measure ROW TOOL EXE ARGS...: runs one measurement that writes fio JSON on
# stdout and records its IOPS and mean latency as iops[ROW.TOOL] and
# lat[ROW.TOOL] ("-" and failed=1 if it fails).
measure() {
    local row=$1 tool=$2 exe=$3 a b
    shift 3
    local out="$work/$row.$tool.json"
    echo "+ $exe $* > $out"
    if "$exe" "$@" > "$out" 2> "$work/$row.$tool.err" \
        && read -r a b < <(extract "$out") && [ -n "${b:-}" ]; then
        iops[$row.$tool]=$a
        lat[$row.$tool]=$b
    else
        echo "   $tool failed on $row:" >&2
        sed 's/^/   | /' "$work/$row.$tool.err" >&2 || true
        iops[$row.$tool]=-
        lat[$row.$tool]=-
        failed=1
    fi
}

# measure_both ROW ARGS...: the same job through fio and through ioscope,
# taking turns $PAIRS times (default 1); iops[ROW.tool] and lat[ROW.tool]
# end up as the medians of each tool's runs, so one run that met a noisy
# second on the host does not decide the row.
measure_both() {
    local row=$1 pair tool
    shift
    local -a fio_iops=() fio_lat=() io_iops=() io_lat=()
    for pair in $(seq "${PAIRS:-1}"); do
        [ "${PAIRS:-1}" = 1 ] || echo "  [pair $pair/$PAIRS]"
        measure "$row" fio "$FIO" "$@"
        measure "$row" ioscope "$IOSCOPE" "$@"
        for tool in fio ioscope; do
            [ "${iops[$row.$tool]}" != - ] || continue
            if [ "$tool" = fio ]; then
                fio_iops+=("${iops[$row.fio]}"); fio_lat+=("${lat[$row.fio]}")
            else
                io_iops+=("${iops[$row.ioscope]}"); io_lat+=("${lat[$row.ioscope]}")
            fi
        done
    done
    iops[$row.fio]=$(median "${fio_iops[@]}"); lat[$row.fio]=$(median "${fio_lat[@]}")
    iops[$row.ioscope]=$(median "${io_iops[@]}"); lat[$row.ioscope]=$(median "${io_lat[@]}")
}

# ratio A B: A / B to three places, or "-" when either is missing.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3f", a / b }'
}
# median X...: the median of the numbers given (the mean of the middle two
# for an even count), or "-" when there are none.
median() {
    [ "$#" -gt 0 ] || { echo -; return; }
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# num A: A rounded to a whole number, or "-".
num() {
    awk -v a="$1" 'BEGIN { if (a == "-" || a == "") print "-"; else printf "%.0f", a }'
}

TABLE_FMT="%-58s %12s %12s %8s %12s %14s %8s\n"

# table_header: the column titles of the results table.
table_header() {
    echo "== results (ratio = ioscope / fio; IOPS: higher is better, latency: lower is better)"
    printf "$TABLE_FMT" "row" "fio IOPS" "ioscope IOPS" "ratio" "fio lat ns" "ioscope lat ns" "ratio"
}

# table_row ROW LABEL: one line from iops/lat[ROW.fio] and [ROW.ioscope].
table_row() {
    local row=$1 label=$2
    local fi_=${iops[$row.fio]:--} ii=${iops[$row.ioscope]:--}
    local fl=${lat[$row.fio]:--} il=${lat[$row.ioscope]:--}
    printf "$TABLE_FMT" "$label" "$(num "$fi_")" "$(num "$ii")" "$(ratio "$ii" "$fi_")" \
        "$(num "$fl")" "$(num "$il")" "$(ratio "$il" "$fl")"
}

# bench_cleanup_json: removes the JSON and stderr files unless --keep.
bench_cleanup_json() {
    if [ "$KEEP" = 0 ]; then
        rm -f "$work"/*.json "$work"/*.err
    else
        echo
        echo "JSON results kept in $work"
    fi
}

# bench_take_zram SIZE PREFIX: takes /dev/zram0 for the rest of the script
# (zram_take), and resets it at exit, when $work/PREFIX-* JSON files are
# removed too (unless --keep). Prints the machine header first. Without
# zram or root it says why and exits 0 having measured nothing.
ZRAM_SYS=/sys/block/zram0
ZRAM_LOCK=/tmp/ioscope-zram.lock
zram_held=0
bench_take_zram() {
    local size=$1
    zram_prefix=$2
    trap zram_cleanup EXIT
    bench_machine_header
    echo "load:    $(uptime | sed 's/.*load average/load average/')"
    echo
    zram_take "$size" || { echo "$SCRIPT: skipped: $zram_skip"; exit 0; }
}

# zram_take SIZE: takes /dev/zram0 as the tests do (the flock
# /tmp/ioscope-zram.lock, waiting while they hold it) and sets it up at
# SIZE. Returns 1, with zram_skip saying why, where it cannot be had.
# zram_release gives it back.
zram_take() {
    local size=$1
    if [ ! -e "$ZRAM_SYS" ]; then
        zram_skip="no $ZRAM_SYS (modprobe zram)"
        return 1
    elif [ "$(id -u)" != 0 ]; then
        zram_skip="not root (zram0 is set up through /sys)"
        return 1
    fi
    exec 9>"$ZRAM_LOCK"
    echo "+ flock $ZRAM_LOCK (waits while the tests hold zram0)"
    flock -w 600 9 || { echo "$SCRIPT: $ZRAM_LOCK stayed locked for 600 s" >&2; exit 1; }
    zram_held=1
    if [ "$(cat "$ZRAM_SYS/disksize")" != 0 ] && ! zram_reset; then
        zram_skip="zram0 is in use and cannot be reset"
        return 1
    fi
    echo "+ echo $size > $ZRAM_SYS/disksize"
    if ! echo "$size" > "$ZRAM_SYS/disksize"; then
        zram_skip="zram0 cannot be given $size"
        return 1
    fi
    for _ in $(seq 50); do [ -b /dev/zram0 ] && break; sleep 0.1; done
}

# zram_fill: writes random data over all of zram0, so that reads
# decompress real data instead of returning zero pages.
zram_fill() {
    local mib=$(($(cat "$ZRAM_SYS/disksize") >> 20))
    echo "+ dd if=/dev/urandom of=/dev/zram0 bs=1M count=$mib oflag=direct"
    dd if=/dev/urandom of=/dev/zram0 bs=1M count="$mib" oflag=direct status=none
}

# zram_release: resets zram0, if held, and lets the lock go.
zram_release() {
    if [ "$zram_held" = 1 ]; then
        zram_reset || echo "$SCRIPT: could not reset zram0; the next user will" >&2
        zram_held=0
        exec 9>&-
    fi
}

zram_reset() {
    local i
    for i in $(seq 50); do
        echo 1 > "$ZRAM_SYS/reset" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

zram_cleanup() {
    zram_release
    if [ "$KEEP" = 0 ]; then rm -f "$work/$zram_prefix"-*.json "$work/$zram_prefix"-*.err; fi
}
