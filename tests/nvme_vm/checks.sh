#!/bin/sh
# ioscope's NVMe checks, run inside the nvme-vm guest (busybox sh) by
# tests/nvme_vm.rs. Argument: the namespace's LBA size. Each check prints one
# line, "CHECK <name> ok" or "CHECK <name> FAIL: <why>"; the last line is
# "CHECKS-DONE". The data checks write known contents with dd through the
# block device and read them back the other way, so a passthrough command
# that lands at the wrong LBA or moves the wrong bytes is caught.
LBA=$1
NG=/dev/ng0n1
BLK=/dev/nvme0n1
MIB=1048576

pass() { echo "CHECK $1 ok"; }
fail() { echo "CHECK $1 FAIL: $2"; }

# Non-zero bytes in SIZE_MIB MiB at OFFSET_MIB of the block device.
nonzero_bytes() {
    dd if=$BLK bs=$MIB skip="$1" count="$2" iflag=direct 2>/dev/null | tr -d '\000' | wc -c
}
zeroes() { [ "$(nonzero_bytes "$1" "$2")" -eq 0 ]; }
not_zeroes() { [ "$(nonzero_bytes "$1" "$2")" -gt 0 ]; }
fill_random() {
    dd if=/dev/urandom of=$BLK bs=$MIB seek="$1" count="$2" oflag=direct 2>/dev/null
}
# The first 16 bytes of block LBA_INDEX as the example prints them.
first16() {
    dd if=$BLK bs="$LBA" skip="$1" count=1 iflag=direct 2>/dev/null |
        hexdump -v -n 16 -e '16/1 "%02x " "\n"' | sed 's/ *$//'
}

# A passthrough job on the char device; its output is left in job.out.
job() { ioscope --name=j --ioengine=io_uring_cmd --filename=$NG "$@" >job.out 2>&1; }
job_ok() {
    name=$1
    shift
    if job "$@" && grep -q "err= 0" job.out; then
        pass "$name"
    else
        fail "$name" "$(tail -4 job.out | tr '\n' ' ')"
    fi
}
# A job that must be refused before it runs, saying WHAT.
job_refused() {
    name=$1
    what=$2
    shift 2
    if job "$@"; then
        fail "$name" "ran: $(tail -2 job.out | tr '\n' ' ')"
    elif grep -q "$what" job.out; then
        pass "$name"
    else
        fail "$name" "$(tail -2 job.out | tr '\n' ' ')"
    fi
}
check() {
    name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# --- ioscope info, both admin paths --------------------------------------
ioscope info $NG >info.txt 2>&1
check info_oncs grep -q "oncs: 0x15d" info.txt
check info_write_zeroes grep -q "Write Zeroes: yes" info.txt
check info_dsm grep -q "Dataset Management: yes" info.txt
check info_mdts grep -q "mdts: 524288 bytes (MDTS 7)" info.txt
check info_block_size grep -q "block size: $LBA bytes" info.txt
check info_format_in_use grep -q "lbaf [0-9]*: $LBA bytes, 0 metadata bytes.*(in use)" info.txt
check info_formats_512_and_4096 sh -c "grep -q 'lbaf .*: 512 bytes' info.txt && grep -q 'lbaf .*: 4096 bytes' info.txt"
check info_dlfeat grep -q "dlfeat: 0x1 (deallocated blocks read as zeroes)" info.txt
check info_model grep -q "model: QEMU NVMe Ctrl" info.txt
check info_names sh -c "grep -q 'char device: /dev/ng0n1' info.txt && grep -q 'block device: /dev/nvme0n1' info.txt"
check info_size grep -q "size: 1073741824 bytes" info.txt
# QEMU 7.2 answers the NVM command set's Identify Controller with no range
# count, no Write Zeroes or Write Uncorrectable size limit, a Verify size
# limit of 2^7 pages (512 KiB), and a range size of BDRV_REQUEST_MAX_BYTES
# (0x7ffffe00) in blocks.
check info_dsm_range_size grep -q "dsm range size: $((0x7ffffe00 / LBA)) blocks (DMRSL)" info.txt
check info_dsm_no_range_limit sh -c "grep -q 'dsm ranges: no limit (DMRL 0)' info.txt && grep -q 'write zeroes limit: no limit (WZSL 0)' info.txt && grep -q 'verify limit: 524288 bytes (VSL 7)' info.txt && grep -q 'write uncor limit: no limit (WUSL 0)' info.txt"
ioscope info --output-format=json $NG >info.json 2>&1
check info_json sh -c "grep -q '\"oncs\": 349' info.json && grep -q '\"block_size\": $LBA' info.json"
ioscope info --admin=block $BLK >block.txt 2>&1
check info_admin_block sh -c "grep -q 'block size: $LBA bytes' block.txt && grep -q 'size: 1073741824 bytes' block.txt && grep -q 'write zeroes: yes' block.txt"

# --- reads: the engine example against what dd reads -----------------------
if [ -x ./nvme_read ]; then
    fill_random 0 1
    want=$(first16 3)
    got=$(./nvme_read $NG 3 2>&1 | sed -n 's/.*first 16: //p')
    if [ -n "$want" ] && [ "$want" = "$got" ]; then pass example_read_matches_dd; else fail example_read_matches_dd "dd: $want; example: $got"; fi
    blocks=$((1073741824 / LBA))
    out=$(./nvme_read $NG $blocks 2>&1)
    case $out in
    *"LBA Out of Range (NVMe status: sct 0x0, sc 0x80"*) pass nvme_status_named ;;
    *) fail nvme_status_named "$out" ;;
    esac
