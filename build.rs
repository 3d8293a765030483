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
        let body = shebang(shake(expand(&path)));
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

/// Drops the top-level `local function name(...)` blocks (up to their
/// column-0 `end`) that nothing else in the script mentions: a script pays
/// for every closure it creates, on every run (and the Lua heap every GC step
/// walks holds every loaded script), so the shared helpers a script includes
/// but never calls are left out.
fn shake(mut body: String) -> String {
    fn is_ident(c: char) -> bool {
        c.is_ascii_alphanumeric() || c == '_'
    }
    fn mentions(line: &str, name: &str) -> bool {
        // code only: not a comment that names it
        let line = line.split("--").next().unwrap_or("");
        line.match_indices(name).any(|(i, _)| {
            let before = line[..i].chars().next_back().is_none_or(|c| !is_ident(c));
            let after = line[i + name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !is_ident(c));
            before && after
        })
    }
    loop {
        let lines: Vec<&str> = body.lines().collect();
        let mut cut = None;
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.strip_prefix("local function ") else {
                continue;
            };
            let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
            let end = if line.trim_end().ends_with(" end") {
                i
            } else {
                match lines[i + 1..].iter().position(|l| *l == "end") {
                    Some(j) => i + 1 + j,
                    None => continue,
                }
            };
            let used = lines[..i]
                .iter()
                .chain(&lines[end + 1..])
                .any(|l| mentions(l, &name));
            if !used {
                cut = Some((i, end));
                break;
            }
        }
        let Some((from, to)) = cut else {
            return body;
        };
        let mut out = String::with_capacity(body.len());
        for (i, l) in lines.iter().enumerate() {
            if i < from || i > to {
                out.push_str(l);
                out.push('\n');
            }
        }
        body = out;
    }
}

/// A first line `--!flags [f1,f2]` becomes Redis 7's `#!lua [flags=f1,f2]`:
/// a flagged script (refused before it runs over maxmemory unless
/// `allow-oom`; `no-writes` ones run on replicas).
fn shebang(body: String) -> String {
    match body.split_once('\n') {
        Some((first, rest)) if first.starts_with("--!flags") => {
            let flags = first["--!flags".len()..].trim();
            if flags.is_empty() {
                format!("#!lua\n{rest}")
            } else {
                format!("#!lua flags={flags}\n{rest}")
            }
        }
        _ => body,
    }
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
