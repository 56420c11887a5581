#!/usr/bin/env bash
# Many workers side by side with fio: numjobs=1000 on the null engine for
# 1 s, as JSON, as JSON with group_reporting, and as normal text, through
# ioscope, fio (a process per job) and fio --thread, taking turns. Prints
# every wall time, the best of the rounds per tool, and each tool's peak
# RSS (GNU time's "Maximum resident set size") and that divided by the
# number of workers. What it measures is the cost of starting, stopping
# and merging workers: the I/O loop itself is the same 1 s for all.
#
# Usage: bench/many-workers.sh [--runtime=SECONDS] [--no-build]
#   --runtime=S   runtime of each job (default 1; env RUNTIME works too)
#   --no-build    use the ioscope binary as it is (IOSCOPE=path to choose one)
# Environment: FIO, IOSCOPE, NUMJOBS (default 1000), ROUNDS (default 3).
#   Needs GNU time at /usr/bin/time. For fio's processes the peak RSS is
#   the largest single process's, not their sum.
set -euo pipefail

SCRIPT=many-workers.sh
USAGE_LINES=2,16
RUNTIME=${RUNTIME:-1}
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init "$@"
NUMJOBS=${NUMJOBS:-1000}
ROUNDS=${ROUNDS:-3}
[ -x /usr/bin/time ] || { echo "$SCRIPT: needs GNU time (apt-get install time)" >&2; exit 1; }
bench_build
bench_machine_header

job=(--name=many --ioengine=null "--numjobs=$NUMJOBS" "--runtime=$RUNTIME" --time_based=1 --size=1g)
variants=("--output-format=json" "--output-format=json --group_reporting=1" "--output-format=normal")
tools=(ioscope fio fio-thread)
declare -A best rss

for round in $(seq "$ROUNDS"); do
    for v in "${!variants[@]}"; do
        read -r -a extra <<< "${variants[$v]}"
        for tool in "${tools[@]}"; do
            case $tool in
                ioscope) cmd=("$IOSCOPE") ;;
                fio) cmd=("$FIO") ;;
                fio-thread) cmd=("$FIO" --thread) ;;
            esac
            echo "+ /usr/bin/time ${cmd[*]} ${job[*]} ${extra[*]}"
            if ! /usr/bin/time -f "%e %M" -o "$work/many.time" "${cmd[@]}" "${job[@]}" "${extra[@]}" \
                > "$work/many.out" 2> "$work/many.err"; then
                echo "   $tool failed:" >&2
                sed 's/^/   | /' "$work/many.err" >&2 || true
                failed=1
                continue
            fi
            read -r wall kb < "$work/many.time"
            echo "   round $round: ${wall} s, peak RSS ${kb} KiB"
            key="$v.$tool"
            if [ -z "${best[$key]:-}" ] || awk "BEGIN { exit !($wall < ${best[$key]}) }"; then
                best[$key]=$wall
            fi
            if [ "${rss[$key]:-0}" -lt "$kb" ]; then
                rss[$key]=$kb
            fi
        done
    done
done

echo
printf '%-42s %-11s %10s %14s %16s\n' "output" tool "best wall" "peak RSS KiB" "KiB per worker"
for v in "${!variants[@]}"; do
    for tool in "${tools[@]}"; do
        key="$v.$tool"
        printf '%-42s %-11s %10s %14s %16s\n' "${variants[$v]}" "$tool" "${best[$key]:--}" \
            "${rss[$key]:--}" "$([ -n "${rss[$key]:-}" ] && echo $(( rss[$key] / NUMJOBS )) || echo -)"
    done
done
exit "$failed"
