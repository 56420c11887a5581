#!/bin/sh
# fio 3.42's zonemode=zbd options on a zoned namespace, ioscope against
# fio 3.42 on the same jobs, run inside the nvme-vm guest by
# tests/nvme_vm.rs with blkzone (and fio 3.42, from NVME_VM_HOST_BINS)
# copied in: the ends of zones that a block does not fill (finished, or
# written with write_zone_remainder), and writes that fail because the
# write pointer moved behind the job's back (recover_zbd_write_error),
# through the block device /dev/nvme0n2 (4 MiB zones) and the generic
# char device /dev/ng0n3 (4 MiB zones of 3 MiB capacity). Before each tool's run every zone is reset;
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

# recover_zbd_write_error: a write fails because something wrote 4 KiB at
# its zone's write pointer behind the job's back. The job file's first
# job reads the zones (both tools read a device's zones once, fio as it
# sets the jobs up, ioscope as the first job on it starts); the second,
# without zones, writes the 4 KiB at zone 1's start; the third writes
# zones 1 and 2 from there with continue_on_error=write, so its first
# write fails (Zone Invalid Write, EIO). behind_job ZONED HOW BLOCK EXTRA:
# the zoned jobs on ZONED with the option HOW, the write behind their
# back through the block device BLOCK, the writer's option EXTRA.
behind_job() {
    cat <<EOT
[global]
zonemode=zbd
[see]
filename=$1
rw=read
bs=64k
size=16M
$2
[behind]
stonewall
filename=$3
zonemode=none
rw=write
bs=4k
size=4k
offset=4M
direct=1
[job]
stonewall
filename=$1
rw=write
bs=64k
offset=4M
size=8M
continue_on_error=write
write_iolog=JOBLOG
$2
$4
EOT
}
# recovered NAME TOOL_ARGS...: the behind-the-back job on $D ($DEV for the
# zoned jobs, with $HOW), the job's I/Os, the zone report and the job's
# error count (in $errors, per tool) against fio 3.42.
recovered() {
    name=$1
    shift
    [ -n "$FIO342" ] || return
    behind_job "$DEV" "$HOW" "$D" >behind.fio
    for tool in ioscope fio; do
        blkzone reset $D
        rm -f "$tool.log"
        sed "s|JOBLOG|$tool.log|" behind.fio >"$tool.fio"
        if ! $tool "$tool.fio" --output-format=json "$@" >"$tool.json" 2>"$tool.err"; then
            fail "$name" "$tool failed: $(tail -2 "$tool.err" | tr '\n' ' ')"
            return
        fi
        ios "$tool.log" >"$tool.ios"
        blkzone report -c 4 $D >"$tool.zones"
        grep '"total_err"' "$tool.json" | tail -1 | tr -dc '0-9' >"$tool.errs"
    done
    if [ ! -s ioscope.ios ]; then
        fail "$name" "no I/O logged"
    elif ! cmp -s ioscope.ios fio.ios; then
        fail "$name" "I/Os differ: $(diff ioscope.ios fio.ios | head -4 | tr '\n' ' ')"
    elif ! cmp -s ioscope.zones fio.zones; then
        fail "$name" "zones differ: $(diff ioscope.zones fio.zones | head -4 | tr '\n' ' ')"
    elif [ -n "$want_errors" ] && [ "$(cat ioscope.errs)" != "$want_errors" ]; then
        fail "$name" "$(cat ioscope.errs) errors, not $want_errors (fio: $(cat fio.errs))"
    elif [ -n "$want_errors" ] && ! cmp -s ioscope.errs fio.errs; then
        fail "$name" "$(cat ioscope.errs) errors, fio $(cat fio.errs)"
    else
        pass "$name"
    fi
}
D=/dev/nvme0n2
DEV=$D
HOW=direct=1
# Synchronous: the device's write pointer (4 KiB into the zone) moves to
# the failed write's end with its last 60 KiB; one error, zones 1 and 2
# written full.
want_errors=1
recovered recover_psync --recover_zbd_write_error=1
# Without recovery fio moves no write pointer for a failed synchronous
# write: each of the 128 writes goes to the zone's start again and fails.
want_errors=128
recovered no_recovery_psync_writes_stay_at_the_write_pointer
# At depth 4 the zone is recovered once its writes in flight are done,
# with zeroes from the device's write pointer; how many writes were in
# flight (and failed) depends on timing, the I/Os and zones do not.
want_errors=
recovered recover_io_uring_depth_4 --recover_zbd_write_error=1 --ioengine=io_uring --iodepth=4
# The generic char device (3 MiB zone capacity, so the writer's 6 MiB
# fill zones 1 and 2): the write pointer moves with an NVMe Write. The
# failed passthrough write ends with an NVMe status (Zone Invalid Write),
# which continue_on_error goes on after only where ignore_error names it:
# as ioscope numbers it, 0x10000 + the status 0x41bc (DNR set). fio 3.42
# moves the write pointer with pwrite on the char device, which refuses
# it ("move wp failed"), and its job fails.
D=/dev/nvme0n3
DEV=/dev/ng0n3
HOW=ioengine=io_uring_cmd
behind_job "$DEV" "$HOW" "$D" io_size=6M | sed "s|JOBLOG|ng.log|" >ng.fio
blkzone reset $D
if ! ioscope ng.fio --recover_zbd_write_error=1 --ignore_error=,0x141bc \
    --output-format=json >ng.json 2>ng.err; then
    fail ng_recover "$(tail -2 ng.err | tr '\n' ' ')"
elif [ "$(grep '"total_err"' ng.json | tail -1 | tr -dc '0-9')" != 1 ]; then
    fail ng_recover "errors: $(grep '"total_err"' ng.json | tr '\n' ' ')"
elif [ "$(blkzone report -c 3 $D | grep -c 'zcond:14(fu)')" != 2 ]; then
    fail ng_recover "zones: $(blkzone report -c 3 $D | tr '\n' ' ')"
elif [ -n "$FIO342" ] && { blkzone reset $D;
    fio ng.fio --recover_zbd_write_error=1 >ng.fio.out 2>&1;
    ! grep -q 'move wp failed' ng.fio.out; } ; then
    fail ng_recover "fio 3.42 moved the write pointer here: fixed, compare with it"
else
    pass ng_recover
fi
echo CHECKS-DONE
