//! `forge cook`: the cooked binary twins of scenes (`bevy_forge_scene::cook`).

use std::path::{Path, PathBuf};

use bevy_forge_scene::cook::{COOKED_EXTENSION, CookedScene, twin_path};
use bevy_forge_scene::project::write_file_atomic;
use bevy_forge_scene::validate::Severity;
use bevy_forge_scene::validate::report;

use super::{Checker, CookArgs, Loaded, Status, asset_path_of, fail, load, prefab_root, print};

/// Cooks every scene of `args.paths` that validates; with `--check`, lists the twins that are
/// missing or stale instead, writing nothing.
pub fn cook(args: &CookArgs) -> Status {
    let mut scenes = Vec::new();
    for path in &args.paths {
        match super::files::collect(std::slice::from_ref(path)) {
            Ok(found) => scenes.extend(found.into_iter().map(|f| (f, path.clone()))),
            Err(e) => return fail(&e),
        }
    }
    let schemas = match &args.schema {
        Some(path) => match bevy_forge_scene::schema::SchemaFile::read(path) {
            Ok(file) => Some(file),
            Err(e) => return fail(&format!("cannot use the schema file: {e}")),
        },
        None => None,
    };
    // What the check below proves, written into every twin: a game of this build with these
    // schemas loads the twins without validating them again.
    let stamp = bevy_forge_scene::cook::CookStamp::new(schemas.as_ref());
    let mut checker = match Checker::new(schemas, args.assets.clone(), args.no_assets) {
        Ok(checker) => checker,
        Err(status) => return status,
    };
    let colour = super::render::use_colour();
    let mut status = Status::Ok;
    let (mut cooked, mut refused, mut stale) = (0, 0, 0);
    // How a scene that does not read or validate is reported: `--check` counts it as refused.
    let not_cooked = if args.check { "refused" } else { "not cooked" };
    // Which scene each twin comes from: two scenes never write one twin.
    let mut targets: std::collections::HashMap<PathBuf, PathBuf> = std::collections::HashMap::new();
    for (path, given) in &scenes {
        let (source, parsed) = match load(path) {
            Err(e) => {
                status = status.max(fail(&e));
                continue;
            }
            Ok(Loaded::ReadError(source, d)) => {
                print(&report::human(&source, &[d], colour));
                print(&format!(
                    "{}: `{}` does not read\n",
                    not_cooked, source.name
                ));
                refused += 1;
                status = status.max(Status::Failed);
                continue;
            }
            Ok(Loaded::Parsed(source, parsed)) => (source, parsed),
        };
        // What the loader will check of the twin: the scene and every prefab it bundles.
        let checked = checker.check(path, *parsed);
        let root = prefab_root(path, args.assets.as_deref());
        let errors = checked
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        if errors > 0 {
            let own: Vec<_> = checked
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error && d.file.is_none())
                .cloned()
                .collect();
            print(&report::human(&source, &own, colour));
            checker.print_prefab_errors(&checked, &root, colour);
            print(&format!(
                "{}: `{}` has {}\n",
                not_cooked,
                source.name,
                super::render::count(errors, "error")
            ));
            refused += 1;
            status = status.max(Status::Failed);
            continue;
        }
        let doc = checked.source.parsed.doc;
        let prefabs = checker
            .prefabs(path, &root)
            .placed_by(&doc)
            .into_iter()
            .map(|(p, doc)| (p.to_owned(), doc.clone()))
            .collect();
        let scene = CookedScene {
            source: asset_path_of(path, &root),
            doc,
            prefabs,
        };
        let target = twin_of(path, given, args.out.as_deref());
        let key = std::path::absolute(&target).unwrap_or_else(|_| target.clone());
        if let Some(first) = targets.get(&key) {
            print(&format!(
                "not cooked: `{}` and `{}` would both write `{}`; cook them to different `--out` folders\n",
                first.display(),
                path.display(),
                target.display()
            ));
            refused += 1;
            status = status.max(Status::Failed);
            continue;
        }
        targets.insert(key, path.clone());
        if args.check {
            match std::fs::read(&target) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    print(&format!("missing: {}\n", target.display()));
                    stale += 1;
                }
                Err(e) => {
                    print(&format!("unreadable: {}: {e}\n", target.display()));
                    stale += 1;
                }
                Ok(bytes) => match CookedScene::decode_stamped(&bytes) {
                    Ok(current)
                        if current.scene == scene && current.stamp.as_ref() == Some(&stamp) => {}
                    Ok(_) => {
                        print(&format!("stale: {}\n", target.display()));
                        stale += 1;
                    }
                    // Cooked by another build: stale, not damaged.
                    Err(bevy_forge_scene::cook::CookError::Version { found }) => {
                        print(&format!(
                            "stale: {} (cooked layout version {found}; this build writes {})\n",
                            target.display(),
                            bevy_forge_scene::cook::COOKED_VERSION
                        ));
                        stale += 1;
                    }
                    Err(e) => {
                        print(&format!("damaged: {}: {e}\n", target.display()));
                        stale += 1;
                    }
                },
            }
            continue;
        }
        let bytes = scene.encode_stamped(&stamp);
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty())
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            status = status.max(fail(&format!("cannot create `{}`: {e}", dir.display())));
            continue;
        }
        match write_file_atomic(&target, &bytes) {
            Ok(()) => {
                cooked += 1;
                print(&format!(
                    "cooked {} -> {} ({} bytes from {}, {} in the file{})\n",
                    source.name,
                    target.display(),
                    bytes.len(),
                    source.text.len(),
                    super::render::count(scene.doc.entities.len(), "entity"),
                    match scene.prefabs.len() {
                        0 => String::new(),
                        n => format!(", {} bundled", super::render::count(n, "prefab")),
                    }
                ));
            }
            Err(e) => status = status.max(fail(&e.to_string())),
        }
    }
    if args.check {
        if stale > 0 {
            status = status.max(Status::Failed);
        }
        print(&format!(
            "checked {}: {} missing, stale or damaged, {} refused\n",
            super::render::count(scenes.len(), "scene"),
            stale,
            refused
        ));
    } else {
        print(&format!(
            "cooked {}, refused {}\n",
            super::render::count(cooked, "scene"),
            refused
        ));
    }
    status
}

/// Where the twin of `path` goes: beside it, or with `out` under it at the path `path` has
/// under `given` (the argument it was found from; a file argument keeps only its name).
fn twin_of(path: &Path, given: &Path, out: Option<&Path>) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = twin_path(&name).unwrap_or_else(|| format!("{name}.{COOKED_EXTENSION}"));
    match out {
        None => path.with_file_name(file),
        Some(out) => {
            let under = path
                .strip_prefix(given)
                .ok()
                .and_then(Path::parent)
                .unwrap_or(Path::new(""));
            out.join(under).join(file)
        }
    }
}
