//! Checking what an earlier job wrote, as fio users do: a write job with
//! `verify=`, damage done behind ioscope's back, then a read job (or
//! `verify_only`) with the same `verify=`. Every kind of damage must be
//! found, named and placed; a clean target must pass with every block
//! counted; a check that checked nothing must fail.

mod common;

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;

use common::*;
use ioscope_testutil::require;

/// Bytes each writer covers, and the block every reader reads.
const SIZE: u64 = 4 << 20;
const BLOCK: u64 = 4096;

/// The ways a target is written: the args after --name/--filename.
const WRITERS: [(&str, &[&str]); 4] = [
    ("seq", &["--rw=write", "--bs=4k"]),
    ("random", &["--rw=randwrite", "--bs=4k"]),
    ("bsrange", &["--rw=randwrite", "--bsrange=4k-16k"]),
    (
        "clones",
        &[
            "--rw=randwrite",
            "--bs=4k",
            "--numjobs=2",
            "--size=2m",
            "--offset_increment=2m",
        ],
    ),
];

/// The ways it is checked: another job name each time, other block sizes.
const READERS: [(&str, &[&str]); 4] = [
    ("read", &["--rw=read", "--bs=4k"]),
    ("randread", &["--rw=randread", "--bsrange=4k-16k"]),
    ("verify_only", &["--rw=read", "--bs=4k", "--verify_only=1"]),
    ("other-name", &["--rw=randread", "--bs=16k"]),
];

/// Damage done to one written target; returns what the check must say:
/// the kind and the offset.
#[derive(Clone, Copy, Debug)]
enum Damage {
    FlipByte,
    ZeroBlock,
    CopyBlock,
    HalfOlder,
}

const DAMAGE: [Damage; 4] = [
    Damage::FlipByte,
    Damage::ZeroBlock,
    Damage::CopyBlock,
    Damage::HalfOlder,
];

/// A block in the middle of the target, where every writer wrote.
const AT: u64 = 1 << 20;

impl Damage {
    /// Does the damage to `target`; `older` holds what an earlier write of
    /// the same target left (for half a block from an older write).
    fn apply(self, target: &Path, older: &[u8]) -> (&'static str, u64) {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(target)
            .unwrap();
        let mut block = vec![0u8; BLOCK as usize];
        f.read_exact_at(&mut block, AT).unwrap();
        let said = match self {
            Damage::FlipByte => {
                block[777] ^= 0x40;
                ("bit flip", AT + 777)
            }
            Damage::ZeroBlock => {
                block.fill(0);
                ("lost write", AT)
            }
            Damage::CopyBlock => {
                f.read_exact_at(&mut block, AT + 64 * BLOCK).unwrap();
                ("misdirected write", AT)
            }
            Damage::HalfOlder => {
                let half = BLOCK as usize / 2;
                let old = &older[AT as usize..(AT + BLOCK) as usize];
                block[half..].copy_from_slice(&old[half..]);
                ("torn write", AT + half as u64)
            }
        };
        f.write_all_at(&block, AT).unwrap();
        f.sync_all().unwrap();
        said
    }
}

fn write_target(target: &str, name: &str, args: &[&str], seed: u32, extra: &[&str]) {
    let mut a = vec![
        format!("--name={name}"),
        format!("--filename={target}"),
        format!("--size={SIZE}"),
        "--verify=crc32c".into(),
        "--do_verify=0".into(),
        format!("--randseed={seed}"),
        "--verify_state_save=0".into(),
    ];
    a.extend(args.iter().map(|s| s.to_string()));
    a.extend(extra.iter().map(|s| s.to_string()));
    ioscope(a).run().assert_ok();
}

fn check(dir: &Path, target: &str, reader: (&str, &[&str]), extra: &[&str]) -> Run {
    let mut a = vec![
        format!("--name=check-{}", reader.0),
        format!("--filename={target}"),
        format!("--size={SIZE}"),
        "--verify=crc32c".into(),
        "--output-format=json".into(),
    ];
    a.extend(reader.1.iter().map(|s| s.to_string()));
    a.extend(extra.iter().map(|s| s.to_string()));
    ioscope(a).dir(dir).run()
}

