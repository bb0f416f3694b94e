//! One memory per scene file ([`SceneFiles`]), keyed by asset path: the newest version of the
//! file the game knows (its text and what it reads as), what its check kept for the next one,
//! what preparing its built-ins kept, and, for a version a writer made, what its check gave.
//! The loader, the live link and every writer read it; nothing else keeps a file.
//!
//! Each version is a **revision**: its number moves by one each time the path is read again
//! (a hot reload) or written (a kept value, a set, an undo). The loader takes the newest out
//! while it reads the next version from it, and puts the next one back; a version that fails
//! its check is kept as the base of the next (its errors with it), and never becomes what the
//! instances stand at (the applied versions, `instance::AppliedVersions`).
//!
//! A path is remembered from its second load on, or from its first when the asset server
//! watches for changes or a writer has touched it: a game that loads a scene once keeps
//! nothing extra. While a path is remembered its text, read document (entities shared with the
//! loaded scene) and source map, and what its check found are kept: about the size of the file
//! plus its source map.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::format::{ParsedScene, TextChange};
use crate::pipeline::Checked;
use crate::pipeline::incremental::MemoryOf;
use crate::runtime::values::builtin::BuiltinsMemory;
use crate::runtime::values::custom::{CustomContext, PreparedCustoms};
use crate::validate::Diagnostic;

/// The memory of every scene file (shared by the loader's clones and the app's resource).
#[derive(Default, Clone, bevy_ecs::resource::Resource)]
pub(crate) struct SceneFiles(Arc<Mutex<HashMap<String, Entry>>>);

impl std::fmt::Debug for SceneFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SceneFiles").finish_non_exhaustive()
    }
}

/// What is known of one path.
#[derive(Default)]
struct Entry {
    /// Whether loads of the path keep what they read ([`Plan::Remember`]).
    remember: bool,
    /// The number the next revision gets.
    next: u64,
    /// The newest revision (`None` while a load or a writer has it out, or before anything
    /// was read).
    last: Option<Revision>,
    /// Whether a load or a writer has the newest revision out.
    taken: bool,
    /// The revision known to be the file on disk, and the file's stamp then.
    disk: Option<OnDisk>,
    /// Whether a write of a newer revision is queued or on its way to disk.
    writing: bool,
}

/// The revision number known to be a file on disk, and the file's stamp then.
pub(crate) type OnDisk = (u64, Stamp);

/// What the file system says of a file, to tell whether it changed since: its length,
/// modification time and (on Unix) inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

impl Stamp {
    /// The stamp of `file` now.
    pub(crate) fn of(file: &std::path::Path) -> std::io::Result<Self> {
        let meta = std::fs::metadata(file)?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Ok(Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }
}

/// The text of a revision and what it reads as: shared with readers (the live link locating
/// entities), never changed once made.
#[derive(Debug)]
pub(crate) struct FileText {
    /// The revision's number for its path.
    pub(crate) number: u64,
    /// The text (with its byte-order mark, if any).
    pub(crate) text: String,
    /// What the text reads as (offsets after a byte-order mark).
    pub(crate) parsed: ParsedScene,
    /// The text's hash, when a writer made it (what its edit's group ends at).
    pub(crate) hash: Option<u64>,
}

/// One version of a path.
pub(crate) struct Revision {
    /// Its text and read.
    pub(crate) file: Arc<FileText>,
    /// What its check kept for the next one (`None` when nothing checked it yet, or the check
    /// keeps nothing: renamed types, a trusted stamp).
    pub(crate) memory: Option<MemoryOf<CustomContext>>,
    /// What preparing its built-ins kept (from the last version that loaded).
    pub(crate) builtins: Option<BuiltinsMemory>,
    /// The errors its check found (`None` when it was not checked): a writer refuses only
    /// errors the file did not have.
    pub(crate) errors: Option<Vec<Diagnostic>>,
    /// What its check gave, when a writer checked it and no load has used it yet: the load
    /// that reads this text again neither reads nor checks it.
    pub(crate) ready: Option<Checked<PreparedCustoms>>,
}

/// What [`SceneFiles::start`] decided for one load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Read as always (streamed when large); nothing remembered.
    Once,
    /// Read whole, from the last revision when there is one ([`SceneFiles::take`]), and
    /// remembered ([`SceneFiles::put`]).
    Remember,
}

