//! Projects on disk: scene files, atomic saves, asset paths and the asset index (the format page,
//! "Files and naming", "Saving and autosave", "Asset paths").

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::format::{EXTENSION, SceneDoc};

/// The editor's suggested file stem for a scene name: ASCII letters and digits lowercased,
/// whitespace, `-`, `_` and `.` collapsed to one `-`, other characters dropped, no leading or
/// trailing `-`, and `scene` when nothing is left (`Level 01` -> `level-01`).
pub fn slugify(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut pending_dash = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if pending_dash && !out.is_empty() {
                out.push('-');
            }
            pending_dash = false;
            out.push(c.to_ascii_lowercase());
        } else if c.is_whitespace() || matches!(c, '-' | '_' | '.') {
            pending_dash = true;
        }
    }
    if out.is_empty() {
        out.push_str("scene");
    }
    out
}

/// Why a project operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectError {
    /// The project root is not a directory.
    #[error("`{}` is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// A scene file name that does not end in `.forge.ron`.
    #[error("`{}` is not a scene file name: scene files end in `.forge.ron`", .0.display())]
    NotASceneFile(PathBuf),
    /// A path that leads outside the project root (through `..`, an absolute path or a symbolic
    /// link).
    #[error("`{}` is outside the project root `{}`", .path.display(), .root.display())]
    OutsideProject {
        /// The path asked for.
        path: PathBuf,
        /// The project root.
        root: PathBuf,
    },
    /// A file system error.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ProjectError + '_ {
    move |source| ProjectError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A project folder: scenes in `scenes/`, assets in `assets/` (or the root when there is no
/// `assets/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    root: PathBuf,
}

impl Project {
    /// Opens the project at `root`.
    ///
    /// # Errors
    /// [`ProjectError::NotADirectory`] when `root` is not a directory; [`ProjectError::Io`] when it
    /// cannot be resolved.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, ProjectError> {
        let root = root.as_ref();
        let root = root.canonicalize().map_err(io_err(root))?;
        if !root.is_dir() {
            return Err(ProjectError::NotADirectory(root));
        }
        Ok(Self { root })
    }

    /// The project root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/scenes`.
    pub fn scenes_dir(&self) -> PathBuf {
        self.root.join("scenes")
    }

    /// `<root>/assets` when it exists, otherwise the root.
    pub fn assets_dir(&self) -> PathBuf {
        let assets = self.root.join("assets");
        if assets.is_dir() {
            assets
        } else {
            self.root.clone()
        }
    }

    /// The `*.forge.ron` files directly in [`scenes_dir`](Self::scenes_dir), sorted. Empty when
    /// there is no `scenes/` directory.
    ///
    /// # Errors
    /// [`ProjectError::Io`] when the directory cannot be listed.
    pub fn list_scenes(&self) -> Result<Vec<PathBuf>, ProjectError> {
        let dir = self.scenes_dir();
        if !dir.is_dir() {
            return Ok(Vec::new());
        }
        let mut scenes = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(io_err(&dir))? {
            let path = entry.map_err(io_err(&dir))?.path();
            if is_scene_file(&path) && path.is_file() {
                scenes.push(path);
            }
        }
        scenes.sort();
        Ok(scenes)
    }

    /// Writes `doc` as canonical text to `path` (relative to the root, or absolute inside it),
    /// atomically: the text goes to a temporary `.<file>.tmp-<pid>-*` file in the destination
    /// directory, is flushed to disk, and is renamed over the target, so a crash leaves either the
    /// old file or the new one. Parent directories are created. A replaced file keeps its
    /// permissions; a new one gets mode `0o644` on Unix (the platform default elsewhere). Returns
    /// the path written.
    ///
    /// # Errors
    /// [`ProjectError::NotASceneFile`] for a name not ending in `.forge.ron`;
    /// [`ProjectError::OutsideProject`] for a path outside the root (`..`, absolute elsewhere, or a
    /// symbolic link that leads out); [`ProjectError::Io`] when writing fails, in which case the
    /// previous file is untouched.
    pub fn save_scene(
        &self,
        path: impl AsRef<Path>,
        doc: &SceneDoc,
    ) -> Result<PathBuf, ProjectError> {
        let target = self.resolve_scene_path(path.as_ref())?;
        write_atomic(&target, doc.to_canonical_string().as_bytes(), |_| Ok(()))?;
        Ok(target)
    }

    /// Checks a scene path and makes it absolute, creating its parent directories.
    fn resolve_scene_path(&self, path: &Path) -> Result<PathBuf, ProjectError> {
        if !is_scene_file(path) {
            return Err(ProjectError::NotASceneFile(path.to_owned()));
        }
        let outside = || ProjectError::OutsideProject {
            path: path.to_owned(),
            root: self.root.clone(),
        };
        let joined = if path.is_absolute() {
            path.to_owned()
        } else {
            self.root.join(path)
        };
        // Lexical check: no `..` may climb out, and an absolute path must start at the root.
        let mut normal = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir => {
                    if !normal.pop() {
                        return Err(outside());
                    }
                }
                Component::CurDir => {}
                other => normal.push(other),
            }
        }
        if !normal.starts_with(&self.root) {
            return Err(outside());
        }
        // Resolve symbolic links in the part that exists.
        let mut existing = normal.as_path();
        while !existing.exists() {
            existing = existing.parent().ok_or_else(outside)?;
        }
        let real = existing.canonicalize().map_err(io_err(existing))?;
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        if normal
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            // A dangling or outward link as the target itself.
            let resolved = normal.canonicalize().map_err(|_| outside())?;
            if !resolved.starts_with(&self.root) {
                return Err(outside());
            }
        }
        if let Some(parent) = normal.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
            let real_parent = parent.canonicalize().map_err(io_err(parent))?;
            if !real_parent.starts_with(&self.root) {
                return Err(outside());
            }
        }
        Ok(normal)
    }
}

