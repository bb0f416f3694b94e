//! The live link's side of the library: from a running game's entities to the lines that made
//! them, and live values kept back into those lines as small text edits. A remote protocol
//! (`bevy_forge_scene_remote`, on Bevy's `bevy_remote`) puts these on the wire; they work on a
//! plain `World` too.
//!
//! - [`scenes`]: every scene root, its file and state.
//! - [`locate`]: the file, id path and line/column ranges of a live entity's entry and of each
//!   component and field there; for an entity a prefab placed, both places (the override in the
//!   scene, the entity in the prefab file). [`find`] is the reverse.
//! - [`differences`]: every field whose live value differs from what the files say, by id path,
//!   component and field, both values as the format writes them.
//! - [`keep`]: chosen live values written into the text through the edit layer
//!   ([`SceneEdit`](crate::edit::SceneEdit)): only those bytes change, comments stay, the
//!   write is atomic, and the result validates or nothing is written. The hot reload that
//!   follows writes nothing into the world (the values are already live).
//! - [`set`]: one value written into a file, as an inspector's edit; hot reload applies it.
//!
//! Files are found under the [`LiveLink`] resource's asset root, by the asset path rules of
//! the format page ("Asset paths"): nothing outside the root is read or written.

mod diff;
mod keep;
mod locate;
mod write;

pub use diff::{
    LiveChanges, LiveDifference, WrittenAt, changed_since, differences, differences_at,
};
pub use keep::{FieldRef, KeepInto, Kept, KeptFile, KeptPatch, SetValue, keep, set};
pub use locate::{
    LoadedScene, Located, PartPlace, Place, TextPosition, TextRange, find, locate, scenes,
};
pub(crate) use write::WritePlugin;
pub use write::{ForgeSceneWritten, pending_writes, redo, undo};

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use bevy_ecs::entity::Entity;
use bevy_ecs::resource::Resource;

use crate::runtime::asset::files::{FileText, SceneFiles};

/// The live link's setting: the folder asset paths are read from and written to (a game's
/// `assets/`). Insert it to use the functions of [`live_link`](self); the remote plugin does.
///
/// Files are read through the scene loader's memory of each file (one per asset path, shared
/// with hot reload), read from disk only when the game holds no version of them or the file
/// changed on disk since.
///
/// **The root is a boundary.** A path is resolved as the file system resolves it, symbolic
/// links followed, and refused when it lands outside the root (as a `..` path is): a link
/// inside the root may point at a file or folder inside the root, never outside it. This holds
/// for reads and writes alike.
#[derive(Resource)]
pub struct LiveLink {
    root: PathBuf,
    /// The root with its symbolic links resolved (once, when first needed).
    real_root: OnceLock<Option<PathBuf>>,
}

impl LiveLink {
    /// A link whose asset paths name files under `asset_root` (the folder `AssetPlugin`'s
    /// `file_path` names: `assets/` beside the game's manifest by default).
    pub fn new(asset_root: impl Into<PathBuf>) -> Self {
        Self {
            root: asset_root.into(),
            real_root: OnceLock::new(),
        }
    }

    /// The asset root.
    pub fn asset_root(&self) -> &Path {
        &self.root
    }

    /// The file of asset path `asset`, when the path keeps to the asset path rules (relative,
    /// `/` separators, no `..`, no label or source) and the file it names, symbolic links
    /// followed, is under the root.
    pub(crate) fn file_of(&self, asset: &str) -> Result<PathBuf, LinkError> {
        let refused = |reason: String| LinkError::Path {
            path: asset.to_owned(),
            reason,
        };
        if let Err(e) = crate::project::check_asset_path(asset) {
            return Err(refused(e.to_string()));
        }
        if asset.contains('#') || asset.contains(':') || asset.contains('\\') {
            return Err(refused(
                "a scene file is named by a plain asset path: no label (`#`), source (`:`) or `\\`"
                    .to_owned(),
            ));
        }
        let file = self.root.join(asset);
        let real_root = self
            .real_root
            .get_or_init(|| std::fs::canonicalize(&self.root).ok());
        if let Some(real_root) = real_root
            && let Some(real) = real_path(&file)
            && !real.starts_with(real_root)
        {
            return Err(refused(format!(
                "it leads outside the asset directory (to `{}`, through a symbolic link); \
                 asset paths may not leave the assets directory",
                real.display()
            )));
        }
        Ok(file)
    }
}

