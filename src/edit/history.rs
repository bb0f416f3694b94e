//! Undo and redo: the groups of patches an edit recorded, given back and made again byte for
//! byte, and groups of edits between [`SceneEdit::begin`] and [`SceneEdit::end`].

use super::{Patch, PatchGroup, SceneEdit, SceneEditError, hash};

impl SceneEdit {
    /// Starts a group: the edits until [`end`](Self::end) undo and redo as one, labelled
    /// `label`. A `begin` inside a group is part of the outer one: the group closes at the `end`
    /// of the outermost `begin`.
    pub fn begin(&mut self, label: impl Into<String>) {
        self.depth += 1;
        if self.open.is_none() {
            let h = self.hash_now();
            self.open = Some(PatchGroup {
                label: label.into(),
                patches: Vec::new(),
                starts_from: h,
                ends_at: h,
            });
        }
    }

    /// Ends the group [`begin`](Self::begin) started and returns it (`None` when no edit in it
    /// changed anything, and for the `end` of an inner `begin`, which leaves the group open).
    pub fn end(&mut self) -> Option<PatchGroup> {
        self.depth = self.depth.saturating_sub(1);
        if self.depth > 0 {
            return None;
        }
        let group = self.open.take()?;
        if group.patches.is_empty() {
            return None;
        }
        self.undo.push(group.clone());
        Some(group)
    }

    /// Runs `edits` on a copy that writes nothing and returns what they would change, as one
    /// group labelled `label`; this `SceneEdit` (text, file, history) is unchanged.
    ///
    /// # Errors
    /// What `edits` returns.
    pub fn dry_run(
        &self,
        label: impl Into<String>,
        edits: impl FnOnce(&mut SceneEdit) -> Result<(), SceneEditError>,
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let mut copy = self.clone();
        copy.path = None;
        copy.on_disk = None;
        copy.open = None;
        copy.depth = 0;
        copy.begin(label);
        edits(&mut copy)?;
        let mut group = copy.end();
        if let Some(group) = &mut group {
            for patch in &mut group.patches {
                patch.file = self.path.clone();
            }
        }
        Ok(group)
    }

    /// Applies `group` (from a [`dry_run`](Self::dry_run), or another `SceneEdit` of the same
    /// text), recording it for undo.
    ///
    /// # Errors
    /// [`SceneEditError::NotAtStart`] when the text is not the one the group starts from;
    /// file errors as for any edit.
    pub fn apply(&mut self, group: &PatchGroup) -> Result<(), SceneEditError> {
        let text = self.replay(group, false)?;
        self.set_text(text)?;
        self.record(group.clone());
        Ok(())
    }

    /// Undoes the last edit (or group), giving back the exact bytes before it. Inside a group
    /// that has edits, the group ends and is undone (the `end`s still to come return `None`).
    ///
    /// # Errors
    /// [`SceneEditError::NothingTo`] with an empty history; file errors as for any edit.
    pub fn undo(&mut self) -> Result<PatchGroup, SceneEditError> {
        self.close_open_group();
        let group = self.undo.pop().ok_or(SceneEditError::NothingTo("undo"))?;
        match self
            .replay(&group, true)
            .and_then(|text| self.set_text(text))
        {
            Ok(()) => {
                self.redo.push(group.clone());
                Ok(group)
            }
            Err(e) => {
                self.undo.push(group);
                Err(e)
            }
        }
    }

    /// Redoes the last undone edit, giving back the exact bytes after it. Inside a group that
    /// has edits, the group ends first (as for [`undo`](Self::undo)).
    ///
    /// # Errors
    /// [`SceneEditError::NothingTo`] when nothing was undone; file errors as for any edit.
    pub fn redo(&mut self) -> Result<PatchGroup, SceneEditError> {
        self.close_open_group();
        let group = self.redo.pop().ok_or(SceneEditError::NothingTo("redo"))?;
        match self
            .replay(&group, false)
            .and_then(|text| self.set_text(text))
        {
            Ok(()) => {
                self.undo.push(group.clone());
                Ok(group)
            }
            Err(e) => {
                self.redo.push(group);
                Err(e)
            }
        }
    }

    /// Ends the open group when it has edits, whatever its nesting: undo and redo move through
    /// whole groups, and the text is no longer where the group's edits left it.
    fn close_open_group(&mut self) {
        if self.open.as_ref().is_some_and(|g| !g.patches.is_empty()) {
            self.depth = 1;
            self.end();
        }
    }

    /// The text after replaying `group` forwards (or backwards) over the current text.
    fn replay(&self, group: &PatchGroup, backwards: bool) -> Result<String, SceneEditError> {
        let (from, to) = if backwards {
            (group.ends_at, group.starts_from)
        } else {
            (group.starts_from, group.ends_at)
        };
        if self.hash_now() != from {
            return Err(SceneEditError::NotAtStart(group.label.clone()));
        }
        let mut text = self.text.clone();
        let steps: Box<dyn Iterator<Item = &Patch>> = if backwards {
            Box::new(group.patches.iter().rev())
        } else {
            Box::new(group.patches.iter())
        };
        for p in steps {
            let (old, new) = if backwards {
                (&p.after, &p.before)
            } else {
                (&p.before, &p.after)
            };
            let end = p.offset.checked_add(old.len());
            let range = end.map(|end| p.offset..end);
            match range {
                Some(range) if text.get(range.clone()) == Some(old.as_str()) => {
                    text.replace_range(range, new);
                }
                _ => return Err(SceneEditError::NotAtStart(group.label.clone())),
            }
        }
        // A group that does not end where it says would leave the history unable to undo it.
        if hash(&text) != to {
            return Err(SceneEditError::NotAtStart(group.label.clone()));
        }
        Ok(text)
    }

    /// Records `group`: in the open group, or on the undo stack; either way redo is cleared.
    pub(super) fn record(&mut self, group: PatchGroup) {
        self.redo.clear();
        match &mut self.open {
            Some(open) => {
                if open.patches.is_empty() {
                    // The text may have changed since `begin` (an undo): the group starts here.
                    open.starts_from = group.starts_from;
                }
                open.patches.extend(group.patches);
                open.ends_at = group.ends_at;
            }
            None => self.undo.push(group),
        }
    }
}
