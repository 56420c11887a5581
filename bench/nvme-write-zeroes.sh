#!/usr/bin/env bash
# nvme-write-zeroes.sh - Write Zeroes throughput at queue depth 1, 4, 64 and
# 128 with 16 MiB blocks (DEAC set), through ioscope's io_uring_cmd engine,
# in the emulated NVMe guest of ../shared/nvme-vm/run-in-nvme-vm.sh.
#
# What it shows: the shape of the curve. Write Zeroes carries no data, so
# ioscope never fills or scrambles a buffer for it (fio did, and its
# throughput fell as the depth rose: see the fio blog post "How could write
# zeroes performance be worse at higher queue depths"). Here the throughput
# must not fall with depth. The figures come from an emulator running under
# an emulator: compare them with each other, never with a real device.
#
# Usage: bench/nvme-write-zeroes.sh [--runtime=SECONDS] [--no-build]
# Environment: IOSCOPE (default target/release/ioscope), NVME_VM_SCRIPT
# (default ../shared/nvme-vm/run-in-nvme-vm.sh). The guest needs no more
# memory than its default (1 GiB): commands without data get no 16 MiB
# buffers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNTIME=5
BUILD=1
for arg in "$@"; do
    case $arg in
    --runtime=*) RUNTIME=${arg#--runtime=} ;;
    --no-build) BUILD=0 ;;
    -h | --help)
        sed -n '2,18p' "$0"
        exit 0
        ;;
    *)
        echo "unknown argument: $arg (see --help)" >&2
        exit 2
        ;;
    esac
done

IOSCOPE=${IOSCOPE:-target/release/ioscope}
SCRIPT=${NVME_VM_SCRIPT:-../shared/nvme-vm/run-in-nvme-vm.sh}
if [ ! -f "$SCRIPT" ]; then
    echo "no nvme-vm harness at $SCRIPT (set NVME_VM_SCRIPT)" >&2
    exit 2
fi
if [ "$BUILD" = 1 ]; then
    cargo build --release --bin ioscope
fi

payload=$(mktemp -d)
trap 'rm -rf "$payload"' EXIT
cp "$IOSCOPE" "$payload/ioscope"
cat >"$payload/bench.sh" <<GUEST
# One warm-up pass, then one measured run per depth; the summary line of
# each run is kept.
for qd in 1 4 64 128; do
    ioscope --name=wz --ioengine=io_uring_cmd --filename=/dev/ng0n1 \\
        --rw=write --bs=16m --write_mode=zeroes --deac=1 --iodepth=\$qd \\
        --time_based --runtime=${RUNTIME} --ramp_time=1 >out.\$qd 2>&1 || { cat out.\$qd; exit 1; }
    echo "QD\$qd \$(grep -m1 ' write: ' out.\$qd)"
    grep -m1 'cpu ' out.\$qd
done
GUEST

echo "ioscope: $("$IOSCOPE" --version)  host: $(uname -r)  guest: nvme-vm (QEMU NVMe, TCG)"
echo "job: --ioengine=io_uring_cmd --rw=write --bs=16m --write_mode=zeroes --deac=1 --time_based --runtime=$RUNTIME --ramp_time=1"
out=$(bash "$SCRIPT" "$payload" 'sh bench.sh' 2>&1) || {
    echo "$out" | tail -20
    exit 1
}
echo "$out" | grep -E '^QD|cpu ' | sed 's/^ *//'
