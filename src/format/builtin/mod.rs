//! One home per built-in component tag: each tag's file holds its payload type, its fields (kind,
//! unit, range, default, doc line), its rules, how it is written back and the Bevy values it
//! exports as. The reader, the writer, validation, prefab overrides, the cooked form, the edit
//! layer, export and the language server all walk these descriptions instead of matching on the
//! tags; the Bevy half of each tag (spawn, capture, import) lives in `runtime::builtin`, under
//! the same file name.
//!
//! | tag | file | payload |
//! |---|---|---|
//! | `sprite` | `sprite.rs` | [`SpriteData`] |
//! | `text2d` | `text2d.rs` | [`Text2dData`] |
//! | `camera2d`, `camera3d` | `camera.rs` | none |
//! | `point_light` | `point_light.rs` | [`PointLightData`] |
//! | `directional_light` | `directional_light.rs` | [`DirectionalLightData`] |
//! | `mesh3d` | `mesh3d.rs` | [`Mesh3dData`] |
//! | `visibility` | `visibility.rs` | [`VisibilityMode`] |
//! | `spot_light` | `spot_light.rs` | [`SpotLightData`] |
//!
//! Adding a tag: a file here with its payload and [`BuiltinTag`], a line in [`BUILTINS`] and in
//! the list of [`ComponentData`]'s variants, the Bevy half in `runtime::builtin`, and its section
//! of the format page.

/// The `get` and `set` of a tag's [`BuiltinTag`] for a payload `ComponentData::$variant` whose
/// fields (paths below the payload) are listed in the order of the descriptor's fields. Each
/// field's Rust type says its kind ([`FieldValue`]).
macro_rules! accessors {
    ($variant:ident: $($($field:ident).+),+ $(,)?) => {
        fn get(c: &ComponentData, i: usize) -> Option<ValueRef<'_>> {
            let ComponentData::$variant(d) = c else {
                return None;
            };
            let fields: &[&dyn $crate::format::builtin::FieldValue] = &[$(&d.$($field).+),+];
            fields.get(i).map(|f| f.get())
        }

        fn set(c: &mut ComponentData, i: usize, v: Value) {
            let ComponentData::$variant(d) = c else {
                return;
            };
            let mut k = 0..;
            $(
                if k.next() == Some(i) {
                    return $crate::format::builtin::FieldValue::set(&mut d.$($field).+, v);
                }
            )+
        }
    };
}

mod camera;
mod directional_light;
mod mesh3d;
mod point_light;
mod spot_light;
mod sprite;
mod text2d;
mod visibility;

pub use directional_light::DirectionalLightData;
pub use mesh3d::{
    MESH_SOURCES, MaterialData, Mesh3dData, MeshSource, PRIMITIVE_SHAPES, PrimitiveShape,
};
pub use point_light::PointLightData;
pub use spot_light::SpotLightData;
pub use sprite::SpriteData;
pub use text2d::Text2dData;
pub use visibility::{VISIBILITY_MODES, VisibilityMode};

pub(crate) use camera::{CAMERA2D, CAMERA3D};
pub(crate) use directional_light::DIRECTIONAL_LIGHT;
pub(crate) use mesh3d::MESH3D;
pub(crate) use point_light::POINT_LIGHT;
pub(crate) use spot_light::SPOT_LIGHT;
pub(crate) use sprite::SPRITE;
pub(crate) use text2d::TEXT2D;
pub(crate) use visibility::VISIBILITY;

use super::component::CustomComponent;
use super::value::{ColorData, Vec2Data};

/// Every built-in tag, in the order of the format page's table (`custom` is not a built-in).
pub static BUILTINS: &[&BuiltinTag] = &[
    &SPRITE,
    &TEXT2D,
    &CAMERA2D,
    &CAMERA3D,
    &POINT_LIGHT,
    &DIRECTIONAL_LIGHT,
    &MESH3D,
    &VISIBILITY,
    &SPOT_LIGHT,
];

/// The built-in with tag `tag` (`sprite`, `point_light`, ...), if there is one.
pub fn builtin_tag(tag: &str) -> Option<&'static BuiltinTag> {
    BUILTINS.iter().copied().find(|b| b.tag == tag)
}

