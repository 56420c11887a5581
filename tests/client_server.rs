//! fio's client/server mode with ioscope as the server: fio 3.33's own
//! client (`fio --client=sock:PATH job.fio`) sends its job files to
//! `ioscope --server`, which runs them and sends the results in fio's
//! structs; the client must print them as it prints a fio server's.
//! Each test runs the same job through a fio server too, and compares.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{bin, extract_json, fio, names_in, tempdir, write_file, Run};
use ioscope_testutil::{fio as fio_installed, require};
use serde_json::Value;

/// A server in a directory of its own, killed when dropped.
struct Server {
    child: Child,
    /// What `--client=` names it by.
    address: String,
}

impl Server {
    /// Listening on a Unix-domain socket in `dir`.
    fn start(program: &Path, dir: &Path, name: &str) -> Server {
        let socket = dir.join(format!("{name}.sock"));
        let address = format!("sock:{}", socket.display());
        let server = Server::spawn(program, dir, &address, address.clone());
        server.wait_until(|| socket.exists());
        server
    }

    /// Listening on a free TCP port of 127.0.0.1: a client names the logs
    /// it writes after the server's host, which a socket's path cannot be.
    fn start_tcp(program: &Path, dir: &Path) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let server = Server::spawn(
            program,
            dir,
            &format!("ip:127.0.0.1,{port}"),
            format!("127.0.0.1,{port}"),
        );
        server.wait_until(|| std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
        server
    }

    fn spawn(program: &Path, dir: &Path, listen: &str, address: String) -> Server {
        let child = Command::new(program)
            .arg(format!("--server={listen}"))
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server");
        Server { child, address }
    }