else
    echo "CHECK-SKIPPED the nvme_read example's checks: it was not built (cargo test --workspace builds it)"
fi

# --- reads and writes through jobs -----------------------------------------
fill_random 0 4
job_ok write_zero_buffers --rw=write --bs=64k --size=2m --iodepth=8 --zero_buffers=1
check write_landed_in_place zeroes 0 2
check write_stopped_at_size not_zeroes 2 2
job_ok randread --rw=randread --bs=4k --size=8m --iodepth=16
check randread_bytes grep -q "io=8192KiB" job.out
job_ok randwrite --rw=randwrite --bs=8k --size=4m --offset=64m --iodepth=16
job_ok hipri_read --rw=randread --bs=4k --size=4m --iodepth=8 --hipri
job_ok hipri_write --rw=write --bs=16k --size=2m --offset=64m --iodepth=8 --hipri
job_ok fixedbufs_read --rw=randread --bs=4k --size=4m --iodepth=8 --fixedbufs
fill_random 32 4
job_ok fixedbufs_write --rw=write --bs=128k --size=2m --offset=32m --iodepth=4 --fixedbufs --zero_buffers=1
check fixedbufs_write_landed sh -c "[ \$(dd if=$BLK bs=$MIB skip=32 count=2 iflag=direct 2>/dev/null | tr -d '\\000' | wc -c) -eq 0 ]"
job_ok registerfiles --rw=randread --bs=4k --size=4m --iodepth=8 --registerfiles
job_ok sqthread_poll --rw=randread --bs=4k --size=4m --iodepth=8 --sqthread_poll
job_ok vectored --rw=randread --bs=4k --size=4m --iodepth=8 --nonvectored=0
job_ok batching --rw=randread --bs=4k --size=4m --iodepth=32 --iodepth_batch_submit=8 --iodepth_batch_complete_min=4
job_ok readfua_writefua --rw=randrw --bs=4k --size=2m --offset=64m --iodepth=4 --readfua=1 --writefua=1

# --- Write Zeroes, with and without DEAC -----------------------------------
fill_random 100 4
job_ok write_zeroes --rw=write --bs=1m --size=2m --offset=100m --iodepth=4 --write_mode=zeroes
check write_zeroes_reads_zeroes zeroes 100 2
check write_zeroes_stops_at_size not_zeroes 102 2
fill_random 110 4
job_ok write_zeroes_deac --rw=write --bs=16m --size=16m --offset=110m --iodepth=1 --write_mode=zeroes --deac=1
check write_zeroes_deac_reads_zeroes zeroes 110 16
fill_random 130 2
job_ok write_zeroes_random_qd16 --rw=randwrite --bs=64k --size=2m --offset=130m --iodepth=16 --write_mode=zeroes --deac=1
check write_zeroes_random_reads_zeroes zeroes 130 2

# --- Dataset Management deallocate: rw=trim and randtrim ---------------------
fill_random 200 4
job_ok trim --rw=trim --bs=64k --size=2m --offset=200m --iodepth=4
check trim_reads_zeroes zeroes 200 2
check trim_stops_at_size not_zeroes 202 2
check trim_counted_as_trim sh -c "grep -q 'issued rwts: total=0,0,32,0' job.out && grep -q ' TRIM: bw=' job.out"
job_ok randtrim --rw=randtrim --bs=16k --size=2m --offset=202m --iodepth=16
check randtrim_reads_zeroes zeroes 202 2