/// The asset paths a component names, with the field that holds each (`image`, `mesh.value`)
/// and how messages name its value (`sprite image`).
pub(crate) fn assets(c: &ComponentData) -> Vec<(&'static str, &'static str, &str)> {
    let Some(b) = c.builtin() else {
        return Vec::new();
    };
    (0..b.fields().len())
        .filter_map(|i| {
            let field = &b.fields()[i];
            match (b.get)(c, i)? {
                ValueRef::Image(Some(path)) => Some((field.path, field.noun, path)),
                ValueRef::Mesh(MeshSource::Asset(path)) => {
                    Some(("mesh.value", field.noun, path.as_str()))
                }
                _ => None,
            }
        })
        .collect()
}

/// What one built-in component tag is: its payload's fields with their kinds, units, ranges and
/// defaults, and the Bevy components it becomes. [`BUILTINS`] lists them all;
/// [`ComponentData::builtin`] finds a component's.
pub struct BuiltinTag {
    /// The tag written as `type:` (`point_light`).
    pub tag: &'static str,
    /// One line: what the component is.
    pub doc: &'static str,
    /// The Bevy components it spawns as (`PointLight`, `Text2d + TextFont + TextColor`).
    pub bevy: &'static str,
    /// What `data:` holds.
    pub payload: Payload,
    /// `sprite data`: how errors name the payload.
    pub(crate) context: &'static str,
    /// The names of the payload's top level, in canonical order (a group once: `material`).
    pub(crate) names: &'static [&'static str],
    /// The nested groups of the payload and their names (`material`: `base_color`, ...).
    pub(crate) groups: &'static [(&'static str, &'static [&'static str])],
    /// The component with every field at its default (a required field at a placeholder the
    /// reader replaces or refuses).
    pub(crate) default: fn() -> ComponentData,
    /// Field `i` of a component of this tag (`None` for another tag).
    pub(crate) get: fn(&ComponentData, usize) -> Option<ValueRef<'_>>,
    /// Sets field `i` of a component of this tag (values of another kind are ignored).
    pub(crate) set: fn(&mut ComponentData, usize, Value),
    /// What validation counts it as.
    pub(crate) role: Role,
    /// A rule over several fields, beyond each field's own range.
    pub(crate) cross: Option<fn(&ComponentData) -> Option<Problem>>,
    /// The Bevy values of a component of this tag, as an exporter spells them.
    pub(crate) export: fn(&ComponentData, &dyn BevyText) -> Vec<String>,
    /// Field `i` of a component of this tag written onto a live Bevy component, as an exporter
    /// spells it (a placed model's override `set`s fields of the model's own values); `None`
    /// when the field is not one field of one Bevy component (a `mesh3d`'s material is an
    /// asset, its mesh a handle the model shares).
    pub(crate) assign: fn(&ComponentData, usize, &dyn BevyText) -> Option<Assign>,
}

/// One field of a built-in written onto a live Bevy component: `intensity = 900.0` on
/// `PointLight`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assign {
    /// The Bevy component that holds the field (`PointLight`, `TextFont`).
    pub(crate) component: &'static str,
    /// The assignment below the component (`intensity = 900.0`, `0 = Color::srgba(..)`).
    pub(crate) statement: String,
}

impl Assign {
    pub(crate) fn new(component: &'static str, statement: String) -> Option<Self> {
        Some(Self {
            component,
            statement,
        })
    }
}

/// [`BuiltinTag::assign`] of a tag with no field written on its own.
pub(crate) fn no_assign(_: &ComponentData, _: usize, _: &dyn BevyText) -> Option<Assign> {
    None
}

impl std::fmt::Debug for BuiltinTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltinTag")
            .field("tag", &self.tag)
            .field("bevy", &self.bevy)
            .field("payload", &self.payload)
            .finish_non_exhaustive()
    }
}

impl BuiltinTag {
    /// The payload's fields (none for a unit or a mode payload).
    pub fn fields(&self) -> &'static [BuiltinField] {
        match self.payload {
            Payload::Fields(fields) => fields,
            _ => &[],
        }
    }

    /// The field at dotted path `path` (`intensity`, `material.metallic`), with its index.
    pub fn field(&self, path: &str) -> Option<(usize, &'static BuiltinField)> {
        self.fields()
            .iter()
            .enumerate()
            .find(|(_, f)| f.path == path)
    }

    /// The index of field `path`, for the reader's and the writer's walks.
    pub(crate) fn index_of(&self, path: &str) -> Option<usize> {
        self.fields().iter().position(|f| f.path == path)
    }

    /// The names of group `group` (`material`), if the payload has it.
    pub(crate) fn group(&self, group: &str) -> Option<&'static [&'static str]> {
        self.groups
            .iter()
            .find(|(g, _)| *g == group)
            .map(|(_, names)| *names)
    }
}

