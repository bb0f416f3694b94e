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

pub use diff::{LiveChanges, LiveDifference, changed_since, differences, differences_at};
pub use keep::{FieldRef, KeepInto, Kept, KeptFile, KeptPatch, SetValue, keep, set};
pub use locate::{
    LoadedScene, Located, PartPlace, Place, TextPosition, TextRange, find, locate, scenes,
};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bevy_ecs::entity::Entity;
use bevy_ecs::resource::Resource;
use bevy_platform::collections::HashMap;

use crate::format::{ParsedScene, SceneDoc};

/// The live link's setting: the folder asset paths are read from and written to (a game's
/// `assets/`). Insert it to use the functions of [`live_link`](self); the remote plugin does.
///
/// It keeps each scene file it read with its source map, until the file changes on disk (its
/// length or modification time), so locating entities in a large scene reads the file once.
#[derive(Resource)]
pub struct LiveLink {
    root: PathBuf,
    files: Mutex<HashMap<String, Arc<FileView>>>,
}

impl LiveLink {
    /// A link whose asset paths name files under `asset_root` (the folder `AssetPlugin`'s
    /// `file_path` names: `assets/` beside the game's manifest by default).
    pub fn new(asset_root: impl Into<PathBuf>) -> Self {
        Self {
            root: asset_root.into(),
            files: Mutex::new(HashMap::default()),
        }
    }

    /// The asset root.
    pub fn asset_root(&self) -> &Path {
        &self.root
    }

    /// The file of asset path `asset`, when the path keeps to the asset path rules (relative,
    /// `/` separators, no `..`, no label or source).
    pub(crate) fn file_of(&self, asset: &str) -> Result<PathBuf, LinkError> {
        if let Err(e) = crate::project::check_asset_path(asset) {
            return Err(LinkError::Path {
                path: asset.to_owned(),
                reason: e.to_string(),
            });
        }
        if asset.contains('#') || asset.contains(':') || asset.contains('\\') {
            return Err(LinkError::Path {
                path: asset.to_owned(),
                reason: "a scene file is named by a plain asset path: no label (`#`), source (`:`) or `\\`".to_owned(),
            });
        }
        Ok(self.root.join(asset))
    }

    /// The text of scene file `asset` as it is on disk now, read and parsed once per version.
    pub(crate) fn view(&self, asset: &str) -> Result<Arc<FileView>, LinkError> {
        let file = self.file_of(asset)?;
        let read_error = |e: std::io::Error| LinkError::Read {
            file: file.display().to_string(),
            reason: e.to_string(),
        };
        let meta = std::fs::metadata(&file).map_err(read_error)?;
        let stamp = (meta.len(), meta.modified().ok());
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(view) = files.get(asset)
            && view.stamp == stamp
        {
            return Ok(view.clone());
        }
        let bytes = std::fs::read(&file).map_err(read_error)?;
        let text = String::from_utf8(bytes).map_err(|_| LinkError::Read {
            file: file.display().to_string(),
            reason: "the file is not UTF-8 text (a cooked scene has no lines to point at)"
                .to_owned(),
        })?;
        let parsed =
            SceneDoc::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text)).map_err(|e| {
                LinkError::Read {
                    file: file.display().to_string(),
                    reason: e.to_string(),
                }
            })?;
        let view = Arc::new(FileView {
            file,
            stamp,
            text,
            parsed,
        });
        files.insert(asset.to_owned(), view.clone());
        Ok(view)
    }

    /// Remembers that `asset`'s file `file` now holds `text`, which reads as `parsed` (the
    /// link just wrote it): the next request does not read it again. Forgets it when the
    /// file cannot be looked at.
    pub(crate) fn wrote(&self, asset: &str, file: &Path, text: String, parsed: ParsedScene) {
        let Ok(meta) = std::fs::metadata(file) else {
            self.forget(asset);
            return;
        };
        let view = Arc::new(FileView {
            file: file.to_owned(),
            stamp: (meta.len(), meta.modified().ok()),
            text,
            parsed,
        });
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(asset.to_owned(), view);
    }

    /// Forgets what was read of `asset` (it was just written).
    pub(crate) fn forget(&self, asset: &str) {
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(asset);
    }
}

/// A scene file as read: its path and text, and the document with its source map.
pub(crate) struct FileView {
    pub(crate) file: PathBuf,
    stamp: (u64, Option<std::time::SystemTime>),
    pub(crate) text: String,
    pub(crate) parsed: ParsedScene,
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