/// Where `file` really is, symbolic links followed: the file's own real path when it exists,
/// else its nearest existing folder's real path with the rest appended (`None` when nothing
/// of it exists).
fn real_path(file: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(file) {
        return Some(real);
    }
    let mut rest = Vec::new();
    let mut at = file;
    while let Some(parent) = at.parent() {
        rest.push(at.file_name()?.to_owned());
        if let Ok(real) = std::fs::canonicalize(parent) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return Some(out);
        }
        at = parent;
    }
    None
}

/// A scene file as the link reads it: its path, and its text with what it reads as (shared
/// with the scene loader's memory of the file, or read from disk for this request).
pub(crate) struct FileView {
    pub(crate) file: PathBuf,
    shared: Arc<FileText>,
}

impl std::ops::Deref for FileView {
    type Target = FileText;

    fn deref(&self) -> &FileText {
        &self.shared
    }
}

/// The store of scene files of `world` (the app's; a world without `ForgeScenePlugin` gets
/// one that remembers nothing between calls).
pub(crate) fn files_of(world: &bevy_ecs::world::World) -> SceneFiles {
    world
        .get_resource::<SceneFiles>()
        .cloned()
        .unwrap_or_default()
}

impl LiveLink {
    /// Scene file `asset` as it is now: the store's newest version when the file on disk is
    /// still that one (or a write of it is on its way), else read from disk.
    pub(crate) fn view(&self, files: &SceneFiles, asset: &str) -> Result<FileView, LinkError> {
        let file = self.file_of(asset)?;
        let shared = write::current(files, asset, &file)?;
        Ok(FileView { file, shared })
    }
}

/// Why a live link request could not be answered. Nothing was written when one is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LinkError {
    /// The world has no [`LiveLink`] resource.
    #[error("the world has no LiveLink resource (insert LiveLink::new(asset_root))")]
    NoLink,
    /// The entity is not one a loaded scene spawned.
    #[error("entity {0} is not an entity of a spawned scene")]
    NotInAScene(Entity),
    /// The entity is not a spawned `ForgeSceneRoot`.
    #[error("entity {0} is not a spawned scene root (a ForgeSceneRoot whose scene has spawned)")]
    NotARoot(Entity),
    /// No spawned scene is loaded from that asset path.
    #[error("no spawned scene is loaded from `{0}`")]
    NoScene(String),
    /// The scene has no entity at that id path.
    #[error("`{scene}` has no entity at id path {path:?}")]
    NoEntity {
        /// The scene's asset path.
        scene: String,
        /// The id path asked for.
        path: Vec<u64>,
    },
    /// The root's scene was not loaded from a file (an asset added in code).
    #[error("the scene of root {0} has no file: it was not loaded from an asset path")]
    NoFile(Entity),
    /// An asset path that breaks the asset path rules (outside the root, a label, ...).
    #[error("`{path}` is not a usable asset path: {reason}")]
    Path {
        /// The path given.
        path: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// A scene file could not be read.
    #[error("`{file}` cannot be read: {reason}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
    /// The entity has no such component or field in its file.
    #[error("{0}")]
    NoField(String),
    /// A value that does not read as the field's kind.
    #[error("{0}")]
    Value(String),
    /// The edit would make a file invalid: the diagnostic, with its file, line and column.
    #[error("the change would make `{file}` invalid, so nothing was written: {diagnostic}")]
    Invalid {
        /// The file the problem is in.
        file: String,
        /// The first new error.
        diagnostic: String,
    },
    /// The edit layer could not make the change in place.
    #[error(transparent)]
    Edit(#[from] crate::edit::SceneEditError),
    /// The file changed on disk since it was read; nothing was written.
    #[error("`{0}` changed on disk while the change was made; nothing was written")]
    ChangedOnDisk(String),
    /// A file could not be written; it is unchanged.
    #[error(transparent)]
    Write(#[from] crate::project::ProjectError),
}

/// The link resource of `world`.
fn link_of(world: &bevy_ecs::world::World) -> Result<&LiveLink, LinkError> {
    world.get_resource::<LiveLink>().ok_or(LinkError::NoLink)
}

/// The asset path of the scene a root spawned.
fn root_asset(world: &bevy_ecs::world::World, root: Entity) -> Result<String, LinkError> {
    let scene_root = world
        .get::<crate::runtime::instance::ForgeSceneRoot>(root)
        .ok_or(LinkError::NotARoot(root))?;
    let path = scene_root.0.path().ok_or(LinkError::NoFile(root))?;
    if path.label().is_some() {
        return Err(LinkError::NoFile(root));
    }
    Ok(path.path().to_string_lossy().replace('\\', "/"))
}
