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
    ("codes", &[]),
    ("format", &["codes"]),
    ("project", &["codes", "format"]),
    ("schema", &["codes", "format", "project"]),
    ("validate", &["codes", "format", "project", "schema"]),
    ("diff", &["codes", "format"]),
    (
        "edit",
        &["codes", "format", "project", "schema", "validate"],
    ),
    (
        "prefab",
        &["codes", "format", "project", "schema", "validate"],
    ),
    // Three-way merges of scene files by id (`forge merge`): the edit layer writes them.
    (
        "merge",
        &[
            "codes", "format", "project", "schema", "validate", "diff", "edit",
        ],
    ),
    (
        "export",
        &["codes", "format", "project", "schema", "prefab"],
    ),
    (
        "cook",
        &["codes", "format", "project", "schema", "validate", "prefab"],
    ),
    // The one line from bytes to a checked scene, which the loader, the command line and the
    // language server walk.
    (
        "pipeline",
        &[
            "codes", "format", "project", "schema", "validate", "prefab", "cook",
        ],
    ),
    (
        "runtime",
        &[
            "codes", "format", "project", "schema", "validate", "diff", "prefab", "export", "cook",
            "edit", "pipeline",
        ],
    ),
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

/// The identifiers a path continues with after `at` (the text just past `crate::` or
/// `super::`): one identifier, or each first identifier of a `{..}` group, across lines.
fn heads(code: &str, at: usize) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let rest = &code[at..];
    if !rest.starts_with('{') {
        let name = ident(rest);
        return if name.is_empty() { vec![] } else { vec![name] };
    }
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut item_start = true;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => {
                depth += 1;
                item_start = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => item_start = true,
            c if item_start && depth == 1 && (c.is_alphanumeric() || c == '_') => {
                out.push(ident(&rest[i..]));
                item_start = false;
            }
            _ => {}
        }
    }
    out
}

/// Whether the text before `at` ends a path segment (`my_crate::` is not `crate::`).
fn at_boundary(code: &str, at: usize) -> bool {
    !code[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
}

/// The module path of a file of `src/` (`src/format/read/lex.rs` is `[format, read, lex]`,
/// `src/runtime/mod.rs` is `[runtime]`).
fn module_of(file: &Path) -> Vec<String> {
    module_in(&src(), file)
}

/// The module path of `file`, a file of the crate whose sources are in `root`.
fn module_in(root: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(root).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" && stem != "main" {
            parts.push(stem.to_owned());
        }
    }
    parts
}

/// Every module path (from the crate root) a file's code names: through `crate::`,
/// `bevy_forge_scene::` and chains of `super::`, single paths and `use` groups alike, across
/// lines. Each is the first two segments at most (`[runtime, loader]`, `[format]`).
fn modules_named(code: &str, module: &[String]) -> BTreeSet<Vec<String>> {
    let mut named = BTreeSet::new();
    let mut add = |base: Vec<String>, at: usize| {
        for head in heads(code, at) {
            let mut path = base.clone();
            path.push(head.clone());
            // `use crate::runtime::{a, b}`: one more level of group.
            if path.len() == 1 {
                let after = at + head.len();
                if code[after..].starts_with("::") {
                    for next in heads(code, after + 2) {
                        named.insert(vec![head.clone(), next]);
                    }
                }
            }
            path.truncate(2);
            named.insert(path);
        }
    };
    for prefix in ["crate::", "bevy_forge_scene::"] {
        for (at, _) in code.match_indices(prefix) {
            if at_boundary(code, at) {
                add(Vec::new(), at + prefix.len());
            }
        }
    }
    for (at, _) in code.match_indices("super::") {
        if !at_boundary(code, at) {
            continue;
        }
        let mut end = at;
        let mut ups = 0;
        while code[end..].starts_with("super::") {
            end += "super::".len();
            ups += 1;
        }
        if ups <= module.len() {
            add(module[..module.len() - ups].to_vec(), end);
        }
    }
    named
}

/// Every top-level module of this crate a file's code names.
fn parts_named(code: &str, module: &[String]) -> BTreeSet<String> {
    modules_named(code, module)
        .into_iter()
        .filter_map(|p| p.first().cloned())
        .collect()
}

/// Whether `code` names crate `name` as a path (`bevy_ecs::..`, `use bevy_ecs::{..}`).
fn names_crate(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = &code[at + name.len()..];
        // Inside a string on its line (a type path written as text): no dependency.
        let line = &code[code[..at].rfind('\n').map_or(0, |n| n + 1)..at];
        let quoted = !line.matches('"').count().is_multiple_of(2);
        !quoted
            && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && after.starts_with("::")
    })
}

