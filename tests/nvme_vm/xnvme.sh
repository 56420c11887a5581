#!/bin/sh
# The job files of "xNVMe ioengine Part 2" (tests/data/xnvme-compare*.fio),
# every section, run inside the nvme-vm guest by tests/nvme_vm.rs with the
# post's filenames: /dev/nvme0n1 for the block sections, /dev/ng0n1 for the
# passthrough ones. The post's one-minute runtime becomes one second (the
# files' [global] runtime wins over the command line, as in fio). Each
# section prints "CHECK <name> ok" when it ran on the expected backend and
# read something, or "CHECK <name> FAIL: <why>"; the last line is
# "CHECKS-DONE".
pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

for f in xnvme-compare1.fio xnvme-compare2.fio; do
    sed 's/^runtime=1m$/runtime=1/' "$f" >"short-$f"
done

# run FILE SECTION FILENAME ENGINE BACKEND: ENGINE is the header's ioengine=,
# BACKEND the "xnvme backend:" line's (or - for fio's own engines).
run() {
    file=$1 section=$2 filename=$3 engine=$4 backend=$5
    name="$file:$section"
    ioscope "short-$file" --section="$section" --filename="$filename" >out.txt 2>&1
    status=$?
    if [ $status -ne 0 ]; then
        fail "$name" "exit $status: $(tail -3 out.txt | tr '\n' ' ')"
    elif ! grep -q "ioengine=$engine, iodepth=1" out.txt; then
        fail "$name" "no ioengine=$engine header: $(head -1 out.txt)"
    elif [ "$backend" != - ] && ! grep -q "xnvme backend: $backend (" out.txt; then
        fail "$name" "not on $backend: $(grep 'xnvme backend' out.txt)"
    elif ! grep -q "read: IOPS=" out.txt || ! grep -q "err= 0" out.txt; then
        fail "$name" "no reads: $(tail -3 out.txt | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

run xnvme-compare1.fio default /dev/nvme0n1 xnvme io_uring
run xnvme-compare1.fio hipri /dev/nvme0n1 xnvme io_uring
run xnvme-compare1.fio sqpoll /dev/nvme0n1 xnvme io_uring
run xnvme-compare2.fio uring /dev/nvme0n1 io_uring -
run xnvme-compare2.fio xnvme_uring /dev/nvme0n1 xnvme io_uring
run xnvme-compare2.fio ucmd /dev/ng0n1 io_uring_cmd -
run xnvme-compare2.fio xnvme_ucmd /dev/ng0n1 xnvme io_uring_cmd
run xnvme-compare2.fio ucmd_sqthread /dev/ng0n1 io_uring_cmd -
run xnvme-compare2.fio xnvme_ucmd_sqthread /dev/ng0n1 xnvme io_uring_cmd

# xNVMe's defaults (emu on NVMe ioctls): passthrough, one command at a time.
if ioscope --name=emu --ioengine=xnvme --filename=/dev/ng0n1 --rw=randread \
    --size=4m --iodepth=8 --output-format=json >emu.json 2>&1 &&
    grep -q '"xnvme_backend" : "io_uring_cmd"' emu.json &&
    grep -q '"xnvme_interfaces" : "xnvme_async=emu, xnvme_sync=nvme"' emu.json; then
    pass emu_nvme_passthrough
else
    fail emu_nvme_passthrough "$(tail -3 emu.json | tr '\n' ' ')"
fi
# The namespace a job names must be the device's.
if ioscope --name=ns --ioengine=xnvme --xnvme_async=io_uring --xnvme_dev_nsid=2 \
    --filename=/dev/nvme0n1 --rw=randread --size=1m >ns.txt 2>&1; then
    fail nsid_mismatch_refused "ran"
elif grep -q "the device is namespace 1" ns.txt; then
    pass nsid_mismatch_refused
else
    fail nsid_mismatch_refused "$(tail -2 ns.txt | tr '\n' ' ')"
fi
echo CHECKS-DONE
