//! Embeds every `src/lua/*.lua` file as a `Script` constant together with the
//! SHA1 of its body, so EVALSHA needs no SCRIPT LOAD round trip at run time.
use std::{env, fmt::Write as _, fs, path::Path};

fn main() {
    let dir = Path::new("src/lua");
    println!("cargo:rerun-if-changed=src/lua");
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("src/lua must exist")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "lua"))
        .collect();
    entries.sort();
    let mut out = String::new();
    for path in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if stem.starts_with('_') {
            continue; // shared code, only ever included
        }
        let body = expand(&path);
        let sha = sha1_smol::Sha1::from(body.as_bytes()).digest().to_string();
        writeln!(
            out,
            "pub static {}: crate::conn::Script = crate::conn::Script {{ name: {:?}, body: {:?}, sha: {:?} }};",
            stem.to_uppercase(),
            stem,
            body,
            sha
        )
        .unwrap();
    }
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("scripts.rs");
    fs::write(dest, out).unwrap();
}

/// Inlines `--!include _file.lua` lines (shared helpers of several scripts).
fn expand(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("readable lua file");
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if let Some(inc) = line.trim().strip_prefix("--!include ") {
            let inc_path = path.parent().unwrap().join(inc.trim());
            println!("cargo:rerun-if-changed={}", inc_path.display());
            out.push_str(&expand(&inc_path));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}
