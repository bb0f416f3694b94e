//! `forge migrate`: older format versions to the current one, and with `--schema` the custom
//! types and fields the game renamed to their new names, through the edit layer (comments and
//! every other byte kept).

use std::path::{Path, PathBuf};

use bevy_forge_scene::edit::{
    PatchGroup, SceneEdit, SceneEditError, migrate as migrate_edit, migrate_names,
};
use bevy_forge_scene::format::FORMAT_VERSION;
use bevy_forge_scene::schema::SchemaFile;

use crate::{Status, fail, files, print};

/// Prints the patches of `group`, one line each.
fn print_patches(group: &PatchGroup) {
    for p in &group.patches {
        print(&format!(
            "  at byte {}: {:?} -> {:?}\n",
            p.offset, p.before, p.after
        ));
    }
}

/// Migrates every scene under `paths` (and renames with `schema`); with `dry_run`, prints what
/// would change instead.
pub(crate) fn migrate(paths: &[PathBuf], dry_run: bool, schema: Option<&Path>) -> Status {
    let paths = match files::collect(paths) {
        Ok(paths) => paths,
        Err(e) => return fail(&e),
    };
    let schemas = match schema.map(SchemaFile::read).transpose() {
        Ok(schemas) => schemas,
        Err(e) => return fail(&format!("cannot use the schema file: {e}")),
    };
    let mut status = Status::Ok;
    let mut changed = 0;
    for path in &paths {
        let name = path.display();
        let opened = match SceneEdit::open(path) {
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
        // A dry run edits a copy in memory, which writes nothing: the second step's patches
        // start from the first's text, as they would be made.
        let mut edit = if dry_run {
            match SceneEdit::from_text(&opened.text()) {
                Ok(copy) => copy,
                Err(e) => {
                    eprintln!("error: {name}: {e}");
                    status = status.max(Status::Failed);
                    continue;
                }
            }
        } else {
            opened
        };
        let verb = |done: &str, would: &str| if dry_run { would } else { done }.to_owned();
        let mut touched = false;
        if let Some(from) = edit.written_version().filter(|v| *v < FORMAT_VERSION) {
            match migrate_edit(&mut edit) {
                Ok(Some(m)) => {
                    touched = true;
                    print(&format!(
                        "{} {name}: format {from} -> {FORMAT_VERSION}\n",
                        verb("migrated", "would migrate")
                    ));
                    if dry_run {
                        print_patches(&m.group);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    eprintln!("error: {name}: not migrated: {e}");
                    status = status.max(Status::Failed);
                    continue;
                }
            }
        }
        if let Some(schemas) = &schemas {
            match migrate_names(&mut edit, schemas) {
                Ok(Some(group)) => {
                    touched = true;
                    let count = group.patches.len();
                    let names = if count == 1 { "name" } else { "names" };
                    print(&format!(
                        "{} {name}: {count} old {names} of renamed types and fields -> the new {names}\n",
                        verb("migrated", "would migrate"),
                    ));
                    if dry_run {
                        print_patches(&group);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    eprintln!("error: {name}: names not migrated: {e}");
                    status = status.max(Status::Failed);
                }
            }
        }
        if touched {
            changed += 1;
        }
    }
    if changed == 0 && status == Status::Ok {
        match schemas {
            Some(_) => print(&format!(
                "every scene is at format {FORMAT_VERSION} and writes the current names\n"
            )),
            None => print(&format!("every scene is at format {FORMAT_VERSION}\n")),
        }
    }
    status
}
