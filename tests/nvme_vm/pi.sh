#!/bin/sh
# Protection information through io_uring_cmd, run inside the nvme-vm guest
# by tests/nvme_vm.rs with two namespaces formatted with it:
#   /dev/ng0n2: 512-byte blocks, 16 bytes of metadata in a separate buffer,
#               type 1, 16-bit guard in the last 8 bytes (the guard covers
#               the 8 metadata bytes before it);
#   /dev/ng0n3: extended LBAs (512 + 16 bytes), type 3, 64-bit guard in the
#               first 16 bytes.
# The controller checks what PRCHK names on writes and reads, so a write
# that passes has protection information the device agrees with. Each check
# prints "CHECK <name> ok" or "CHECK <name> FAIL: <why>"; then CHECKS-DONE.
pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

# job NAME DEV ARGS...: a 1 MiB-ish passthrough job, its exit status kept.
job() {
    name=$1 dev=$2
    shift 2
    ioscope --name="$name" --ioengine=io_uring_cmd --filename="$dev" "$@" >out.txt 2>&1
}
# ok NAME DEV ARGS...: the job must succeed with err= 0.
ok() {
    if job "$@" && grep -q "err= 0" out.txt; then pass "$1"; else fail "$1" "$(tail -4 out.txt | tr '\n' ' ')"; fi
}
# refused NAME TEXT DEV ARGS...: the job must fail saying TEXT.
refused() {
    name=$1 text=$2
    shift 2
    if job "$name" "$@"; then
        fail "$name" "ran"
    elif grep -q "$text" out.txt; then
        pass "$name"
    else
        fail "$name" "$(tail -4 out.txt | tr '\n' ' ')"
    fi
}

ALL="--pi_act=0 --pi_chk=GUARD,REFTAG,APPTAG --apptag=0x8888"

# info names the layout and the protection information of each.
info() {
    if ioscope info "$2" >info.txt 2>&1 && grep -q "metadata: $3" info.txt &&
        grep -q "protection: $4" info.txt; then
        pass "$1"
    else
        fail "$1" "$(grep 'metadata\|protection' info.txt | tr '\n' ' ')"
    fi
}
info info-sep /dev/ng0n2 "in a separate buffer" "type 1, in the last bytes"
info info-ext /dev/ng0n3 "after each block's data (extended LBA)" "type 3, in the first bytes"

# Separate metadata: 8 blocks of 16 bytes per 4 KiB.
SEP="--size=1m --bs=4k --md_per_io_size=128"
ok sep-host-pi-write /dev/ng0n2 $SEP --rw=randwrite --iodepth=8 $ALL
ok sep-host-pi-read /dev/ng0n2 $SEP --rw=randread --iodepth=8 $ALL
refused sep-wrong-apptag "Application Tag Check Error" /dev/ng0n2 $SEP --rw=read --pi_act=0 --pi_chk=APPTAG --apptag=0x1111
# No field written by the host (pi_chk empty): the guard the device then
# checks is wrong.
ok sep-no-pi-written /dev/ng0n2 $SEP --rw=write --size=64k --pi_act=0
refused sep-bad-guard "Guard Check Error" /dev/ng0n2 $SEP --rw=read --size=64k --pi_act=0 --pi_chk=GUARD
refused sep-md-too-small "md_per_io_size should be at least 128 bytes" /dev/ng0n2 --size=1m --bs=4k --md_per_io_size=64 --rw=read
ok sep-pract-verify /dev/ng0n2 $SEP --rw=write --verify=crc32c --do_verify=1
# A Compare would compare the 8 metadata bytes PRACT leaves to the host.
refused sep-compare-metadata "verify_mode=compare compares data alone, and the namespace's format has 16 bytes" /dev/ng0n2 $SEP --rw=write --verify=pattern --verify_pattern=0x3c --verify_mode=compare

# Extended LBAs of 528 bytes: 8 blocks make 4224. Type 3 has no reference
# tag to check: the controller refuses REFTAG there (Invalid Protection
# Information), as it refuses fio's.
EXT="--size=1056k --bs=4224"
T3="--pi_act=0 --pi_chk=GUARD,APPTAG --apptag=0x8888"
refused ext-type3-reftag "Invalid Protection Information" /dev/ng0n3 $EXT --rw=write --size=4224 $ALL
ok ext-host-pi-write /dev/ng0n3 $EXT --rw=randwrite --iodepth=8 $T3
ok ext-host-pi-read /dev/ng0n3 $EXT --rw=read $T3
refused ext-wrong-apptag "Application Tag Check Error" /dev/ng0n3 $EXT --rw=read --pi_act=0 --pi_chk=APPTAG --apptag=0x1111
refused ext-bs "block size must be a multiple of 528 (LBA data size + Metadata size); did you mean to use a block size of 4224?" /dev/ng0n3 --size=1m --bs=4k --rw=read --pi_act=0
refused ext-verify "for extended LBA, verify cannot be used when E2E data protection is enabled" /dev/ng0n3 $EXT --rw=write --pi_act=0 --verify=crc32c
# PRACT with metadata that is all protection information: plain 512-byte
# blocks, the controller adding and removing the 16 bytes.
ok ext-pract-verify /dev/ng0n3 --size=1m --bs=4k --rw=write --verify=crc32c --do_verify=1
# The host moves data alone there, so ioscope sends Compares, with a
# read's PRINFO as fio 3.42 does; QEMU 7.2 refuses PRACT on a Compare,
# and fails fio's the same way.
refused ext-pract-compare "Invalid Protection Information" /dev/ng0n3 --size=1m --bs=4k --rw=randwrite --iodepth=4 --verify=pattern --verify_pattern=0x3c --verify_mode=compare
echo CHECKS-DONE
