//! How far the load of a scene got: the loader counts files and bytes as it reads them into a
//! table shared with the app ([`LoadTracker`]); the roots that wait for the scene get the
//! counts as [`ForgeLoadProgress`] ([`crate::runtime::instance`] copies them).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use bevy_ecs::prelude::*;

/// How far the load of a [`ForgeSceneRoot`](crate::ForgeSceneRoot)'s scene got: the scene file and the prefab files it
/// places (and theirs), read through the `AssetServer`. On the root entity from the first frame
/// its load has read anything, while the scene loads; it changes only in frames where the load
/// advanced (`Changed<ForgeLoadProgress>` finds them), and stays with `loaded: true` once the
/// scene is loaded. What follows is [`ForgeSpawnProgress`](crate::ForgeSpawnProgress).
///
/// Totals are what the load knows so far: a prefab file counts in `files_total` once the file
/// placing it has been read, and its size in `bytes_total` once it is read. A file counts in
/// `files_read` together with the prefab files it places, so `files_read == files_total` only
/// once every file is read. A large scene file
/// (1 MiB or more) is read in pieces and counted as they arrive; smaller files count whole.
/// A cooked scene is one file (its prefabs are bundled). A hot reload of a scene already
/// spawned does not show here.
///
/// ```
/// # use bevy_forge_scene::ForgeLoadProgress;
/// let p = ForgeLoadProgress { files_read: 1, files_total: 4, bytes_read: 900, bytes_total: 900, loaded: false };
/// assert_eq!(p.fraction(), 0.25);
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForgeLoadProgress {
    /// Files read completely: the scene file and prefab files.
    pub files_read: usize,
    /// Files the load knows it reads (grows as files naming prefabs are read).
    pub files_total: usize,
    /// Bytes read, in all files.
    pub bytes_read: u64,
    /// Bytes of the files whose size is known: those read and the one being read.
    pub bytes_total: u64,
    /// Whether the scene is loaded: read, checked and prepared (its spawn can start).
    pub loaded: bool,
}

impl ForgeLoadProgress {
    /// The part of the reading done, from 0.0 to 1.0: `files_read / files_total`, the file
    /// being read in pieces counted by its bytes (0.0 before anything is known, 1.0 once
    /// loaded).
    pub fn fraction(&self) -> f32 {
        if self.loaded {
            return 1.0;
        }
        if self.files_total == 0 {
            return 0.0;
        }
        // Only a file read in pieces (the scene file, the first) is counted before it is
        // whole: then `bytes_total` is its length and `bytes_read` what arrived of it.
        let partial = if self.bytes_total > self.bytes_read {
            self.bytes_read as f64 / self.bytes_total as f64
        } else {
            0.0
        };
        ((self.files_read as f64 + partial) / self.files_total as f64).min(1.0) as f32
    }
}

/// One load's counts, and whether the load has ended (loaded or failed).
#[derive(Clone, Copy, Default)]
struct Tracked {
    progress: ForgeLoadProgress,
    ended: bool,
}

/// The counts of the loads in progress, by asset path (as `AssetPath` displays), shared by the
/// loader (which writes) and the app (which reads).
#[derive(Resource, Clone, Default)]
pub(crate) struct LoadTracker(Arc<Mutex<HashMap<String, Tracked>>>);

impl LoadTracker {
    /// Counting for the load of `path`, which starts now (a load of the same path before it
    /// is forgotten).
    pub(crate) fn start(&self, path: &str) -> LoadTicket {
        self.with(|table| {
            table.insert(path.to_owned(), Tracked::default());
        });
        LoadTicket {
            tracker: self.clone(),
            path: path.to_owned(),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, Tracked>) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// What a load tells its tracker; the load ends when it is dropped (failed unless
/// [`LoadTicket::loaded`] was called).
pub(crate) struct LoadTicket {
    tracker: LoadTracker,
    path: String,
}

impl LoadTicket {
    fn update(&self, f: impl FnOnce(&mut ForgeLoadProgress)) {
        self.tracker.with(|table| {
            if let Some(t) = table.get_mut(&self.path) {
                f(&mut t.progress);
            }
        });
    }

    /// `read` more files are read and `known` more are to be read, in one step: a file counts
    /// as read together with the files it places, so `files_read` never reaches `files_total`
    /// while some file is still unknown.
    pub(crate) fn files(&self, read: usize, known: usize) {
        self.update(|p| {
            p.files_read += read;
            p.files_total += known;
        });
    }

    /// A file of `len` bytes is being read in pieces.
    pub(crate) fn opened(&self, len: u64) {
        self.update(|p| p.bytes_total += len);
    }

    /// `n` more bytes of the file being read in pieces arrived.
    pub(crate) fn piece(&self, n: u64) {
        self.update(|p| p.bytes_read += n);
    }

    /// The file of `len` bytes being read in pieces, of which `counted` were counted, is read
    /// again from the start.
    pub(crate) fn forget(&self, len: u64, counted: u64) {
        self.update(|p| {
            p.bytes_total -= len.min(p.bytes_total);
            p.bytes_read -= counted.min(p.bytes_read);
        });
    }

    /// The bytes of a file read whole: `len` (0 for one that could not be read).
    pub(crate) fn whole_file(&self, len: u64) {
        self.update(|p| {
            p.bytes_read += len;
            p.bytes_total += len;
        });
    }

    /// The scene is loaded.
    pub(crate) fn loaded(self) {
        self.update(|p| p.loaded = true);
    }
}

impl Drop for LoadTicket {
    fn drop(&mut self) {
        self.tracker.with(|table| {
            if let Some(t) = table.get_mut(&self.path) {
                t.ended = true;
            }
        });
    }
}

impl LoadTracker {
    /// Calls `report` with the counts of the loads in progress (by asset path, as `AssetPath`
    /// displays), then forgets the loads that ended (a scene loaded or failed). Nothing to
    /// report: `report` is not called.
    pub(crate) fn report(&self, report: impl FnOnce(&dyn Fn(&str) -> Option<ForgeLoadProgress>)) {
        let mut table = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if table.is_empty() {
            return;
        }
        report(&|path: &str| table.get(path).map(|t| t.progress));
        table.retain(|_, t| !t.ended);
    }
}
