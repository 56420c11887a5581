use std::path::Path;

use super::layout::{
    layout_file, layout_file_until, layout_file_with, preallocate_file, Preallocate,
};
use super::open::refuse_creating_in_dev;
use super::probe::c_path;
use super::*;
use crate::error::EngineError;
use ioscope_testutil::{o_direct, require, resident_pages};
use std::os::unix::fs::MetadataExt;

fn rw_create() -> OpenOptions {
    OpenOptions {
        read: true,
        write: true,
        create: true,
        direct: false,
        pi_in_data: false,
    }
}

fn read_only() -> OpenOptions {
    OpenOptions {
        read: true,
        ..Default::default()
    }
}

#[test]
fn creates_and_describes_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let t = Target::open(&path, &rw_create()).unwrap();
    assert_eq!(t.kind(), TargetKind::RegularFile);
    assert_eq!(t.size(), 0);
    assert_eq!(t.path(), path);
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(meta.mode() & 0o777 & !0o022, 0o644 & !0o022);
    assert_eq!(t.logical_block_size(), (meta.blksize() as u32).max(512));
    assert!(t.fd() >= 0);
    assert!(!t.direct());
    // The descriptor is close-on-exec.
    let flags = unsafe { libc::fcntl(t.fd(), libc::F_GETFD) };
    assert_ne!(flags & libc::FD_CLOEXEC, 0);
}

#[test]
fn size_is_the_file_length() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![1u8; 12345]).unwrap();
    let t = Target::open(&path, &read_only()).unwrap();
    assert_eq!(t.size(), 12345);
}

#[test]
fn missing_path_is_an_error_unless_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing");
    let e = Target::open(&path, &read_only()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("missing") && msg.contains("does not exist"),
        "{msg}"
    );
    assert!(!path.exists());
}

#[test]
fn missing_directory_when_creating_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-dir").join("f");
    let msg = Target::open(&path, &rw_create()).unwrap_err().to_string();
    assert!(msg.contains("does not exist"), "{msg}");
}

#[test]
fn directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for opts in [read_only(), rw_create()] {
        let msg = Target::open(dir.path(), &opts).unwrap_err().to_string();
        assert!(msg.contains("is a directory"), "{msg}");
        assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
    }
}

#[test]
fn fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fifo");
    let c = c_path(&path).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let msg = Target::open(&path, &read_only()).unwrap_err().to_string();
    assert!(msg.contains("is a FIFO"), "{msg}");
}

#[test]
fn neither_read_nor_write_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let msg = Target::open(&dir.path().join("f"), &OpenOptions::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("neither reading nor writing"), "{msg}");
}

#[test]
fn never_creates_files_under_dev() {
    let path = Path::new("/dev/ioscope-no-such-device");
    let msg = Target::open(path, &rw_create()).unwrap_err().to_string();
    assert!(msg.contains("does not create files under /dev"), "{msg}");
    assert!(!path.exists());
    let msg = layout_file(path, 4096, 4096).unwrap_err().to_string();
    assert!(msg.contains("does not create files under /dev"), "{msg}");
    let msg = preallocate_file(path, 4096, Preallocate::Native)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("does not create files under /dev"), "{msg}");
    assert!(!path.exists());
}

#[test]
fn preallocated_files_have_their_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    preallocate_file(&path, 10000, Preallocate::Native).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 10000);
}

#[test]
fn a_stopped_layout_leaves_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let asked = std::cell::Cell::new(0);
    let stop_at_third = || {
        asked.set(asked.get() + 1);
        asked.get() > 2
    };
    let e = layout_file_until(&path, 8 * 4096, 4096, true, &stop_at_third).unwrap_err();
    assert!(matches!(e, EngineError::Stopped { .. }), "{e}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 * 4096);
}

#[test]
fn dev_shm_is_a_place_for_files() {
    assert!(refuse_creating_in_dev(Path::new("/dev/shm/ioscope-test")).is_ok());
}

#[test]
fn char_device_opens() {
    let t = Target::open(Path::new("/dev/null"), &read_only()).unwrap();
    assert_eq!(t.kind(), TargetKind::CharDevice);
    assert_eq!(t.size(), 0);
}

