//! How a job names, creates, lays out, chooses and syncs its files (fio's
//! "File and directory" options and its sync options other than `fsync`
//! and `end_fsync`).

/// fio's `filetype` (fio 3.41): the type every file of the job is taken
/// to be, where fio would otherwise stat each one to learn it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    File,
    Block,
    Char,
}

impl FileType {
    /// The option's value, as a job file names it.
    pub fn name(self) -> &'static str {
        match self {
            FileType::File => "file",
            FileType::Block => "block",
            FileType::Char => "char",
        }
    }
}

/// fio's `fallocate`: how a file's blocks are reserved when it is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallocate {
    /// `none` (or `0`): nothing is reserved; the file is only extended.
    None,
    /// `native`, fio's default on Linux: fallocate(2) with no flags, nothing
    /// when the filesystem cannot.
    Native,
    /// `posix` (or `1`): posix_fallocate(3), which writes zeroes where the
    /// filesystem cannot allocate.
    Posix,
    /// `keep`: fallocate(FALLOC_FL_KEEP_SIZE): blocks reserved, size kept.
    Keep,
    /// `truncate`: ftruncate to the size: a sparse file.
    Truncate,
}

/// fio's `lockfile`: what an I/O holds on its file from its preparation
/// until the engine has taken it (fio's `td_io_prep` to the end of
/// `td_io_queue`): for a synchronous engine the whole I/O, for a queued
/// one its submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileLock {
    /// `none`, the default: no lock.
    None,
    /// `exclusive`: one I/O at a time on the file, whatever its direction.
    Exclusive,
    /// `readwrite`: reads share the file, anything else has it alone.
    ReadWrite,
}

/// fio's `file_service_type`: which file the next I/O goes to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FileServiceKind {
    /// Round robin over the files (fio's default).
    RoundRobin,
    /// One file until it is done, then the next.
    Sequential,
    /// A file chosen uniformly at random.
    Random,
    /// `zipf:theta[:center]`: files chosen by a zipf distribution over
    /// them. Files are never done: one whose blocks are all used starts
    /// over (fio's non-uniform file service).
    Zipf { theta: f64, center: Option<f64> },
    /// `pareto:h[:center]`, as zipf.
    Pareto { h: f64, center: Option<f64> },
    /// `normal:dev[:center]` (alias `gauss`), the deviation a percentage.
    Gauss { dev: f64, center: Option<f64> },
}

impl FileServiceKind {
    /// fio's `__FIO_FSERVICE_NONUNIFORM`: a distribution chooses the
    /// files, and a file run out starts over instead of being done.
    pub fn nonuniform(self) -> bool {
        matches!(
            self,
            FileServiceKind::Zipf { .. }
                | FileServiceKind::Pareto { .. }
                | FileServiceKind::Gauss { .. }
        )
    }
}

/// `file_service_type=KIND[:N]`: N I/Os go to a file before the next is
/// chosen (sequential ignores N, as in fio; the distributions take one
/// I/O per choice).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileService {
    pub kind: FileServiceKind,
    /// At least 1.
    pub batch: u32,
}

/// fio's `sync`: the flags a file is opened with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// `none` or `0`: buffered writes.
    None,
    /// `sync` or `1`: O_SYNC.
    Sync,
    /// `dsync`: O_DSYNC.
    Dsync,
}

/// fio's `sync_file_range=FLAGS[:N]`: after every N writes, the range the
/// file's writes covered since its last sync goes to sync_file_range(2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncFileRange {
    /// The SYNC_FILE_RANGE_* bits: wait_before 1, write 2, wait_after 4.
    pub flags: u32,
    /// Every how many writes; 0 for never (fio's atoi of N).
    pub every: u32,
}

/// fio's `write_hint`: the expected lifetime of the data written, given to
/// the kernel with fcntl (`RWH_WRITE_LIFE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteHint {
    None,
    Short,
    Medium,
    Long,
    Extreme,
}

impl WriteHint {
    /// The kernel's `RWH_WRITE_LIFE_*` value.
    pub fn value(self) -> u64 {
        match self {
            WriteHint::None => 1,
            WriteHint::Short => 2,
            WriteHint::Medium => 3,
            WriteHint::Long => 4,
            WriteHint::Extreme => 5,
        }
    }
}