/// Whether `path`'s file name ends in `.forge.ron` (with a non-empty stem).
pub fn is_scene_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(EXTENSION))
        .is_some_and(|stem| stem.len() > 1 && stem.ends_with('.'))
}

/// Writes `bytes` to `target` through a temporary file in the same directory and a rename.
/// `before_rename` runs after the temporary file is complete and before the rename; if it fails,
/// the temporary file is removed and `target` is untouched.
///
/// A read-only `target` is refused (`ProjectError::Io`, permission denied) and left as it is.
/// The file keeps the permissions of the file it replaces; a new file gets mode `0o644` on Unix
/// (what a usual `022` umask gives; the umask itself cannot be read without `unsafe`), and the
/// platform's default elsewhere. (The temporary file alone would be `0o600`.)
pub(crate) fn write_atomic(
    target: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), ProjectError> {
    // A rename would replace a read-only file as easily as any other: refuse, as writing in
    // place would.
    if std::fs::metadata(target).is_ok_and(|m| m.permissions().readonly()) {
        return Err(ProjectError::Io {
            path: target.to_owned(),
            source: std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "the file is read-only; not replacing it",
            ),
        });
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("scene");
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.tmp-{}-", std::process::id()))
        .tempfile_in(dir)
        .map_err(io_err(dir))?;
    tmp.write_all(bytes).map_err(io_err(tmp.path()))?;
    if let Some(permissions) = permissions_for(target) {
        tmp.as_file()
            .set_permissions(permissions)
            .map_err(io_err(tmp.path()))?;
    }
    tmp.as_file().sync_all().map_err(io_err(tmp.path()))?;
    before_rename(tmp.path()).map_err(io_err(target))?;
    tmp.persist(target).map_err(|e| ProjectError::Io {
        path: target.to_owned(),
        source: e.error,
    })?;
    Ok(())
}