/// How the next version of a path reads ([`Revision::next`]).
// Made and matched at once, one per load: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Next {
    /// Read from the last one: the edit between the two texts, and what the new text reads as
    /// (the last revision's document and source map, brought up to date).
    Read(TextChange, ParsedScene),
    /// To be read whole: the edit from the last text when the two can be compared, and the
    /// last revision as it was (to keep if the new text does not read).
    Whole(Option<TextChange>, Revision),
}

impl SceneFiles {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a load of `path` and says how to read it: [`Plan::Remember`] for a path loaded
    /// before, written, or for every path when `watching` (the asset server watches for
    /// changes).
    pub(crate) fn start(&self, path: &str, watching: bool) -> Plan {
        let mut map = self.lock();
        match map.get_mut(path) {
            Some(entry) => {
                entry.remember = true;
                Plan::Remember
            }
            None => {
                map.insert(
                    path.to_owned(),
                    Entry {
                        remember: watching,
                        ..Default::default()
                    },
                );
                if watching { Plan::Remember } else { Plan::Once }
            }
        }
    }

    /// Forgets what `path` read as (its loads are not incremental).
    pub(crate) fn forget(&self, path: &str) {
        self.lock().remove(path);
    }

    /// Takes the newest revision of `path` out (the load or write that makes the next one puts
    /// one back).
    pub(crate) fn take(&self, path: &str) -> Option<Revision> {
        let mut map = self.lock();
        let entry = map.get_mut(path)?;
        let last = entry.last.take();
        entry.taken |= last.is_some();
        last
    }

    /// Takes the newest revision of `path` out when it is revision `number`.
    pub(crate) fn take_if(&self, path: &str, number: u64) -> Option<Revision> {
        let mut map = self.lock();
        let entry = map.get_mut(path)?;
        if entry.last.as_ref()?.file.number != number {
            return None;
        }
        entry.taken = true;
        entry.last.take()
    }

    /// The newest revision of `path` (shared), with the revision known to be on disk and its
    /// stamp; `None` when nothing was read yet or a load or writer has it out.
    pub(crate) fn newest(&self, path: &str) -> Option<(Arc<FileText>, Option<OnDisk>)> {
        let map = self.lock();
        let entry = map.get(path)?;
        Some((entry.last.as_ref()?.file.clone(), entry.disk))
    }

    /// Notes whether a write of `path` is queued or on its way.
    pub(crate) fn set_writing(&self, path: &str, writing: bool) {
        if let Some(entry) = self.lock().get_mut(path) {
            entry.writing = writing;
        }
    }

    /// Whether a write of `path` is queued or on its way.
    pub(crate) fn is_writing(&self, path: &str) -> bool {
        self.lock().get(path).is_some_and(|e| e.writing)
    }

    /// Notes that revision `number` of `path` is what the file on disk holds, stamped `stamp`.
    pub(crate) fn on_disk(&self, path: &str, number: u64, stamp: Stamp) {
        if let Some(entry) = self.lock().get_mut(path) {
            entry.disk = Some((number, stamp));
        }
    }

    /// Remembers `text`, just read from disk (stamped `stamp`), as the newest revision of
    /// `path` when the store has none and nothing has one out; returns it shared either way.
    pub(crate) fn offer(
        &self,
        path: &str,
        text: String,
        parsed: ParsedScene,
        stamp: Stamp,
    ) -> Arc<FileText> {
        let mut map = self.lock();
        let entry = map.entry(path.to_owned()).or_default();
        let number = entry.next;
        let file = Arc::new(FileText {
            number,
            text,
            parsed,
            hash: None,
        });
        if entry.last.is_none() && !entry.taken {
            entry.next += 1;
            entry.remember = true;
            entry.disk = Some((number, stamp));
            entry.last = Some(Revision::unchecked(file.clone()));
        }
        file
    }

