//! `forge migrate`: older format versions to the current one, through the edit layer.

use std::path::PathBuf;

use bevy_forge_scene::edit::{SceneEdit, SceneEditError, migrate as migrate_edit};
use bevy_forge_scene::format::FORMAT_VERSION;

use crate::{Status, fail, files, print};

/// Migrates every scene under `paths`; with `dry_run`, prints what would change instead.
pub(crate) fn migrate(paths: &[PathBuf], dry_run: bool) -> Status {
    let paths = match files::collect(paths) {
        Ok(paths) => paths,
        Err(e) => return fail(&e),
    };
    let mut status = Status::Ok;
    let mut changed = 0;
    for path in &paths {
        let name = path.display();
        let mut edit = match SceneEdit::open(path) {
            Ok(edit) => edit,
            // A read error names the file, line and column itself.
            Err(SceneEditError::Read(e)) => {
                eprintln!("error: {e}");
                status = status.max(Status::Failed);
                continue;
            }
            Err(e) => {
                eprintln!("error: {name}: {e}");
                status = status.max(Status::Failed);
                continue;
            }
        };
        let from = edit.written_version();
        if from.is_none_or(|v| v >= FORMAT_VERSION) {
            continue;
        }
        let result = if dry_run {
            edit.dry_run("migrate", |copy| migrate_edit(copy).map(drop))
                .map(|group| group.map(|g| (from.unwrap_or(0), g)))
        } else {
            migrate_edit(&mut edit).map(|m| m.map(|m| (m.from, m.group)))
        };
        match result {
            Ok(Some((from, group))) => {
                changed += 1;
                let verb = if dry_run { "would migrate" } else { "migrated" };
                print(&format!(
                    "{verb} {name}: format {from} -> {FORMAT_VERSION}\n"
                ));
                if dry_run {
                    for p in &group.patches {
                        print(&format!(
                            "  at byte {}: {:?} -> {:?}\n",
                            p.offset, p.before, p.after
                        ));
                    }
                }
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("error: {name}: not migrated: {e}");
                status = status.max(Status::Failed);
            }
        }
    }
    if changed == 0 && status == Status::Ok {
        print(&format!("every scene is at format {FORMAT_VERSION}\n"));
    }
    status
}
