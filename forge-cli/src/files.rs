//! Finding scene files, the project a file belongs to, and where its prefabs are read from: the
//! rules `forge validate` and `forge lsp` share.

use std::path::{Path, PathBuf};

use bevy_forge_scene::project::{Project, is_scene_file};

/// The scene files named by `paths`: a file as given, a directory as every `*.forge.ron` below
/// it (sorted, symbolic links to directories not followed).
///
/// # Errors
/// The first path that does not exist or cannot be listed, with the reason.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found)?;
            found.sort();
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
            let path = entry.path();
            let ty = entry
                .file_type()
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            if ty.is_dir() {
                stack.push(path);
            } else if is_scene_file(&path) {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// The project `file` sits in: the nearest enclosing folder that has a `scenes/` or `assets/`
/// directory.
pub fn project_of(file: &Path) -> Option<Project> {
    let file = file.canonicalize().ok()?;
    file.parent()?
        .ancestors()
        .find(|dir| dir.join("scenes").is_dir() || dir.join("assets").is_dir())
        .and_then(|dir| Project::open(dir).ok())
}

/// Where the prefab files a scene places are read from: `--assets` when given, else the assets
/// directory of the scene's project, else the scene's own folder.
pub fn prefab_root(path: &Path, assets: Option<&Path>) -> PathBuf {
    if let Some(dir) = assets {
        return dir.to_owned();
    }
    match project_of(path) {
        Some(project) => project.assets_dir(),
        None => path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned(),
    }
}

/// The asset path of the scene at `path` under `root` (its chain's first file), or its path as
/// given when it is elsewhere.
pub fn asset_path_of(path: &Path, root: &Path) -> String {
    let (Ok(file), Ok(root)) = (path.canonicalize(), root.canonicalize()) else {
        return path.display().to_string();
    };
    match file.strip_prefix(&root) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_give_their_scene_files_sorted() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        for rel in [
            "b.forge.ron",
            "sub/a.forge.ron",
            "notes.txt",
            "sub/.forge.ron",
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(root)).unwrap_or_default();
            std::fs::write(&p, "").unwrap_or_default();
        }
        let found = collect(&[root.to_owned()]).unwrap_or_default();
        let rel: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root).unwrap_or(p))
            .collect();
        assert_eq!(
            rel,
            [Path::new("b.forge.ron"), Path::new("sub/a.forge.ron")]
        );
        assert!(collect(&[root.join("missing")]).is_err());
    }

    #[test]
    fn the_project_is_the_nearest_folder_with_scenes_or_assets() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("game");
        std::fs::create_dir_all(root.join("scenes/levels")).unwrap_or_default();
        let file = root.join("scenes/levels/one.forge.ron");
        std::fs::write(&file, "").unwrap_or_default();
        let project = project_of(&file).map(|p| p.root().to_owned());
        assert_eq!(project, root.canonicalize().ok());
    }
}