/// Every file of `src/` with its part, its module path and its code without comments.
fn files() -> Vec<(PathBuf, Option<String>, Vec<String>, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    assert!(files.len() > 20, "src/ was not found: {}", src().display());
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let code: Vec<&str> = text.lines().map(code_of).collect();
            let part = part_of(&file);
            let module = module_of(&file);
            (file, part, module, code.join("\n"))
        })
        .collect()
}

fn allowed(part: &str) -> Option<&'static [&'static str]> {
    PARTS.iter().find(|(p, _)| *p == part).map(|(_, a)| *a)
}

#[test]
fn every_part_has_a_floor() {
    let mut unplaced = BTreeSet::new();
    for (file, part, _, _) in files() {
        if let Some(part) = part
            && allowed(&part).is_none()
        {
            unplaced.insert(format!("{part} ({})", file.display()));
        }
    }
    assert!(
        unplaced.is_empty(),
        "top-level modules without a floor in tests/data/architecture.rs and docs/ARCHITECTURE.md: {unplaced:?}"
    );
}

#[test]
fn parts_import_only_parts_below_them() {
    let mut wrong = Vec::new();
    for (file, part, module, code) in files() {
        let Some(part) = part else { continue };
        let Some(allowed) = allowed(&part) else {
            continue; // reported by `every_part_has_a_floor`
        };
        let paths = modules_named(&code, &module);
        for path in &paths {
            let Some(named) = path.first() else { continue };
            // `__private`, `prelude` and the root's re-exports are the crate's face, not parts.
            let is_part = PARTS.iter().any(|(p, _)| p == named);
            if is_part && *named != part && !allowed.contains(&named.as_str()) {
                wrong.push(format!("{}: `{part}` imports `{named}`", file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the floors:\n{}",
        wrong.join("\n")
    );
}

/// The parts of `runtime/` from the ground up, with the parts each may import: the same rule
/// as [`PARTS`], one level in. `plugin` (`runtime/plugin.rs`) adds the others' plugins in
/// order; the model writer, streaming and the live part all stand on the instance core and
/// never on each other (what streaming holds back, they say through the core; the core calls
/// the model writer through the hooks it puts in the app).
const RUNTIME_PARTS: &[(&str, &[&str])] = &[
    // What a file's values become in Bevy; no systems.
    ("values", &[]),
    ("import", &["values"]),
    ("asset", &["values"]),
    // The instance core.
    ("instance", &["values", "asset"]),
    // Placed glTF models (feature `gltf`), written through the core's hooks.
    ("model", &["values", "asset", "instance"]),
    ("streaming", &["values", "asset", "instance"]),
    ("live", &["values", "asset", "instance"]),
    (
        "plugin",
        &["values", "asset", "instance", "model", "streaming", "live"],
    ),
];

#[test]
fn runtime_parts_import_only_parts_below_them() {
    let files = files();
    let modules: Vec<Vec<String>> = files.iter().map(|(_, _, m, _)| m.clone()).collect();
    let tops: BTreeSet<&str> = modules
        .iter()
        .filter_map(|m| m.first().map(String::as_str))
        .collect();
    let mut wrong = Vec::new();
    for (file, part, module, code) in &files {
        if part.as_deref() != Some("runtime") || module.len() < 2 {
            continue; // `runtime/mod.rs` lists the parts and re-exports their items
        }
        let own = module[1].as_str();
        let Some((_, allowed)) = RUNTIME_PARTS.iter().find(|(p, _)| *p == own) else {
            wrong.push(format!("{}: `runtime::{own}` has no floor", file.display()));
            continue;
        };
        let children: BTreeSet<String> = modules
            .iter()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .filter_map(|m| m.last().cloned())
            .collect();
        for path in deep_paths(code, module, &children) {
            let Some(first) = path.first().map(String::as_str) else {
                continue;
            };
            // The crate's face (`crate::ForgeSceneRoot`) would hide which part is named.
            if !tops.contains(first) {
                wrong.push(format!(
                    "{}: `{own}` names `{}` through the crate root",
                    file.display(),
                    path.join("::")
                ));
                continue;
            }
            if first != "runtime" {
                continue;
            }
            let Some(used) = path.get(1).map(String::as_str) else {
                continue;
            };
            let is_part = RUNTIME_PARTS.iter().any(|(p, _)| *p == used);
            if !is_part {
                wrong.push(format!(
                    "{}: `{own}` names `runtime::{used}`, not a part (the runtime's re-exports are for the crate root)",
                    file.display()
                ));
            } else if used != own && !allowed.contains(&used) {
                wrong.push(format!("{}: `{own}` imports `{used}`", file.display()));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "runtime parts against their floors:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_runtime_floors_have_no_loop() {
    for (i, (part, allowed)) in RUNTIME_PARTS.iter().enumerate() {
        for below in *allowed {
            let at = RUNTIME_PARTS.iter().position(|(p, _)| p == below);
            assert!(
                at.is_some_and(|at| at < i),
                "`runtime::{part}` may import `{below}`, which is not on a floor below it"
            );
        }
    }
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
    for (file, part, _, code) in files() {
        if matches!(part.as_deref(), None | Some("runtime")) {
            continue;
        }
        for name in RUNTIME_CRATES {
            if names_crate(&code, name) {
                wrong.push(format!("{}: names `{name}`", file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "Bevy runtime crates outside `runtime`:\n{}",
        wrong.join("\n")
    );
}

/// Every module path (from the crate root, at any depth) a file's code names, and the children
/// it names by their bare names (`use compound::f;` in the file that declares `mod compound;`).
fn deep_paths(code: &str, module: &[String], children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let segments = |rest: &str| -> Vec<Vec<String>> {
        // `a::b::{c, d::e}` gives `[a, b, c]` and `[a, b, d, e]`, one level of group deep.
        let ident = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        // `super::{a, b}`: a group right away names each of its heads.
        if rest.starts_with('{') {
            return heads(rest, 0).into_iter().map(|head| vec![head]).collect();
        }
        let mut base = Vec::new();
        let mut at = 0;
        loop {
            let name = ident(&rest[at..]);
            if name.is_empty() {
                break;
            }
            at += name.len();
            base.push(name);
            if !rest[at..].starts_with("::") {
                return vec![base];
            }
            at += 2;
            if rest[at..].starts_with('{') {
                return heads(rest, at)
                    .into_iter()
                    .map(|head| {
                        let mut path = base.clone();
                        path.push(head);
                        path
                    })
                    .collect();
            }
        }
        vec![base]
    };
    let mut out = Vec::new();
    for prefix in ["crate::", "bevy_forge_scene::"] {
        for (at, _) in code.match_indices(prefix) {
            if at_boundary(code, at) {
                out.extend(segments(&code[at + prefix.len()..]));
            }
        }
    }
    for (at, _) in code.match_indices("super::") {
        if !at_boundary(code, at) {
            continue;
        }
        let mut end = at;
        let mut ups = 0;
        while code[end..].starts_with("super::") {
            end += "super::".len();
            ups += 1;
        }
        if ups <= module.len() {
            for rest in segments(&code[end..]) {
                let mut path = module[..module.len() - ups].to_vec();
                path.extend(rest);
                out.push(path);
            }
        }
    }
    for child in children {
        let pattern = format!("{child}::");
        for (at, _) in code.match_indices(&pattern) {
            if at_boundary(code, at) {
                for rest in segments(&code[at..]) {
                    let mut path = module.to_vec();
                    path.extend(rest);
                    out.push(path);
                }
            }
        }
    }
    out
}

/// Every crate of the repository with its sources: the library, the command line, the macros
/// and the render-stack packages (each a crate of its own: `crate::` is its own root).
fn crates() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![src()];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.push(repo.join("support/bevy"));
    dirs.sort();
    for dir in dirs {
        let sources = dir.join("src");
        if dir.join("Cargo.toml").is_file() && sources.is_dir() && sources != src() {
            roots.push(sources);
        }
    }
    roots
}

/// The files of the crate whose sources are in `root`, each with its module path and code.
fn crate_files(root: &Path) -> Vec<(PathBuf, Vec<String>, String)> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let code: Vec<&str> = text.lines().map(code_of).collect();
            let module = module_in(root, &file);
            (file, module, code.join("\n"))
        })
        .collect()
}

/// A circle of files that import each other in the crate whose files are `files`, if any. A
/// module using its own children (`mod wire;` then `wire::decode(..)`) is how it is built, not
/// an import back: those edges are left out; children using their parent, siblings using each
/// other, and everything across parts count.
fn circle_in(files: &[(PathBuf, Vec<String>, String)]) -> Option<Vec<PathBuf>> {
    let modules: Vec<Vec<String>> = files.iter().map(|(_, m, _)| m.clone()).collect();
    // Each file's edges: the files of the deepest module each of its paths names.
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for (i, (_, module, code)) in files.iter().enumerate() {
        let children: BTreeSet<String> = modules
            .iter()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .filter_map(|m| m.last().cloned())
            .collect();
        for path in deep_paths(code, module, &children) {
            let target = (1..=path.len())
                .rev()
                .find_map(|n| modules.iter().position(|m| m[..] == path[..n]));
            if let Some(j) = target
                && j != i
                && !modules[j].is_empty()
                && !modules[j].starts_with(module)
            {
                edges[i].insert(j);
            }
        }
    }
    // A depth-first search that meets a file still on its stack has found a circle.
    fn visit(
        i: usize,
        edges: &[BTreeSet<usize>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[i] = 1;
        stack.push(i);
        for &j in &edges[i] {
            if state[j] == 1 {
                let from = stack.iter().position(|&k| k == j).unwrap_or(0);
                return Some(stack[from..].to_vec());
            }
            if state[j] == 0
                && let Some(circle) = visit(j, edges, state, stack)
            {
                return Some(circle);
            }
        }
        stack.pop();
        state[i] = 2;
        None
    }
    let mut state = vec![0u8; files.len()];
    for i in 0..files.len() {
        if state[i] == 0
            && let Some(circle) = visit(i, &edges, &mut state, &mut Vec::new())
        {
            return Some(circle.iter().map(|&k| files[k].0.clone()).collect());
        }
    }
    None
}

/// No files import each other in a circle, in any crate of the repository.
#[test]
fn no_files_import_each_other_in_a_circle() {
    let roots = crates();
    assert!(
        roots.iter().any(|r| r.ends_with("forge-cli/src")),
        "the command line's sources were not found: {roots:?}"
    );
    for root in roots {
        let files = crate_files(&root);
        if let Some(circle) = circle_in(&files) {
            panic!(
                "files that import each other in a circle: {:?}",
                circle
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
            );
        }
    }
}

/// The circle finder sees a circle through `use super::{a, b}`, and none where a module only
/// uses its children.
#[test]
fn the_circle_finder_sees_groups_after_super() {
    let file = |name: &str, module: &[&str], code: &str| {
        (
            PathBuf::from(name),
            module.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            code.to_owned(),
        )
    };
    let circle = [
        file("mod.rs", &["export"], "mod model;\nmod rust;"),
        file("model.rs", &["export", "model"], "use super::{Plan, rust};"),
        file(
            "rust.rs",
            &["export", "rust"],
            "use super::{model, string};",
        ),
    ];
    assert_eq!(
        circle_in(&circle),
        Some(vec![PathBuf::from("model.rs"), PathBuf::from("rust.rs")])
    );
    let tree = [
        file(
            "mod.rs",
            &["export"],
            "mod model;\nmod rust;\nuse model::x;",
        ),
        file(
            "model.rs",
            &["export", "model"],
            "use super::{Plan, literal};",
        ),
        file(
            "rust.rs",
            &["export", "rust"],
            "use super::{model, string};",
        ),
    ];
    assert_eq!(circle_in(&tree), None);
}

/// The most lines a file of the library has: a file longer than this holds more than one job.
const MOST_LINES: usize = 1_000;

#[test]
fn no_library_file_is_over_a_thousand_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut long = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src()).unwrap_or(&file);
        let name = relative.to_string_lossy().replace('\\', "/");
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let lines = text.lines().count();
        if lines > MOST_LINES {
            long.push(format!("src/{name}: {lines} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "library files over {MOST_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The scanner itself: what counts as an import and what does not.
#[test]
fn the_scanner_reads_paths_groups_and_supers_and_skips_comments() {
    let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    let root: Vec<String> = vec![];
    assert_eq!(
        parts_named("use crate::format::{SceneDoc, read};", &root),
        set(&["format"])
    );
    assert_eq!(
        parts_named(
            "let x = crate::runtime::apply_diff(bevy_forge_scene::diff::diff(a, b));",
            &root
        ),
        set(&["diff", "runtime"])
    );
    assert_eq!(
        parts_named(
            "use crate::{\n    runtime::X,\n    validate::{a, b},\n};",
            &root
        ),
        set(&["runtime", "validate"])
    );
    let lex = vec!["format".to_owned(), "read".to_owned(), "lex".to_owned()];
    assert!(parts_named("use super::super::lexical;", &lex).contains("format"));
    assert_eq!(
        parts_named("use super::super::super::runtime::X;", &lex),
        set(&["runtime"])
    );
    let loader = vec!["runtime".to_owned(), "loader".to_owned()];
    assert!(
        modules_named("use super::{custom::A, scene::B};", &loader)
            .contains(&vec!["runtime".to_owned(), "scene".to_owned()])
    );
    assert!(parts_named("use my_crate::format;", &root).is_empty());
    assert_eq!(code_of("let a = 1; // crate::runtime"), "let a = 1; ");
    assert_eq!(code_of("/// [`x`](crate::runtime::X)"), "");
    assert_eq!(
        code_of(r#"let u = "http://x"; // c"#),
        r#"let u = "http://x"; "#
    );
    assert!(names_crate("use bevy_ecs::world::World;", "bevy_ecs"));
    assert!(!names_crate("use my_bevy_ecs::World;", "bevy_ecs"));
    assert!(!names_crate("bevy_ecs_like", "bevy_ecs"));
    assert!(!names_crate(
        "const P: &str = \"bevy_ecs::entity::Entity\";",
        "bevy_ecs"
    ));
    assert!(names_crate(
        "let s = \"x\"; bevy_ecs::world::World::new();",
        "bevy_ecs"
    ));
}
