//! The last text each scene path read as, so that the next version of that path (a hot reload,
//! a live value kept into the file) is read again only in the entity entry that changed
//! ([`ParsedScene::reread_edit`], the language server's incremental read).
//!
//! A path is remembered from its second load on, or from its first when the asset server
//! watches for changes: a game that loads a scene once keeps nothing extra (the text and the
//! read document stay in memory while a path is remembered, about the size of the file plus
//! its document).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::format::ParsedScene;

/// The loader's memory of what each path last read as (shared by the loader's clones).
#[derive(Debug, Default, Clone)]
pub(crate) struct LastReads(Arc<Mutex<HashMap<String, Option<LastRead>>>>);

/// A text and what it read as.
#[derive(Debug)]
struct LastRead {
    text: Box<str>,
    parsed: ParsedScene,
}

/// What [`LastReads::start`] decided for one load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Read as always (streamed when large); nothing remembered.
    Once,
    /// Read whole, then remembered: [`LastReads::reread`] first, [`LastReads::remember`]
    /// after a whole read.
    Remember,
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

    /// `bytes`, the new version of `path`, read from the last version by reading again the
    /// one entity entry they differ in: `None` when there is no last version, either is not
    /// text, or the change is not inside one entry (then read `bytes` whole). The result is
    /// exactly what a whole read of `bytes` gives (the contract of
    /// [`ParsedScene::reread_edit`]), and becomes the last version.
    pub(crate) fn reread(&self, path: &str, bytes: &[u8]) -> Option<ParsedScene> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = map.get_mut(path)?;
        let last = slot.as_mut()?;
        let Some((edited, new_len)) = edit_between(&last.text, text) else {
            tracing::debug!(
                "`{path}`: read whole (its text and the last one differ in their byte-order marks)"
            );
            return None;
        };
        if edited.is_empty() && new_len == 0 {
            last.text = text.into();
            return Some(last.parsed.clone());
        }
        // `reread_edit` leaves the read as it was when it returns `false`.
        if !last.parsed.reread_edit(text, edited, new_len) {
            tracing::debug!("`{path}`: read whole (the change is not inside one entity entry)");
            return None;
        }
        last.text = text.into();
        Some(last.parsed.clone())
    }

    /// Remembers that `path` reads as `parsed` from `bytes` (after a whole read of a path
    /// [`start`](Self::start) planned to remember).
    pub(crate) fn remember(&self, path: &str, bytes: &[u8], parsed: &ParsedScene) {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return;
        };
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.insert(
            path.to_owned(),
            Some(LastRead {
                text: text.into(),
                parsed: parsed.clone(),
            }),
        );
    }
}

/// The one edit that makes `new` of `old`: the range of `old` replaced, and the length of what
/// replaced it (`old[..start]` and the text after the range are common to both), on character
/// boundaries. `None` when the texts differ in a byte-order mark (the reader's offsets start
/// after it).
fn edit_between(old: &str, new: &str) -> Option<(std::ops::Range<usize>, usize)> {
    const BOM: char = '\u{feff}';
    if old.starts_with(BOM) || new.starts_with(BOM) {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut start = common_prefix(a, b);
    while !old.is_char_boundary(start) {
        start -= 1;
    }
    let most = a.len().min(b.len()) - start;
    let mut tail = common_suffix(&a[a.len() - most..], &b[b.len() - most..]);
    while !old.is_char_boundary(a.len() - tail) || !new.is_char_boundary(b.len() - tail) {
        tail -= 1;
    }
    Some((start..a.len() - tail, b.len() - tail - start))
}

/// How many bytes `a` and `b` start with in common (compared a block at a time: a scene's
/// text is megabytes).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let blocks = a
        .chunks_exact(BLOCK)
        .zip(b.chunks_exact(BLOCK))
        .take_while(|(x, y)| x == y)
        .count();
    let at = blocks * BLOCK;
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` end with in common.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let blocks = a
        .rchunks_exact(BLOCK)
        .zip(b.rchunks_exact(BLOCK))
        .take_while(|(x, y)| x == y)
        .count();
    let at = blocks * BLOCK;
    at + a[..a.len() - at]
        .iter()
        .rev()
        .zip(b[..b.len() - at].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
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

    fn remembered(text: &str) -> LastReads {
        let reads = LastReads::default();
        assert_eq!(reads.start("s.forge.ron", true), Plan::Remember);
        let parsed = SceneDoc::from_str(text).unwrap();
        reads.remember("s.forge.ron", text.as_bytes(), &parsed);
        reads
    }

    #[test]
    fn a_path_is_remembered_from_its_second_load_or_when_watched() {
        let reads = LastReads::default();
        assert_eq!(reads.start("a", false), Plan::Once);
        assert_eq!(reads.start("a", false), Plan::Remember);
        assert_eq!(reads.start("b", true), Plan::Remember);
        // Nothing read yet: nothing to read from.
        assert!(reads.reread("a", SCENE.as_bytes()).is_none());
    }

    #[test]
    fn an_edit_inside_one_entry_reads_as_a_whole_read_of_the_new_text() {
        let reads = remembered(SCENE);
        let mut text = SCENE.to_owned();
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
            let again = reads.reread("s.forge.ron", text.as_bytes()).unwrap();
            assert_eq!(
                again,
                SceneDoc::from_str(&text).unwrap(),
                "after {from} -> {to}"
            );
        }
        // The same text again reads as it did.
        let same = reads.reread("s.forge.ron", text.as_bytes()).unwrap();
        assert_eq!(same, SceneDoc::from_str(&text).unwrap());
    }

    #[test]
    fn a_change_outside_one_entry_is_read_whole() {
        let reads = remembered(SCENE);
        // Two entries at once, a new entry, the header, and text that does not read.
        for text in [
            SCENE
                .replacen("\"A\"", "\"X\"", 1)
                .replacen("\"C\"", "\"Y\"", 1),
            SCENE.replacen("    3: (", "    4: (),\n    3: (", 1),
            SCENE.replacen("format_version: 1", "format_version: 2", 1),
            SCENE.replacen("name: \"B\"", "nme: \"B\"", 1),
            format!("\u{feff}{SCENE}"),
        ] {
            assert!(
                reads.reread("s.forge.ron", text.as_bytes()).is_none(),
                "{text}"
            );
        }
        // And what it still remembers is the last text that read.
        let text = SCENE.replacen("\"A\"", "\"Z\"", 1);
        let again = reads.reread("s.forge.ron", text.as_bytes()).unwrap();
        assert_eq!(again, SceneDoc::from_str(&text).unwrap());
    }

    #[test]
    fn the_edit_between_two_texts_is_on_character_boundaries() {
        assert_eq!(edit_between("abc", "abc"), Some((3..3, 0)));
        assert_eq!(edit_between("abc", "axc"), Some((1..2, 1)));
        assert_eq!(edit_between("abc", "abbc"), Some((2..2, 1)));
        // é (c3 a9) and è (c3 a8) share a first byte: the edit starts before it.
        assert_eq!(edit_between("xéy", "xèy"), Some((1..3, 2)));
        assert_eq!(edit_between("\u{feff}a", "a"), None);
        // Past a block of 64 bytes on either side.
        let long = "x".repeat(200);
        let (old, new) = (format!("{long}a{long}"), format!("{long}bc{long}"));
        assert_eq!(edit_between(&old, &new), Some((200..201, 2)));
        assert_eq!(
            edit_between(&long, &format!("{long}y")),
            Some((200..200, 1))
        );
        assert_eq!(
            edit_between(&format!("{long}y"), &long),
            Some((200..201, 0))
        );
    }
}
