//! `sprite`: a 2D sprite (Bevy's `Sprite`).

use serde::{Deserialize, Serialize};

use super::{
    Assign, BevyText, BuiltinField, BuiltinTag, ComponentData, FieldKind, FieldRange, Payload,
    Problem, Role, Value, ValueRef,
};
use crate::codes;
use crate::format::value::{ColorData, Vec2Data};

/// Payload of a `sprite` component. Every field may be omitted (defaults: no image, white,
/// native size, no flips).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpriteData {
    /// Image path relative to the assets directory (`"textures/player.png"`); `None` for a
    /// solid-colour sprite.
    pub image: Option<String>,
    /// Tint, sRGB; white leaves the image unchanged.
    pub color: ColorData,
    /// Explicit size in pixels; `None` uses the image's native size.
    pub custom_size: Option<Vec2Data>,
    /// Mirror horizontally.
    pub flip_x: bool,
    /// Mirror vertically.
    pub flip_y: bool,
}

impl Default for SpriteData {
    fn default() -> Self {
        Self {
            image: None,
            color: ColorData::WHITE,
            custom_size: None,
            flip_x: false,
            flip_y: false,
        }
    }
}

pub(crate) static SPRITE: BuiltinTag = BuiltinTag {
    tag: "sprite",
    doc: "A 2D sprite: an image (or a solid colour) drawn at the entity's transform.",
    bevy: "Sprite",
    payload: Payload::Fields(&[
        BuiltinField::new(
            "image",
            FieldKind::Image,
            "Image path relative to the assets directory; `None` for a solid-colour sprite.",
        )
        .default("None")
        .noun("sprite image", None),
        BuiltinField::new(
            "color",
            FieldKind::Color,
            "Tint; white leaves the image unchanged.",
        )
        .default("(r: 1.0, g: 1.0, b: 1.0, a: 1.0)")
        .noun("sprite", Some(codes::sprite::NON_FINITE)),
        BuiltinField::new(
            "custom_size",
            FieldKind::Size,
            "Explicit size; `None` uses the image's native size.",
        )
        .unit("pixels")
        .default("None")
        .noun("sprite", None)
        .range(
            FieldRange::Positive,
            codes::sprite::CUSTOM_SIZE,
            Some("use `custom_size: None` for the image's own size"),
        ),
        BuiltinField::new("flip_x", FieldKind::Bool, "Mirror horizontally.").default("false"),
        BuiltinField::new("flip_y", FieldKind::Bool, "Mirror vertically.").default("false"),
    ]),
    context: "sprite data",
    names: &["image", "color", "custom_size", "flip_x", "flip_y"],
    groups: &[],
    default: || ComponentData::Sprite(Box::default()),
    get,
    set,
    role: Role::Plain,
    cross: Some(invisible),
    export,
    assign,
};

accessors!(Sprite: image, color, custom_size, flip_x, flip_y);

fn invisible(c: &ComponentData) -> Option<Problem> {
    let ComponentData::Sprite(s) = c else {
        return None;
    };
    (s.image.is_none() && s.custom_size.is_none()).then(|| Problem {
        error: false,
        code: codes::sprite::INVISIBLE,
        message: "sprite has neither an image nor a custom size, so it renders nothing".into(),
        help: Some("set `image` or `custom_size`"),
        field: None,
    })
}

fn export(c: &ComponentData, w: &dyn BevyText) -> Vec<String> {
    let ComponentData::Sprite(s) = c else {
        return Vec::new();
    };
    let mut fields = Vec::new();
    if let Some(image) = &s.image {
        fields.push(format!("image: {}", w.asset(image)));
    }
    fields.push(format!("color: {}", w.color(s.color)));
    let size = s
        .custom_size
        .map(|v| format!("Some(Vec2::new({}, {}))", w.float(v.x), w.float(v.y)));
    match (size, w.bsn()) {
        (Some(size), true) => fields.push(format!("custom_size: {{{size}}}")),
        (None, true) => {}
        (size, false) => fields.push(format!(
            "custom_size: {}",
            size.unwrap_or_else(|| "None".into())
        )),
    }
    fields.push(format!("flip_x: {}", s.flip_x));
    fields.push(format!("flip_y: {}", s.flip_y));
    vec![w.value("Sprite", &fields)]
}

fn assign(c: &ComponentData, i: usize, w: &dyn BevyText) -> Option<Assign> {
    let ComponentData::Sprite(s) = c else {
        return None;
    };
    let statement = match i {
        0 => format!(
            "image = {}",
            s.image
                .as_deref()
                .map_or_else(|| "Handle::default()".to_owned(), |path| w.asset(path))
        ),
        1 => format!("color = {}", w.color(s.color)),
        2 => format!(
            "custom_size = {}",
            s.custom_size.map_or_else(
                || "None".to_owned(),
                |v| format!("Some(Vec2::new({}, {}))", w.float(v.x), w.float(v.y))
            )
        ),
        3 => format!("flip_x = {}", s.flip_x),
        4 => format!("flip_y = {}", s.flip_y),
        _ => return None,
    };
    Assign::new("Sprite", statement)
}
