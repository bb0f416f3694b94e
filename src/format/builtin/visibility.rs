//! `visibility`: shown, hidden or as the parent is (Bevy's `Visibility`).

use serde::{Deserialize, Serialize};

use super::{BevyText, BuiltinTag, ComponentData, Payload, Role, Value, ValueRef};

/// Payload of a `visibility` component, a bare identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VisibilityMode {
    /// Visible when the parent is (Bevy's `Visibility::Inherited`).
    #[default]
    Inherited,
    /// Always visible (`Visibility::Visible`).
    Visible,
    /// Hidden with its subtree (`Visibility::Hidden`).
    Hidden,
}

/// The visibility modes of format version 1.
pub const VISIBILITY_MODES: &[&str] = &["inherited", "visible", "hidden"];

const MODES: [VisibilityMode; 3] = [
    VisibilityMode::Inherited,
    VisibilityMode::Visible,
    VisibilityMode::Hidden,
];

impl VisibilityMode {
    /// The identifier written in the file.
    pub fn name(self) -> &'static str {
        VISIBILITY_MODES[self as usize]
    }
}

pub(crate) static VISIBILITY: BuiltinTag = BuiltinTag {
    tag: "visibility",
    doc: "Whether the entity and its subtree are drawn: `inherited` (as the parent), `visible` or `hidden`.",
    bevy: "Visibility",
    payload: Payload::Mode(VISIBILITY_MODES),
    context: "visibility data",
    names: &[],
    groups: &[],
    default: || ComponentData::Visibility(VisibilityMode::Inherited),
    get,
    set,
    role: Role::Plain,
    cross: None,
    export,
    // Set as a whole value.
    assign: super::no_assign,
};

fn get(c: &ComponentData, _: usize) -> Option<ValueRef<'_>> {
    let ComponentData::Visibility(v) = c else {
        return None;
    };
    Some(ValueRef::Mode(*v as usize))
}

fn set(c: &mut ComponentData, _: usize, v: Value) {
    if let (ComponentData::Visibility(mode), Value::Mode(i)) = (c, v)
        && let Some(m) = MODES.get(i)
    {
        *mode = *m;
    }
}

fn export(c: &ComponentData, _: &dyn BevyText) -> Vec<String> {
    let ComponentData::Visibility(v) = c else {
        return Vec::new();
    };
    vec![format!(
        "Visibility::{}",
        ["Inherited", "Visible", "Hidden"][*v as usize]
    )]
}
