#!/bin/sh
# zonemode=zbd on a zoned namespace (/dev/nvme0n2: host-managed, 4 MiB
# zones), ioscope against fio on the same jobs, run inside the nvme-vm
# guest by tests/nvme_vm.rs with fio and blkzone copied in. Before each
# tool's run every zone is reset, so both start from the same device;
# after it the write_iolog offsets and the device's own zone report (write
# pointers and conditions) must be fio's. Then the same through the NVMe
# generic char device of a second zoned namespace (/dev/ng0n3: 4 MiB zones
# of 3 MiB capacity, at most 6 open), whose zones both tools read and
# reset with NVMe commands; then a zoned null_blk device with conventional
# zones (/dev/nullb0). Prints "CHECK <name> ok" or
# "CHECK <name> FAIL: <why>", then "CHECKS-DONE".
D=/dev/nvme0n2
# The device the job names and how; the zones are reset and reported
# through the namespace's block device $D.
DEV=$D
HOW=--direct=1
pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

# The I/Os of a version 3 iolog without their times: direction, offset, length.
ios() { awk '$3 == "read" || $3 == "write" || $3 == "trim" { print $3, $4, $5 }' "$1"; }

# same NAME SETUP JOB...: SETUP (a shell command) runs after the reset and
# before the job, for both tools; the job's I/Os and the zone report after
# it must be the same for ioscope and fio. ioscope alone is also given
# $IOSCOPE_ONLY.
IOSCOPE_ONLY=
same() {
    name=$1 setup=$2
    shift 2
    for tool in ioscope fio; do
        blkzone reset $D
        sh -c "$setup" >/dev/null 2>&1
        rm -f "$tool.log"
        only=
        [ $tool = ioscope ] && only=$IOSCOPE_ONLY
        if ! $tool --filename=$DEV $HOW --zonemode=zbd --write_iolog="$tool.log" \
            --output-format=json $only "$@" >"$tool.json" 2>"$tool.err"; then
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
# At depth: a full zone's reset waits for the writes in flight (fio's
# io_u_quiesce), so a second loop rewrites the zones without a write
# landing after a reset; random writes keep to their open zones.
same io_uring_depth_8_resets_after_writes_in_flight true --name=s --ioengine=io_uring \
    --iodepth=8 --rw=write --bs=64k --size=16M --loops=2
same io_uring_depth_8_random_writes true --name=r --ioengine=io_uring --iodepth=8 \
    --rw=randwrite --bs=4k --size=32M --io_size=8M --max_open_zones=3
# A trim of a zone is its reset; random trims go to zones with data.
same randtrim_resets_zones \
    "fio --name=p --filename=$D --direct=1 --zonemode=zbd --rw=randwrite --bs=4k \
     --size=32M --io_size=2M --max_open_zones=4" \
    --name=t --rw=randtrim --bs=4M --size=32M

# refused WHAT WORDS JOB...: both tools refuse the job, ioscope with WORDS.
refused() {
    name=$1 words=$2
    shift 2
    if fio --filename=$DEV --zonemode=zbd "$@" >fio.out 2>&1; then
        fail "$name" "fio ran it"
    elif ioscope --filename=$DEV --zonemode=zbd "$@" >ioscope.out 2>&1; then
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

# The generic char device of the second zoned namespace, with io_uring_cmd.
D=/dev/nvme0n3
DEV=/dev/ng0n3
HOW=--ioengine=io_uring_cmd
same ng_randwrite_open_zones true --name=w --rw=randwrite --bs=4k --size=32M \
    --io_size=8M --max_open_zones=3
# Zones fill at their capacity (3 MiB of 4) and are reset with Zone
# Management Send on the second loop.
same ng_seq_write_resets_full_zones true --name=s --rw=write --bs=64k --size=16M --loops=2
# Without max_open_zones the namespace's own limit (MOR + 1 = 6) holds.
same ng_namespace_open_limit true --name=w --rw=randwrite --bs=4k --size=64M --io_size=8M
same ng_reads_stay_below_write_pointers \
    "fio --name=p --filename=$DEV $HOW --zonemode=zbd --rw=randwrite --bs=4k \
     --size=32M --io_size=2M --max_open_zones=4" \
    --name=r --rw=randread --bs=4k --size=32M --io_size=512k
# Trims reset zones through Zone Management Send too. (fio 3.33 trims
# nothing here: its io_uring_cmd cannot send a trim in zbd mode; later fio
# resets the zone, as ioscope does.) After random writes to four zones,
# the eight zones trimmed are all empty.
blkzone reset $D
fio --name=p --filename=$DEV $HOW --zonemode=zbd --rw=randwrite --bs=4k --size=32M \
    --io_size=2M --max_open_zones=4 >/dev/null 2>&1
before=$(blkzone report -c 8 $D | grep -vc 'zcond: 1(em)')
if ! ioscope --name=t --filename=$DEV $HOW --zonemode=zbd --rw=trim --bs=4M --size=32M \
    --output-format=json >trim.json 2>trim.err; then
    fail ng_trims_reset_zones "$(tail -2 trim.err | tr '\n' ' ')"
elif [ "$before" != 4 ]; then
    fail ng_trims_reset_zones "$before zones held data before the trims, not 4"
elif blkzone report -c 8 $D | grep -v 'zcond: 1(em)' | grep -q .; then
    fail ng_trims_reset_zones "zones left with data: $(blkzone report -c 8 $D | grep -v 'zcond: 1(em)' | head -2)"
elif ! grep -q '"total_ios" : 8' trim.json; then
    fail ng_trims_reset_zones "not 8 trims: $(grep total_ios trim.json | tr '\n' ' ')"
else
    pass ng_trims_reset_zones
fi
# write_mode=zone_append (a newer fio's; fio 3.33 has none): each write
# goes as a Zone Append to its zone's start, and the device puts it at the
# write pointer, where the job chose the offset; so the same jobs leave
# the same zones as fio's Writes.
IOSCOPE_ONLY=--write_mode=zone_append
same ng_zone_append_randwrite_open_zones true --name=w --rw=randwrite --bs=4k --size=32M \
    --io_size=8M --max_open_zones=3
same ng_zone_append_seq_write_resets_full_zones true --name=s --rw=write --bs=64k --size=16M \
    --loops=2
IOSCOPE_ONLY=
# At depth 16 the appends of a zone are in flight together, and every
# block reads back as written: four zones filled to their 3 MiB capacity.
blkzone reset $D
if ! ioscope --name=a --filename=$DEV $HOW --zonemode=zbd --write_mode=zone_append \
    --rw=write --bs=16k --size=16M --iodepth=16 --verify=crc32c --output-format=json \
    >append.json 2>append.err; then
    fail ng_zone_append_depth_16_verifies "$(tail -2 append.err | tr '\n' ' ')"
elif [ "$(grep -c '"io_bytes" : 12582912' append.json)" != 2 ]; then
    fail ng_zone_append_depth_16_verifies "not 12 MiB written and read: $(grep io_bytes append.json | tr '\n' ' ')"
elif [ "$(blkzone report -c 4 $D | grep -c 'zcond:14(fu)')" != 4 ]; then
    fail ng_zone_append_depth_16_verifies "zones: $(blkzone report -c 4 $D | tr '\n' ' ')"
else
    pass ng_zone_append_depth_16_verifies
fi
# Only a zoned namespace takes a Zone Append.
if ioscope --name=a --filename=/dev/ng0n1 $HOW --zonemode=zbd --zonesize=1m \
    --write_mode=zone_append --rw=write --size=4M >append.out 2>&1; then
    fail ng_zone_append_needs_zones "ioscope ran it"
elif ! grep -q 'write_mode=zone_append needs a zoned namespace' append.out; then
    fail ng_zone_append_needs_zones "$(tail -3 append.out | tr '\n' ' ')"
else
    pass ng_zone_append_needs_zones
fi
refused ng_open_limit_above_the_namespaces \
    "Specified --max_open_zones (8) is larger than max (6)" \
    --name=l $HOW --rw=randwrite --bs=4k --size=32M --max_open_zones=8

# fio's examples/uring-cmd-zoned.fio on the zoned namespace (its 1 GiB cut
# to 32 MiB): three verifying jobs, one after the other, the same bytes
# written and read back, no error, and the same zones left, as fio.
for tool in ioscope fio; do
    blkzone reset $D
    sed -e "s|filename=/dev/ng0n1|filename=$DEV|" -e 's/^size=1G/size=32M/' \
        uring-cmd-zoned.fio >zoned.fio
    $tool zoned.fio --output-format=json >"$tool.json" 2>"$tool.err" ||
        echo "$tool failed: $(tail -2 "$tool.err" | tr '\n' ' ')" >>"$tool.err"
    grep -E '"(io_bytes|error)"' "$tool.json" >"$tool.sum"
    blkzone report $D >"$tool.zones"
done
if grep -q failed ioscope.err fio.err; then
    fail uring_cmd_zoned_example "$(grep -h failed ioscope.err fio.err | head -2)"
elif [ "$(grep -c '"error" : 0' ioscope.sum)" != 3 ]; then
    fail uring_cmd_zoned_example "errors: $(grep error ioscope.sum | tr '\n' ' ')"
elif ! cmp -s ioscope.sum fio.sum; then
    fail uring_cmd_zoned_example "bytes differ: $(diff ioscope.sum fio.sum | head -4 | tr '\n' ' ')"
elif ! cmp -s ioscope.zones fio.zones; then
    fail uring_cmd_zoned_example "zones differ: $(diff ioscope.zones fio.zones | head -4 | tr '\n' ' ')"
else
    pass uring_cmd_zoned_example
fi

# A namespace without zones behind its generic char device: both tools cut
# it into zones of zonesize, with the same I/Os.
for tool in ioscope fio; do
    rm -f "$tool.log"
    $tool --name=e --filename=/dev/ng0n1 $HOW --zonemode=zbd --zonesize=1m --rw=randwrite \
        --bs=4k --size=16M --io_size=2M --max_open_zones=2 --write_iolog="$tool.log" \
        >/dev/null 2>"$tool.err" || echo "$tool failed: $(tail -2 "$tool.err")" >>"$tool.log"
    ios "$tool.log" >"$tool.ios"
done
if [ ! -s ioscope.ios ]; then
    fail ng_emulated_zones "no I/O logged: $(tail -2 ioscope.log)"
elif ! cmp -s ioscope.ios fio.ios; then
    fail ng_emulated_zones "I/Os differ: $(diff ioscope.ios fio.ios | head -4 | tr '\n' ' ')"
else
    pass ng_emulated_zones
fi

# null_blk, zoned, whose first three 4 MiB zones are conventional (loaded
# by tests/nvme_vm.rs: zone_nr_conv=3, at most 6 zones open): I/O there
# goes as chosen and moves no write pointer, a write from a conventional
# zone stops at the first sequential one, reads of empty zones find data
# in the conventional ones, and a job whose extent holds only
# conventional zones is not put on zone boundaries (fio's zbd_is_seq_job).
D=/dev/nullb0
DEV=$D
HOW=--direct=1
same conv_seq_write_and_reset true --name=s --rw=write --bs=64k --size=24M --loops=2
same conv_random_writes true --name=r --rw=randwrite --bs=4k --size=40M --io_size=4M \
    --max_open_zones=3
same conv_random_reads true --name=r --rw=randread --bs=8k --size=40M --io_size=2M
same conv_mixed_reads_start_at_once true --name=m --rw=randrw --bs=4k --size=24M \
    --io_size=2M --max_open_zones=2 --randseed=7
same conv_only_extent_is_not_aligned true --name=r --rw=randwrite --bs=4k --offset=1M \
    --size=6M --io_size=2M
same conv_write_stops_at_sequential_zone true --name=c --rw=randwrite --bsrange=4k-12k \
    --offset=8M --size=8M --io_size=2M --max_open_zones=1
same conv_reset_threshold_counts_sequential_zones true --name=t --rw=randwrite --bs=4k \
    --size=40M --io_size=6M --zone_reset_threshold=0.01 --zone_reset_frequency=0.1 \
    --max_open_zones=4
same conv_verify true --name=v --rw=randwrite --bs=4k --size=24M --io_size=2M \
    --verify=crc32c --max_open_zones=2
same conv_io_uring_depth_8 true --name=u --ioengine=io_uring --iodepth=8 --rw=randwrite \
    --bs=4k --size=40M --io_size=4M --max_open_zones=3
echo CHECKS-DONE
