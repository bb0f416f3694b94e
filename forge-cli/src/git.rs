//! Git set-up of `forge merge`: the `.gitattributes` line that sends scenes to the driver, the
//! driver in the repository's config, and the check that a clone has both (the config does not
//! travel with a clone: without it git merges scenes line by line, silently).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `.gitattributes` line that makes git merge scenes with the `forge` driver.
pub const ATTRIBUTES_LINE: &str = "*.forge.ron merge=forge";

/// The repository `path` is in: the nearest folder up from it with a `.git` (a folder, or a
/// file in a worktree or submodule).
pub fn repository_of(path: &Path) -> Option<PathBuf> {
    let start = if path.is_dir() {
        path.to_owned()
    } else {
        path.parent()?.to_owned()
    };
    let start = start.canonicalize().unwrap_or(start);
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_owned)
}

/// Whether the repository at `root`'s `.gitattributes` sends files to the `forge` driver.
pub fn names_driver(root: &Path) -> bool {
    std::fs::read_to_string(root.join(".gitattributes")).is_ok_and(|text| {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.starts_with('#'))
            .any(|l| l.split_whitespace().skip(1).any(|a| a == "merge=forge"))
    })
}

/// The driver command the repository at `root` has in its config; `Ok(None)` when it has none,
/// `Err` when git cannot be run.
pub fn configured_driver(root: &Path) -> Result<Option<String>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["config", "--get", "merge.forge.driver"])
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    Ok(out
        .status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|d| !d.is_empty()))
}

/// A warning when the repository `path` is in sends scenes to the `forge` merge driver
/// (`.gitattributes`) but its config does not define the driver: git then merges scenes line
/// by line. `None` when all is well, outside a repository, or when git cannot be run.
pub fn missing_driver_warning(path: &Path) -> Option<String> {
    let root = repository_of(path)?;
    if !names_driver(&root) {
        return None;
    }
    match configured_driver(&root) {
        Ok(None) => Some(format!(
            "`{}` sends `.forge.ron` files to the `forge` merge driver, but this clone's git config does not define it, so git merges scenes line by line: run `forge merge --install` in `{}` (the config does not travel with a clone)",
            root.join(".gitattributes").display(),
            root.display()
        )),
        _ => None,
    }
}

/// `s` quoted for the shell git runs a driver with.
fn quoted(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Sets up the repository at `root` to merge scenes with `forge` (the program at `program`):
/// adds [`ATTRIBUTES_LINE`] to its `.gitattributes` (atomically; other lines kept) unless it
/// is there, and writes the driver to its config (`merge.forge.name`, `merge.forge.driver`).
/// Returns what it did, one line each.
///
/// # Errors
/// A message naming the file or command that failed.
pub fn install(root: &Path, program: &Path) -> Result<Vec<String>, String> {
    let mut done = Vec::new();
    let attributes = root.join(".gitattributes");
    if names_driver(root) {
        done.push(format!(
            "`{}` already sends scenes to the driver",
            attributes.display()
        ));
    } else {
        let mut text = std::fs::read_to_string(&attributes).unwrap_or_default();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(ATTRIBUTES_LINE);
        text.push('\n');
        bevy_forge_scene::project::write_file_atomic(&attributes, text.as_bytes())
            .map_err(|e| e.to_string())?;
        done.push(format!(
            "added `{ATTRIBUTES_LINE}` to `{}`",
            attributes.display()
        ));
    }
    let driver = format!(
        "{} merge %O %A %B --path %P",
        quoted(&program.to_string_lossy())
    );
    for (key, value) in [
        (
            "merge.forge.name",
            "forge merge: .forge.ron scenes merged by entity id",
        ),
        ("merge.forge.driver", driver.as_str()),
    ] {
        let status = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["config", key, value])
            .status()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !status.success() {
            return Err(format!("`git config {key}` failed in `{}`", root.display()));
        }
    }
    done.push(format!(
        "set `merge.forge.driver` to `{driver}` in `{}`'s config",
        root.display()
    ));
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_with_spaces_are_quoted() {
        assert_eq!(quoted("/usr/bin/forge"), "/usr/bin/forge");
        assert_eq!(quoted("/opt/my tools/forge"), "'/opt/my tools/forge'");
        assert_eq!(quoted("it's"), "'it'\\''s'");
    }
}
