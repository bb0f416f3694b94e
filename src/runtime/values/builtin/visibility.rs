//! `visibility` and Bevy's `Visibility`.

use bevy_asset::UntypedHandle;
use bevy_camera::visibility::Visibility;
use bevy_ecs::world::{EntityWorldMut, World};

use super::{Parts, Sink, SubAssets};
use crate::format::{ComponentData, VisibilityMode};

pub(super) const TAG: &str = "visibility";
#[cfg(feature = "import")]
pub(super) const IMPLIED: &[&str] = &[];
pub(super) type Prepared = Visibility;

/// The Bevy visibility of a file visibility mode.
pub(crate) fn bevy(v: VisibilityMode) -> Visibility {
    match v {
        VisibilityMode::Inherited => Visibility::Inherited,
        VisibilityMode::Visible => Visibility::Visible,
        VisibilityMode::Hidden => Visibility::Hidden,
    }
}

pub(super) fn prepare(
    d: &VisibilityMode,
    _: &mut impl Sink,
    _: &mut SubAssets,
) -> Result<Prepared, String> {
    Ok(bevy(*d))
}

pub(super) fn insert(
    entity: &mut EntityWorldMut,
    v: &Prepared,
    _: &mut dyn FnMut(&mut World, usize) -> Option<UntypedHandle>,
) {
    entity.insert(*v);
}

/// Back to `Visibility::Inherited`, the value of an entity without one.
pub(super) fn remove(entity: &mut EntityWorldMut) {
    entity.insert(Visibility::Inherited);
}

/// `Inherited` is read only where the scene wrote a visibility: plain parents get it from
/// spawning, and an imported entity has it by default.
pub(super) fn read(parts: &mut impl Parts, base: Option<&ComponentData>) -> Option<ComponentData> {
    let mode = match parts.take::<Visibility>()? {
        Visibility::Inherited => VisibilityMode::Inherited,
        Visibility::Visible => VisibilityMode::Visible,
        Visibility::Hidden => VisibilityMode::Hidden,
    };
    let written = matches!(base, Some(ComponentData::Visibility(_)));
    if mode == VisibilityMode::Inherited && !written {
        return None;
    }
    Some(ComponentData::Visibility(mode))
}
