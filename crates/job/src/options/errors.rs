//! What a job does when an I/O or a verify fails.

use super::{Kind, OptionDef};
use crate::spec::ErrorPolicy;

const ERRORS: OptionDef = OptionDef::of("Error handling");

const CONTINUE_VALUES: &[(&str, &str)] = &[
    ("none", "Exit when an error is encountered"),
    ("read", "Continue on read errors only"),
    ("write", "Continue on write errors only"),
    ("io", "Continue on any IO errors"),
    ("verify", "Continue on verify errors only"),
    ("all", "Continue on all io and verify errors"),
    ("0", "Alias for 'none'"),
    ("1", "Alias for 'all'"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "continue_on_error",
        kind: Kind::Choice(CONTINUE_VALUES),
        default: "none",
        help: "Continue on non-fatal errors during IO",
        apply: |s, v| {
            s.spec.errors.continue_on = v.pick(&[
                ("none", [false, false, false]),
                ("0", [false, false, false]),
                ("read", [true, false, false]),
                ("write", [false, true, false]),
                ("io", [true, true, false]),
                ("verify", [false, false, true]),
                ("all", [true, true, true]),
                ("1", [true, true, true]),
            ])?;
            Ok(())
        },
        ..ERRORS
    },
    OptionDef {
        name: "ignore_error",
        help: "Set a specific list of errors to ignore: READ,WRITE,VERIFY lists of ':'-separated errno names or numbers",
        // A class given no list keeps fio's default list, EIO:EILSEQ (the
        // resolve step).
        apply: |s, v| ignore_error(v.text, &mut s.spec.errors),
        ..ERRORS
    },
];

/// fio's `ignore_error=READ,WRITE,VERIFY`: per class a ':'-separated list of
/// errno names (`EIO`) or numbers (decimal or 0x hex). A non-empty list
/// replaces the class's default and, as in fio, turns continue_on_error on
/// for the class.
fn ignore_error(text: &str, errors: &mut ErrorPolicy) -> Result<(), String> {
    let lists: Vec<&str> = text.split(',').collect();
    if lists.len() > 3 {
        return Err("at most three lists: READ,WRITE,VERIFY".to_string());
    }
    for (class, list) in lists.iter().enumerate() {
        let mut codes = Vec::new();
        for name in list.split(':').map(str::trim).filter(|n| !n.is_empty()) {
            let code = if name.starts_with('E') {
                errno_by_name(name).ok_or_else(|| format!("unknown error name '{name}'"))?
            } else {
                let n = match name.strip_prefix("0x").or_else(|| name.strip_prefix("0X")) {
                    Some(hex) => i64::from_str_radix(hex, 16),
                    None => name.parse::<i64>(),
                }
                .map_err(|_| format!("'{name}' is not an error name or number"))?;
                i32::try_from(n.unsigned_abs())
                    .ok()
                    .filter(|&c| c != 0)
                    .ok_or_else(|| format!("'{name}' is not an error number"))?
            };
            codes.push(code);
        }
        if !codes.is_empty() {
            errors.continue_on[class] = true;
            errors.ignore[class] = codes;
        }
    }
    Ok(())
}

/// The errno of a name like `ENOSPC`, for the names Linux has.
fn errno_by_name(name: &str) -> Option<i32> {
    (1..134).find(|&code| errno_name(code) == Some(name))
}

/// The symbolic name of an errno (Linux values, from libc's constants).
pub(crate) fn errno_name(code: i32) -> Option<&'static str> {
    use libc::*;
    const NAMES: &[(i32, &str)] = &[
        (EPERM, "EPERM"),
        (ENOENT, "ENOENT"),
        (ESRCH, "ESRCH"),
        (EINTR, "EINTR"),
        (EIO, "EIO"),
        (ENXIO, "ENXIO"),
        (E2BIG, "E2BIG"),
        (ENOEXEC, "ENOEXEC"),
        (EBADF, "EBADF"),
        (ECHILD, "ECHILD"),
        (EAGAIN, "EAGAIN"),
        (ENOMEM, "ENOMEM"),
        (EACCES, "EACCES"),
        (EFAULT, "EFAULT"),
        (ENOTBLK, "ENOTBLK"),
        (EBUSY, "EBUSY"),
        (EEXIST, "EEXIST"),
        (EXDEV, "EXDEV"),
        (ENODEV, "ENODEV"),
        (ENOTDIR, "ENOTDIR"),
        (EISDIR, "EISDIR"),
        (EINVAL, "EINVAL"),
        (ENFILE, "ENFILE"),
        (EMFILE, "EMFILE"),
        (ENOTTY, "ENOTTY"),
        (ETXTBSY, "ETXTBSY"),
        (EFBIG, "EFBIG"),
        (ENOSPC, "ENOSPC"),
        (ESPIPE, "ESPIPE"),
        (EROFS, "EROFS"),
        (EMLINK, "EMLINK"),
        (EPIPE, "EPIPE"),
        (EDOM, "EDOM"),
        (ERANGE, "ERANGE"),
        (EDEADLK, "EDEADLK"),
        (ENAMETOOLONG, "ENAMETOOLONG"),
        (ENOLCK, "ENOLCK"),
        (ENOSYS, "ENOSYS"),
        (ENOTEMPTY, "ENOTEMPTY"),
        (ELOOP, "ELOOP"),
        (ENOMSG, "ENOMSG"),
        (EIDRM, "EIDRM"),
        (ENODATA, "ENODATA"),
        (ETIME, "ETIME"),
        (ENOLINK, "ENOLINK"),
        (EPROTO, "EPROTO"),
        (EBADMSG, "EBADMSG"),
        (EOVERFLOW, "EOVERFLOW"),
        (EILSEQ, "EILSEQ"),
        (EUSERS, "EUSERS"),
        (ENOTSOCK, "ENOTSOCK"),
        (EOPNOTSUPP, "EOPNOTSUPP"),
        (ENOBUFS, "ENOBUFS"),
        (ETIMEDOUT, "ETIMEDOUT"),
        (ECONNREFUSED, "ECONNREFUSED"),
        (EALREADY, "EALREADY"),
        (EINPROGRESS, "EINPROGRESS"),
        (ESTALE, "ESTALE"),
        (EREMOTEIO, "EREMOTEIO"),
        (EDQUOT, "EDQUOT"),
        (ENOMEDIUM, "ENOMEDIUM"),
        (EMEDIUMTYPE, "EMEDIUMTYPE"),
        (ECANCELED, "ECANCELED"),
        (ENOKEY, "ENOKEY"),
        (EKEYEXPIRED, "EKEYEXPIRED"),
        (EKEYREVOKED, "EKEYREVOKED"),
        (EKEYREJECTED, "EKEYREJECTED"),
        (EOWNERDEAD, "EOWNERDEAD"),
        (ENOTRECOVERABLE, "ENOTRECOVERABLE"),
        (ERFKILL, "ERFKILL"),
        (EHWPOISON, "EHWPOISON"),
    ];
    NAMES.iter().find(|n| n.0 == code).map(|n| n.1)
}
