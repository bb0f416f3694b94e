//! The diagnostic codes: every code the crate and the command line emit is a constant of
//! `bevy_forge_scene::codes`, and every constant is a row of the table in `Diagnostic`'s docs.

#![allow(clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `forge::<area>::<rule>` strings in quotes on `text`'s lines that `keep` keeps.
fn quoted_codes(text: &str, mut keep: impl FnMut(&str) -> bool) -> Vec<String> {
    let mut codes = Vec::new();
    for line in text.lines().filter(|l| keep(l)) {
        let mut rest = line;
        while let Some(at) = rest.find("\"forge::") {
            let tail = &rest[at + 1..];
            let end = tail.find('"').unwrap_or(tail.len());
            codes.push(tail[..end].to_owned());
            rest = &tail[end..];
        }
    }
    codes
}

/// The constants of `src/codes.rs`, as their strings.
fn constants() -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("src/codes.rs")).expect("src/codes.rs");
    quoted_codes(&text, |l| l.trim_start().starts_with("pub const "))
        .into_iter()
        .collect()
}

/// The codes of the table in `Diagnostic`'s docs (its rows: `/// | `code` | severity | rule |`).
fn table() -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("src/validate/diagnostic.rs"))
        .expect("src/validate/diagnostic.rs");
    text.lines()
        .filter_map(|l| l.strip_prefix("/// | `forge::"))
        .filter_map(|l| l.split_once('`'))
        .map(|(code, _)| format!("forge::{code}"))
        .collect()
}

#[test]
fn every_constant_is_a_row_of_the_table_and_every_row_a_constant() {
    let constants = constants();
    let table = table();
    assert!(constants.len() > 100, "too few codes read: {constants:?}");
    let undocumented: Vec<_> = constants.difference(&table).collect();
    let without_constant: Vec<_> = table.difference(&constants).collect();
    assert!(
        undocumented.is_empty() && without_constant.is_empty(),
        "codes without a row in Diagnostic's table: {undocumented:?}; rows without a constant in src/codes.rs: {without_constant:?}"
    );
}

#[test]
fn no_code_is_spelled_outside_the_constants() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    rust_files(&root().join("forge-cli/src"), &mut files);
    let mut spelled = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("src/codes.rs")) {
        let text = std::fs::read_to_string(file).expect("a source file");
        // Code only: comments and unit tests (which assert codes as users see them) aside.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for c in quoted_codes(code, |l| !l.trim_start().starts_with("//")) {
            spelled.push(format!("{}: {c}", file.display()));
        }
    }
    assert!(
        spelled.is_empty(),
        "diagnostic codes spelled as strings (use bevy_forge_scene::codes): {spelled:#?}"
    );
}

#[test]
fn the_scanner_finds_codes_on_code_lines_only() {
    let text = "let a = \"forge::x::y\"; f(\"forge::p::q\", \"forge::r::s\")\n// \"forge::no::no\"";
    assert_eq!(
        quoted_codes(text, |l| !l.starts_with("//")),
        ["forge::x::y", "forge::p::q", "forge::r::s"]
    );
}
