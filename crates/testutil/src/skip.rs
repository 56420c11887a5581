//! Saying that a test cannot run here: the one line it prints, and strict
//! mode, where a missing requirement that CI always has fails the test.

use std::io::Write;

/// The environment variable that turns strict mode on (`1`).
pub const STRICT_ENV: &str = "IOSCOPE_STRICT_SKIPS";

/// Whether a missing requirement may be missing on CI too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// CI always has it (.ci/run installs or sets it up): in strict mode
    /// its absence fails the test.
    Strict,
    /// A machine may lack it without being broken (a kernel feature, the
    /// NVMe guest): the test skips, strict mode or not.
    Soft,
}

/// A requirement this machine does not meet, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    pub kind: Kind,
    pub reason: String,
}

impl Missing {
    /// Missing something CI always has.
    pub fn strict(reason: impl Into<String>) -> Missing {
        Missing {
            kind: Kind::Strict,
            reason: reason.into(),
        }
    }

    /// Missing something a sound machine may lack.
    pub fn soft(reason: impl Into<String>) -> Missing {
        Missing {
            kind: Kind::Soft,
            reason: reason.into(),
        }
    }

    /// The same requirement, its reason preceded by the part of the test
    /// that does not run (for a test that goes on without that part).
    pub fn for_part(self, part: &str) -> Missing {
        Missing {
            kind: self.kind,
            reason: format!("{part}: {}", self.reason),
        }
    }
}

/// Whether strict mode is on.
pub fn strict_mode() -> bool {
    std::env::var(STRICT_ENV).as_deref() == Ok("1")
}

/// The running test's name: libtest names each test's thread after the
/// test's path; `fallback` (the caller's module path) where the thread has
/// no such name.
pub fn test_name(fallback: &str) -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_string(),
        _ => fallback.to_string(),
    }
}

/// Reports a skip: panics in strict mode when the requirement is one CI
/// always has, otherwise prints `SKIP <test>: <reason>` on the process's
/// stderr (not through libtest's capture, so the line shows in every run).
pub fn report(test: &str, missing: &Missing) {
    if missing.kind == Kind::Strict && strict_mode() {
        panic!(
            "{test} cannot run: {} ({STRICT_ENV}=1: CI always has this, so its absence is a failure)",
            missing.reason
        );
    }
    let line = format!("SKIP {test}: {}\n", missing.reason);
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// The value of a probe that succeeded; for one that failed, reports the
/// skip (see [`report`]) and gives `None`. `require!` is this plus the
/// return; call it directly for a test that goes on without one part.
pub fn check<T>(test: &str, probe: Result<T, Missing>) -> Option<T> {
    match probe {
        Ok(v) => Some(v),
        Err(missing) => {
            report(test, &missing);
            None
        }
    }
}

/// Runs a probe (a `Result<T, Missing>`): its value where it succeeds,
/// else prints `SKIP <test>: <reason>` and returns from the test (or, in
/// strict mode, panics for a requirement CI always has).
///
/// ```ignore
/// let zram = require!(ioscope_testutil::zram(64 << 20));
/// require!(ioscope_testutil::fio());
/// ```
#[macro_export]
macro_rules! require {
    ($probe:expr) => {
        match $crate::check(&$crate::test_name(module_path!()), $probe) {
            Some(v) => v,
            None => return,
        }
    };
}

/// Skips the rest of the test for a reason found while it ran (the guest
/// did not boot): `skip!(Missing::soft(...))` reports it and returns.
#[macro_export]
macro_rules! skip {
    ($missing:expr) => {{
        $crate::report(&$crate::test_name(module_path!()), &$missing);
        return;
    }};
}

/// Reports a part of the test that does not run, and goes on:
/// `if let Some(v) = part!("the O_DIRECT runs", probe) { ... }`.
#[macro_export]
macro_rules! part {
    ($part:expr, $probe:expr) => {
        $crate::check(
            &$crate::test_name(module_path!()),
            ($probe).map_err(|m: $crate::Missing| m.for_part($part)),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_test_path() {
        assert_eq!(
            test_name("fallback"),
            "skip::tests::the_name_is_the_test_path"
        );
    }

    #[test]
    fn a_part_names_itself_before_the_reason() {
        let m = Missing::soft("no guest").for_part("the NVMe checks");
        assert_eq!(m.reason, "the NVMe checks: no guest");
        assert_eq!(m.kind, Kind::Soft);
    }

    #[test]
    fn a_soft_skip_returns_none_even_in_strict_mode() {
        // Only reads the variable: a soft requirement never panics.
        assert_eq!(check::<()>("t", Err(Missing::soft("x"))), None);
        assert_eq!(check("t", Ok::<_, Missing>(3)), Some(3));
    }
}
