//! Custom components: components of the game's own types (the format page, "Custom
//! components"). The built-ins and [`ComponentData`](super::ComponentData) are in `builtin`.

pub use ecow::EcoString;
use serde::{Deserialize, Serialize};

/// A component of the game's own type (the format page, "Custom components").
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CustomComponent {
    /// A Rust type path: `Health`, `my_game::Health`, `my_game::components::Health`.
    pub type_path: EcoString,
    /// Ordered field initialisers (of a struct; an enum is written whole, in `value`).
    #[serde(default)]
    pub fields: Vec<CustomField>,
    /// The whole value as one field expression (`"RigidBody::Dynamic"`,
    /// `"Shape::Circle(1.0)"`): how an enum component is written. `None` when the file writes
    /// no `value` (a struct's `fields`; an enum's `Default`). The file writes a plain string
    /// (`value: ".."`), never `Some(..)`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "plain_string"
    )]
    pub value: Option<EcoString>,
}

impl CustomComponent {
    /// Sets field `name` to `expr`: the last field of that name when the component writes it
    /// more than once (an error, `forge::custom::duplicate_field`; the last is the one a later
    /// reader of the list takes, as overrides do), else a new field after the others.
    pub fn set_field(&mut self, name: &str, expr: &str) {
        match self.fields.iter_mut().rev().find(|f| f.name == name) {
            Some(f) => f.expr = expr.into(),
            None => self.fields.push(CustomField::new(name, expr)),
        }
    }
}

/// `Option<EcoString>` as the file writes it: a present string, or no field at all.
mod plain_string {
    use super::EcoString;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &Option<EcoString>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_str(v),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<EcoString>, D::Error> {
        EcoString::deserialize(d).map(Some)
    }
}

/// One field initialiser of a custom component: `(name: "radius", expr: "2.0")`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CustomField {
    /// The Rust field identifier.
    pub name: EcoString,
    /// A Rust expression, stored verbatim.
    pub expr: EcoString,
}

impl CustomField {
    /// Creates a field initialiser.
    pub fn new(name: impl Into<EcoString>, expr: impl Into<EcoString>) -> Self {
        Self {
            name: name.into(),
            expr: expr.into(),
        }
    }
}
