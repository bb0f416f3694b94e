//! Enum components on import: a game component that is an enum (avian's `RigidBody`) is
//! written whole, as the `value` of a `custom` component (`value: "RigidBody::Dynamic"`),
//! whether the registry reflects it or a schema describes it; Bevy writes it as the bare variant
//! (`"avian3d::dynamics::rigid_body::RigidBody": Dynamic`).

use std::collections::HashMap;

use bevy_ecs::entity::Entity;
use bevy_reflect::{FromReflect, PartialReflect};

use super::NoteKind;
use super::typed::{Unwritable, Val};
use crate::format::CustomComponent;
use crate::schema::expr::render_with;

/// A reflected enum component's value as a `custom` component (`type_path` as the scene writes
/// it), its entities written as references through `ids`.
pub(super) fn enum_component(
    type_path: &str,
    value: &dyn PartialReflect,
    ids: &HashMap<Entity, u64>,
) -> Result<CustomComponent, NoteKind> {
    let entity = |v: &dyn PartialReflect| {
        let e = Entity::from_reflect(v)?;
        ids.get(&e).map(|id| format!("#{id}"))
    };
    let text = render_with(value, &entity).ok_or(NoteKind::Unwritable { field: None })?;
    Ok(CustomComponent {
        type_path: type_path.into(),
        fields: Vec::new(),
        value: Some(text.into()),
    })
}

/// An enum component read by its schema (`value`, the variant read), entities through
/// `refer`; the note of a value no expression writes.
pub(super) fn typed_enum(
    type_path: &str,
    value: &Val,
    refer: &dyn Fn(Entity) -> Option<String>,
) -> Result<CustomComponent, NoteKind> {
    let text = value.render(refer).map_err(|why| match why {
        Unwritable::Handle(path) => NoteKind::Handle {
            field: "value".to_owned(),
            path,
        },
        Unwritable::Other(_) | Unwritable::Outside => NoteKind::Unwritable { field: None },
    })?;
    Ok(CustomComponent {
        type_path: type_path.into(),
        fields: Vec::new(),
        value: Some(text.into()),
    })
}