# --- num_range: several ranges in one Dataset Management ---------------------
# Random trims cover every block of the region once, so a range that lands
# on the wrong LBA leaves data behind in it or zeroes around it.
fill_random 208 6
job_ok randtrim_num_range --rw=randtrim --num_range=8 --bs=4k --size=2m --offset=210m --iodepth=8
check randtrim_num_range_reads_zeroes zeroes 210 2
check randtrim_num_range_spares_before not_zeroes 208 2
check randtrim_num_range_spares_after not_zeroes 212 2
# 512 trims of 4 KiB, 8 to a command: 64 trims of 32 KiB each as fio counts.
check randtrim_num_range_one_io_per_command grep -q "issued rwts: total=0,0,64,0" job.out
# 256 one-block ranges per command: with 512-byte blocks the range list
# (4 KiB) is longer than a block, so the buffers must be sized for it.
fill_random 220 2
job_ok trim_256_ranges --rw=trim --num_range=256 --bs=$LBA --size=1m --offset=220m --iodepth=2
check trim_256_ranges_reads_zeroes zeroes 220 1
check trim_256_ranges_stops_at_size not_zeroes 221 1
check trim_256_ranges_commands grep -q "issued rwts: total=0,0,$((MIB / LBA / 256)),0" job.out

# --- refusals before the run ------------------------------------------------
job_refused unaligned_bs "is not a multiple of the namespace's $LBA-byte LBA size" --rw=randread --bs=$((LBA / 2)) --size=1m
job_refused bs_over_mdts "MDTS" --rw=read --bs=1m --size=4m
job_refused verify_over_vsl "more than the 524288 bytes one Verify may cover on this device (VSL 7)" --rw=write --bs=1m --size=2m --write_mode=verify
if ioscope --name=j --ioengine=io_uring_cmd --filename=$BLK --rw=read --size=1m >job.out 2>&1; then
    fail block_device_refused "ran on $BLK"
elif grep -q "generic char device" job.out; then
    pass block_device_refused
else
    fail block_device_refused "$(tail -2 job.out | tr '\n' ' ')"
fi
job_refused num_range_above_256 "at most 256 ranges" --rw=trim --size=1m --num_range=257
# A job that does not trim runs as without num_range, as in fio.
job_ok num_range_without_trims --rw=randread --size=1m --num_range=4
# The block layer's discard takes one range per call: io_uring cannot send
# several in one request, and says which engine can.
if ioscope --name=j --ioengine=io_uring --filename=$BLK --rw=trim --size=1m --num_range=4 \
        >job.out 2>&1; then
    fail num_range_refused_for_io_uring "ran: $(tail -2 job.out | tr '\n' ' ')"
elif grep -q "need ioengine=io_uring_cmd" job.out; then
    pass num_range_refused_for_io_uring
else
    fail num_range_refused_for_io_uring "$(tail -2 job.out | tr '\n' ' ')"
fi
# The block layer's discard (BLKDISCARD, issued inside io_uring's submit as
# fio does) deallocates the namespace's blocks like a passthrough DSM.
if ioscope --name=j --ioengine=io_uring --filename=$BLK --rw=trim --bs=64k --size=1m \
        --output-format=json >job.out 2>&1 && grep -q '"io_bytes" : 1048576' job.out; then
    pass trim_through_the_block_device
else
    fail trim_through_the_block_device "$(tail -2 job.out | tr '\n' ' ')"
fi
# force_async=1 (fio's io_uring engines share the option) sends every
# passthrough command to io-wq, whose workers ioscope counts; without it the
# commands are issued inline and no worker runs.
wrk_threads() { sed -n 's/.*"iou_wrk_threads" : \([0-9]*\).*/\1/p' job.out | head -1; }
if job --rw=randread --size=1m --iodepth=4 --output-format=json && [ "$(wrk_threads)" = 0 ] &&
    job --rw=randread --size=1m --iodepth=4 --force_async=1 --output-format=json &&
    [ "$(wrk_threads)" -gt 0 ]; then
    pass force_async_sends_commands_to_io_wq
else
    fail force_async_sends_commands_to_io_wq "io-wq workers: $(wrk_threads); $(tail -2 job.out | tr '\n' ' ')"
fi
echo CHECKS-DONE
