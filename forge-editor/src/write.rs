//! Every write the editor makes, in one place: a finished drag and the panel's Keep go through
//! the library's live link ([`live_link::keep`]: the changed values' bytes only, comments
//! kept, checked as the loader checks, written atomically, then reloaded); undo and redo
//! restore a keep's files byte for byte. The history of kept steps is here too.
//!
//! STUB: [`undo`] and [`redo`] stand in for `live_link::undo` and `live_link::redo`, which the
//! library's write path will provide with the same shapes. Until then they turn a [`Kept`]'s
//! patches back (or forward) on the file's current text, refuse with
//! [`LinkError::ChangedOnDisk`] when the text is not what the keep left, write atomically with
//! the library's `project::write_file_atomic`, and ask the asset server to reload. Replace
//! their bodies with the library calls when those land; nothing else changes.

use bevy_forge_scene::live_link::LinkError;
use bevy_forge_scene::live_link::{self, FieldRef, KeepInto, Kept, KeptFile, KeptPatch};
use bevy_internal::asset::AssetServer;
use bevy_internal::ecs::prelude::*;

/// One undo step: what one action kept, root by root (a drag of entities of two scenes keeps
/// into each).
#[derive(Debug, Clone)]
pub struct Step {
    /// What each keep wrote.
    pub kept: Vec<Kept>,
}

/// The steps kept in this session, for Ctrl+Z and Ctrl+Shift+Z. A new step clears the redo
/// list.
#[derive(Resource, Debug, Default)]
pub struct EditHistory {
    undo: Vec<Step>,
    redo: Vec<Step>,
}

impl EditHistory {
    /// Steps that can be undone.
    pub fn undo_len(&self) -> usize {
        self.undo.len()
    }

    /// Steps that can be redone.
    pub fn redo_len(&self) -> usize {
        self.redo.len()
    }

    fn push(&mut self, step: Step) {
        self.undo.push(step);
        self.redo.clear();
    }
}

/// Keeps `changes` of the instance on `root` (live values into the files; all of its
/// differences when `None`), as one undo step. A finished drag keeps the transform parts it
/// changed, one call for the whole drag.
///
/// # Errors
/// As [`live_link::keep`]: [`LinkError::Invalid`] with the diagnostic when the files would not
/// validate, [`LinkError::ChangedOnDisk`], ...; nothing is written and no step is recorded.
pub fn keep(
    world: &mut World,
    root: Entity,
    changes: Option<&[FieldRef]>,
    into: KeepInto,
) -> Result<Kept, LinkError> {
    let kept = live_link::keep(world, root, changes, into, false)?;
    if kept.written {
        world
            .get_resource_or_insert_with(EditHistory::default)
            .push(Step {
                kept: vec![kept.clone()],
            });
    }
    Ok(kept)
}

/// Undoes the last kept step: each file back to its exact bytes before it, then reloaded
/// (the live values follow the files). `Ok(false)` when there is nothing to undo.
///
/// # Errors
/// [`LinkError::ChangedOnDisk`] when a file was changed since (the step stays to undo).
pub fn undo_last(world: &mut World) -> Result<bool, LinkError> {
    let Some(step) = world
        .get_resource_mut::<EditHistory>()
        .and_then(|mut h| h.undo.pop())
    else {
        return Ok(false);
    };
    let mut done = Vec::new();
    for kept in step.kept.iter().rev() {
        match undo(world, kept) {
            Ok(_) => done.push(kept.clone()),
            Err(e) => {
                // Put back what was undone, so the step stays whole.
                for kept in done.iter().rev() {
                    let _ = redo(world, kept);
                }
                world.resource_mut::<EditHistory>().undo.push(step);
                return Err(e);
            }
        }
    }
    world.resource_mut::<EditHistory>().redo.push(step);
    Ok(true)
}

/// Redoes the last undone step. `Ok(false)` when there is nothing to redo.
///
/// # Errors
/// [`LinkError::ChangedOnDisk`] when a file was changed since (the step stays to redo).
pub fn redo_last(world: &mut World) -> Result<bool, LinkError> {
    let Some(step) = world
        .get_resource_mut::<EditHistory>()
        .and_then(|mut h| h.redo.pop())
    else {
        return Ok(false);
    };
    let mut done = Vec::new();
    for kept in &step.kept {
        match redo(world, kept) {
            Ok(_) => done.push(kept.clone()),
            Err(e) => {
                for kept in done.iter().rev() {
                    let _ = undo(world, kept);
                }
                world.resource_mut::<EditHistory>().redo.push(step);
                return Err(e);
            }
        }
    }
    world.resource_mut::<EditHistory>().undo.push(step);
    Ok(true)
}

/// STUB for `live_link::undo`: restores each file of `kept` to its exact bytes from before
/// the keep and reloads it.
///
/// # Errors
/// [`LinkError::ChangedOnDisk`] when a file is no longer what the keep left (nothing is
/// written then); [`LinkError::Read`] / [`LinkError::Write`] for a file that cannot be read or
/// written.
pub fn undo(world: &mut World, kept: &Kept) -> Result<Kept, LinkError> {
    turn(world, kept, Way::Back)
}