#[test]
fn check_direct_io_names_the_value_and_the_alignment() {
    let dir = tempfile::tempdir().unwrap();
    require!(o_direct(dir.path()));
    let opts = OpenOptions {
        direct: true,
        ..rw_create()
    };
    let t = Target::open(&dir.path().join("direct"), &opts).unwrap();
    assert!(t.direct());
    let align = u64::from(t.direct_io_align());
    assert!(align >= 512 && align.is_power_of_two(), "align {align}");
    t.check_direct_io(&[align, 4 * align, 1 << 20], 8 * align)
        .unwrap();

    let odd = align + 100;
    let msg = t.check_direct_io(&[align, odd], 0).unwrap_err().to_string();
    assert!(msg.contains(&t.path().display().to_string()), "{msg}");
    assert!(
        msg.contains(&format!(
            "block size {odd} is not a multiple of {align} bytes"
        )),
        "{msg}"
    );
    assert!(msg.contains("direct=0"), "{msg}");

    let msg = t.check_direct_io(&[align], 100).unwrap_err().to_string();
    assert!(
        msg.contains(&format!(
            "start offset 100 is not a multiple of {align} bytes"
        )),
        "{msg}"
    );
}

#[test]
fn buffered_targets_accept_any_size() {
    let dir = tempfile::tempdir().unwrap();
    let t = Target::open(&dir.path().join("f"), &rw_create()).unwrap();
    t.check_direct_io(&[1, 1000, 4097], 3).unwrap();
}

#[test]
fn layout_writes_the_exact_size_in_allocated_random_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    assert!(!path.exists());
    layout_file(&path, 10000, 4096).unwrap();
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(meta.len(), 10000);
    assert!(
        meta.blocks() * 512 >= 10000,
        "blocks are allocated, not holes"
    );
    let data = std::fs::read(&path).unwrap();
    // Pseudo-random: every 4 KiB piece differs and none is all zeroes.
    assert_ne!(data[..4096], data[4096..8192]);
    assert!(data.chunks(512).all(|c| c.iter().any(|&b| b != 0)));
}

#[test]
fn layout_leaves_a_long_enough_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; 8192]).unwrap();
    layout_file(&path, 4096, 4096).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 8192]);
}

#[test]
fn layout_rewrites_a_short_file_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; 1000]).unwrap();
    layout_file_with(&path, 3 * 4096, 4096, |offset, buf| {
        buf.fill((offset / 4096) as u8 + 1)
    })
    .unwrap();
    let data = std::fs::read(&path).unwrap();
    assert_eq!(data.len(), 3 * 4096);
    for (i, piece) in data.chunks(4096).enumerate() {
        assert!(piece.iter().all(|&b| b == i as u8 + 1), "piece {i}");
    }
}

#[test]
fn layout_refuses_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let msg = layout_file(dir.path(), 4096, 4096).unwrap_err().to_string();
    assert!(msg.contains("is a directory"), "{msg}");
    let msg = layout_file(Path::new("/dev/null"), 4096, 4096)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("is a character device, not a regular file"),
        "{msg}"
    );
    let msg = layout_file(&dir.path().join("f"), 4096, 0)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("block size is 0"), "{msg}");
}

#[test]
fn invalidate_drops_a_files_cached_pages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
    let t = Target::open(&path, &rw_create()).unwrap();
    // SAFETY: fsync on an open fd; dirty pages cannot be dropped.
    assert_eq!(unsafe { libc::fsync(t.fd()) }, 0);
    std::fs::read(&path).unwrap();
    assert!(
        resident_pages(&path) > 0,
        "the read should have cached the file"
    );
    t.invalidate_cache(0, 0).unwrap();
    assert_eq!(resident_pages(&path), 0);
}

#[test]
fn open_with_flags_keeps_o_sync_and_o_dsync() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synced");
    for flag in [libc::O_SYNC, libc::O_DSYNC] {
        let t = Target::open_with_flags(&path, &rw_create(), flag).unwrap();
        // SAFETY: F_GETFL only reads the descriptor's flags.
        let got = unsafe { libc::fcntl(t.fd(), libc::F_GETFL) };
        assert_eq!(got & libc::O_SYNC, flag & libc::O_SYNC, "flag {flag:#o}");
        assert_ne!(got & libc::O_DSYNC, 0, "flag {flag:#o}");
    }
    let t = Target::open(&path, &rw_create()).unwrap();
    let got = unsafe { libc::fcntl(t.fd(), libc::F_GETFL) };
    assert_eq!(got & libc::O_DSYNC, 0);
}