/// Writes `bytes` to `target` atomically: into a temporary file beside it, flushed to disk, then
/// renamed over it, so a reader sees the old file or the new one, never a part (what
/// [`Project::save_scene`] does for scenes; `forge cook` writes cooked files with it). The
/// file keeps the permissions of the one it replaces.
///
/// # Errors
/// [`ProjectError::Io`] naming the file when it cannot be written or is read-only; `target` is
/// then untouched.
pub fn write_file_atomic(target: &Path, bytes: &[u8]) -> Result<(), ProjectError> {
    write_atomic(target, bytes, |_| Ok(()))
}

/// The permissions [`write_atomic`] gives `target`: those of the existing file, else `0o644` on
/// Unix; `None` keeps the temporary file's own.
fn permissions_for(target: &Path) -> Option<std::fs::Permissions> {
    if let Ok(meta) = std::fs::metadata(target) {
        return Some(meta.permissions());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o644))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Why an asset path is refused (the format page, "Asset paths").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssetPathError {
    /// The path is empty.
    #[error("the asset path is empty")]
    Empty,
    /// An absolute path (`/x`, `C:\x`, `C:/x`).
    #[error("asset path `{0}` is absolute; asset paths are relative to the assets directory")]
    Absolute(String),
    /// A `..` component.
    #[error(
        "asset path `{0}` contains a `..` component; asset paths may not leave the assets directory"
    )]
    ParentComponent(String),
    /// A backslash.
    #[error("asset path `{0}` contains a backslash; use `/` as the separator")]
    Backslash(String),
}

/// Checks an asset path against the format's rules: relative, no `..` component, no backslash.
/// A `#label` suffix (`models/robot.gltf#Mesh0/Primitive0`) is allowed.
///
/// # Errors
/// The first rule the path breaks, as an [`AssetPathError`].
pub fn check_asset_path(path: &str) -> Result<(), AssetPathError> {
    let file = path.split_once('#').map_or(path, |(f, _)| f);
    if file.is_empty() {
        return Err(AssetPathError::Empty);
    }
    let bytes = file.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if file.starts_with('/') || file.starts_with('\\') || drive {
        return Err(AssetPathError::Absolute(path.to_owned()));
    }
    if path.contains('\\') {
        return Err(AssetPathError::Backslash(path.to_owned()));
    }
    if file.split('/').any(|c| c == "..") {
        return Err(AssetPathError::ParentComponent(path.to_owned()));
    }
    Ok(())
}

/// What kind of asset a file is, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AssetKind {
    /// `png jpg jpeg webp bmp tga ktx2 dds`.
    Image,
    /// `gltf glb obj fbx`.
    Mesh,
    /// `ogg wav mp3 flac`.
    Audio,
    /// `ttf otf`.
    Font,
    /// `.forge.ron` scenes.
    Scene,
    /// Anything else.
    Other,
}

impl AssetKind {
    /// The kind of the file at `path` (a `#label` suffix is ignored), by its extension, case
    /// insensitive.
    pub fn of(path: &str) -> AssetKind {
        let file = path.split_once('#').map_or(path, |(f, _)| f);
        if file.ends_with(".forge.ron") {
            return AssetKind::Scene;
        }
        let ext = file
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "png" | "jpg" | "jpeg" | "webp" | "bmp" | "tga" | "ktx2" | "dds" => AssetKind::Image,
            "gltf" | "glb" | "obj" | "fbx" => AssetKind::Mesh,
            "ogg" | "wav" | "mp3" | "flac" => AssetKind::Audio,
            "ttf" | "otf" => AssetKind::Font,
            _ => AssetKind::Other,
        }
    }

    /// A lower-case name for messages (`image`, `mesh`, ...).
    pub fn name(self) -> &'static str {
        match self {
            AssetKind::Image => "image",
            AssetKind::Mesh => "mesh",
            AssetKind::Audio => "audio",
            AssetKind::Font => "font",
            AssetKind::Scene => "scene",
            AssetKind::Other => "other",
        }
    }
}

/// The files of an assets directory, by `/`-separated relative path, with their kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssetIndex {
    files: BTreeMap<String, AssetKind>,
    /// The scanned directory ([`scan`](Self::scan)), where file contents can be read.
    root: Option<PathBuf>,
}