/// STUB for `live_link::redo`: writes `kept`'s changes again on the exact bytes the undo
/// restored, and reloads.
///
/// # Errors
/// As [`undo`].
pub fn redo(world: &mut World, kept: &Kept) -> Result<Kept, LinkError> {
    turn(world, kept, Way::Forward)
}

/// Which way [`splice`] turns a keep's patches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// From the text after the keep to the text before it.
    Back,
    /// From the text before the keep to the text after it.
    Forward,
}

fn turn(world: &mut World, kept: &Kept, way: Way) -> Result<Kept, LinkError> {
    let mut texts = Vec::new();
    for file in &kept.files {
        let now = std::fs::read_to_string(&file.file).map_err(|e| LinkError::Read {
            file: file.file.display().to_string(),
            reason: e.to_string(),
        })?;
        let text = splice(&now, &file.patches, way)
            .ok_or_else(|| LinkError::ChangedOnDisk(file.file.display().to_string()))?;
        texts.push(text);
    }
    for (file, text) in kept.files.iter().zip(&texts) {
        bevy_forge_scene::project::write_file_atomic(&file.file, text.as_bytes())?;
    }
    if let Some(server) = world.get_resource::<AssetServer>() {
        for file in &kept.files {
            server.reload(file.asset.clone());
        }
    }
    let swap = |p: &KeptPatch| KeptPatch {
        before: p.after.clone(),
        after: p.before.clone(),
        ..p.clone()
    };
    Ok(Kept {
        kept: kept.kept.clone(),
        files: kept
            .files
            .iter()
            .map(|f| KeptFile {
                patches: match way {
                    Way::Back => f.patches.iter().map(swap).collect(),
                    Way::Forward => f.patches.clone(),
                },
                ..f.clone()
            })
            .collect(),
        written: true,
    })
}

/// `text` with `patches` (sorted, not overlapping, their lines and columns in the text before
/// the keep) turned back (`Way::Back`: `text` is the text after, each `after` replaced by its
/// `before`) or forward. `None` when a patch's text is not where it should be: the file is not
/// the one the keep made (or started from).
fn splice(text: &str, patches: &[KeptPatch], way: Way) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // The position in the text before the keep: the output going back, the input going forward.
    let (mut line, mut column) = (1u32, 1u32);
    let step = |c: char, line: &mut u32, column: &mut u32| {
        if c == '\n' {
            *line += 1;
            *column = 1;
        } else {
            *column += 1;
        }
    };
    for p in patches {
        while (line, column) < (p.line, p.column) {
            let c = rest.chars().next()?;
            out.push(c);
            rest = &rest[c.len_utf8()..];
            step(c, &mut line, &mut column);
        }
        if (line, column) != (p.line, p.column) {
            return None;
        }
        let (remove, insert) = match way {
            Way::Back => (&p.after, &p.before),
            Way::Forward => (&p.before, &p.after),
        };
        rest = rest.strip_prefix(remove.as_str())?;
        out.push_str(insert);
        // The position moves over the text-before's side of the patch.
        let before_side = match way {
            Way::Back => insert,
            Way::Forward => remove,
        };
        for c in before_side.chars() {
            step(c, &mut line, &mut column);
        }
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(line: u32, column: u32, before: &str, after: &str) -> KeptPatch {
        KeptPatch {
            line,
            column,
            before: before.to_owned(),
            after: after.to_owned(),
        }
    }

    #[test]
    fn patches_turn_back_and_forward_byte_for_byte() {
        let before = "(\n  // a comment\n  x: 1.0, y: \"é\", z: 3.0,\n  w: (a: 1),\n)\n";
        let after = "(\n  // a comment\n  x: 1.5, y: \"é\", z: 30.25,\n  w: (a: 1, b: 2),\n)\n";
        let patches = [
            patch(3, 6, "1.0", "1.5"),
            patch(3, 22, "3.0", "30.25"),
            patch(4, 11, ")", ", b: 2)"),
        ];
        assert_eq!(splice(after, &patches, Way::Back).as_deref(), Some(before));
        assert_eq!(
            splice(before, &patches, Way::Forward).as_deref(),
            Some(after)
        );
    }

    #[test]
    fn patches_across_lines_keep_the_positions_of_the_text_before() {
        let before = "a: 1\nb: 2\nc: 3\n";
        let after = "a: 1,\n  extra\nb: 2\nc: 9\n";
        let patches = [patch(1, 5, "", ",\n  extra"), patch(3, 4, "3", "9")];
        assert_eq!(splice(after, &patches, Way::Back).as_deref(), Some(before));
        assert_eq!(
            splice(before, &patches, Way::Forward).as_deref(),
            Some(after)
        );
    }

    #[test]
    fn a_file_changed_since_is_refused() {
        let patches = [patch(1, 4, "1.0", "1.5")];
        assert_eq!(splice("x: 2.0\n", &patches, Way::Back), None);
        assert_eq!(splice("x", &patches, Way::Back), None);
        // No patches: the text as it is.
        assert_eq!(
            splice("x: 2.0\n", &[], Way::Back).as_deref(),
            Some("x: 2.0\n")
        );
    }
}
