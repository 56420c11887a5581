#!/bin/sh
# fio 3.42's zonemode=zbd options on a zoned namespace, ioscope against
# fio 3.42 on the same jobs, run inside the nvme-vm guest by
# tests/nvme_vm.rs with blkzone (and fio 3.42, from NVME_VM_HOST_BINS)
# copied in: the ends of zones that a block does not fill (finished, or
# written with write_zone_remainder), through the block device
# /dev/nvme0n2 (4 MiB zones) and the generic char device /dev/ng0n3 (4 MiB
# zones of 3 MiB capacity). Before each tool's run every zone is reset;
# after it the write_iolog I/Os and the device's zone report (write
# pointers and conditions) must be fio's. Without fio 3.42 in the guest
# the comparisons are skipped (CHECK-SKIPPED) and ioscope's own checks
# run. Prints "CHECK <name> ok" or "CHECK <name> FAIL: <why>", then
# "CHECKS-DONE".
D=/dev/nvme0n2
DEV=$D
HOW=--direct=1
pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

FIO342=
if fio --version 2>/dev/null | grep -q '^fio-3\.42'; then
    FIO342=1
else
    echo "CHECK-SKIPPED fio 3.42 comparisons: the guest has no fio 3.42 (copy it in with NVME_VM_HOST_BINS=/path/to/fio-3.42/fio)"
fi

# The I/Os of a version 3 iolog without their times: direction, offset, length.
ios() { awk '$3 == "read" || $3 == "write" || $3 == "trim" { print $3, $4, $5 }' "$1"; }

# same NAME JOB...: the job's I/Os and the zone report after it must be
# the same for ioscope and fio 3.42 (skipped without it).
same() {
    name=$1
    shift
    [ -n "$FIO342" ] || return
    for tool in ioscope fio; do
        blkzone reset $D
        rm -f "$tool.log"
        if ! $tool --filename=$DEV $HOW --zonemode=zbd --write_iolog="$tool.log" \
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

# 192 KiB blocks leave 64 KiB of each 4 MiB zone: fio 3.42 finishes the
# zone (Zone Finish) and goes on in the next, the last one too.
same remainder_finished --name=f --rw=write --bs=192k --size=12M
# The second loop finds the zones full and resets them.
same remainder_finished_loops --name=f --rw=write --bs=192k --size=12M --loops=2
# At depth the finish waits for the writes in flight.
same remainder_finished_io_uring_depth_8 --name=f --ioengine=io_uring --iodepth=8 \
    --rw=write --bs=192k --size=12M --loops=2
# With write_zone_remainder the last 64 KiB of each zone take a write.
same remainder_written --name=r --rw=write --bs=192k --size=12M --write_zone_remainder=1 \
    --loops=2
# Verify reads back what either way wrote (fio 3.33 refused a block size
# that does not divide the zone).
same remainder_finished_verify --name=v --rw=write --bs=192k --size=8M --verify=crc32c
same remainder_written_verify --name=v --rw=write --bs=192k --size=8M --verify=crc32c \
    --write_zone_remainder=1

# Random writes at an open-zone limit of 2, four times the zones' bytes:
# zones whose remainder is too small are finished (or, with every open
# zone so, finished and reset), all through the device, without error.
# (fio 3.42 draws other random offsets than ioscope's, fio 3.33's: no I/O
# comparison.)
blkzone reset $D
if ! ioscope --name=rf --filename=$D --direct=1 --zonemode=zbd --rw=randwrite --bs=192k \
    --size=16M --io_size=64M --max_open_zones=2 --output-format=json >rf.json 2>rf.err; then
    fail random_writes_finish_zones "$(tail -2 rf.err | tr '\n' ' ')"
elif ! grep -q '"error" : 0' rf.json; then
    fail random_writes_finish_zones "error: $(grep '"error"' rf.json)"
elif ! blkzone report -c 4 $D | grep -q 'zcond:14(fu)'; then
    fail random_writes_finish_zones "no zone full: $(blkzone report -c 4 $D | tr '\n' ' ')"
else
    pass random_writes_finish_zones
fi

# The generic char device of the second zoned namespace (3 MiB capacity):
# 320 KiB blocks leave 192 KiB of each zone's capacity.
D=/dev/nvme0n3
DEV=/dev/ng0n3
HOW=--ioengine=io_uring_cmd
same ng_remainder_written --name=r --rw=write --bs=320k --size=12M --write_zone_remainder=1 \
    --loops=2
# The finish goes as an NVMe Zone Management Send (Finish Zone). fio 3.42
# asks the char device for the block layer's BLKFINISHZONE, which it
# refuses (ENOTTY, "finish zone failed"), and the job fails.
blkzone reset $D
if ! ioscope --name=f --filename=$DEV $HOW --zonemode=zbd --rw=write --bs=320k --size=12M \
    --output-format=json >ngf.json 2>ngf.err; then
    fail ng_remainder_finished "$(tail -2 ngf.err | tr '\n' ' ')"
elif [ "$(blkzone report -c 3 $D | grep -c 'zcond:14(fu)')" != 3 ]; then
    fail ng_remainder_finished "zones: $(blkzone report -c 3 $D | tr '\n' ' ')"
elif [ -n "$FIO342" ] && { blkzone reset $D;
    fio --name=f --filename=$DEV $HOW --zonemode=zbd --rw=write --bs=320k --size=12M \
        >ngf.fio 2>&1; } ; then
    fail ng_remainder_finished "fio 3.42 finished the zones here: fixed, compare with it"
elif [ -n "$FIO342" ] && ! grep -q 'finish zone failed' ngf.fio; then
    fail ng_remainder_finished "fio 3.42: $(tail -3 ngf.fio | tr '\n' ' ')"
else
    pass ng_remainder_finished
fi
echo CHECKS-DONE