    fn wait_until(&self, listening: impl Fn() -> bool) {
        let started = Instant::now();
        while !listening() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "--server={} does not listen after 10 s",
                self.address
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `fio --client` of this server, with `args` after it, in `dir`.
    fn client(&self, dir: &Path, args: &[&str]) -> Run {
        client(&self.address, dir, args)
    }
}

/// `fio --client=ADDRESS` with `args` after it, in `dir`.
fn client(address: &str, dir: &Path, args: &[&str]) -> Run {
    fio([format!("--client={address}")])
        .args(args)
        .dir(dir)
        .run()
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An ioscope server and a fio server, each in a directory of its own.
fn both_servers(dir: &Path) -> (Server, Server) {
    for d in ["ioscope", "fio"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    (
        Server::start(&bin(), &dir.join("ioscope"), "ioscope"),
        Server::start(Path::new("fio"), &dir.join("fio"), "fio"),
    )
}

/// The same on TCP ports of 127.0.0.1, where a client names what it
/// writes for a server after its address.
fn both_tcp_servers(dir: &Path) -> (Server, Server) {
    for d in ["ioscope", "fio"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    (
        Server::start_tcp(&bin(), &dir.join("ioscope")),
        Server::start_tcp(Path::new("fio"), &dir.join("fio")),
    )
}

/// Runs `args` on `server` through fio's client, then ioscope's, each in
/// `dir_for(who)` (made if missing): who ran it, where, and the run.
fn by_each_client(
    server: &Server,
    dir_for: impl Fn(&str) -> std::path::PathBuf,
    args: &[&str],
) -> Vec<(&'static str, std::path::PathBuf, Run)> {
    ["fio's client", "ioscope's client"]
        .into_iter()
        .map(|who| {
            let at = dir_for(who);
            std::fs::create_dir_all(&at).unwrap();
            let run = match who {
                "fio's client" => client(&server.address, &at, args),
                _ => our_client(&server.address, &at, args),
            };
            (who, at, run)
        })
        .collect()
}

/// Every key path of a JSON document ("a/b/c"), array members merged, and
/// neither the latency bins' values (latencies) nor the options echoed
/// (ioscope echoes a valueless option with "", as fio 3.42 does, where
/// fio 3.33 leaves it out).
fn key_paths(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                let path = format!("{at}/{k}");
                out.insert(path.clone());
                if !["bins", "job options", "global options"].contains(&k.as_str()) {
                    key_paths(v, &path, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| key_paths(v, &format!("{at}[]"), out)),
        _ => {}
    }
}

/// Fails unless the two JSON documents have the same [`key_paths`].
fn assert_same_keys(ours: &Value, theirs: &Value) {
    let (mut o, mut t) = (BTreeSet::new(), BTreeSet::new());
    key_paths(ours, "", &mut o);
    key_paths(theirs, "", &mut t);
    let only_ours: Vec<_> = o.difference(&t).collect();
    let only_theirs: Vec<_> = t.difference(&o).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "keys only ours: {only_ours:?}; only fio's: {only_theirs:?}"
    );
}

/// Writes the job file `name` and runs it through both servers with
/// fio's client: ours, then fio's.
fn on_both(dir: &Path, servers: (&Server, &Server), name: &str, text: &str) -> (Run, Run) {
    write_file(dir, name, text);
    (
        servers.0.client(dir, &[name]),
        servers.1.client(dir, &[name]),
    )
}

/// Fails, showing the lines that differ, unless the two outputs have the
/// same [`shape`].
fn assert_same_shape(ours: &str, theirs: &str) {
    let (a, b) = (shape(ours), shape(theirs));
    let differ: Vec<String> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| format!("ours:  {x}\nfio's: {y}"))
        .collect();
    assert!(
        differ.is_empty() && a.len() == b.len(),
        "{}\n--- ours ---\n{ours}\n--- fio's ---\n{theirs}",
        differ.join("\n")
    );
}

/// The normal output with what a run changes masked: numbers and their
/// unit prefixes, time units, the version, padding, and the lines whose
/// number and layout follow the latencies (the coarse latency lines, the
/// percentile rows).
fn shape(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.lines() {
        // What a line shows once drawn: the status lines (`Jobs: ...`,
        // each ended by a carriage return) are drawn over, and how many
        // come follows the run's timing.
        let line = line.rsplit('\r').next().unwrap_or(line);
        let mut masked = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_digit() {
                while chars
                    .peek()
                    .is_some_and(|c| c.is_ascii_digit() || *c == '.')
                {
                    chars.next();
                }
                if chars.peek().is_some_and(|c| "kMGTP".contains(*c)) {
                    chars.next();
                }
                masked.push('N');
            } else {
                masked.push(c);
            }
        }
        let masked = masked
            .replace("nsec", "UNIT")
            .replace("usec", "UNIT")
            .replace("msec", "UNIT");
        // fio pads numbers to a width ("avg= 9.07", "[   10]").
        let masked = masked.split_whitespace().collect::<Vec<_>>().join(" ");
        let masked = masked.replace("= ", "=").replace("[ ", "[");
        // The percentile rows: how many fit a line follows the widest
        // value's digits, which the run decides.
        if masked.starts_with("lat (UNIT) :")
            || masked.starts_with("hostname=")
            || masked.starts_with('|')
        {
            continue;
        }
        lines.push(masked);
    }
    lines
}

const TWO_GROUPS: &str = "\
[global]
ioengine=null
size=32m
bs=4k
group_reporting
[clones]
rw=randrw
numjobs=2
[after]
stonewall
rw=write
percentile_list=50:99
";

#[test]
fn fio_clients_print_an_ioscope_servers_results_as_a_fio_servers() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    write_file(d.path(), "two.fio", TWO_GROUPS);

    let json = |server: &Server| -> Value {
        let run = server.client(d.path(), &["--output-format=json+", "two.fio"]);
        assert!(run.status.success(), "{}", run.describe());
        extract_json(&run.stdout)
            .unwrap_or_else(|| panic!("no JSON: {}", run.describe()))
            .0
    };
    let (o, t) = (json(&ours), json(&theirs));
    assert_same_keys(&o, &t);

    let jobs = |v: &Value| v["client_stats"].as_array().unwrap().clone();
    let (oj, tj) = (jobs(&o), jobs(&t));
    // Each job, then "All clients".
    assert_eq!(oj.len(), 3);
    for (a, b) in oj.iter().zip(&tj) {
        for key in ["jobname", "groupid", "error"] {
            assert_eq!(a[key], b[key], "{key}");
        }
        for dir in ["read", "write", "trim"] {
            for key in ["total_ios", "io_bytes", "short_ios", "drop_ios"] {
                assert_eq!(a[dir][key], b[dir][key], "{} {dir} {key}", a["jobname"]);
            }
            // The percentiles fio's client computed from ioscope's
            // histogram are those the job asked for, from every I/O.
            let clat = &a[dir]["clat_ns"];
            let total = a[dir]["total_ios"].as_u64().unwrap();
            if total > 0 && a["jobname"] != "All clients" {
                let bins: u64 = clat["bins"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|v| v.as_u64().unwrap())
                    .sum();
                assert_eq!(bins, total, "{} {dir}: histogram", a["jobname"]);
                let keys = |v: &Value| {
                    v["percentile"]
                        .as_object()
                        .unwrap()
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                };
                assert_eq!(keys(clat), keys(&b[dir]["clat_ns"]));
                assert_eq!(clat["N"], a[dir]["total_ios"]);
            }
        }
        assert!(a["job_runtime"].as_u64().unwrap() > 0);
        assert_eq!(a["iodepth_level"]["1"], 100.0);
    }
    // The jobs' options, as written, under each job.
    assert_eq!(oj[0]["job options"]["numjobs"], "2");
    assert_eq!(oj[1]["job options"]["percentile_list"], "50:99");
    assert_eq!(o["global options"]["size"], t["global options"]["size"]);

