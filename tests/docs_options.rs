//! docs/options.md is what `ioscope --doc=options` prints from the option
//! table, so the page cannot drift from what the binary accepts.

mod common;

use common::ioscope;

#[test]
fn options_page_is_what_the_binary_prints() {
    let r = ioscope(["--doc=options"]).run();
    assert!(r.status.success(), "{}", r.describe());
    let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/options.md");
    let committed = std::fs::read_to_string(&page).unwrap_or_default();
    if committed != r.stdout {
        let line = committed
            .lines()
            .zip(r.stdout.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(r.stdout.lines().count()));
        panic!(
            "docs/options.md differs from what the binary prints (first at line {}); \
             regenerate it with\n    cargo run -- --doc=options > docs/options.md",
            line + 1
        );
    }
}