    /// Forgets every revision of `path` (a write of it failed: what is on disk is read again
    /// by the next load).
    pub(crate) fn forget_revisions(&self, path: &str) {
        if let Some(entry) = self.lock().get_mut(path) {
            entry.last = None;
            entry.disk = None;
        }
    }

    /// Puts `revision` back as the newest of `path`, as it was (a load or write that made
    /// nothing new).
    pub(crate) fn put_back(&self, path: &str, revision: Revision) {
        let mut map = self.lock();
        let entry = map.entry(path.to_owned()).or_default();
        entry.remember = true;
        entry.taken = false;
        entry.last = Some(revision);
    }

    /// Remembers a new revision of `path`, read from or written as `text`, which reads as
    /// `parsed`; returns its number.
    pub(crate) fn put(
        &self,
        path: &str,
        text: String,
        parsed: ParsedScene,
        hash: Option<u64>,
        rest: impl FnOnce(Arc<FileText>) -> Revision,
    ) -> u64 {
        let mut map = self.lock();
        let entry = map.entry(path.to_owned()).or_default();
        entry.remember = true;
        entry.taken = false;
        let number = entry.next;
        entry.next += 1;
        entry.last = Some(rest(Arc::new(FileText {
            number,
            text,
            parsed,
            hash,
        })));
        number
    }
}

impl Revision {
    /// A revision of `file` nothing has checked or prepared yet.
    pub(crate) fn unchecked(file: Arc<FileText>) -> Self {
        Self {
            file,
            memory: None,
            builtins: None,
            errors: None,
            ready: None,
        }
    }

    /// The text and read, owned: taken from the shared [`FileText`] when nobody else holds
    /// it (the usual case), else copied.
    pub(crate) fn into_owned(file: Arc<FileText>) -> (String, ParsedScene) {
        match Arc::try_unwrap(file) {
            Ok(f) => (f.text, f.parsed),
            Err(shared) => (shared.text.clone(), shared.parsed.clone()),
        }
    }