    let normal = |server: &Server| {
        let run = server.client(d.path(), &["two.fio"]);
        assert!(run.status.success(), "{}", run.describe());
        run.stdout
    };
    let (on, tn) = (normal(&ours), normal(&theirs));
    assert!(on.contains("fio=ioscope-"), "{on}");
    assert_same_shape(&on, &tn);
}

#[test]
fn a_job_on_a_file_runs_on_the_server_and_its_lines_reach_the_client() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    let (o, t) = on_both(
        d.path(),
        (&ours, &theirs),
        "file.fio",
        "[onfile]\nioengine=psync\nrw=randread\nsize=1m\nfilename=data\n",
    );
    for run in [&o, &t] {
        assert!(run.status.success(), "{}", run.describe());
        assert!(
            run.stdout
                .contains("> onfile: Laying out IO file (1 file / 1MiB)"),
            "{}",
            run.describe()
        );
        assert!(
            run.stdout.contains("issued rwts: total=256,0,0,0"),
            "{}",
            run.describe()
        );
    }
    // The file is the server's, in its directory.
    assert_eq!(
        std::fs::metadata(d.path().join("ioscope/data"))
            .unwrap()
            .len(),
        1 << 20
    );
    assert_same_shape(&o.stdout, &t.stdout);
}

#[test]
fn why_a_job_fails_on_the_server_reaches_the_client() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    write_file(
        d.path(),
        "typo.fio",
        "[x]\nioengine=null\nsize=1m\nbogus_opt=3\n",
    );
    let run = ours.client(d.path(), &["typo.fio"]);
    assert!(
        run.stdout.contains("unknown option 'bogus_opt'"),
        "{}",
        run.describe()
    );
    assert!(!run.stdout.contains("issued rwts"), "{}", run.describe());

    // A job whose writes fail: the error line, the job's err= and the
    // client's exit status, as a fio server's.
    let (o, t) = on_both(
        d.path(),
        (&ours, &theirs),
        "full.fio",
        "[full]\nioengine=psync\nrw=write\nsize=1m\nfilename=/dev/full\n",
    );
    for run in [&o, &t] {
        for expected in [
            "io_u error on file /dev/full: No space left on device: write offset=0, buflen=4096",
            "full: (groupid=0, jobs=1): err=28 (",
            "exited with error 1",
        ] {
            assert!(
                run.stdout.contains(expected),
                "{expected}: {}",
                run.describe()
            );
        }
    }
    assert_eq!(
        o.status.code(),
        t.status.code(),
        "{}\n{}",
        o.describe(),
        t.describe()
    );
}