/// Writes, damages and checks `target` for every writer, damage and reader.
fn matrix(dir: &Path, target: &str, extra: &[&str]) {
    for (wname, wargs) in WRITERS {
        // An older write of the whole target, kept for the torn block.
        write_target(target, "older", &["--rw=write", "--bs=4k"], 1, extra);
        let older = read_target(target);
        write_target(target, wname, wargs, 2, extra);
        for reader in READERS {
            let r = check(dir, target, reader, extra);
            let what = format!("{wname} checked by {}", reader.0);
            let v = r.ok_json();
            let job = &v["jobs"][0];
            assert_eq!(u(job, "verify_bad"), 0, "{what}: {}", r.describe());
            assert_eq!(
                u(&job["read"], "io_bytes"),
                SIZE,
                "{what}: every byte read: {}",
                r.describe()
            );
            assert!(u(job, "verify_checked") > 0, "{what}");
        }
        let pristine = read_target(target);
        for damage in DAMAGE {
            let (kind, offset) = damage.apply(Path::new(target), &older);
            for reader in READERS {
                let r = check(dir, target, reader, extra);
                let what = format!("{wname}, {damage:?}, checked by {}", reader.0);
                let err = r.assert_refused();
                let said = format!("{kind} at offset {offset}");
                assert!(
                    err.contains(&said),
                    "{what}: expected '{said}': {}",
                    r.describe()
                );
            }
            restore(target, &pristine);
        }
    }
}

/// The first SIZE bytes of a file or device.
fn read_target(path: &str) -> Vec<u8> {
    let mut v = vec![0u8; SIZE as usize];
    File::open(path).unwrap().read_exact_at(&mut v, 0).unwrap();
    v
}

/// Puts the damaged block back as it was.
fn restore(target: &str, pristine: &[u8]) {
    let f = OpenOptions::new().write(true).open(target).unwrap();
    f.write_all_at(&pristine[AT as usize..(AT + BLOCK) as usize], AT)
        .unwrap();
    f.sync_all().unwrap();
}

#[test]
fn every_damage_is_found_by_every_reader_on_a_file() {
    let dir = tempdir();
    let target = dir.path().join("target");
    matrix(dir.path(), target.to_str().unwrap(), &[]);
}

#[test]
fn every_damage_is_found_by_every_reader_on_zram() {
    let zram = require!(Zram::acquire());
    let dir = tempdir();
    matrix(dir.path(), zram.path(), &["--direct=1"]);
}

/// The issue's first case: a flipped byte, found by a verify_only read.
#[test]
fn verify_only_on_a_read_workload_reads_and_checks() {
    let dir = tempdir();
    let f = dir.path().join("f");
    let target = f.to_str().unwrap();
    write_target(target, "v", &["--rw=write", "--bs=4k"], 3, &[]);
    let clean = check(
        dir.path(),
        target,
        ("read", &["--rw=read", "--bs=4k", "--verify_only=1"]),
        &[],
    );
    let v = clean.ok_json();
    assert_eq!(u(&v["jobs"][0], "verify_checked"), SIZE / BLOCK);
    let normal = ioscope([
        "--name=v",
        &format!("--filename={target}"),
        "--bs=4k",
        &format!("--size={SIZE}"),
        "--rw=read",
        "--verify=crc32c",
    ])
    .run();
    normal.assert_ok();
    let line = format!("verify    : checked={}, bad=0", SIZE / BLOCK);
    assert!(normal.stdout.contains(&line), "{}", normal.describe());
    let file = OpenOptions::new().write(true).open(&f).unwrap();
    file.write_all_at(&[0xff], 5000).unwrap();
    let bad = check(
        dir.path(),
        target,
        ("read", &["--rw=read", "--bs=4k", "--verify_only=1"]),
        &[],
    );
    let err = bad.assert_refused();
    assert!(
        err.contains("bit flip at offset 5000"),
        "{}",
        bad.describe()
    );
}

