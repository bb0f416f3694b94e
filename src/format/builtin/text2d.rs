//! `text2d`: world-space 2D text (Bevy's `Text2d`, `TextFont` and `TextColor`).

use serde::{Deserialize, Serialize};

use super::{
    Assign, BevyText, BuiltinField, BuiltinTag, ComponentData, FieldKind, FieldRange, Payload,
    Role, Value, ValueRef,
};
use crate::codes;
use crate::format::value::ColorData;

/// Payload of a `text2d` component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Text2dData {
    /// The text; may contain newlines. Empty text is legal but warns.
    pub text: String,
    /// Font size in pixels; must be greater than zero.
    pub font_size: f32,
    /// Text colour, sRGB.
    pub color: ColorData,
}

pub(crate) static TEXT2D: BuiltinTag = BuiltinTag {
    tag: "text2d",
    doc: "World-space 2D text.",
    bevy: "Text2d + TextFont + TextColor",
    payload: Payload::Fields(&[
        BuiltinField::new("text", FieldKind::Text, "The text; may contain newlines.")
            .noun("text2d", None)
            .range(FieldRange::NotEmpty, codes::text::EMPTY, None),
        BuiltinField::new("font_size", FieldKind::Float, "Font size.")
            .unit("pixels")
            .noun("text", None)
            .range(
                FieldRange::Positive,
                codes::text::FONT_SIZE,
                Some("font_size is in pixels, for example `24.0`"),
            ),
        BuiltinField::new("color", FieldKind::Color, "Text colour.")
            .noun("text", Some(codes::text::NON_FINITE)),
    ]),
    context: "text2d data",
    names: &["text", "font_size", "color"],
    groups: &[],
    default: || {
        ComponentData::Text2d(Box::new(Text2dData {
            text: String::new(),
            font_size: 0.0,
            color: ColorData::WHITE,
        }))
    },
    get,
    set,
    role: Role::Plain,
    cross: None,
    export,
    assign,
};

accessors!(Text2d: text, font_size, color);

fn export(c: &ComponentData, w: &dyn BevyText) -> Vec<String> {
    let ComponentData::Text2d(t) = c else {
        return Vec::new();
    };
    if w.bsn() {
        vec![
            format!("Text2d({})", w.string(&t.text)),
            format!(
                "TextFont {{ font_size: FontSize::Px({}) }}",
                w.number(t.font_size)
            ),
            format!("TextColor({})", w.color(t.color)),
        ]
    } else {
        vec![
            format!("Text2d::new({})", w.string(&t.text)),
            format!(
                "TextFont::from_font_size(FontSize::Px({}))",
                w.float(t.font_size)
            ),
            format!("TextColor({})", w.color(t.color)),
        ]
    }
}

fn assign(c: &ComponentData, i: usize, w: &dyn BevyText) -> Option<Assign> {
    let ComponentData::Text2d(t) = c else {
        return None;
    };
    match i {
        0 => Assign::new("Text2d", format!("0 = String::from({})", w.string(&t.text))),
        1 => Assign::new(
            "TextFont",
            format!("font_size = FontSize::Px({})", w.float(t.font_size)),
        ),
        2 => Assign::new("TextColor", format!("0 = {}", w.color(t.color))),
        _ => None,
    }
}