impl AssetIndex {
    /// Scans `dir` recursively. Symbolic links to directories are not followed, so the scan
    /// terminates on link loops.
    ///
    /// # Errors
    /// [`ProjectError::Io`] when `dir` or a directory below it cannot be listed.
    pub fn scan(dir: impl AsRef<Path>) -> Result<Self, ProjectError> {
        let dir = dir.as_ref();
        let mut files = BTreeMap::new();
        let mut stack = vec![(dir.to_owned(), String::new())];
        while let Some((path, prefix)) = stack.pop() {
            for entry in std::fs::read_dir(&path).map_err(io_err(&path))? {
                let entry = entry.map_err(io_err(&path))?;
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                let rel = if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                };
                let ty = entry.file_type().map_err(io_err(&entry.path()))?;
                if ty.is_dir() {
                    stack.push((entry.path(), rel));
                } else {
                    let kind = AssetKind::of(&rel);
                    files.insert(rel, kind);
                }
            }
        }
        Ok(Self {
            files,
            root: Some(dir.to_owned()),
        })
    }

    /// An index of the given relative paths (for tests and tools).
    pub fn from_paths<I, S>(paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let files = paths
            .into_iter()
            .map(|p| {
                let p = p.into();
                let kind = AssetKind::of(&p);
                (p, kind)
            })
            .collect();
        Self { files, root: None }
    }

    /// The directory [`scan`](Self::scan) read, where the files' contents are (`None` for an
    /// index [`from_paths`](Self::from_paths), whose checks look at paths only).
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// The kind of the file an asset path refers to, if the file exists. A `#label` suffix
    /// resolves to its file (`models/robot.gltf#Mesh0/Primitive0` -> `models/robot.gltf`).
    pub fn get(&self, asset_path: &str) -> Option<AssetKind> {
        let file = asset_path.split_once('#').map_or(asset_path, |(f, _)| f);
        self.files.get(file).copied()
    }

    /// Whether the file an asset path refers to exists.
    pub fn contains(&self, asset_path: &str) -> bool {
        self.get(asset_path).is_some()
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the index has no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// All files with their kinds, sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&str, AssetKind)> {
        self.files.iter().map(|(p, k)| (p.as_str(), *k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_between_write_and_rename_keeps_previous_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("level.forge.ron");
        std::fs::write(&target, "previous").unwrap();
        let result = write_atomic(&target, b"new text", |tmp| {
            assert_eq!(std::fs::read_to_string(tmp).unwrap(), "new text");
            Err(std::io::Error::other("simulated crash"))
        });
        assert!(matches!(result, Err(ProjectError::Io { .. })));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "previous");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "the temporary file is cleaned up");
    }

    #[cfg(unix)]
    #[test]
    fn writes_keep_the_permissions_of_the_file_they_replace() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.forge.ron");
        write_atomic(&new, b"x", |tmp| {
            assert_eq!(mode(tmp), 0o644, "set before the rename");
            Ok(())
        })
        .unwrap();
        assert_eq!(mode(&new), 0o644);
        for kept in [0o600, 0o640, 0o664] {
            let target = dir.path().join(format!("{kept:o}.forge.ron"));
            std::fs::write(&target, "previous").unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(kept)).unwrap();
            write_atomic(&target, b"new text", |_| Ok(())).unwrap();
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "new text");
            assert_eq!(mode(&target), kept, "{kept:o}");
        }
        // A read-only file is refused, not replaced.
        let target = dir.path().join("444.forge.ron");
        std::fs::write(&target, "previous").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
        let err = write_atomic(&target, b"new text", |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "previous");
        assert_eq!(mode(&target), 0o444);
    }

    #[test]
    fn successful_write_replaces_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("level.forge.ron");
        std::fs::write(&target, "previous").unwrap();
        write_atomic(&target, b"new text", |_| Ok(())).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new text");
    }
}