/// What a built-in's `data:` holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Payload {
    /// Nothing: `(type: camera2d)` (`data: ()` is allowed).
    Unit,
    /// One bare identifier of these: `data: hidden`. An override sets it as a whole.
    Mode(&'static [&'static str]),
    /// A struct of these fields; a dotted path (`material.metallic`) is a field of a nested
    /// struct. An override sets any of them.
    Fields(&'static [BuiltinField]),
}

/// One field of a built-in's payload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuiltinField {
    /// Its path below `data` (`intensity`, `material.metallic`).
    pub path: &'static str,
    /// What it holds.
    pub kind: FieldKind,
    /// Its unit, where it has one (`lumens`, `degrees`, `pixels`).
    pub unit: Option<&'static str>,
    /// The values it accepts.
    pub range: FieldRange,
    /// Its value when left out, as written in the file; `None` when it is required.
    pub default: Option<&'static str>,
    /// One line: what it means.
    pub doc: &'static str,
    /// How messages name the component (`point light`, `material`).
    pub(crate) noun: &'static str,
    /// The code of "must be finite" for a number written as `NaN` or `inf`; `None` when the
    /// range's own message covers it.
    pub(crate) finite: Option<&'static str>,
    /// The code of a value outside [`range`](Self::range).
    pub(crate) code: &'static str,
    /// The help of a value outside the range.
    pub(crate) help: Option<&'static str>,
}

impl BuiltinField {
    /// A field of kind `kind`, any value, required.
    pub(crate) const fn new(path: &'static str, kind: FieldKind, doc: &'static str) -> Self {
        Self {
            path,
            kind,
            unit: None,
            range: FieldRange::Any,
            default: None,
            doc,
            noun: "",
            finite: None,
            code: "",
            help: None,
        }
    }

    /// With the unit `unit`.
    pub(crate) const fn unit(self, unit: &'static str) -> Self {
        Self {
            unit: Some(unit),
            ..self
        }
    }

    /// With the range `range`, reported with `code` and `help`.
    pub(crate) const fn range(
        self,
        range: FieldRange,
        code: &'static str,
        help: Option<&'static str>,
    ) -> Self {
        Self {
            range,
            code,
            help,
            ..self
        }
    }

    /// Optional, `default` when left out.
    pub(crate) const fn default(self, default: &'static str) -> Self {
        Self {
            default: Some(default),
            ..self
        }
    }

    /// Named `noun` in messages; non-finite numbers reported with `finite`.
    pub(crate) const fn noun(self, noun: &'static str, finite: Option<&'static str>) -> Self {
        Self {
            noun,
            finite,
            ..self
        }
    }

    /// The nested group it belongs to (`material` of `material.metallic`), and its own name.
    pub(crate) fn split(&self) -> (Option<&'static str>, &'static str) {
        match self.path.split_once('.') {
            Some((group, name)) => (Some(group), name),
            None => (None, self.path),
        }
    }
}

/// What a built-in field holds, as written in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldKind {
    /// An `f32`: `800.0`.
    Float,
    /// `true` or `false`.
    Bool,
    /// A string: `"Hello"`.
    Text,
    /// An sRGB colour: `(r: 1.0, g: 0.5, b: 0.0, a: 1.0)`.
    Color,
    /// `None` or `Some("textures/player.png")`: an image path relative to the assets directory.
    Image,
    /// `None` or `Some((x: 32.0, y: 32.0))`: a size.
    Size,
    /// A mesh source: `(source: primitive, value: sphere(radius: 0.5))` or
    /// `(source: asset, value: "models/robot.glb#Mesh0/Primitive0")`.
    Mesh,
}

impl FieldKind {
    /// How the format page writes a value of this kind.
    pub fn describe(self) -> &'static str {
        match self {
            FieldKind::Float => "f32",
            FieldKind::Bool => "bool",
            FieldKind::Text => "string",
            FieldKind::Color => "colour (r, g, b, a), sRGB",
            FieldKind::Image => "Option<image path>",
            FieldKind::Size => "Option<(x, y)>",
            FieldKind::Mesh => "mesh source (primitive or asset)",
        }
    }
}