#[test]
fn a_read_back_with_other_verify_options_says_which_to_use() {
    let dir = tempdir();
    let f = dir.path().join("f");
    let target = f.to_str().unwrap();
    write_target(target, "w", &["--rw=write", "--bs=64k"], 3, &[]);
    let r = check(
        dir.path(),
        target,
        ("small", &["--rw=read", "--bs=4k"]),
        &[],
    );
    let err = r.assert_refused();
    assert!(
        err.contains("written with other verify options") && err.contains("bs=65536"),
        "{}",
        r.describe()
    );
    let mut a = vec![
        "--name=md5".to_string(),
        format!("--filename={target}"),
        format!("--size={SIZE}"),
        "--rw=read".into(),
        "--bs=64k".into(),
        "--verify=md5".into(),
    ];
    let r = ioscope(a.clone()).run();
    assert!(
        r.assert_refused().contains("verify=crc32c"),
        "{}",
        r.describe()
    );
    // verify_header_seed=1 holds a read job to the seed it would write with.
    a[5] = "--verify=crc32c".into();
    a.push("--verify_header_seed=1".into());
    let r = ioscope(a).run();
    assert!(
        r.assert_refused().contains("verify_header_seed=0"),
        "{}",
        r.describe()
    );
}

#[test]
fn experimental_verify_replays_the_writes_instead_of_listing_them() {
    let dir = tempdir();
    let f = dir.path().join("f");
    for extra in [&["--loops=2"][..], &["--rw=randrw"], &["--norandommap=1"]] {
        let mut a = vec![
            "--name=e".to_string(),
            format!("--filename={}", f.display()),
            "--size=2m".into(),
            "--rw=randwrite".into(),
            "--verify=crc32c".into(),
            "--experimental_verify=1".into(),
            "--output-format=json".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        let r = ioscope(a).dir(dir.path()).run();
        let v = r.ok_json();
        let job = &v["jobs"][0];
        assert_eq!(
            u(job, "verify_checked"),
            u(&job["write"], "total_ios"),
            "every write is checked once: {}",
            r.describe()
        );
    }
    // A fault the replay must see.
    let r = ioscope([
        "--name=e",
        &format!("--filename={}", f.display()),
        "--size=2m",
        "--rw=randwrite",
        "--verify=crc32c",
        "--experimental_verify=1",
        "--ioengine=faulty",
        "--fault=bitflip",
        "--fault_rate=5",
    ])
    .dir(dir.path())
    .run();
    assert!(r.assert_refused().contains("bit flip"), "{}", r.describe());
}

#[test]
fn the_state_is_saved_after_every_write_phase() {
    let dir = tempdir();
    let f = dir.path().join("f");
    let args = |only: bool| {
        let mut a = vec![
            "--name=s".to_string(),
            format!("--filename={}", f.display()),
            "--size=1m".into(),
            "--rw=randwrite".into(),
            "--verify=crc32c".into(),
            "--output-format=json".into(),
        ];
        if only {
            a.extend(["--verify_only=1".into(), "--verify_state_load=1".into()]);
        }
        a
    };
    ioscope(args(false)).dir(dir.path()).run().assert_ok();
    let state = dir.path().join("local-s-0-verify.state");
    let text = std::fs::read_to_string(&state).expect("the state of a finished write phase");
    assert!(text.contains("writes=256"), "{text}");
    let v = ioscope(args(true)).dir(dir.path()).run().ok_json();
    assert_eq!(u(&v["jobs"][0], "verify_checked"), 256);
    // A state that says nothing was written: a verify that checks nothing
    // fails, and says why.
    std::fs::write(&state, "ioscope verify state 1\njob=s\nwrites=0\n").unwrap();
    let r = ioscope(args(true)).dir(dir.path()).run();
    let err = r.assert_refused();
    assert!(
        err.contains("verify checked no block") && err.contains("verify_state_load"),
        "{}",
        r.describe()
    );
}

#[test]
fn verify_async_checks_every_block_off_the_worker() {
    let dir = tempdir();
    let f = dir.path().join("f");
    let target = f.to_str().unwrap();
    for extra in [
        &["--verify_async=2"][..],
        &["--verify_async=1", "--ioengine=io_uring", "--iodepth=8"],
    ] {
        let mut a = vec![
            "--name=a".to_string(),
            format!("--filename={target}"),
            "--size=4m".into(),
            "--rw=randwrite".into(),
            "--verify=sha256".into(),
            "--verify_state_save=0".into(),
            "--output-format=json".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        let v = ioscope(a.clone()).run().ok_json();
        assert_eq!(u(&v["jobs"][0], "verify_checked"), 1024, "{extra:?}");
        // A read job checks through the same threads.
        a[3] = "--rw=randread".into();
        let v = ioscope(a).run().ok_json();
        assert_eq!(u(&v["jobs"][0], "verify_checked"), 1024, "{extra:?}");
    }
    // Every fault is counted, whichever thread found it.
    let r = ioscope([
        "--name=a",
        &format!("--filename={target}"),
        "--size=4m",
        "--rw=randwrite",
        "--verify=crc32c",
        "--verify_async=2",
        "--ioengine=faulty",
        "--fault=bitflip",
        "--fault_rate=3",
        "--continue_on_error=verify",
        "--verify_state_save=0",
        "--output-format=json",
    ])
    .run();
    r.assert_refused();
    let (v, _) = extract_json(&r.stdout).expect("the report is printed");
    let job = &v["jobs"][0];
    assert_eq!(u(job, "verify_checked"), 1024, "{}", r.describe());
    assert!(u(job, "verify_bad") > 0, "{}", r.describe());
    assert_eq!(
        u(job, "verify_bad"),
        u(job, "total_err"),
        "{}",
        r.describe()
    );
}

#[test]
fn verify_interval_and_verify_offset_are_honoured_on_read_back() {
    let dir = tempdir();
    let f = dir.path().join("f");
    let target = f.to_str().unwrap();
    let layout = [
        "--verify=md5",
        "--verify_interval=4k",
        "--verify_offset=512",
    ];
    write_target(
        target,
        "w",
        &["--rw=randwrite", "--bsrange=4k-32k"],
        4,
        &layout,
    );
    let r = check(
        dir.path(),
        target,
        ("r", &["--rw=randread", "--bs=8k"]),
        &layout,
    );
    assert_eq!(u(&r.ok_json()["jobs"][0], "verify_checked"), SIZE / 8192);
    // Read without the writer's verify_offset: the header is not where the
    // job looks, and the message says what may be wrong.
    let r = check(
        dir.path(),
        target,
        ("r", &["--rw=randread", "--bs=8k"]),
        &["--verify=md5"],
    );
    assert!(
        r.assert_refused().contains("verify_offset"),
        "{}",
        r.describe()
    );
}

/// Blocks fio wrote, checked by an ioscope read job: every verify method,
/// a verify_offset, and damage in the data's middle, its end and a
/// header. ioscope's verdict is fio's own (a read job of the installed fio
/// over the same bytes), and a good target has every block checked. fio
/// 3.33's sha512 checks only the first and last bytes of the data (it never
/// finishes the hash), so damage in the middle passes there in both tools;
/// meta checks the header alone.
#[test]
fn blocks_fio_wrote_get_fios_verdict_for_every_method() {
    require!(ioscope_testutil::fio());
    same_verdicts("fio");
}

/// The other way: blocks ioscope wrote, checked by fio's read job as by
/// ioscope's, the same cases. ioscope writes fio 3.42's verify header and
/// checksums, which fio 3.42 and later check (an older fio's header has
/// no version byte, and fio refuses a header of another version).
#[test]
fn blocks_ioscope_wrote_get_fios_verdict_for_every_method() {
    require!(ioscope_testutil::fio_at_least(3, 42));
    same_verdicts("ioscope");
}

/// Every method with a header and a name fio 3.33 knows, written by
/// `writer` (randwrite, 256 KiB in 4 KiB blocks, 1 KiB intervals) and read
/// back after each damage by fio's read job and by ioscope's: the same
/// verdict, every block checked when nothing is damaged, and ioscope's
/// diagnosis names the damage.
fn same_verdicts(writer: &str) {
    let dir = tempdir();
    let f = dir.path().join("f");
    let target = f.to_str().unwrap();
    // pattern has no header, null checks nothing, pattern_hdr is fio
    // 3.42's name.
    let methods = VERIFY_METHODS
        .into_iter()
        .filter(|m| !matches!(*m, "pattern" | "pattern_hdr" | "null"));
    let job = |method: &str, offset: &str, rw: &str| -> Vec<String> {
        let mut a: Vec<String> = [
            "--name=x",
            &format!("--filename={target}"),
            "--size=256k",
            "--bs=4k",
            "--verify_interval=1k",
            &format!("--verify={method}"),
            &format!("--rw={rw}"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // fio refuses verify_offset below its header's length, 0 too.
        if offset != "0" {
            a.push(format!("--verify_offset={offset}"));
        }
        a
    };
    let tool = |name: &str, args: Vec<String>| match name {
        "fio" => fio(args),
        _ => ioscope(args),
    };
    for method in methods {
        // verify_offset moves every method's header the same way: two
        // methods (one with fio's 128-byte sha512 area) show it.
        let offsets: &[&str] = match method {
            "md5" | "sha512" => &["0", "300"],
            _ => &["0"],
        };
        for &offset in offsets {
            let mut w = job(method, offset, "randwrite");
            w.push("--do_verify=0".into());
            let r = tool(writer, w).dir(dir.path()).run();
            assert!(r.status.success(), "{}", r.describe());
            let pristine = std::fs::read(&f).unwrap();
            // The interval at 11264 (the last of the block at 8192: fio
            // fails a job only for a block's last interval, the next one's
            // verdict replacing an earlier one's): its data's middle and
            // last byte, and a byte of its header's offset field.
            let header = 11264 + offset.parse::<u64>().unwrap() + 17;
            for (what, at) in [
                ("nothing", None),
                ("middle", Some(11264 + 700)),
                ("end", Some(11264 + 1023)),
                ("header", Some(header)),
            ] {
                std::fs::write(&f, &pristine).unwrap();
                if let Some(at) = at {
                    let file = OpenOptions::new().read(true).write(true).open(&f).unwrap();
                    let mut b = [0u8];
                    file.read_exact_at(&mut b, at).unwrap();
                    file.write_all_at(&[b[0] ^ 0x10], at).unwrap();
                }
                let theirs = fio(job(method, offset, "read")).dir(dir.path()).run();
                let ours = ioscope(job(method, offset, "read")).dir(dir.path()).run();
                let case = format!(
                    "{writer} wrote verify={method} verify_offset={offset}, damage: {what}"
                );
                assert_eq!(
                    (ours.status.success(), ours.status.success()),
                    (theirs.status.success(), !theirs.stderr.contains("verify")),
                    "{case}: ioscope and fio differ\n{}\n{}",
                    ours.describe(),
                    theirs.describe()
                );
                if ours.status.success() {
                    assert!(
                        ours.stdout.contains("verify    : checked=64, bad=0"),
                        "{case}: {}",
                        ours.describe()
                    );
                    continue;
                }
                // fio's blocks are diagnosed from their header and
                // checksum; ioscope's, made again from their header, to
                // the bit.
                let want = match (writer, what) {
                    ("fio", "header") => format!("damaged header at offset {}", header - 17),
                    ("fio", _) => "corrupt data at offset 11264".to_string(),
                    (_, _) => format!("bit flip at offset {}", at.unwrap()),
                };
                assert!(
                    ours.stderr.contains(&want) && (writer != "fio" || ours.stderr.contains("fio")),
                    "{case}: {}",
                    ours.describe()
                );
            }
        }
    }
}

/// Job `s` over file `f`, 256 KiB in 4 KiB blocks (the verify state
/// tests' job, written by fio and checked by ioscope): `how` (its rw and
/// verify), then `extra`.
fn state_job(how: &[&str], extra: &[&str]) -> Vec<String> {
    ["--name=s", "--filename=f", "--size=256k", "--bs=4k"]
        .iter()
        .chain(how)
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// A fio write job with verify saves its state (`local-<job>-0-verify.state`,
/// fio's binary layout) as it ends; a `verify_only verify_state_load` run
/// of ioscope under the same job name reads it and checks exactly the
/// writes it records: 32 of the 64 blocks here, where the same run without
/// the state checks all 64 and finds the 32 fio never wrote.
#[test]
fn fios_saved_state_says_how_much_a_verify_only_run_checks() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let args = |extra: &[&str]| state_job(&["--rw=write", "--verify=md5"], extra);
    let r = fio(args(&["--io_size=128k", "--do_verify=0"]))
        .dir(dir.path())
        .run();
    assert!(r.status.success(), "{}", r.describe());
    let state = dir.path().join("local-s-0-verify.state");
    assert!(state.exists(), "fio saved no state: {}", r.describe());
    let only = ["--verify_only=1", "--output-format=json"];
    let with_state: Vec<&str> = only
        .iter()
        .copied()
        .chain(["--verify_state_load=1"])
        .collect();
    let v = ioscope(args(&with_state)).dir(dir.path()).run().ok_json();
    assert_eq!(u(&v["jobs"][0], "verify_checked"), 32);
    let r = ioscope(args(&only)).dir(dir.path()).run();
    let err = r.assert_refused();
    assert!(
        err.contains("at offset 131072") && err.contains("zeroes"),
        "{}",
        r.describe()
    );
    // A damaged state is refused, naming the file and why.
    let mut bytes = std::fs::read(&state).unwrap();
    bytes[30] ^= 1;
    std::fs::write(&state, bytes).unwrap();
    let r = ioscope(args(&with_state)).dir(dir.path()).run();
    let err = r.assert_refused();
    assert!(
        err.contains("local-s-0-verify.state") && err.contains("crc32c"),
        "{}",
        r.describe()
    );
}

/// The state a fio of 3.39 on saves (layouts 4 and 5) replays the random
/// offsets such a fio draws: since 3.35 every seed comes from `randseed`,
/// where fio 3.33 kept the offsets' seed apart while `randrepeat` is on.
/// The blocks are fio 3.33's with `randrepeat=0 randseed=77`, which are
/// where a newer fio puts `randseed=77`'s; its state is written again in
/// fio 3.41's layout, as that fio would have saved it.
#[test]
fn a_newer_fios_state_replays_that_fios_random_offsets() {
    require!(ioscope_testutil::fio());
    let dir = tempdir();
    let job = |extra: &[&str]| state_job(&["--rw=randwrite", "--verify=crc32c"], extra);
    let r = fio(job(&[
        "--randrepeat=0",
        "--randseed=77",
        "--io_size=128k",
        "--do_verify=0",
    ]))
    .dir(dir.path())
    .run();
    assert!(r.status.success(), "{}", r.describe());
    let state = dir.path().join("local-s-0-verify.state");
    let saved = std::fs::read(&state).unwrap();
    // Layout 3 (fio 3.33): a 24-byte header, numberio 16 bytes into the list.
    assert_eq!(saved[..8], 3u64.to_le_bytes(), "fio 3.33 saves layout 3");
    let writes = u64::from_le_bytes(saved[24 + 16..24 + 24].try_into().unwrap());
    assert_eq!(writes, 32);
    let check = [
        "--randseed=77",
        "--verify_only=1",
        "--verify_state_load=1",
        "--output-format=json",
    ];
    // As fio 3.33's state it replays fio 3.33's offsets for randseed=77,
    // which these blocks are not at.
    let r = ioscope(job(&check)).dir(dir.path()).run();
    assert!(r.assert_refused().contains("zeroes"), "{}", r.describe());
    // Layout 5: numberio 8 bytes into the list, the crc fio's crc32c.
    let mut list = vec![0u8; 176];
    list[8..16].copy_from_slice(&writes.to_le_bytes());
    let mut newer = Vec::new();
    newer.extend_from_slice(&5u64.to_le_bytes());
    newer.extend_from_slice(&(list.len() as u64).to_le_bytes());
    newer.extend_from_slice(&u64::from(fio_crc32c(&list)).to_le_bytes());
    newer.extend_from_slice(&list);
    std::fs::write(&state, newer).unwrap();
    let v = ioscope(job(&check)).dir(dir.path()).run().ok_json();
    assert_eq!(u(&v["jobs"][0], "verify_checked"), 32);
}