#[test]
fn a_jobs_logs_are_written_by_the_client_as_for_a_fio_server() {
    require!(fio_installed());
    let d = tempdir();
    for sub in ["ours", "theirs"] {
        std::fs::create_dir_all(d.path().join(sub)).unwrap();
    }
    let (ours, theirs) = both_tcp_servers(d.path());
    write_file(
        d.path(),
        "logs.fio",
        "[lg]\nioengine=null\nrw=randread\nsize=64k\nwrite_bw_log=lg\n\
         write_lat_log=lg\nwrite_iops_log=lg\nlog_offset=1\n",
    );
    let logs = |server: &Server, dir: &str| -> Vec<(String, Vec<String>)> {
        let at = d.path().join(dir);
        let run = server.client(&at, &["../logs.fio"]);
        assert!(run.status.success(), "{}", run.describe());
        names_in(&at)
            .into_iter()
            .map(|name| {
                // The columns a run does not change: direction, block
                // size, offset and priority.
                let lines = std::fs::read_to_string(at.join(&name))
                    .unwrap()
                    .lines()
                    .map(|l| l.splitn(3, ", ").nth(2).unwrap_or("").to_string())
                    .collect();
                (name, lines)
            })
            .collect()
    };
    let (o, t) = (logs(&ours, "ours"), logs(&theirs, "theirs"));
    let names = |l: &[(String, Vec<String>)]| l.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&o), names(&t));
    assert!(
        names(&o).contains(&"lg_clat.1.log.127.0.0.1".to_string()),
        "{:?}",
        names(&o)
    );
    for ((name, a), (_, b)) in o.iter().zip(&t) {
        assert_eq!(a, b, "{name}");
    }
    // fio 3.33's client writes 12 of the 16 I/Os' lines with log_offset
    // (it counts the samples' bytes in offset-less entries, then reads
    // them with offsets): the same for both servers, and not empty.
    assert!(
        o.iter()
            .all(|(n, lines)| n.starts_with("lg_slat") || !lines.is_empty()),
        "{o:?}"
    );
    // Sent, not written where the server runs.
    let left = names_in(&d.path().join("ioscope"));
    assert!(left.is_empty(), "{left:?}");
}

/// The shape of a histogram log: its lines, each line's columns, and
/// whether every line counts I/Os.
fn hist_shape(path: &Path) -> (usize, Vec<usize>, bool) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows: Vec<Vec<u64>> = (text.lines())
        .map(|l| l.split(", ").map(|v| v.parse().unwrap()).collect())
        .collect();
    let columns = rows
        .iter()
        .map(Vec::len)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let counted = rows.iter().all(|r| r[3..].iter().sum::<u64>() > 0);
    (rows.len(), columns, counted)
}

#[test]
fn histogram_and_compressed_logs_reach_either_client_from_either_server() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_tcp_servers(d.path());
    write_file(
        d.path(),
        "logs.fio",
        "[hg]\nioengine=null\nrw=randread\nsize=256m\ntime_based\nruntime=1\n\
         write_hist_log=hg\nlog_hist_msec=100\nlog_hist_coarseness=4\n\
         [lc]\nioengine=null\nrw=randwrite\nsize=16m\nwrite_lat_log=lc\n\
         log_compression=64k\nlog_store_compressed=1\n",
    );
    for (server, side) in [(&ours, "ioscope"), (&theirs, "fio")] {
        let dir_for = |who: &str| d.path().join(format!("{side}-{}", &who[..3]));
        for (who, at, run) in by_each_client(server, dir_for, &["../logs.fio"]) {
            assert!(run.status.success(), "{who}: {}", run.describe());
            // A second's histograms every 100 ms (the last window may not
            // close), 116 groups of 16 buckets after time, direction and
            // block size.
            let (lines, columns, counted) = hist_shape(&at.join("hg_clat_hist.1.log.127.0.0.1"));
            assert!(
                (8..=10).contains(&lines),
                "{who} from {side}'s server: {lines} lines"
            );
            assert_eq!(columns, [119], "{who} from {side}'s server");
            assert!(counted, "{who} from {side}'s server: an empty histogram");
            // The compressed log comes as stored: fio inflates it to a line
            // per write.
            let fz = at.join("lc_lat.2.log.fz.127.0.0.1");
            let text = fio([format!("--inflate-log={}", fz.display())]).run();
            assert!(text.status.success(), "{}", text.describe());
            assert_eq!(
                text.stdout.lines().count(),
                4096,
                "{who} from {side}'s server"
            );
            assert!(
                text.stdout.lines().all(|l| l.ends_with(", 1, 4096, 0")),
                "{who}"
            );
        }
    }
    // Sent, not written where the server runs.
    let left = names_in(&d.path().join("ioscope"));
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_remote_trigger_stops_the_servers_jobs_and_runs_its_command_there() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_tcp_servers(d.path());
    write_file(
        d.path(),
        "long.fio",
        "[tw]\nioengine=psync\nrw=write\nbs=4k\nfilename=tw.dat\nsize=8m\n\
         time_based\nruntime=30\n",
    );
    // Time for a loaded fio server to start its job: one stopped before
    // it runs prints no results.
    let args = [
        "--trigger-timeout=3",
        "--trigger-remote=touch fired",
        "--trigger=touch local_fired",
        "../long.fio",
    ];
    let mut states = Vec::new();
    for (server, side) in [(&ours, "ioscope"), (&theirs, "fio")] {
        for who in ["fio's client", "ioscope's client"] {
            let at = d.path().join(format!("{side}-{}", &who[..3]));
            std::fs::create_dir_all(&at).unwrap();
            let started = Instant::now();
            let run = match who {
                "fio's client" => server.client(&at, &args),
                _ => our_client(&server.address, &at, &args),
            };
            assert!(run.status.success(), "{who}: {}", run.describe());
            // Stopped at the trigger, the results still printed.
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{who} on {side}'s server"
            );
            assert!(
                run.stdout.contains("tw: (groupid=0, jobs=1)"),
                "{}",
                run.describe()
            );
            // The command ran on the server, the local one here.
            let fired = d.path().join(side).join("fired");
            assert!(fired.exists(), "{who} on {side}'s server");
            std::fs::remove_file(fired).unwrap();
            assert!(at.join("local_fired").exists(), "{who} on {side}'s server");
            // A fio server sends its jobs' verify state, which the client
            // saves named after it; ioscope's keeps its own.
            let state = at.join("127.0.0.1-tw-0-verify.state");
            assert_eq!(state.exists(), side == "fio", "{who} on {side}'s server");
            if let Ok(bytes) = std::fs::read(&state) {
                states.push(bytes);
            }
        }
    }
    // Saved as fio's client saves it: the same layout (header, version 3,
    // one file of depth 1), the counts of the two runs aside.
    let layout = |b: &Vec<u8>| (b.len(), b[..16].to_vec(), b[24 + 8..24 + 16].to_vec());
    assert_eq!(layout(&states[0]), layout(&states[1]));
}

