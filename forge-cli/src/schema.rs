//! `forge schema diff`: what changed between two exports of a game's schemas, and which scenes
//! the change breaks (checked against both, as `forge validate --schema` checks them).

use std::path::PathBuf;

use bevy_forge_scene::codes;
use bevy_forge_scene::schema::SchemaFile;
use bevy_forge_scene::validate::report;
use bevy_forge_scene::validate::{Diagnostic, Severity};
use clap::{Args, Subcommand};

use crate::{Checker, Loaded, Status, fail, files, load, print, render, shown};

/// What `forge schema` does.
#[derive(Debug, Subcommand)]
pub(crate) enum SchemaCommand {
    /// List what changed between two schema exports and which scenes it breaks.
    Diff(DiffArgs),
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The older schema file (`.forge-schema.ron`).
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The newer schema file.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Scene files, or directories searched for `*.forge.ron` files, to check against both.
    #[arg(value_name = "SCENE|DIR")]
    scenes: Vec<PathBuf>,
    /// Read prefab files from this assets directory (default: the assets directory of the
    /// project each scene is in, else the scene's folder).
    #[arg(long, value_name = "DIR")]
    assets: Option<PathBuf>,
}

pub(crate) fn run(command: &SchemaCommand) -> Status {
    match command {
        SchemaCommand::Diff(args) => diff(args),
    }
}

/// What identifies a problem across the two checks (its message names types the same way).
fn key(d: &Diagnostic) -> (&'static str, Option<u64>, Option<String>, Option<String>) {
    (d.code, d.entity, d.path.clone(), d.file.clone())
}

fn diff(args: &DiffArgs) -> Status {
    let read = |path: &PathBuf| {
        SchemaFile::read(path).map_err(|e| fail(&format!("invalid schema file: {e}")))
    };
    let (old, new) = match (read(&args.old), read(&args.new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(status), _) | (_, Err(status)) => return status,
    };
    let changes = old.diff(&new);
    if changes.is_empty() {
        print("no changes to the custom component types\n");
    } else {
        print(&format!(
            "{} -> {}:\n",
            args.old.display(),
            args.new.display()
        ));
        for change in &changes {
            let breaks = if change.may_break() {
                "  (may break scenes)"
            } else {
                ""
            };
            print(&format!("  {change}{breaks}\n"));
        }
    }
    if args.scenes.is_empty() {
        return Status::Ok;
    }
    let paths = match files::collect(&args.scenes) {
        Ok(paths) => paths,
        Err(e) => return fail(&e),
    };
    let checker = |schemas: SchemaFile| Checker::new(Some(schemas), args.assets.clone(), true);
    let (mut before, mut after) = match (checker(old), checker(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(status), _) | (_, Err(status)) => return status,
    };
    let colour = render::use_colour();
    let (mut broken, mut renamed) = (0, 0);
    for path in &paths {
        let (source, parsed) = match load(path) {
            Err(e) => return fail(&e),
            Ok(Loaded::ReadError(source, d)) => {
                // Broken under either: not the schemas' doing.
                print(&report::human(&source, &[d], colour));
                continue;
            }
            Ok(Loaded::Parsed(source, parsed)) => (source, parsed),
        };
        let was = before.check(path, (*parsed).clone()).diagnostics;
        let now = after.check(path, *parsed).diagnostics;
        let old_errors: Vec<_> = was
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(key)
            .collect();
        let new_errors: Vec<Diagnostic> = now
            .iter()
            .filter(|d| d.severity == Severity::Error && !old_errors.contains(&key(d)))
            .filter(|d| d.file.is_none())
            .cloned()
            .collect();
        let renames = now
            .iter()
            .filter(|d| d.code.starts_with(codes::custom::RENAMED))
            .count();
        let name = shown(path);
        if !new_errors.is_empty() {
            broken += 1;
            print(&format!(
                "breaks {name}: {} with the new schemas\n",
                render::count(new_errors.len(), "error")
            ));
            print(&report::human(&source, &new_errors, colour));
        } else if renames > 0 {
            renamed += 1;
            print(&format!(
                "{name} loads with {} (`forge migrate --schema {}` rewrites them)\n",
                render::count(renames, "renamed name"),
                args.new.display()
            ));
        }
    }
    print(&format!(
        "checked {}: {} broken, {} with old names\n",
        render::count(paths.len(), "scene"),
        broken,
        renamed
    ));
    if broken > 0 {
        Status::Failed
    } else {
        Status::Ok
    }
}
