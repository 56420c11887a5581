//! fio's `--eta`: whether the status line is drawn, and the drawing, as
//! the run hands it the jobs' status.

use std::io::Write;
use std::sync::{Arc, Mutex};

use ioscope_report::EtaLine;
use ioscope_run::{EtaShow, EtaSink};
use ioscope_stats::JobsEta;

/// fio's `--eta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eta {
    Never,
    Always,
    /// Only when stdout is a terminal.
    Auto,
}

/// The run's status line, if `--eta` asks for one: on stdout, or on
/// stderr when stdout carries JSON (where `auto` draws none).
pub fn for_run(
    eta: Eta,
    newline: Option<std::time::Duration>,
    stdout_is_data: bool,
) -> Option<EtaShow> {
    let shown = match eta {
        Eta::Never => false,
        Eta::Always => true,
        // SAFETY: isatty only inspects the descriptor.
        Eta::Auto => !stdout_is_data && unsafe { libc::isatty(libc::STDOUT_FILENO) == 1 },
    };
    shown.then(|| {
        EtaShow(Arc::new(Printer {
            to_stderr: stdout_is_data,
            skip_idle: true,
            line: Mutex::new((EtaLine::new(newline), false)),
        }))
    })
}

/// Draws the status line as fio's display_thread_status does.
pub struct Printer {
    to_stderr: bool,
    /// Draw nothing once nothing runs or waits to (fio's local rule; its
    /// client draws every status its servers send).
    skip_idle: bool,
    /// The line's state, and whether anything was drawn.
    line: Mutex<(EtaLine, bool)>,
}

impl Printer {
    /// fio's client's status line: on stdout, every status drawn.
    pub fn client(newline: Option<std::time::Duration>) -> Printer {
        Printer {
            to_stderr: false,
            skip_idle: false,
            line: Mutex::new((EtaLine::new(newline), false)),
        }
    }

    fn write(&self, text: &str) {
        // A status line that cannot be written is not worth failing for.
        let _ = match self.to_stderr {
            true => std::io::stderr().lock().write_all(text.as_bytes()),
            false => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes()).and_then(|_| out.flush())
            }
        };
    }
}

impl EtaSink for Printer {
    fn show(&self, eta: &JobsEta) {
        if self.skip_idle && eta.nr_running == 0 && eta.nr_pending == 0 {
            return;
        }
        let mut line = self.line.lock().unwrap_or_else(|e| e.into_inner());
        let text = line.0.draw(eta);
        line.1 = true;
        self.write(&text);
    }

    fn end(&self) {
        let mut line = self.line.lock().unwrap_or_else(|e| e.into_inner());
        if std::mem::take(&mut line.1) {
            self.write("\n");
        }
    }
}