#[test]
fn ioscopes_client_sends_a_fio_server_the_verify_state_a_trigger_saved() {
    require!(fio_installed());
    let d = tempdir();
    std::fs::create_dir_all(d.path().join("fio")).unwrap();
    std::fs::create_dir_all(d.path().join("here")).unwrap();
    let theirs = Server::start_tcp(Path::new("fio"), &d.path().join("fio"));
    let job = "[tw]\nioengine=psync\nrw=write\nbs=4k\nfilename=tw.dat\nsize=8m\nverify=crc32c\n";
    write_file(
        d.path(),
        "write.fio",
        &format!("{job}time_based\nruntime=30\n"),
    );
    write_file(
        d.path(),
        "check.fio",
        &format!("{job}verify_only=1\nverify_state_load=1\n"),
    );
    let here = d.path().join("here");
    let run = our_client(
        &theirs.address,
        &here,
        &["--trigger-timeout=3", "--trigger-remote=", "../write.fio"],
    );
    assert!(run.status.success(), "{}", run.describe());
    let state = here.join("127.0.0.1-tw-0-verify.state");
    assert!(state.exists(), "{}", run.describe());
    // The server's verify_state_load asks the client for it (fio's
    // SENDFILE) and checks the writes it records.
    let run = our_client(&theirs.address, &here, &["../check.fio"]);
    assert!(run.status.success(), "{}", run.describe());
    assert!(run.stdout.contains("READ: bw="), "{}", run.describe());
    // Without it the server's job fails, as with fio's client.
    std::fs::remove_file(&state).unwrap();
    let run = our_client(&theirs.address, &here, &["../check.fio"]);
    assert!(!run.status.success(), "{}", run.describe());
    let run = client(&theirs.address, &here, &["../check.fio"]);
    assert!(!run.status.success(), "{}", run.describe());
}

#[test]
fn a_tcp_clients_files_are_named_after_the_servers_address_as_fios() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_tcp_servers(d.path());
    // unique_filename (on by default) in a directory, and $clientuid.
    write_file(
        d.path(),
        "names.fio",
        "[u]\nioengine=psync\nrw=write\nsize=64k\ndirectory=.\nnrfiles=2\n\
         [v]\nioengine=psync\nrw=write\nsize=64k\nfilename_format=f.$clientuid.$jobnum\n",
    );
    for server in [&ours, &theirs] {
        let run = server.client(d.path(), &["names.fio"]);
        assert!(run.status.success(), "{}", run.describe());
    }
    let (o, t) = (
        names_in(&d.path().join("ioscope")),
        names_in(&d.path().join("fio")),
    );
    assert_eq!(o, t);
    assert_eq!(o, ["127.0.0.1.u.0.0", "127.0.0.1.u.0.1", "f.127.0.0.1.0"]);
}

