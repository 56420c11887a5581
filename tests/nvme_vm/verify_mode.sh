#!/bin/sh
# io_uring_cmd's verify_mode=compare (fio 3.42), run inside the nvme-vm
# guest by tests/nvme_vm.rs: the checks of the verify phase go to the
# device as NVMe Compares of each block with verify_pattern. Blocks that
# hold the pattern pass; blocks that do not fail as a verify failure
# (err=84, as a host-side check's), counted and named. Each check prints
# "CHECK <name> ok" or "CHECK <name> FAIL: <why>"; then CHECKS-DONE.
#
# Where the guest's fio has verify_mode (fio 3.42, copied in with
# NVME_VM_HOST_BINS=/path/to/fio-3.42/fio), fio runs the same jobs and
# each tool checks with Compares what the other wrote; otherwise a
# CHECK-SKIPPED line says so.
NG=/dev/ng0n1
BLK=/dev/nvme0n1
pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

# job ARGS...: a passthrough job on the char device, output in out.txt
# and the exit status in $rc. verify=pattern: the pattern alone, which a
# Compare can check (verify_pattern without it is pattern_hdr, as in fio).
job() {
    ioscope --name=v --ioengine=io_uring_cmd --filename=$NG --verify=pattern "$@" >out.txt 2>&1
    rc=$?
}
# ok NAME TEXT ARGS...: the job must succeed with err= 0 and print TEXT.
ok() {
    name=$1 text=$2
    shift 2
    job "$@"
    if [ $rc -eq 0 ] && grep -q "err= 0" out.txt && grep -q "$text" out.txt; then
        pass "$name"
    else
        fail "$name" "exit $rc: $(tail -6 out.txt | tr '\n' ' ')"
    fi
}
# bad NAME ARGS...: the job must fail as a verify failure: exit 1, err=84
# (EILSEQ), and print each of the |-separated texts in $want.
bad() {
    name=$1
    shift
    job "$@"
    missing=
    old_ifs=$IFS
    IFS='|'
    for text in "err=84" "verify failed on $NG" $want; do
        grep -q -- "$text" out.txt || missing="$missing [$text]"
    done
    IFS=$old_ifs
    if [ $rc -eq 1 ] && [ -z "$missing" ]; then
        pass "$name"
    else
        fail "$name" "exit $rc, missing$missing: $(tail -6 out.txt | tr '\n' ' ')"
    fi
}

CMP="--verify_mode=compare"
# 4 MiB at 0 in random order at depth 8: every block compared once.
R1="--rw=randwrite --bs=4k --size=4m --iodepth=8 --verify_pattern=0x5aa5f00f"
ok compare-randwrite "checked=1024, bad=0" $R1 $CMP
# The block's offset in the pattern: a Compare sent to the wrong LBA fails.
ok compare-offset-pattern "checked=32, bad=0" --rw=write --bs=64k --size=2m --offset=8m \
    --iodepth=4 --verify_pattern=%o $CMP
ok compare-backlog "bad=0" --rw=randwrite --bs=8k --size=2m --offset=12m --iodepth=4 \
    --verify_pattern=0x1234 --verify_backlog=16 $CMP
# Trimmed blocks are compared with zeroes (the device deallocates them
# and reads them back as zeroes: DLFEAT=1).
ok compare-trimmed "bad=0" --rw=write --bs=4k --size=1m --offset=14m --verify_pattern=0x77 \
    --trim_percentage=30 --trim_backlog=8 $CMP
ok compare-randrw "bad=0" --rw=randrw --bs=4k --size=1m --offset=15m --iodepth=4 \
    --verify_pattern=0x99 $CMP
# A read workload's reads are checked by the host, as in fio.
ok compare-read-workload "checked=1024, bad=0" --rw=read --bs=4k --size=4m \
    --verify_pattern=0x5aa5f00f $CMP

# The device holds another pattern than the one verified: the first block
# fails the job as a host-side check does.
job --rw=write --bs=4k --size=1m --offset=16m --verify_pattern=0x11 --do_verify=0
want="Compare Failure (NVMe status: sct 0x2, sc 0x85"
bad compare-other-pattern --rw=write --bs=4k --size=1m --offset=16m --verify_pattern=0x22 \
    --verify_only=1 $CMP
want="pattern mismatch"
bad read-other-pattern --rw=write --bs=4k --size=1m --offset=16m --verify_pattern=0x22 \
    --verify_only=1 --verify_mode=read

# One block overwritten behind the job's back: that block alone is bad
# (24m + 40k = 25206784), every block is counted as checked.
job --rw=write --bs=4k --size=2m --offset=24m --verify_pattern=0x33 --do_verify=0
dd if=/dev/zero of=$BLK bs=4096 seek=$((25206784 / 4096)) count=1 oflag=direct 2>/dev/null
want="checked=512, bad=1|at offset 25206784|total=1"
bad compare-one-block-overwritten --rw=write --bs=4k --size=2m --offset=24m --verify_pattern=0x33 \
    --verify_only=1 --continue_on_error=verify $CMP

# fio 3.42 on the same device: its jobs pass and fail where ioscope's do,
# and each checks with Compares what the other wrote.
if ! fio --cmdhelp=verify_mode >/dev/null 2>&1; then
    echo "CHECK-SKIPPED fio's verify_mode checks: the guest has no fio with verify_mode (copy fio 3.42 in with NVME_VM_HOST_BINS)"
    echo CHECKS-DONE
    exit 0
fi
# fiojob NAME EXPECT ARGS...: fio must exit 0 (EXPECT ok) or not (EXPECT
# fail, printing the Compare Failure status as fio does).
fiojob() {
    name=$1 expect=$2
    shift 2
    fio --name=f --ioengine=io_uring_cmd --filename=$NG --verify=pattern "$@" >fio.txt 2>&1
    frc=$?
    if [ $expect = ok ] && [ $frc -eq 0 ] && grep -q "err= 0" fio.txt; then
        pass "$name"
    elif [ $expect = fail ] && [ $frc -ne 0 ] && grep -q "sct=0x02; sc=0x85" fio.txt; then
        pass "$name"
    else
        fail "$name" "fio exit $frc: $(grep -v '^ *$' fio.txt | tail -8 | tr '\n' ' ')"
    fi
}
fiojob fio-compare-randwrite ok --rw=randwrite --bs=4k --size=4m --offset=32m --iodepth=8 \
    --verify_pattern=0x5aa5f00f $CMP
fiojob fio-compare-other-pattern fail --rw=write --bs=4k --size=1m --offset=16m \
    --verify_pattern=0x22 --verify_only=1 $CMP
fiojob fio-compares-what-ioscope-wrote ok --rw=write --bs=4k --size=4m \
    --verify_pattern=0x5aa5f00f --verify_only=1 $CMP
fiojob fio-writes ok --rw=write --bs=16k --size=2m --offset=40m --verify_pattern=0xc0ffee11 \
    --do_verify=0
ok ioscope-compares-what-fio-wrote "checked=512, bad=0" --rw=write --bs=4k --size=2m \
    --offset=40m --verify_pattern=0xc0ffee11 --verify_only=1 $CMP
echo CHECKS-DONE
