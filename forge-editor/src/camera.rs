//! The free camera of `forge edit`: in 3D, orbit with the right button, pan with the middle
//! one, zoom with the wheel; in 2D, pan with the right or middle button and zoom with the
//! wheel. C switches between it and the scene's own cameras. It does not move while a
//! handle is dragged.

use bevy_internal::camera::primitives::Aabb;
use bevy_internal::camera::{Camera, Camera2d, Camera3d, Projection};
use bevy_internal::ecs::prelude::*;
use bevy_internal::input::ButtonInput;
use bevy_internal::input::keyboard::KeyCode;
use bevy_internal::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseButton};
use bevy_internal::math::{EulerRot, Quat, Vec3};
use bevy_internal::transform::components::{GlobalTransform, Transform};

use crate::GizmoState;

/// The free camera: it looks at `focus` from `distance` away, turned by `yaw` and `pitch`
/// (radians); a 2D one looks straight down -Z.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct FreeCamera {
    /// The point it turns about and looks at.
    pub focus: Vec3,
    /// How far it is from `focus` (3D), world units.
    pub distance: f32,
    /// Turn about the world's Y, radians.
    pub yaw: f32,
    /// Turn up or down, radians (within a little less than a quarter turn).
    pub pitch: f32,
}

impl Default for FreeCamera {
    fn default() -> Self {
        Self {
            focus: Vec3::ZERO,
            distance: 10.0,
            yaw: 0.6,
            pitch: -0.45,
        }
    }
}

impl FreeCamera {
    /// Its transform in 3D.
    pub fn transform(&self) -> Transform {
        let rotation = Quat::from_euler(EulerRot::YXZ, self.yaw, self.pitch, 0.0);
        Transform::from_translation(self.focus + rotation * Vec3::Z * self.distance)
            .with_rotation(rotation)
    }

    /// Framing the world-space box from `lo` to `hi`.
    pub fn framing(lo: Vec3, hi: Vec3) -> Self {
        let size = (hi - lo).length().max(1.0);
        Self {
            focus: (lo + hi) / 2.0,
            distance: size * 1.2,
            ..Self::default()
        }
    }
}

/// Moves the free camera by the mouse (not during a drag of a handle).
pub fn drive(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    state: Res<GizmoState>,
    mut cameras: Query<(
        &mut FreeCamera,
        &mut Transform,
        &mut Projection,
        Has<Camera2d>,
    )>,
) {
    if state.dragging() {
        return;
    }
    let (dx, dy) = (motion.delta.x, motion.delta.y);
    let wheel = scroll.delta.y;
    let orbit = buttons.pressed(MouseButton::Right);
    let pan = buttons.pressed(MouseButton::Middle);
    if dx == 0.0 && dy == 0.0 && wheel == 0.0 {
        return;
    }
    for (mut free, mut transform, mut projection, two_d) in &mut cameras {
        if two_d {
            let scale = match &mut *projection {
                Projection::Orthographic(o) => {
                    if wheel != 0.0 {
                        o.scale = (o.scale * 0.9f32.powf(wheel)).clamp(0.01, 1000.0);
                    }
                    o.scale
                }
                _ => 1.0,
            };
            if orbit || pan {
                transform.translation.x -= dx * scale;
                transform.translation.y += dy * scale;
            }
            continue;
        }
        if orbit {
            free.yaw -= dx * 0.005;
            free.pitch = (free.pitch - dy * 0.005).clamp(-1.5, 1.5);
        }
        if pan {
            let t = free.transform();
            let k = free.distance * 0.0015;
            free.focus += (-*t.right() * dx + *t.up() * dy) * k;
        }
        if wheel != 0.0 {
            free.distance = (free.distance * 0.9f32.powf(wheel)).clamp(0.05, 100_000.0);
        }
        *transform = free.transform();
    }
}

/// C: the next camera looks (the free one, then each of the scene's cameras).
pub fn switch(
    keys: Res<ButtonInput<KeyCode>>,
    mut cameras: Query<(Entity, &mut Camera, Has<FreeCamera>)>,
) {
    if !keys.just_pressed(KeyCode::KeyC) {
        return;
    }
    let mut all: Vec<(Entity, bool, bool)> = cameras
        .iter()
        .map(|(e, c, free)| (e, c.is_active, free))
        .collect();
    // The free camera first, then the scene's in entity order.
    all.sort_by_key(|(e, _, free)| (!*free, *e));
    let now = all.iter().position(|(_, active, _)| *active).unwrap_or(0);
    let next = (now + 1) % all.len().max(1);
    for (i, (e, _, _)) in all.iter().enumerate() {
        if let Ok((_, mut c, _)) = cameras.get_mut(*e) {
            c.is_active = i == next;
        }
    }
}

/// A scene's camera spawns off in `forge edit`: the free camera looks first (C switches).
pub fn scene_cameras_off(
    added: On<Add<Camera>>,
    scene: Query<(), crate::select::MadeByAScene>,
    mut cameras: Query<&mut Camera>,
) {
    let e = added.event_target();
    if scene.contains(e)
        && let Ok(mut c) = cameras.get_mut(e)
    {
        c.is_active = false;
    }
}

/// The box around every entity with bounds, world space; `None` when none has.
pub fn world_bounds(world: &mut World) -> Option<(Vec3, Vec3)> {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut query = world.query::<(&Aabb, &GlobalTransform)>();
    for (aabb, global) in query.iter(world) {
        let (min, max) = bevy_forge_scene_render::headless::world_box(global, aabb);
        lo = lo.min(min);
        hi = hi.max(max);
    }
    (lo.x <= hi.x).then_some((lo, hi))
}

/// Whether the scene looks 2D: it has a 2D camera, or sprites and no 3D camera.
pub fn looks_2d(world: &mut World) -> bool {
    let two = world.query::<&Camera2d>().iter(world).next().is_some();
    let three = world.query::<&Camera3d>().iter(world).next().is_some();
    let sprites = world
        .query::<&bevy_internal::sprite::Sprite>()
        .iter(world)
        .next()
        .is_some();
    two || (sprites && !three)
}