#[test]
fn steady_state_detection_reaches_the_client_as_a_fio_servers() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    write_file(
        d.path(),
        "ss.fio",
        "[ss]\nioengine=null\nrw=read\nsize=1g\ntime_based\nruntime=3\nss=iops:90%\nss_dur=2\n",
    );
    let ss = |server: &Server| -> Value {
        let run = server.client(d.path(), &["--output-format=json", "ss.fio"]);
        assert!(run.status.success(), "{}", run.describe());
        let doc = extract_json(&run.stdout).unwrap().0;
        doc["client_stats"][0]["steadystate"].clone()
    };
    let (o, t) = (ss(&ours), ss(&theirs));
    assert_same_keys(&o, &t);
    for key in ["ss", "duration", "attained"] {
        assert_eq!(o[key], t[key], "{key}");
    }
    let iops = o["data"]["iops"].as_array().unwrap();
    assert_eq!(iops.len(), 2, "{o}");
    assert!(iops.iter().all(|v| v.as_u64().unwrap() > 0), "{o}");
    let mean = o["data"]["iops_mean"].as_u64().unwrap();
    let sum: u64 = iops.iter().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(mean, sum / 2, "{o}");
}

/// Kills a background server however the test ends.
struct KillOnDrop(i32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // SAFETY: signals the server the test started (gone already when
        // the test passed).
        unsafe { libc::kill(self.0, libc::SIGKILL) };
    }
}

#[test]
fn a_daemonized_server_serves_in_the_background_until_stopped() {
    require!(fio_installed());
    let d = tempdir();
    let (socket, pidfile) = (d.path().join("bg.sock"), d.path().join("bg.pid"));
    let start = || {
        common::ioscope([
            format!("--server=sock:{}", socket.display()),
            format!("--daemonize={}", pidfile.display()),
        ])
        .dir(d.path())
        .run()
    };
    // The command returns once the server is in the background.
    start().assert_ok();
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _killed_at_the_end = KillOnDrop(pid);
    write_file(d.path(), "bg.fio", "[bg]\nioengine=null\nsize=1m\n");
    let run = client(&format!("sock:{}", socket.display()), d.path(), &["bg.fio"]);
    assert!(
        run.stdout.contains("issued rwts: total=256,0,0,0"),
        "{}",
        run.describe()
    );
    // A second one over a live pid file is refused, as fio refuses it.
    let again = start();
    assert!(!again.status.success(), "{}", again.describe());
    assert!(
        again.stderr.contains("server appears alive"),
        "{}",
        again.describe()
    );
    // SIGTERM stops it, and it takes its pid file and socket away.
    // SAFETY: signals the server this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let stopped = Instant::now();
    while pidfile.exists() || socket.exists() {
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "still there after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `ioscope --client=ADDRESS` with `args` after it, in `dir`.
/// The status lines (`Jobs: 1 ...`) a client drew, each as drawn.
fn status_draws(stdout: &str) -> Vec<&str> {
    (stdout.split(['\r', '\n']))
        .filter(|l| l.starts_with("Jobs: "))
        .collect()
}

#[test]
fn the_status_line_reaches_either_client_from_either_server() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    write_file(
        d.path(),
        "eta.fio",
        "[eta]\nioengine=null\nrw=randread\nsize=1g\ntime_based\nruntime=5\n",
    );
    for server in [&ours, &theirs] {
        let here = |_: &str| d.path().to_path_buf();
        for (who, _, run) in by_each_client(server, here, &["eta.fio"]) {
            assert!(run.status.success(), "{}", run.describe());
            let draws = status_draws(&run.stdout);
            // Past the first three seconds, the state, the share done, a
            // read rate and IOPS (both moved) and the time left, from the
            // server's figures (fio's server sends the same).
            let estimated: Vec<&str> = (draws.iter().copied())
                .filter(|l| l.starts_with("Jobs: 1 (f=1): [r(1)]["))
                .collect();
            let moving = (estimated.iter()).find(|l| {
                let after = |key: &str| l.split(key).nth(1).and_then(|t| t.chars().next());
                after("][r=").is_some_and(|c| ('1'..='9').contains(&c))
                    && l.matches("[r=").count() == 2
                    && l.contains(" IOPS][eta 00m:0")
            });
            assert!(
                moving.is_some(),
                "{who} on {}: no status with figures in {draws:?}\n{}",
                server.address,
                run.describe()
            );
        }
    }
    // ioscope's client draws none with --eta=never or JSON output, as
    // fio's.
    write_file(
        d.path(),
        "short.fio",
        "[s]\nioengine=null\nsize=1g\ntime_based\nruntime=2\n",
    );
    for args in [
        ["--eta=never", "short.fio"],
        ["--output-format=json", "short.fio"],
    ] {
        let run = our_client(&ours.address, d.path(), &args);
        assert!(run.status.success(), "{}", run.describe());
        assert!(
            !run.stdout.contains("Jobs: "),
            "{args:?}: {}",
            run.describe()
        );
    }
    let run = our_client(&ours.address, d.path(), &["short.fio"]);
    assert!(!status_draws(&run.stdout).is_empty(), "{}", run.describe());
}

#[test]
fn remote_config_runs_a_job_file_that_is_on_the_server() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    // The file is where each server runs, not where the clients do.
    for side in ["ioscope", "fio"] {
        write_file(
            &d.path().join(side),
            "there.fio",
            "[there]\nioengine=null\nrw=randwrite\nsize=64k\n",
        );
    }
    for server in [&ours, &theirs] {
        let args = ["--remote-config=there.fio"];
        let here = |_: &str| d.path().to_path_buf();
        for (who, _, run) in by_each_client(server, here, &args) {
            assert!(run.status.success(), "{who}: {}", run.describe());
            assert!(
                run.stdout.contains("there: (groupid=0, jobs=1)")
                    && run.stdout.contains("issued rwts: total=0,16,0,0"),
                "{who} on {}: {}",
                server.address,
                run.describe()
            );
        }
    }
    // A file the server does not have is the server's error, as fio's.
    let run = our_client(&ours.address, d.path(), &["--remote-config=nowhere.fio"]);
    assert!(!run.status.success(), "{}", run.describe());
    assert!(run.stdout.contains("nowhere.fio"), "{}", run.describe());
}

