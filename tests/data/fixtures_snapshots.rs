//! Every fixture in `tests/fixtures/invalid` and `tests/fixtures/warnings` against its reviewed
//! snapshot of exact diagnostics in `tests/snapshots/<dir>/<file>.txt`.
//!
//! After a deliberate change, `UPDATE_SNAPSHOTS=1 cargo test --test data fixtures_snapshots`
//! rewrites the snapshots; review the diff against the fixture READMEs before committing it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::fmt::Write as _;
use std::path::Path;

use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::validate::{ValidationReport, validate_parsed};

/// One diagnostic per line (`severity[code] line:column entity N `path`: message`), then its help
/// indented.
fn render(report: &ValidationReport) -> String {
    let mut out = String::new();
    for d in report {
        write!(out, "{}[{}]", d.severity, d.code).unwrap();
        match d.position {
            Some(p) => write!(out, " {}:{}", p.line, p.column).unwrap(),
            None => out.push_str(" -"),
        }
        if let Some(id) = d.entity {
            write!(out, " entity {id}").unwrap();
        }
        if let Some(path) = &d.path {
            write!(out, " `{path}`").unwrap();
        }
        writeln!(out, ": {}", d.message).unwrap();
        if let Some(help) = &d.help {
            writeln!(out, "  help: {help}").unwrap();
        }
    }
    writeln!(
        out,
        "-- {} errors, {} warnings, {} info",
        report.error_count(),
        report.warning_count(),
        report.info_count()
    )
    .unwrap();
    out
}

fn check_dir(dir: &str) -> usize {
    let fixtures = common::fixture(dir);
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".forge.ron"))
        .collect();
    files.sort();
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for file in &files {
        let parsed = SceneDoc::read(file).unwrap();
        let actual = render(&validate_parsed(&parsed, None));
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let snapshot = snapshots.join(format!("{name}.txt"));
        if update {
            std::fs::create_dir_all(&snapshots).unwrap();
            std::fs::write(&snapshot, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&snapshot)
            .unwrap_or_else(|_| panic!("no snapshot {}", snapshot.display()));
        if expected != actual {
            failures.push(format!(
                "{name}:\n--- expected\n{expected}--- actual\n{actual}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    files.len()
}

#[test]
fn invalid_fixtures_match_their_snapshots() {
    assert_eq!(check_dir("invalid"), 4);
}

#[test]
fn warning_fixtures_match_their_snapshots() {
    assert_eq!(check_dir("warnings"), 1);
}