/// The values a built-in field accepts. Numbers must be finite whatever the range.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FieldRange {
    /// Any value of its kind.
    Any,
    /// `>= 0`.
    NonNegative,
    /// `> 0` (for a size: each axis).
    Positive,
    /// `min..=max`; outside is an error.
    Within(f32, f32),
    /// `min..=max`; outside is a warning (the renderer clamps).
    Advised(f32, f32),
    /// A non-empty string; empty warns.
    NotEmpty,
}

impl std::fmt::Display for FieldRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldRange::Any => f.write_str("any"),
            FieldRange::NonNegative => f.write_str(">= 0"),
            FieldRange::Positive => f.write_str("> 0"),
            FieldRange::Within(min, max) => write!(f, "{min}..={max}"),
            FieldRange::Advised(min, max) => write!(f, "{min}..={max} (outside warns)"),
            FieldRange::NotEmpty => f.write_str("not empty (empty warns)"),
        }
    }
}

/// What validation counts a built-in as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Plain,
    Camera2d,
    Camera3d,
    Light,
    Mesh,
}

/// A problem a rule over several fields found.
pub(crate) struct Problem {
    pub(crate) error: bool,
    pub(crate) code: &'static str,
    pub(crate) message: String,
    pub(crate) help: Option<&'static str>,
    /// The field it is at; `None` for the component as a whole.
    pub(crate) field: Option<&'static str>,
}

/// A payload field's Rust type, which says its kind: `f32` a number, `bool`, `String` text, a
/// colour, `Option<String>` an image path, `Option<Vec2Data>` a size, a mesh source.
pub(crate) trait FieldValue {
    fn get(&self) -> ValueRef<'_>;
    /// Sets it from `v` when `v` is of its kind (patches and the cooked form give only that).
    fn set(&mut self, v: Value);
}

macro_rules! field_value {
    ($($ty:ty => $kind:ident($v:ident => $get:expr)),+ $(,)?) => {$(
        impl FieldValue for $ty {
            fn get(&self) -> ValueRef<'_> {
                let $v = self;
                ValueRef::$kind($get)
            }
            fn set(&mut self, v: Value) {
                if let Value::$kind(v) = v {
                    *self = v;
                }
            }
        }
    )+};
}

field_value! {
    f32 => Float(v => *v),
    bool => Bool(v => *v),
    String => Text(v => v.as_str()),
    ColorData => Color(v => *v),
    Option<String> => Image(v => v.as_deref()),
    Option<Vec2Data> => Size(v => *v),
    MeshSource => Mesh(v => v),
}

/// A field's value, owned (what the reader and the cooked form produce).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Float(f32),
    Bool(bool),
    Text(String),
    Color(ColorData),
    Image(Option<String>),
    Size(Option<Vec2Data>),
    Mesh(MeshSource),
    /// The index of a mode among [`Payload::Mode`]'s.
    Mode(usize),
}

