//! `ioscope report FILE.json [--output=FILE.html]`: the HTML page of a
//! saved document: an `ioscope compare` or `ioscope sweep` document, or a
//! fio JSON/JSON+ run (fio's or ioscope's).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

use crate::output::{self, Output};

#[derive(Parser, Debug)]
#[command(
    name = "ioscope report",
    bin_name = "ioscope report",
    about = "The HTML page of a saved JSON document",
    long_about = "The HTML page of a saved JSON document: an ioscope compare or sweep \
document, or a fio JSON run (its latency histogram needs --output-format=json+). \
One self-contained file: it fetches nothing."
)]
struct Cli {
    /// The JSON document
    file: PathBuf,
    /// Where the page goes (stdout when not given)
    #[arg(long = "output")]
    output: Option<PathBuf>,
}

/// Runs `ioscope report` with the arguments after `report`.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli =
        match Cli::try_parse_from(std::iter::once(OsString::from("ioscope report")).chain(args)) {
            Ok(cli) => cli,
            Err(e) => return output::usage("ioscope report", &e),
        };
    match render(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => output::fail("ioscope report", &e),
    }
}

fn render(cli: &Cli) -> anyhow::Result<()> {
    let name = cli.file.display();
    let text = std::fs::read_to_string(&cli.file).with_context(|| format!("cannot read {name}"))?;
    let doc = parse(&text).with_context(|| format!("{name} is not a JSON document"))?;
    let page = ioscope_report::document_page(&doc).with_context(|| name.to_string())?;
    let mut out = match &cli.output {
        Some(path) => Output::create(path)?,
        None => Output::stdout(),
    };
    out.write(&page)?;
    Ok(())
}

/// The document in `text`. A file fio wrote may hold lines before it
/// (fio's own warnings on stdout, or the terse lines written first): the
/// document then starts at the first line that opens an object.
fn parse(text: &str) -> serde_json::Result<serde_json::Value> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(e) => match text.find("\n{") {
            Some(at) => serde_json::from_str(&text[at + 1..]).map_err(|_| e),
            None => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_after_other_lines_is_found() {
        let v = parse("fio: some warning\n{\"jobs\": []}\n").unwrap();
        assert!(v.get("jobs").is_some());
        assert!(parse("not json").is_err());
    }
}