/// The job's file handling options, with fio's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct FileHandling {
    /// `fallocate`, default native.
    pub fallocate: Fallocate,
    /// `create_serialize`, default true: ioscope always lays files out one
    /// worker after another, before the phase starts.
    pub create_serialize: bool,
    /// `create_fsync`: fsync a file after laying it out, default true.
    pub create_fsync: bool,
    /// `create_only`: lay the files out, do no I/O.
    pub create_only: bool,
    /// `pre_read`: read the files' extents into the page cache first.
    pub pre_read: bool,
    /// `unlink_each_loop`: the files are unlinked before each new loop
    /// (and so created anew by a job that writes).
    pub unlink_each_loop: bool,
    /// `allow_file_create`, default true: a missing file may be created.
    pub allow_file_create: bool,
    /// `file_append`: I/O starts at each file's current end.
    pub file_append: bool,
    /// `overwrite`: a write-only job's files are written out in full
    /// before the job, so its writes overwrite allocated blocks.
    pub overwrite: bool,
    /// `fill_device` (alias `fill_fs`): write until the filesystem is full
    /// (ENOSPC ends the job without an error).
    pub fill_device: bool,
    /// `openfiles`: how many files may be open at once; 0 until set (then
    /// all of them, as fio's default of `nrfiles`).
    pub openfiles: u32,
    /// `file_service_type`, default round robin, 1 I/O per turn.
    pub service: FileService,
    /// `filename_format`, default `$jobname.$jobnum.$filenum`.
    pub filename_format: String,
    /// `unique_filename`, default true: a job a fio client sent over TCP
    /// names its files in `directory` after the server's address
    /// (`DIR/ADDRESS.NAME`), so that clients sharing a directory do not
    /// share files; no effect in a local run.
    pub unique_filename: bool,
    /// The address a fio client's connection came in on, for a job it
    /// sent to `--server` over TCP (fio's client_sockaddr_str): what
    /// `$clientuid` and `unique_filename` put in file names. None in a
    /// local run, as in a local fio.
    pub client_uid: Option<String>,
    /// `opendir`: every regular file under this directory (recursively)
    /// is one of the job's files.
    pub opendir: Option<String>,
    /// `sync`: open files with O_SYNC or O_DSYNC.
    pub sync: SyncMode,
    /// `fdatasync`: fdatasync after this many writes, 0 for never.
    pub fdatasync: u32,
    /// `fsync_on_close`: fsync each file when the job closes it.
    pub fsync_on_close: bool,
    /// `end_syncfs`: syncfs(2) each file's filesystem at the job's end.
    pub end_syncfs: bool,
    /// `write_barrier`: every Nth write a barrier write. In fio only the
    /// libpmem engine honours it; none of ioscope's engines can (as none
    /// of fio's others), so it is kept for the echo only.
    pub write_barrier: u32,
    /// `sync_file_range`: None when unset.
    pub sync_file_range: Option<SyncFileRange>,
    /// `write_hint`: set on each file as it is opened; None when unset
    /// (fio sets no hint then).
    pub write_hint: Option<WriteHint>,
    /// `ioscheduler`: the I/O scheduler to switch each file's device to
    /// before the job.
    pub ioscheduler: Option<String>,
    /// `lockfile`: the lock each I/O takes on its file while it is
    /// prepared and queued, shared by every job on the same file.
    pub lockfile: FileLock,
    /// `filetype`: None for fio's `none`, the default (each file's own).
    pub filetype: Option<FileType>,
}

impl FileHandling {
    /// Every field zero, empty or off (the option table's defaults then
    /// fill in fio's).
    pub fn blank() -> FileHandling {
        FileHandling {
            fallocate: Fallocate::None,
            create_serialize: false,
            create_fsync: false,
            create_only: false,
            pre_read: false,
            unlink_each_loop: false,
            allow_file_create: false,
            file_append: false,
            overwrite: false,
            fill_device: false,
            openfiles: 0,
            service: FileService {
                kind: FileServiceKind::RoundRobin,
                batch: 1,
            },
            filename_format: String::new(),
            unique_filename: false,
            client_uid: None,
            opendir: None,
            sync: SyncMode::None,
            fdatasync: 0,
            fsync_on_close: false,
            end_syncfs: false,
            write_barrier: 0,
            sync_file_range: None,
            write_hint: None,
            ioscheduler: None,
            lockfile: FileLock::None,
            filetype: None,
        }
    }

    /// fio's `make_filename`: the name of generated file `filenum` of clone
    /// `jobnum` of job `jobname`. Each keyword is replaced wherever it
    /// occurs, matched without regard to case, in fio's order ($jobname,
    /// $jobnum, $filenum, $clientuid); `$clientuid` is empty but for a
    /// job a fio client sent over TCP ([`FileHandling::client_uid`]).
    pub fn file_name(&self, jobname: &str, jobnum: u32, filenum: u32) -> String {
        if self.filename_format.is_empty() {
            return format!("{jobname}.{jobnum}.{filenum}");
        }
        let mut name = self.filename_format.clone();
        let values = [
            ("$jobname", jobname.to_string()),
            ("$jobnum", jobnum.to_string()),
            ("$filenum", filenum.to_string()),
            ("$clientuid", self.client_uid.clone().unwrap_or_default()),
        ];
        for (keyword, value) in values {
            // fio rescans from the start after each replacement; a value
            // that itself holds the keyword would loop there, so the scan
            // goes on after the value instead.
            let mut from = 0;
            while let Some(at) = find_ignore_case(&name[from..], keyword) {
                let at = from + at;
                name.replace_range(at..at + keyword.len(), &value);
                from = at + value.len();
            }
        }
        name
    }
}

/// Where `needle` (ASCII) first occurs in `hay`, ignoring ASCII case.
fn find_ignore_case(hay: &str, needle: &str) -> Option<usize> {
    hay.as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_format(f: &str) -> FileHandling {
        FileHandling {
            filename_format: f.to_string(),
            ..FileHandling::blank()
        }
    }

    #[test]
    fn file_names_follow_fio_make_filename() {
        let fh = with_format("$jobname.$jobnum.$filenum");
        assert_eq!(fh.file_name("job", 2, 7), "job.2.7");
        // ime.fio's format: one file shared by every clone.
        assert_eq!(with_format("f.$filenum").file_name("j", 3, 0), "f.0");
        // Keywords match without regard to case, every occurrence.
        assert_eq!(
            with_format("$JOBNAME-$filenum-$filenum").file_name("a", 0, 4),
            "a-4-4"
        );
        // Locally $clientuid is empty, as in a local fio; a client's job
        // has the server's address.
        assert_eq!(with_format("$clientuid.x").file_name("a", 0, 0), ".x");
        let mut sent = with_format("$clientuid.x");
        sent.client_uid = Some("10.0.0.2".into());
        assert_eq!(sent.file_name("a", 0, 0), "10.0.0.2.x");
        // A name holding a keyword is not expanded again.
        assert_eq!(
            with_format("$jobname").file_name("$jobname", 0, 0),
            "$jobname"
        );
        assert_eq!(FileHandling::blank().file_name("j", 1, 2), "j.1.2");
    }
}
