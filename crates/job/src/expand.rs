//! Substitutions fio makes in job-file options (not in command-line ones,
//! where the shell has already done its own): `${VAR}` from the
//! environment, and the keywords `$pagesize`, `$mb_memory`, `$ncpus`.

use crate::arith;

/// `${VAR}` replaced by the variable's value; an undefined variable becomes
/// the empty string, as in fio, and is named in the second part of the
/// result so that the caller can refuse it where fio's result would do harm.
/// A `${` without a closing `}` stays as it is.
pub(crate) fn env_vars(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut unset = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let name = &rest[start + 2..start + 2 + len];
        match lookup(name) {
            Some(value) => out.push_str(&value),
            None => unset.push(name.to_string()),
        }
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    (out, unset)
}

/// The values fio's keywords stand for on this machine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keywords {
    pub pagesize: u64,
    pub mb_memory: u64,
    pub ncpus: u64,
}

impl Keywords {
    pub(crate) fn of_this_machine() -> Keywords {
        // SAFETY: sysconf only reads system configuration.
        let conf = |name| unsafe { libc::sysconf(name) }.max(0) as u64;
        let pagesize = conf(libc::_SC_PAGESIZE);
        Keywords {
            pagesize,
            mb_memory: conf(libc::_SC_PHYS_PAGES).saturating_mul(pagesize) / (1024 * 1024),
            ncpus: conf(libc::_SC_NPROCESSORS_ONLN),
        }
    }

    /// Replaces the keywords in a value. When one was replaced and the value
    /// has arithmetic in it, fio hands it to `bc`; here the expression is
    /// evaluated (plain numbers only, as bc sees them) and the whole number
    /// returned.
    pub(crate) fn replace(&self, value: &str) -> Result<String, String> {
        let mut out = value.to_string();
        let mut replaced = false;
        for (word, number) in [
            ("$pagesize", self.pagesize),
            ("$mb_memory", self.mb_memory),
            ("$ncpus", self.ncpus),
        ] {
            if out.contains(word) {
                out = out.replace(word, &number.to_string());
                replaced = true;
            }
        }
        if !replaced || !out.contains(['+', '-', '*', '/']) {
            return Ok(out);
        }
        let plain = |suffix: &str| {
            if suffix.is_empty() {
                Ok(1.0)
            } else {
                Err(format!(
                    "'{suffix}' cannot follow a number in arithmetic with a $keyword"
                ))
            }
        };
        let result = arith::eval(&out, &plain)?;
        if result < 0.0 {
            return Err(format!("'{value}' is negative ({out})"));
        }
        if result >= u64::MAX as f64 {
            return Err(format!("'{value}' is too large ({out})"));
        }
        Ok(format!("{}", result.trunc() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "DEV").then(|| "/dev/nvme0n1".to_string())
    }

    #[test]
    fn env_vars_are_replaced_and_undefined_ones_are_empty() {
        let text = |t: &str| env_vars(t, &env).0;
        assert_eq!(text("filename=${DEV}"), "filename=/dev/nvme0n1");
        assert_eq!(
            env_vars("${NOPE}x", &env),
            ("x".to_string(), vec!["NOPE".to_string()])
        );
        assert_eq!(text("a${DEV}b${DEV}"), "a/dev/nvme0n1b/dev/nvme0n1");
        assert!(env_vars("a${DEV}b", &env).1.is_empty());
        assert_eq!(text("${DEV"), "${DEV");
        assert_eq!(text("$DEV"), "$DEV");
    }

    #[test]
    fn keywords_and_their_arithmetic() {
        let kw = Keywords {
            pagesize: 4096,
            mb_memory: 16000,
            ncpus: 8,
        };
        assert_eq!(kw.replace("$ncpus"), Ok("8".to_string()));
        assert_eq!(kw.replace("$mb_memory/2"), Ok("8000".to_string()));
        assert_eq!(kw.replace("$pagesize*2+1"), Ok("8193".to_string()));
        assert_eq!(kw.replace("4k-8k"), Ok("4k-8k".to_string()));
        assert!(kw.replace("$ncpus-9").is_err());
        assert!(kw.replace("$ncpus*2k").is_err());
        assert!(kw
            .replace("$mb_memory*$mb_memory*$mb_memory*$mb_memory*$mb_memory")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn this_machine_has_pages_and_cpus() {
        let kw = Keywords::of_this_machine();
        assert!(kw.pagesize >= 4096);
        assert!(kw.ncpus >= 1);
    }
}
