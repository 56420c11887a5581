//! Builds the MD5 compression function (csrc/md5.c) that verify=md5 uses.

fn main() {
    println!("cargo:rerun-if-changed=csrc/md5.c");
    let endian = std::env::var("CARGO_CFG_TARGET_ENDIAN").unwrap_or_default();
    if endian != "little" {
        // md5.c reads the block's words as they lie in memory.
        panic!("csrc/md5.c assumes a little-endian target; this one is {endian}");
    }
    cc::Build::new()
        .file("csrc/md5.c")
        .opt_level(3)
        .warnings(true)
        .compile("ioscope_md5");
}
