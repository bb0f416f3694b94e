//! The ground rules of the crate's layout (docs/ARCHITECTURE.md), kept by reading `src/`.
//!
//! Each top-level module of `src/` is a part on a floor. A part may import only parts on lower
//! floors, so the parts cannot import each other in a loop; the pure parts (everything but the
//! runtime) never name Bevy's ECS, asset, app or render crates. A new top-level module fails the
//! test until it is given a floor here and in docs/ARCHITECTURE.md.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The parts from the ground up, with the parts each may import. The floors are the order of
/// this list: every part listed as importable comes before the part that imports it.
const PARTS: &[(&str, &[&str])] = &[
    ("format", &[]),
    ("project", &["format"]),
    ("schema", &["format", "project"]),
    ("validate", &["format", "project", "schema"]),
    ("diff", &["format"]),
    (
        "runtime",
        &["format", "project", "schema", "validate", "diff"],
    ),
    // The `forge` command line works offline: no Bevy runtime.
    ("bin", &["format", "project", "schema", "validate", "diff"]),
];

/// Crates that bring a `World`, an `App`, assets or rendering: only the runtime uses them.
const RUNTIME_CRATES: &[&str] = &[
    "bevy_app",
    "bevy_asset",
    "bevy_camera",
    "bevy_ecs",
    "bevy_image",
    "bevy_light",
    "bevy_mesh",
    "bevy_pbr",
    "bevy_shape",
    "bevy_sprite",
    "bevy_text",
    "bevy_transform",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The part a file of `src/` belongs to: its top-level module (`src/format/read/lex.rs` is in
/// `format`, `src/project.rs` in `project`); `None` for `lib.rs`, which lists every part.
fn part_of(file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src()).ok()?;
    let first = relative.components().next()?.as_os_str().to_string_lossy();
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(module) => Some(module.to_owned()),
        None => Some(first.into_owned()),
    }
}

/// The code of a line without its `//` comment (doc comments and their intra-doc links are not
/// imports). A `//` inside a string literal is kept: the quotes before it are counted.
fn code_of(line: &str) -> &str {
    let mut from = 0;
    while let Some(at) = line[from..].find("//") {
        let at = from + at;
        if line[..at].matches('"').count().is_multiple_of(2) {
            return &line[..at];
        }
        from = at + 2;
    }
    line
}

/// Every top-level module of this crate a line of code names: `crate::x`, `bevy_forge_scene::x`
/// (paths and `use` trees alike).
fn parts_named(code: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for prefix in ["crate::", "bevy_forge_scene::"] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `my_crate::` is not `crate::`
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                named.insert(name);
            }
        }
    }
    named
}

/// Whether `code` names crate `name` as a path (`bevy_ecs::..`, `use bevy_ecs::{..}`).
fn names_crate(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = &code[at + name.len()..];
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with("::")
    })
}

/// `(file, line, text)` of every line of code in `src/`, with its part.
fn lines() -> Vec<(PathBuf, Option<String>, usize, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    assert!(files.len() > 20, "src/ was not found: {}", src().display());
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let part = part_of(&file);
        for (i, line) in text.lines().enumerate() {
            out.push((file.clone(), part.clone(), i + 1, code_of(line).to_owned()));
        }
    }
    out
}

fn allowed(part: &str) -> Option<&'static [&'static str]> {
    PARTS.iter().find(|(p, _)| *p == part).map(|(_, a)| *a)
}

#[test]
fn every_part_has_a_floor() {
    let mut unplaced = BTreeSet::new();
    for (file, part, _, _) in lines() {
        if let Some(part) = part
            && allowed(&part).is_none()
        {
            unplaced.insert(format!("{part} ({})", file.display()));
        }
    }
    assert!(
        unplaced.is_empty(),
        "top-level modules without a floor in tests/architecture.rs and docs/ARCHITECTURE.md: {unplaced:?}"
    );
}

#[test]
fn parts_import_only_parts_below_them() {
    let mut wrong = Vec::new();
    for (file, part, line, code) in lines() {
        let Some(part) = part else { continue };
        let Some(allowed) = allowed(&part) else {
            continue; // reported by `every_part_has_a_floor`
        };
        for named in parts_named(&code) {
            // `__private` and the root's re-exports are the crate's face, not a part.
            let is_part = PARTS.iter().any(|(p, _)| *p == named);
            if is_part && named != part && !allowed.contains(&named.as_str()) {
                wrong.push(format!(
                    "{}:{line}: `{part}` imports `{named}`: {}",
                    file.display(),
                    code.trim()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the floors:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_floors_have_no_loop() {
    // Each part may import only parts listed before it, so no chain of imports comes back.
    for (i, (part, allowed)) in PARTS.iter().enumerate() {
        for below in *allowed {
            let at = PARTS.iter().position(|(p, _)| p == below);
            assert!(
                at.is_some_and(|at| at < i),
                "`{part}` may import `{below}`, which is not on a floor below it"
            );
        }
    }
}

#[test]
fn pure_parts_never_touch_the_world() {
    let mut wrong = Vec::new();
    for (file, part, line, code) in lines() {
        if matches!(part.as_deref(), None | Some("runtime")) {
            continue;
        }
        for name in RUNTIME_CRATES {
            if names_crate(&code, name) {
                wrong.push(format!("{}:{line}: {}", file.display(), code.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "Bevy runtime crates outside `runtime`:\n{}",
        wrong.join("\n")
    );
}

/// The scanner itself: what counts as an import and what does not.
#[test]
fn the_scanner_reads_paths_and_skips_comments() {
    assert_eq!(
        parts_named("use crate::format::{SceneDoc, read};"),
        BTreeSet::from(["format".to_owned()])
    );
    assert_eq!(
        parts_named("let x = crate::runtime::apply_diff(bevy_forge_scene::diff::diff(a, b));"),
        BTreeSet::from(["diff".to_owned(), "runtime".to_owned()])
    );
    assert!(parts_named("use my_crate::format;").is_empty());
    assert_eq!(code_of("let a = 1; // crate::runtime"), "let a = 1; ");
    assert_eq!(code_of("/// [`x`](crate::runtime::X)"), "");
    assert_eq!(
        code_of(r#"let u = "http://x"; // c"#),
        r#"let u = "http://x"; "#
    );
    assert!(names_crate("use bevy_ecs::world::World;", "bevy_ecs"));
    assert!(!names_crate("use my_bevy_ecs::World;", "bevy_ecs"));
    assert!(!names_crate("bevy_ecs_like", "bevy_ecs"));
}
