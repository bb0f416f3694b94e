//! The built-in components (feature `builtins`), read by each tag's own `read` in
//! `runtime::values::builtin`, the same mapping saving a live instance uses.

use std::any::TypeId;

use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{FromReflect, PartialReflect, ReflectRef, TypePath, TypeRegistry};

use super::{HandlePaths, NoteKind, Part, ident, is_bevy};
use crate::format::EntityNode;
use crate::runtime::values::builtin::{self, CAMERA_IMPLIED, Parts};

/// An entity's parts as [`builtin::read`] sees them: taken parts are marked used, what the
/// file form leaves out becomes a note.
struct Reading<'p, 'a> {
    parts: &'p mut [Part<'a>],
    paths: &'p HandlePaths,
    notes: &'p mut Vec<(String, NoteKind)>,
}

impl Parts for Reading<'_, '_> {
    fn take<T: bevy_ecs::component::Component + FromReflect + TypePath + Clone>(
        &mut self,
    ) -> Option<T> {
        let part = self
            .parts
            .iter_mut()
            .find(|p| !p.used && p.type_id == Some(TypeId::of::<T>()))?;
        let value = T::from_reflect(part.value)?;
        part.used = true;
        Some(value)
    }
    fn path_of(&self, handle: &bevy_asset::UntypedHandle) -> Option<String> {
        self.paths.path_of(handle)
    }
    fn partial<T: PartialReflect + TypePath>(&mut self, tag: &'static str, original: &T, kept: &T) {
        let fields = differing(original, kept);
        if !fields.is_empty() {
            self.notes
                .push((T::type_path().to_owned(), NoteKind::Partial { tag, fields }));
        }
    }
    fn without_path<T: TypePath>(&mut self) {
        self.notes
            .push((T::type_path().to_owned(), NoteKind::MeshWithoutPath));
    }
}

/// The fields of two values of one struct type that differ.
fn differing(original: &dyn PartialReflect, kept: &dyn PartialReflect) -> Vec<String> {
    let (ReflectRef::Struct(a), ReflectRef::Struct(b)) =
        (original.reflect_ref(), kept.reflect_ref())
    else {
        return if original.reflect_partial_eq(kept) == Some(true) {
            Vec::new()
        } else {
            vec!["0".to_owned()]
        };
    };
    (0..a.field_len())
        .filter_map(|i| {
            let name = a.name_at(i)?;
            let same = b
                .field(name)
                .and_then(|f| a.field_at(i)?.reflect_partial_eq(f));
            (same != Some(true)).then(|| name.to_owned())
        })
        .collect()
}

/// Maps the built-ins among `parts` into `node`, marking what it used.
pub(super) fn map(
    parts: &mut [Part],
    node: &mut EntityNode,
    paths: &HandlePaths,
    registry: &TypeRegistry,
    notes: &mut Vec<(String, NoteKind)>,
) {
    let mut tags: Vec<&'static str> = Vec::new();
    let mut reading = Reading {
        parts: &mut *parts,
        paths,
        notes: &mut *notes,
    };
    for tag in builtin::TAGS {
        if let Some(c) = builtin::read(&mut reading, tag, None) {
            node.components.push(c);
            tags.push(tag);
        }
    }
    // What the built-ins bring along: dropped, with a note when changed.
    let camera = tags.iter().any(|t| t.starts_with("camera"));
    for part in parts.iter_mut().filter(|p| !p.used && is_bevy(p.type_path)) {
        let name = ident(part.type_path);
        let by = tags
            .iter()
            .find(|t| builtin::implied(t).contains(&name))
            .copied()
            .or_else(|| {
                (camera && CAMERA_IMPLIED.contains(&name))
                    .then(|| tags.iter().copied().find(|t| t.starts_with("camera")))
                    .flatten()
            });
        let Some(tag) = by else { continue };
        part.used = true;
        // A 2D camera's projection is its own orthographic default, not `Projection`'s.
        let projection = name == "Projection";
        let default = part
            .type_id
            .and_then(|t| registry.get_type_data::<ReflectDefault>(t))
            .map(ReflectDefault::default);
        let changed =
            !projection && default.is_none_or(|d| d.reflect_partial_eq(part.value) != Some(true));
        if changed {
            notes.push((part.type_path.to_owned(), NoteKind::Implied { tag }));
        }
    }
}