    /// `text`, the next version, read from this one: only the entity entry the edit between
    /// the two is in, when it is in one; else [`Next::Whole`] (the edit spans entries or the
    /// header, or the texts differ in a byte-order mark). What it reads is exactly what a whole
    /// read of `text` gives (the contract of [`ParsedScene::reread_edit`]).
    pub(crate) fn next(self, text: &str) -> Next {
        let Some(change) = TextChange::between(&self.file.text, text) else {
            return Next::Whole(None, self);
        };
        if change.is_none() {
            let (_, parsed) = Self::into_owned(self.file);
            return Next::Read(change, parsed);
        }
        // `reread_edit` leaves the read as it was when it returns `false`: try it on a copy
        // only when the read is shared.
        let Revision {
            file,
            memory,
            builtins,
            errors,
            ready,
        } = self;
        let number = file.number;
        let (old_text, mut parsed) = Self::into_owned(file);
        if parsed.reread_edit(text, change.start..change.old_end, change.new_len) {
            Next::Read(change, parsed)
        } else {
            Next::Whole(
                Some(change),
                Revision {
                    file: Arc::new(FileText {
                        number,
                        text: old_text,
                        parsed,
                        hash: None,
                    }),
                    memory,
                    builtins,
                    errors,
                    ready,
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::format::SceneDoc;

    const SCENE: &str = r#"(
  format_version: 1,
  name: "Small",
  entities: {
    1: (
      id: 1,
      name: "A",
      parent: None,
      children: [],
      transform: (
        translation: (x: 0.0, y: 0.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [],
      locked: false,
    ),
    2: (
      id: 2,
      name: "B",
      parent: None,
      children: [3],
      transform: (
        translation: (x: 0.0, y: 0.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [],
      locked: false,
    ),
    3: (
      id: 3,
      name: "C",
      parent: Some(2),
      children: [],
      transform: (
        translation: (x: 0.0, y: 0.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [],
      locked: false,
    ),
  },
  roots: [1, 2],
  next_id: 4,
)
"#;

    fn revision(text: &str) -> Revision {
        Revision::unchecked(Arc::new(FileText {
            number: 0,
            text: text.to_owned(),
            parsed: SceneDoc::from_str(text).unwrap(),
            hash: None,
        }))
    }

    #[test]
    fn a_path_is_remembered_from_its_second_load_or_when_watched() {
        let files = SceneFiles::default();
        assert_eq!(files.start("a", false), Plan::Once);
        assert_eq!(files.start("a", false), Plan::Remember);
        assert_eq!(files.start("b", true), Plan::Remember);
        // Nothing read yet: nothing to read from.
        assert!(files.take("a").is_none());
        let one = files.put(
            "a",
            SCENE.to_owned(),
            SceneDoc::from_str(SCENE).unwrap(),
            None,
            Revision::unchecked,
        );
        assert!(files.newest("a").is_some());
        assert!(files.take("a").is_some());
        assert!(files.take("a").is_none(), "taken out");
        assert!(files.newest("a").is_none(), "out while taken");
        let two = files.put(
            "a",
            SCENE.to_owned(),
            SceneDoc::from_str(SCENE).unwrap(),
            None,
            Revision::unchecked,
        );
        assert_eq!(two, one + 1, "each revision numbered after the last");
    }

    #[test]
    fn an_edit_inside_one_entry_reads_as_a_whole_read_of_the_new_text() {
        let mut text = SCENE.to_owned();
        let mut was = revision(SCENE);
        for (from, to) in [
            ("\"B\"", "\"Bee\""),
            ("\"Bee\"", "\"é\""),
            ("\"é\"", "\"éa\""),
            ("[3]", "[]"),
            (
                "locked: false,\n    ),\n  },",
                "locked: true,\n    ),\n  },",
            ),
        ] {
            text = text.replacen(from, to, 1);
            let expected = TextChange::between(&was.file.text, &text).unwrap();
            let Next::Read(change, again) = was.next(&text) else {
                panic!("read whole after {from} -> {to}");
            };
            assert_eq!(change, expected);
            assert_eq!(
                again,
                SceneDoc::from_str(&text).unwrap(),
                "after {from} -> {to}"
            );
            was = Revision::unchecked(Arc::new(FileText {
                number: 0,
                text: text.clone(),
                parsed: again,
                hash: None,
            }));
        }
        // The same text again reads as it did.
        let Next::Read(change, same) = was.next(&text) else {
            panic!("the same text read whole");
        };
        assert!(change.is_none());
        assert_eq!(same, SceneDoc::from_str(&text).unwrap());
    }

    #[test]
    fn a_change_outside_one_entry_is_read_whole() {
        for text in [
            SCENE
                .replacen("\"A\"", "\"X\"", 1)
                .replacen("\"C\"", "\"Y\"", 1),
            SCENE.replacen("    3: (", "    4: (),\n    3: (", 1),
            SCENE.replacen("format_version: 1", "format_version: 2", 1),
            SCENE.replacen("name: \"B\"", "nme: \"B\"", 1),
        ] {
            let Next::Whole(Some(_), was) = revision(SCENE).next(&text) else {
                panic!("read in part: {text}");
            };
            // And what it still holds is the last text's read.
            assert_eq!(was.file.parsed, SceneDoc::from_str(SCENE).unwrap());
            assert_eq!(was.file.text, SCENE);
        }
        assert!(matches!(
            revision(SCENE).next(&format!("\u{feff}{SCENE}")),
            Next::Whole(None, _)
        ));
    }
}