fn our_client(address: &str, dir: &Path, args: &[&str]) -> Run {
    common::ioscope([format!("--client={address}")])
        .args(args)
        .dir(dir)
        .run()
}

#[test]
fn ioscopes_client_prints_a_fio_servers_results_as_fios_client() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    write_file(d.path(), "two.fio", TWO_GROUPS);
    for server in [&theirs, &ours] {
        let json = |run: Run| -> Value {
            assert!(run.status.success(), "{}", run.describe());
            extract_json(&run.stdout)
                .unwrap_or_else(|| panic!("no JSON: {}", run.describe()))
                .0
        };
        let args = ["--output-format=json+", "two.fio"];
        let o = json(our_client(&server.address, d.path(), &args));
        let t = json(client(&server.address, d.path(), &args));
        assert_same_keys(&o, &t);
        let jobs = |v: &Value| v["client_stats"].as_array().unwrap().clone();
        let (oj, tj) = (jobs(&o), jobs(&t));
        assert_eq!(oj.len(), 3, "two jobs and All clients");
        for (a, b) in oj.iter().zip(&tj) {
            for key in ["jobname", "groupid", "error", "hostname", "port"] {
                assert_eq!(a[key], b[key], "{key}");
            }
            for dir in ["read", "write"] {
                for key in ["total_ios", "io_bytes"] {
                    assert_eq!(a[dir][key], b[dir][key], "{} {dir} {key}", a["jobname"]);
                }
            }
        }
        // The histograms came through whole.
        let bins: u64 = oj[1]["write"]["clat_ns"]["bins"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(bins, 8192);

        let normal = |run: Run| {
            assert!(run.status.success(), "{}", run.describe());
            run.stdout
        };
        let o = normal(our_client(&server.address, d.path(), &["two.fio"]));
        let t = normal(client(&server.address, d.path(), &["two.fio"]));
        // fio's client prints its "All clients" sum with no unit on its
        // rates (its summed unit_base is 0); ioscope's prints B/s.
        let unitless = |s: &str| s.replace("iB/s (", "i (").replace("B/s)(", ")(");
        assert_same_shape(&unitless(&o), &unitless(&t));
    }
}

