//! The last version of each scene path the loader read, so that the next version of that path
//! (a hot reload, a live value kept into the file) costs what it changed: the text read again
//! only in the entity entry that changed ([`ParsedScene::reread_edit`]), checked again only
//! where it changed (the pipeline's incremental check), and prepared again only for the
//! entities whose values changed.
//!
//! A path is remembered from its second load on, or from its first when the asset server
//! watches for changes: a game that loads a scene once keeps nothing extra. While a path is
//! remembered its text, its read document (entities shared with the loaded scene) and source
//! map, and what its check found are kept: about the size of the file plus its source map.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::format::{ParsedScene, TextChange};
use crate::pipeline::incremental::MemoryOf;
use crate::runtime::values::builtin::BuiltinsMemory;
use crate::runtime::values::custom::CustomContext;

/// The loader's memory of what each path last read as (shared by the loader's clones).
#[derive(Default, Clone)]
pub(crate) struct LastReads(Arc<Mutex<HashMap<String, Option<LastRead>>>>);

impl std::fmt::Debug for LastReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastReads").finish_non_exhaustive()
    }
}

/// The last version of one path.
pub(crate) struct LastRead {
    /// Its text.
    pub(crate) text: String,
    /// What the text read as.
    pub(crate) parsed: ParsedScene,
    /// What its check kept for the next one (`None` when the check keeps nothing: renamed
    /// types, a trusted stamp).
    pub(crate) checked: Option<MemoryOf<CustomContext>>,
    /// What preparing its built-ins kept (from the last version that loaded; a version that
    /// failed its check prepares nothing).
    pub(crate) builtins: Option<BuiltinsMemory>,
}

/// What [`LastReads::start`] decided for one load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Read as always (streamed when large); nothing remembered.
    Once,
    /// Read whole, from the last version when there is one ([`LastReads::take`]), and
    /// remembered ([`LastReads::put`]).
    Remember,
}

/// How the next version of a path reads ([`LastRead::next`]).
// Made and matched at once, one per load: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Next {
    /// Read from the last one: the edit between the two texts, and what the new text reads as
    /// (the last version's document and source map, brought up to date).
    Read(TextChange, ParsedScene),
    /// To be read whole: the edit from the last text when the two can be compared, and the
    /// last version as it was (to keep if the new text does not read).
    Whole(Option<TextChange>, LastRead),
}

impl LastReads {
    /// Notes a load of `path` and says how to read it: [`Plan::Remember`] for a path loaded
    /// before, or for every path when `watching` (the asset server watches for changes).
    pub(crate) fn start(&self, path: &str, watching: bool) -> Plan {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if map.contains_key(path) || watching {
            map.entry(path.to_owned()).or_insert(None);
            Plan::Remember
        } else {
            map.insert(path.to_owned(), None);
            Plan::Once
        }
    }

    /// Forgets what `path` last read as (its loads are not incremental).
    pub(crate) fn forget(&self, path: &str) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.remove(path);
    }

    /// Takes the last version of `path` out (the load that reads the next one puts one back).
    pub(crate) fn take(&self, path: &str) -> Option<LastRead> {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get_mut(path).and_then(Option::take)
    }

    /// Remembers `last` as the last version of `path`.
    pub(crate) fn put(&self, path: &str, last: LastRead) {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.insert(path.to_owned(), Some(last));
    }
}

impl LastRead {
    /// `text`, the next version, read from this one: only the entity entry the edit between
    /// the two is in, when it is in one; else [`Next::Whole`] (the edit spans entries or the
    /// header, or the texts differ in a byte-order mark). What it reads is exactly what a whole
    /// read of `text` gives (the contract of [`ParsedScene::reread_edit`]).
    pub(crate) fn next(mut self, text: &str) -> Next {
        let Some(change) = TextChange::between(&self.text, text) else {
            return Next::Whole(None, self);
        };
        // `reread_edit` leaves the read as it was when it returns `false`.
        if change.is_none()
            || self
                .parsed
                .reread_edit(text, change.start..change.old_end, change.new_len)
        {
            Next::Read(change, self.parsed)
        } else {
            Next::Whole(Some(change), self)
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

    fn last(text: &str) -> LastRead {
        LastRead {
            text: text.to_owned(),
            parsed: SceneDoc::from_str(text).unwrap(),
            checked: None,
            builtins: None,
        }
    }

    #[test]
    fn a_path_is_remembered_from_its_second_load_or_when_watched() {
        let reads = LastReads::default();
        assert_eq!(reads.start("a", false), Plan::Once);
        assert_eq!(reads.start("a", false), Plan::Remember);
        assert_eq!(reads.start("b", true), Plan::Remember);
        // Nothing read yet: nothing to read from.
        assert!(reads.take("a").is_none());
        reads.put("a", last(SCENE));
        assert!(reads.take("a").is_some());
        assert!(reads.take("a").is_none(), "taken out");
    }

    #[test]
    fn an_edit_inside_one_entry_reads_as_a_whole_read_of_the_new_text() {
        let mut text = SCENE.to_owned();
        let mut was = last(SCENE);
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
            let expected = TextChange::between(&was.text, &text).unwrap();
            let Next::Read(change, again) = was.next(&text) else {
                panic!("read whole after {from} -> {to}");
            };
            assert_eq!(change, expected);
            assert_eq!(
                again,
                SceneDoc::from_str(&text).unwrap(),
                "after {from} -> {to}"
            );
            was = LastRead {
                text: text.clone(),
                parsed: again,
                checked: None,
                builtins: None,
            };
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
            let Next::Whole(Some(_), was) = last(SCENE).next(&text) else {
                panic!("read in part: {text}");
            };
            // And what it still holds is the last text's read.
            assert_eq!(was.parsed, SceneDoc::from_str(SCENE).unwrap());
        }
        assert!(matches!(
            last(SCENE).next(&format!("\u{feff}{SCENE}")),
            Next::Whole(None, _)
        ));
    }
}