/// A field's value, borrowed from its component.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ValueRef<'a> {
    Float(f32),
    Bool(bool),
    Text(&'a str),
    Color(ColorData),
    Image(Option<&'a str>),
    Size(Option<Vec2Data>),
    Mesh(&'a MeshSource),
    Mode(usize),
}

impl ValueRef<'_> {
    pub(crate) fn to_value(self) -> Value {
        match self {
            ValueRef::Float(v) => Value::Float(v),
            ValueRef::Bool(v) => Value::Bool(v),
            ValueRef::Text(v) => Value::Text(v.to_owned()),
            ValueRef::Color(v) => Value::Color(v),
            ValueRef::Image(v) => Value::Image(v.map(str::to_owned)),
            ValueRef::Size(v) => Value::Size(v),
            ValueRef::Mesh(v) => Value::Mesh(v.clone()),
            ValueRef::Mode(v) => Value::Mode(v),
        }
    }

    /// Equal bit for bit (`NaN` equals itself, `-0.0` differs from `0.0`).
    pub(crate) fn same(&self, other: &ValueRef<'_>) -> bool {
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        match (self, other) {
            (ValueRef::Float(a), ValueRef::Float(b)) => a.to_bits() == b.to_bits(),
            (ValueRef::Color(a), ValueRef::Color(b)) => {
                bits(&[a.r, a.g, a.b, a.a]) == bits(&[b.r, b.g, b.b, b.a])
            }
            (ValueRef::Size(Some(a)), ValueRef::Size(Some(b))) => {
                bits(&[a.x, a.y]) == bits(&[b.x, b.y])
            }
            (
                ValueRef::Mesh(MeshSource::Primitive(a)),
                ValueRef::Mesh(MeshSource::Primitive(b)),
            ) => a.name() == b.name() && bits(&a.sizes()) == bits(&b.sizes()),
            (a, b) => a == b,
        }
    }

    /// The numbers it holds, for the finiteness rules (a colour's channels, a size's axes, a
    /// primitive's sizes), with their names below the field.
    pub(crate) fn numbers(&self) -> Vec<(&'static str, f32)> {
        match *self {
            ValueRef::Float(v) => vec![("", v)],
            ValueRef::Color(c) => vec![("r", c.r), ("g", c.g), ("b", c.b), ("a", c.a)],
            ValueRef::Size(Some(v)) => vec![("x", v.x), ("y", v.y)],
            ValueRef::Mesh(MeshSource::Primitive(shape)) => shape.named_sizes(),
            _ => Vec::new(),
        }
    }
}

/// How an exporter spells Bevy values: Rust source or `bsn!`. Each tag's file says which Bevy
/// values its component becomes; the exporter says how they are written.
pub(crate) trait BevyText {
    /// `bsn!`: struct values are patches (fields left out keep their defaults).
    fn bsn(&self) -> bool;
    /// An `f32` as a field value (`bsn!` puts a negative one in braces).
    fn number(&self, v: f32) -> String;
    /// A struct value with `fields` (`name: value`), the others at their defaults.
    fn value(&self, path: &str, fields: &[String]) -> String;
    /// A handle to the asset at `path`.
    fn asset(&self, path: &str) -> String;
    /// The mesh and material components of a `mesh3d`, shared by every entity that writes the
    /// same mesh and material.
    fn mesh3d(&self, data: &Mesh3dData) -> Vec<String>;
    /// An `f32` literal that reads back to the same bits (`1.0`, `-0.5`).
    fn float(&self, v: f32) -> String {
        format!("{v:?}")
    }
    /// `Color::srgba(r, g, b, a)`, as the loader builds colours.
    fn color(&self, c: ColorData) -> String {
        format!(
            "Color::srgba({}, {}, {}, {})",
            self.float(c.r),
            self.float(c.g),
            self.float(c.b),
            self.float(c.a)
        )
    }
    /// A string literal.
    fn string(&self, s: &str) -> String {
        format!("{s:?}")
    }
}

/// Declares [`ComponentData`]: one variant per built-in (its tag, and its descriptor after `=>`)
/// and `Custom`, with [`COMPONENT_TAGS`](crate::format::COMPONENT_TAGS), `tag()` and `builtin()`.
macro_rules! component_data {
    ($( $(#[$doc:meta])* $variant:ident $(($payload:ty))? = $tag:literal => $desc:ident, )*) => {
        /// One entry of an entity's `components` list, tagged `type` with its payload in `data`.
        ///
        /// Tags are bare RON identifiers (`type: sprite`, never `type: "sprite"`). An entity holds
        /// at most one component per [`ComponentData::key`]. [`BUILTINS`] describes the
        /// built-ins field by field.
        ///
        /// [`BUILTINS`]: crate::format::builtin::BUILTINS
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "type", content = "data", rename_all = "snake_case")]
        pub enum ComponentData {
            $( $(#[$doc])* $variant $(($payload))?, )*
            /// A component of the game's own type:
            /// `(type: custom, data: (type_path: .., fields: [..]))`.
            Custom(CustomComponent),
        }

        /// Every component tag of format version 1, in the order of the format page's table.
        pub const COMPONENT_TAGS: &[&str] = &[$($tag,)* "custom"];

        /// The built-in of each tag of [`COMPONENT_TAGS`], by index (the reader knows a tag by
        /// its index); `None` for `custom`.
        pub(crate) fn builtin_at(index: usize) -> Option<&'static BuiltinTag> {
            static AT: &[&BuiltinTag] = &[$(&$desc,)*];
            AT.get(index).copied()
        }

        impl ComponentData {
            /// The tag written as `type:` in the file (`sprite`, `point_light`, ...).
            pub fn tag(&self) -> &'static str {
                match self {
                    $( ComponentData::$variant { .. } => $tag, )*
                    ComponentData::Custom(_) => "custom",
                }
            }

            /// The description of this built-in's tag (`None` for a custom component).
            pub fn builtin(&self) -> Option<&'static crate::format::builtin::BuiltinTag> {
                match self {
                    $( ComponentData::$variant { .. } =>
                        Some(&crate::format::builtin::$desc), )*
                    ComponentData::Custom(_) => None,
                }
            }
        }
    };
}