#[test]
fn ioscopes_client_writes_the_logs_a_server_sends() {
    require!(fio_installed());
    let d = tempdir();
    std::fs::create_dir_all(d.path().join("fio")).unwrap();
    std::fs::create_dir_all(d.path().join("here")).unwrap();
    let theirs = Server::start_tcp(Path::new("fio"), &d.path().join("fio"));
    write_file(
        d.path(),
        "logs.fio",
        "[lg]\nioengine=null\nrw=randread\nsize=64k\nwrite_bw_log=lg\nwrite_lat_log=lg\n",
    );
    // All the client prints goes where --output says.
    let run = our_client(
        &theirs.address,
        &d.path().join("here"),
        &["../logs.fio", "--output=printed"],
    );
    assert!(run.status.success(), "{}", run.describe());
    // Only the status lines stay on stdout, as with fio's client.
    let elsewhere =
        (run.stdout.split(['\r', '\n'])).all(|l| l.is_empty() || l.starts_with("Jobs: "));
    assert!(elsewhere, "{}", run.describe());
    let printed = std::fs::read_to_string(d.path().join("here/printed")).unwrap();
    assert!(printed.contains("> Starting 1 process"), "{printed}");
    assert!(printed.contains("issued rwts: total=16,0,0,0"), "{printed}");
    std::fs::remove_file(d.path().join("here/printed")).unwrap();
    let clat = std::fs::read_to_string(d.path().join("here/lg_clat.1.log.127.0.0.1")).unwrap();
    let lines: Vec<&str> = clat.lines().collect();
    assert_eq!(lines.len(), 16, "{clat}");
    assert!(lines.iter().all(|l| l.ends_with(", 0, 4096, 0")), "{clat}");
}

#[test]
fn ctrl_c_on_the_client_stops_the_servers_jobs_and_their_results_still_come() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    write_file(
        d.path(),
        "long.fio",
        "[long]\nioengine=null\nsize=100g\ntime_based\nruntime=60\n",
    );
    for server in [&ours, &theirs] {
        let child = Command::new(bin())
            .args([format!("--client={}", server.address), "long.fio".into()])
            .current_dir(d.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(2));
        // SAFETY: signals the client this test started.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let started = Instant::now();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the jobs ran on: {stdout}"
        );
        // The results came: the group's line (the job's block too when
        // it had done I/O before the quit; on a loaded machine a fio
        // server may still be setting the job up).
        assert!(stdout.contains("Run status group 0"), "{stdout}");
    }
}

#[test]
fn several_servers_run_their_jobs_together_and_are_summed_as_fios_client_sums_them() {
    require!(fio_installed());
    let d = tempdir();
    let (ours, theirs) = both_servers(d.path());
    write_file(d.path(), "one.fio", "[one]\nioengine=null\nsize=16m\n");
    // Each server's job file follows it, as fio's client takes them.
    let run = our_client(
        &ours.address,
        d.path(),
        &[
            "one.fio",
            &format!("--client={}", theirs.address),
            "one.fio",
            "--output-format=json",
        ],
    );
    assert!(run.status.success(), "{}", run.describe());
    let doc = extract_json(&run.stdout).unwrap().0;
    let jobs = doc["client_stats"].as_array().unwrap();
    let hosts: BTreeSet<&str> = jobs[..2]
        .iter()
        .map(|j| j["hostname"].as_str().unwrap())
        .collect();
    let sockets: BTreeSet<String> = [&ours, &theirs]
        .iter()
        .map(|s| s.address.trim_start_matches("sock:").to_string())
        .collect();
    assert_eq!(hosts, sockets.iter().map(String::as_str).collect());
    assert_eq!(jobs.len(), 3, "each server's job, then All clients");
    assert_eq!(jobs[2]["jobname"], "All clients");
    for j in &jobs[..2] {
        assert_eq!(j["read"]["total_ios"], 4096, "{j}");
    }
    assert_eq!(jobs[2]["read"]["total_ios"], 8192);

    // A server given no job file is left out, as fio's client leaves it.
    let run = our_client(
        &ours.address,
        d.path(),
        &[
            &format!("--client={}", theirs.address),
            "one.fio",
            "--output-format=json",
        ],
    );
    assert!(run.status.success(), "{}", run.describe());
    let doc = extract_json(&run.stdout).unwrap().0;
    let jobs = doc["client_stats"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "{doc}");
    assert_eq!(
        jobs[0]["hostname"],
        theirs.address.trim_start_matches("sock:")
    );
}
