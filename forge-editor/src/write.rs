//! Every write the editor makes, in one place: a finished drag and the panel's Keep go through
//! the library's live link ([`live_link::keep`]: the changed values' bytes only, comments
//! kept, checked as the loader checks, written atomically on Bevy's IO task pool, then
//! reloaded); undo and redo ([`live_link::undo`], [`live_link::redo`]) give a keep's files back
//! their exact bytes through the same path. The history of kept steps is here too.
//!
//! Writes reach the disk a few frames after the call: a file is in place when the library's
//! `ForgeSceneWritten` is triggered for it (`live_link::pending_writes` counts those on their
//! way). The history needs nothing of that: each step holds the edit itself, and the library
//! queues an undo behind the write it undoes.

use bevy_forge_scene::live_link::{self, FieldRef, KeepInto, Kept, LinkError};
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

    /// The undo list (`undo`) or the redo list.
    fn list(&mut self, undo: bool) -> &mut Vec<Step> {
        if undo { &mut self.undo } else { &mut self.redo }
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
    replay_last(world, true)
}

/// Redoes the last undone step. `Ok(false)` when there is nothing to redo.
///
/// # Errors
/// [`LinkError::ChangedOnDisk`] when a file was changed since (the step stays to redo).
pub fn redo_last(world: &mut World) -> Result<bool, LinkError> {
    replay_last(world, false)
}

/// Undoes (`backwards`) or redoes the newest step of its list, keep by keep (undo from the
/// last keep to the first), and moves it to the other list. When one keep cannot be replayed,
/// those already replayed are put back and the step stays where it was, whole.
fn replay_last(world: &mut World, backwards: bool) -> Result<bool, LinkError> {
    let Some(step) = world
        .get_resource_mut::<EditHistory>()
        .and_then(|mut h| h.list(backwards).pop())
    else {
        return Ok(false);
    };
    let replay = |world: &mut World, kept: &Kept, backwards: bool| {
        if backwards {
            live_link::undo(world, kept)
        } else {
            live_link::redo(world, kept)
        }
    };
    let order: Vec<&Kept> = if backwards {
        step.kept.iter().rev().collect()
    } else {
        step.kept.iter().collect()
    };
    let mut done: Vec<&Kept> = Vec::new();
    for kept in order {
        if let Err(e) = replay(world, kept, backwards) {
            for kept in done.iter().rev() {
                let _ = replay(world, kept, !backwards);
            }
            world
                .resource_mut::<EditHistory>()
                .list(backwards)
                .push(step);
            return Err(e);
        }
        done.push(kept);
    }
    world
        .resource_mut::<EditHistory>()
        .list(!backwards)
        .push(step);
    Ok(true)
}
