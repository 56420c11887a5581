#!/bin/sh
# zonemode=zbd on a zoned namespace (/dev/nvme0n2: host-managed, 4 MiB
# zones), ioscope against fio on the same jobs, run inside the nvme-vm
# guest by tests/nvme_vm.rs with fio and blkzone copied in. Before each
# tool's run every zone is reset, so both start from the same device;
# after it the write_iolog offsets and the device's own zone report (write
# pointers and conditions) must be fio's. Prints "CHECK <name> ok" or
# "CHECK <name> FAIL: <why>", then "CHECKS-DONE".
D=/dev/nvme0n2
pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

# The I/Os of a version 3 iolog without their times: direction, offset, length.
ios() { awk '$3 == "read" || $3 == "write" { print $3, $4, $5 }' "$1"; }

# same NAME SETUP JOB...: SETUP (a shell command) runs after the reset and
# before the job, for both tools; the job's I/Os and the zone report after
# it must be the same for ioscope and fio.
same() {
    name=$1 setup=$2
    shift 2
    for tool in ioscope fio; do
        blkzone reset $D
        sh -c "$setup" >/dev/null 2>&1
        rm -f "$tool.log"
        if ! $tool --filename=$D --direct=1 --zonemode=zbd --write_iolog="$tool.log" \
            --output-format=json "$@" >"$tool.json" 2>"$tool.err"; then
            fail "$name" "$tool failed: $(tail -2 "$tool.err" | tr '\n' ' ')"
            return
        fi
        ios "$tool.log" >"$tool.ios"
        blkzone report $D >"$tool.zones"
    done
    if [ ! -s ioscope.ios ]; then
        fail "$name" "no I/O logged"
    elif ! cmp -s ioscope.ios fio.ios; then
        fail "$name" "I/Os differ: $(diff ioscope.ios fio.ios | head -4 | tr '\n' ' ')"
    elif ! cmp -s ioscope.zones fio.zones; then
        fail "$name" "zones differ: $(diff ioscope.zones fio.zones | head -4 | tr '\n' ' ')"
    elif ! grep -q '"error" : 0' ioscope.json; then
        fail "$name" "error: $(grep '"error"' ioscope.json)"
    else
        pass "$name"
    fi
}

# Random writes go to the write pointers of at most max_open_zones zones.
same randwrite_open_zones true --name=w --rw=randwrite --bs=4k --size=32M \
    --io_size=8M --max_open_zones=3
# Sequential writes fill zones; a second loop finds them full and resets
# each before writing it again.
same seq_write_resets_full_zones true --name=s --rw=write --bs=64k --size=16M --loops=2
# Zones left open by an earlier job count against the limit; the ones
# beyond it are reset when the job starts (fio's zbd_setup_files).
same open_zones_beyond_the_limit_are_reset \
    "fio --name=p --filename=$D --direct=1 --zonemode=zbd --rw=randwrite --bs=4k \
     --size=32M --io_size=2M --max_open_zones=4" \
    --name=w2 --rw=randwrite --bs=4k --size=32M --io_size=1M --max_open_zones=2
# Reads stay below the write pointers the writes left.
same reads_stay_below_write_pointers \
    "fio --name=p --filename=$D --direct=1 --zonemode=zbd --rw=randwrite --bs=4k \
     --size=32M --io_size=2M --max_open_zones=4" \
    --name=r --rw=randread --bs=4k --size=32M --io_size=512k
# io_uring at depth 1 goes the same way as psync.
same io_uring_depth_one true --name=u --ioengine=io_uring --rw=randwrite --bs=8k \
    --size=16M --io_size=4M --max_open_zones=2

# refused WHAT WORDS JOB...: both tools refuse the job, ioscope with WORDS.
refused() {
    name=$1 words=$2
    shift 2
    if fio --filename=$D --zonemode=zbd "$@" >fio.out 2>&1; then
        fail "$name" "fio ran it"
    elif ioscope --filename=$D --zonemode=zbd "$@" >ioscope.out 2>&1; then
        fail "$name" "ioscope ran it"
    elif ! grep -q "$words" ioscope.out; then
        fail "$name" "$(tail -3 ioscope.out | tr '\n' ' ')"
    else
        pass "$name"
    fi
}
refused buffered_writes "Using direct I/O is mandatory for writing to ZBD drives" \
    --name=b --rw=write --bs=64k --size=8M
refused zonesize_mismatch "job parameter zonesize 1048576 does not match disk zone size 4194304" \
    --name=m --direct=1 --zonesize=1m --rw=write --size=8M
echo CHECKS-DONE
