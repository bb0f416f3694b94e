//! `forge review --git BASE HEAD`: an asset folder at two revisions of a git repository,
//! checked out into temporary folders (`git archive`; the work tree and the index are left
//! alone), and the scenes that changed between them: the scene files changed, and every scene
//! that places a changed file (prefabs, through other prefabs too).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bevy_forge_scene::pipeline::{PrefabFiles, Source};

/// Why the revisions could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// A git command failed.
    #[error("`git {args}` failed: {message}")]
    Command {
        /// Its arguments.
        args: String,
        /// What it printed, or why it did not run.
        message: String,
    },
    /// A temporary folder could not be made.
    #[error("a temporary folder: {0}")]
    Io(#[from] std::io::Error),
}

/// An asset folder at two revisions.
#[derive(Debug)]
pub struct Revisions {
    /// The folder at the base revision (may not exist: the folder is new).
    pub base: PathBuf,
    /// The folder at the head revision (may not exist: the folder was removed).
    pub head: PathBuf,
    /// The files that changed, as asset paths (relative to the folder, `/`-separated).
    pub changed: Vec<String>,
    _dir: tempfile::TempDir,
}

fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| GitError::Command {
            args: args.join(" "),
            message: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(GitError::Command {
            args: args.join(" "),
            message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(out.stdout)
}

/// Checks `folder` (a folder inside a git work tree) out at `base` and `head` into temporary
/// folders and lists the files that differ.
///
/// # Errors
/// [`GitError`]: not a repository, an unknown revision, `git archive` or `tar` failing.
pub fn checkout(base: &str, head: &str, folder: &Path) -> Result<Revisions, GitError> {
    let folder = folder.canonicalize()?;
    let top = String::from_utf8_lossy(&git(&folder, &["rev-parse", "--show-toplevel"])?)
        .trim()
        .to_owned();
    let top = PathBuf::from(top).canonicalize()?;
    let rel = folder
        .strip_prefix(&top)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    let spec = if rel.is_empty() {
        ".".to_owned()
    } else {
        rel.clone()
    };
    let names = git(
        &top,
        &["diff", "--name-only", "-z", base, head, "--", &spec],
    )?;
    let prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}/")
    };
    let changed = names
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .map(|n| n.strip_prefix(&prefix).map(str::to_owned).unwrap_or(n))
        .collect();
    let dir = tempfile::tempdir()?;
    for (rev, side) in [(base, "base"), (head, "head")] {
        let into = dir.path().join(side);
        std::fs::create_dir_all(&into)?;
        // A folder that does not exist at this revision is an empty one.
        if git(&top, &["cat-file", "-e", &format!("{rev}:{rel}")]).is_err() {
            continue;
        }
        let archive = Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(["archive", "--format=tar", rev, "--", &spec])
            .stdout(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| GitError::Command {
                args: format!("archive {rev}"),
                message: e.to_string(),
            })?;
        let Some(stdout) = archive.stdout else {
            continue;
        };
        let status = Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&into)
            .stdin(stdout)
            .status()
            .map_err(|e| GitError::Command {
                args: format!("archive {rev} | tar -x"),
                message: e.to_string(),
            })?;
        if !status.success() {
            return Err(GitError::Command {
                args: format!("archive {rev} | tar -x"),
                message: format!("tar ended with {status}"),
            });
        }
    }
    Ok(Revisions {
        base: dir.path().join("base").join(&rel),
        head: dir.path().join("head").join(&rel),
        changed,
        _dir: dir,
    })
}

/// A scene to review: its asset path, whether it exists on each side, and why it is reviewed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Affected {
    /// Its asset path (`scenes/dungeon.forge.ron`).
    pub path: String,
    /// Whether the base revision has it.
    pub in_base: bool,
    /// Whether the head revision has it.
    pub in_head: bool,
    /// Whether its own file changed.
    pub changed: bool,
    /// The changed files it places (prefabs, directly or through others) on either side,
    /// sorted.
    pub places: Vec<String>,
}

/// Every `.forge.ron` file under `root`, as asset paths, sorted.
fn scene_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".forge.ron")
                && let Ok(rel) = path.strip_prefix(root)
            {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// The prefab files the scene at `path` under `root` places, directly or through others.
fn placed(root: &Path, path: &str) -> Vec<String> {
    let Ok(bytes) = std::fs::read(root.join(path)) else {
        return Vec::new();
    };
    let Ok(source) = Source::read(path, &bytes) else {
        return Vec::new();
    };
    let doc = source.parsed.doc.clone();
    let root = root.to_owned();
    let mut files =
        PrefabFiles::new(move |p: &str| std::fs::read(root.join(p)).map_err(|e| e.to_string()));
    let _ = bevy_forge_scene::pipeline::check(source, &mut files);
    files
        .placed_by(&doc)
        .into_iter()
        .map(|(p, _)| p.to_owned())
        .collect()
}

/// The scenes a review of `revisions` shows: each changed scene file, and each scene of either
/// side that places a changed file, sorted by asset path.
pub fn affected(revisions: &Revisions) -> Vec<Affected> {
    let base = scene_files(&revisions.base);
    let head = scene_files(&revisions.head);
    let mut all: Vec<String> = base.iter().chain(&head).cloned().collect();
    all.sort();
    all.dedup();
    let changed = |p: &String| revisions.changed.iter().any(|c| c == p);
    all.into_iter()
        .filter_map(|p| {
            let mut places: Vec<String> = placed(&revisions.head, &p)
                .into_iter()
                .chain(placed(&revisions.base, &p))
                .filter(changed)
                .collect();
            places.sort();
            places.dedup();
            let own = changed(&p);
            (own || !places.is_empty()).then(|| Affected {
                in_base: base.contains(&p),
                in_head: head.contains(&p),
                changed: own,
                places,
                path: p,
            })
        })
        .collect()
}