/// The accessors of a payload without fields.
fn no_get(_: &ComponentData, _: usize) -> Option<ValueRef<'_>> {
    None
}

fn no_set(_: &mut ComponentData, _: usize, _: Value) {}

component_data! {
    /// A 2D sprite: `(type: sprite, data: (..))`.
    Sprite(Box<SpriteData>) = "sprite" => SPRITE,
    /// World-space 2D text: `(type: text2d, data: (..))`.
    Text2d(Box<Text2dData>) = "text2d" => TEXT2D,
    /// A 2D camera: `(type: camera2d)`.
    Camera2d = "camera2d" => CAMERA2D,
    /// A 3D camera: `(type: camera3d)`.
    Camera3d = "camera3d" => CAMERA3D,
    /// A point light: `(type: point_light, data: (..))`.
    PointLight(PointLightData) = "point_light" => POINT_LIGHT,
    /// A directional light: `(type: directional_light, data: (..))`.
    DirectionalLight(DirectionalLightData) = "directional_light" => DIRECTIONAL_LIGHT,
    /// A mesh with a material: `(type: mesh3d, data: (mesh: .., material: ..))`.
    Mesh3d(Box<Mesh3dData>) = "mesh3d" => MESH3D,
    /// Visibility: `(type: visibility, data: hidden)`.
    Visibility(VisibilityMode) = "visibility" => VISIBILITY,
    /// A spot light: `(type: spot_light, data: (..))`.
    SpotLight(SpotLightData) = "spot_light" => SPOT_LIGHT,
}

impl ComponentData {
    /// The uniqueness key of this component (the format page, "Components"): the tag for
    /// built-ins, `custom:<type_path>` for custom components.
    pub fn key(&self) -> String {
        match self {
            ComponentData::Custom(custom) => format!("custom:{}", custom.type_path),
            other => other.tag().to_owned(),
        }
    }

    /// Whether this component has the given [`key`](Self::key), without allocating.
    pub fn has_key(&self, key: &str) -> bool {
        match self {
            ComponentData::Custom(custom) => key
                .strip_prefix("custom:")
                .is_some_and(|path| path == custom.type_path),
            other => other.tag() == key,
        }
    }

    /// Whether two components share a [`key`](Self::key), without allocating.
    pub fn same_key(&self, other: &ComponentData) -> bool {
        match (self, other) {
            (ComponentData::Custom(a), ComponentData::Custom(b)) => a.type_path == b.type_path,
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names each level lists are the fields' own, in the fields' order.
    #[test]
    fn names_follow_the_fields() {
        for b in BUILTINS {
            let mut top: Vec<&str> = Vec::new();
            for f in b.fields() {
                let (group, name) = f.split();
                let head = group.unwrap_or(name);
                if top.last() != Some(&head) {
                    top.push(head);
                }
                if let Some(group) = group {
                    let names = b.group(group).unwrap_or_default();
                    assert!(names.contains(&name), "{}: {}", b.tag, f.path);
                }
            }
            if let Payload::Fields(_) = b.payload {
                assert_eq!(top, b.names, "{}", b.tag);
            }
            assert_eq!(b.context, format!("{} data", b.tag));
        }
    }

    /// Every field reads and writes through its accessors.
    #[test]
    fn accessors_cover_every_field() {
        for b in BUILTINS {
            let mut c = (b.default)();
            assert_eq!(c.builtin().map(|d| d.tag), Some(b.tag));
            for (i, f) in b.fields().iter().enumerate() {
                let v = (b.get)(&c, i).map(ValueRef::to_value);
                assert!(v.is_some(), "{}.{} has no getter", b.tag, f.path);
                let before = c.clone();
                if let Some(v) = v {
                    (b.set)(&mut c, i, v);
                }
                assert_eq!(c, before, "{}.{}", b.tag, f.path);
            }
        }
    }
}
