//! `text2d` and Bevy's `Text2d`, `TextFont` and `TextColor`.

use bevy_asset::UntypedHandle;
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_sprite::Text2d;
use bevy_text::{DEFAULT_REM_SIZE_PX, FontSize, TextColor, TextFont};

use super::{Parts, Sink, SubAssets, file_color};
use crate::format::{ComponentData, Text2dData};

pub(super) const TAG: &str = "text2d";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &[
    "TextLayout",
    "LineHeight",
    "LetterSpacing",
    "TextBounds",
    "Anchor",
    "FontHinting",
];
pub(super) type Prepared = (Text2d, TextFont, TextColor);

pub(super) fn prepare(
    d: &Text2dData,
    _: &mut impl Sink,
    _: &mut SubAssets,
) -> Result<Prepared, String> {
    Ok((
        Text2d(d.text.clone()),
        TextFont::from_font_size(FontSize::Px(d.font_size)),
        TextColor(d.color.to_bevy()),
    ))
}

pub(super) fn insert(
    entity: &mut EntityWorldMut,
    text: &Prepared,
    _: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    entity.insert(text.clone());
}

pub(super) fn remove(entity: &mut EntityWorldMut) {
    entity.remove::<(Text2d, TextFont, TextColor)>();
}

/// The font size in pixels: `Px` as it is, `Rem` at the default root size; another unit
/// (relative to the viewport) or no font: what the scene wrote, else the default root size.
fn pixels(font: Option<&TextFont>, base: Option<&ComponentData>) -> f32 {
    match (font.map(|f| f.font_size), base) {
        (Some(FontSize::Px(px)), _) => px,
        (Some(FontSize::Rem(rem)), _) => rem * DEFAULT_REM_SIZE_PX,
        (_, Some(ComponentData::Text2d(t))) => t.font_size,
        _ => DEFAULT_REM_SIZE_PX,
    }
}

pub(super) fn read(parts: &mut impl Parts, base: Option<&ComponentData>) -> Option<ComponentData> {
    let text = parts.take::<Text2d>()?;
    let font = parts.take::<TextFont>();
    let color = parts.take::<TextColor>().unwrap_or_default();
    let font_size = pixels(font.as_ref(), base);
    if let Some(font) = &font {
        let kept = TextFont::from_font_size(FontSize::Px(font_size));
        parts.partial(TAG, font, &kept);
    }
    Some(ComponentData::Text2d(Box::new(Text2dData {
        text: text.0,
        font_size,
        color: file_color(color.0),
    })))
}
