#!/bin/sh
# io_uring_cmd's write_mode commands without data, run inside the nvme-vm
# guest by tests/nvme_vm.rs: Verify (writes nothing, counts as writes),
# Write Uncorrectable (QEMU 7.2's controller has none: the device's answer
# is the error), and a newer fio's mix of commands drawn per write. Each
# check prints "CHECK <name> ok" or "CHECK <name> FAIL: <why>"; then
# CHECKS-DONE.
NG=/dev/ng0n1
BLK=/dev/nvme0n1
J="--ioengine=io_uring_cmd --filename=$NG --bs=4k --size=256k"
pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

# fill XX: the 64 blocks all hold byte 0xXX.
fill() {
    ioscope --name=fill $J --rw=write --buffer_pattern=0x$1 >/dev/null 2>&1
}
# map: the first byte of each of the 64 blocks, as hex, read from the
# block device.
map() {
    i=0
    while [ $i -lt 64 ]; do
        dd if=$BLK bs=4k skip=$i count=1 iflag=direct 2>/dev/null | hexdump -n1 -e '1/1 "%02x"'
        i=$((i + 1))
    done
}
# expect NAME WANT GOT
expect() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "want $2, got $3"; fi
}
all_aa=$(printf 'aa%.0s' $(seq 64))

# Verify: 256 KiB of writes counted, nothing on the medium changed.
fill aa
ioscope --name=v $J --rw=write --write_mode=verify --output-format=json >out.json 2>err.txt
rc=$?
expect verify-exits-0 0 $rc
expect verify-counts-its-bytes-as-writes 1 "$(grep -c '"io_bytes" : 262144' out.json)"
expect verify-changes-nothing "$all_aa" "$(map)"

# Write Uncorrectable: QEMU 7.2 answers Invalid Command Opcode, which
# fails the run (fio: "cq entry status (sct=0x00; sc=0x01)").
ioscope --name=u $J --rw=write --write_mode=uncor >out.txt 2>&1
rc=$?
expect uncor-fails-the-run 1 $rc
expect uncor-names-the-command-and-status 1 \
    "$(grep -c 'Invalid Command Opcode (NVMe status: sct 0x0, sc 0x01, DNR): write uncorrectable offset=0' out.txt)"

# The mixes, block for block as fio (built from its master branch, where
# the mix is) leaves them: 55 written, 00 zeroed, aa verified.
fill aa
ioscope --name=m $J --rw=write --write_mode=write/50:zeroes/25:verify/25 --buffer_pattern=0x55 >/dev/null 2>&1
expect mix-draws-as-fio \
    5500aa55aa55aa555555550055005555550055005555aa00555555aa00555555000055aa550055aa0055550055555555aa55000055aa55555555aa55aa000055 \
    "$(map)"
fill aa
ioscope --name=m $J --rw=write --write_mode=zeroes/:write/:verify/20 --buffer_pattern=0x55 >/dev/null 2>&1
expect mix-blanks-share-the-rest-as-fio \
    00555500aa00aa550000005500550000005500550000aa550055005555555500555500aa005500aa5555005500550000aa005555005500000055aa00aa555500 \
    "$(map)"

# Every command a write becomes counts towards fsync=, as fio's writes do:
# a sync after each 8 but the last (fio's count for 64 plain writes too).
ioscope --name=m $J --rw=write --write_mode=write/50:zeroes/25:verify/25 --fsync=8 \
    --write_iolog=log.txt >/dev/null 2>&1
expect mix-writes-count-for-fsync "64 7" \
    "$(grep -c ' write ' log.txt) $(grep -c ' sync ' log.txt)"
echo CHECKS-DONE
