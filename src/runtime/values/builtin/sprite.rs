//! `sprite` and Bevy's `Sprite`.

use bevy_asset::{Handle, UntypedHandle};
use bevy_ecs::world::{EntityWorldMut, World};
use bevy_sprite::Sprite;

use super::{Parts, Sink, SubAssets, file_color};
use crate::format::{ComponentData, SpriteData};

pub(super) const TAG: &str = "sprite";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &["Anchor"];
pub(super) type Prepared = Sprite;

/// The Bevy sprite of `d`, without its image.
fn bevy(d: &SpriteData) -> Sprite {
    Sprite {
        color: d.color.to_bevy(),
        custom_size: d.custom_size.map(Into::into),
        flip_x: d.flip_x,
        flip_y: d.flip_y,
        ..Default::default()
    }
}

pub(super) fn prepare(
    d: &SpriteData,
    ctx: &mut impl Sink,
    _: &mut SubAssets,
) -> Result<Prepared, String> {
    let mut sprite = bevy(d);
    if let Some(image) = &d.image {
        sprite.image = ctx.load_path(image.clone());
    }
    Ok(sprite)
}

pub(super) fn insert(
    entity: &mut EntityWorldMut,
    sprite: &Prepared,
    _: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    entity.insert(sprite.clone());
}

pub(super) fn remove(entity: &mut EntityWorldMut) {
    entity.remove::<Sprite>();
}

pub(super) fn read(parts: &mut impl Parts, _: Option<&ComponentData>) -> Option<ComponentData> {
    let s = parts.take::<Sprite>()?;
    let image = parts.path_of(&s.image.clone().untyped());
    let data = SpriteData {
        image: image.clone(),
        color: file_color(s.color),
        custom_size: s.custom_size.map(Into::into),
        flip_x: s.flip_x,
        flip_y: s.flip_y,
    };
    let mut kept = bevy(&data);
    kept.color = s.color;
    if image.is_some() || s.image == Handle::default() {
        kept.image = s.image.clone();
    }
    parts.partial(TAG, &s, &kept);
    Some(ComponentData::Sprite(Box::new(data)))
}
