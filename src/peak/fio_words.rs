//! The engine words its advice in fio's option names ("drop hipri", "use
//! direct=0"); a peak user needs the letters peak takes for them.

/// fio's option name, and what peak calls it.
const NAMES: [(&str, &str); 5] = [
    ("hipri", "-p"),
    ("direct=", "-O"),
    ("fixedbufs", "-B"),
    ("registerfiles", "-F"),
    ("iodepth", "-d"),
];

/// `error`, with a note naming peak's option for each fio option it
/// mentions.
pub fn translate(error: impl std::fmt::Display) -> anyhow::Error {
    let text = error.to_string();
    let notes: Vec<String> = NAMES
        .iter()
        .filter(|(fio, _)| text.contains(fio))
        .map(|(fio, peak)| format!("{} is {peak}", fio.trim_end_matches('=')))
        .collect();
    if notes.is_empty() {
        anyhow::anyhow!("{text}")
    } else {
        anyhow::anyhow!("{text} (in ioscope peak: {})", notes.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_names_get_peaks_letters() {
        assert_eq!(
            translate("needs poll queues; drop hipri, or use direct=0").to_string(),
            "needs poll queues; drop hipri, or use direct=0 (in ioscope peak: hipri is -p, direct is -O)"
        );
        assert_eq!(translate("no such file").to_string(), "no such file");
    }
}
