//! Which cameras draw a capture: the scene's own, or ours (the auto cameras) framing its
//! bounds, top-down for 2D and three-quarter for 3D.

use bevy_forge_scene::prelude::*;
use bevy_internal::app::App;
use bevy_internal::asset::Handle;
use bevy_internal::camera::visibility::Visibility;
use bevy_internal::camera::{
    Camera, Camera2d, Camera3d, ClearColorConfig, OrthographicProjection, PerspectiveProjection,
    Projection, RenderTarget,
};
use bevy_internal::ecs::prelude::*;
use bevy_internal::image::Image;
use bevy_internal::math::{Vec2, Vec3};
use bevy_internal::render::view::DebandDither;
use bevy_internal::transform::components::Transform;

use super::bounds::{Bounds, corners};
use crate::job::CameraChoice;

/// Our cameras for [`CameraChoice::Auto`] and for scenes without cameras, framing the bounds
/// of every scene of the job together: `None` where no scene has that kind of content.
pub(super) struct AutoCameras {
    pub(super) three_d: Option<Entity>,
    pub(super) two_d: Option<Entity>,
}

/// Where the auto 3D camera stands and looks to show every corner of `boxes` (world-space
/// `(min, max)` boxes) along [`three_quarter`], with vertical field of view `fov` (radians)
/// and `aspect` (width / height): `(eye, target, near, far)`. The corners of each box are
/// projected (not of their union, whose empty corners would waste the frame); the target is
/// moved sideways and the distance scaled a few times until the projected corners sit centred
/// and fill the frame but for a margin of about 5% on each side of the tighter direction.
fn aim_three_quarter(boxes: &[(Vec3, Vec3)], fov: f32, aspect: f32) -> (Vec3, Vec3, f32, f32) {
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for (min, max) in boxes {
        lo = lo.min(*min);
        hi = hi.max(*max);
    }
    // Very many boxes: the corners of their union (the frame is then a little looser).
    let points: Vec<Vec3> = if boxes.len() <= 20_000 {
        boxes.iter().flat_map(|(a, b)| corners(*a, *b)).collect()
    } else {
        corners(lo, hi).to_vec()
    };
    let radius = ((hi - lo).length() / 2.0).max(0.5);
    let back = three_quarter();
    let right = Vec3::Y.cross(back).normalize();
    let up = back.cross(right);
    let tan_y = (fov / 2.0).tan();
    let tan_x = tan_y * aspect;
    let mut target = (lo + hi) / 2.0;
    // Far enough for every corner to be in front and inside the frame (a start that is too
    // far, never too near).
    let mut distance = 0.5f32;
    for p in &points {
        let r = *p - target;
        let towards = r.dot(back);
        distance = distance
            .max(towards + radius * 0.1)
            .max(towards + 1.1 * r.dot(right).abs() / tan_x)
            .max(towards + 1.1 * r.dot(up).abs() / tan_y);
    }
    let span = |target: Vec3, distance: f32| {
        let eye = target + back * distance;
        let (mut min, mut max) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        let mut nearest = f32::INFINITY;
        for p in &points {
            let r = *p - eye;
            let depth = -r.dot(back);
            nearest = nearest.min(depth);
            let s = Vec2::new(r.dot(right) / (depth * tan_x), r.dot(up) / (depth * tan_y));
            min = min.min(s);
            max = max.max(s);
        }
        (min, max, nearest)
    };
    for _ in 0..8 {
        let (min, max, _) = span(target, distance);
        let mid = (min + max) / 2.0;
        let half = ((max - min) / 2.0).max_element();
        target += (right * mid.x * tan_x + up * mid.y * tan_y) * distance;
        // Nearer scales the picture about as 1 / distance; never so near that a corner
        // comes within a tenth of the scene's size of the camera.
        let nearest_allowed = points
            .iter()
            .map(|p| (*p - target).dot(back))
            .fold(0.0f32, f32::max)
            + radius * 0.1;
        distance = (distance * half * 1.1).max(nearest_allowed);
    }
    let (_, _, nearest) = span(target, distance);
    let eye = target + back * distance;
    let near = (nearest * 0.5).max(0.05);
    let far = distance + radius * 2.0 + 10.0;
    (eye, target, near, far)
}

/// The three-quarter view's direction from the target: 35 degrees around from +Z towards +X,
/// 30 degrees up.
fn three_quarter() -> Vec3 {
    let (yaw, pitch) = (35f32.to_radians(), 30f32.to_radians());
    Vec3::new(
        yaw.sin() * pitch.cos(),
        pitch.sin(),
        yaw.cos() * pitch.cos(),
    )
}

impl AutoCameras {
    /// Our two cameras, off until [`frame`](Self::frame) aims them.
    pub(super) fn spawn(world: &mut World, target: &Handle<Image>) -> Self {
        let three_d = world
            .spawn((
                Camera3d::default(),
                Camera {
                    order: 0,
                    is_active: false,
                    ..Default::default()
                },
                Projection::Perspective(PerspectiveProjection::default()),
                RenderTarget::Image(target.clone().into()),
                DebandDither::Disabled,
                Transform::default(),
            ))
            .id();
        let two_d = world
            .spawn((
                Camera2d,
                Camera {
                    order: 1,
                    is_active: false,
                    ..Default::default()
                },
                Projection::Orthographic(OrthographicProjection::default_2d()),
                RenderTarget::Image(target.clone().into()),
                DebandDither::Disabled,
                Transform::default(),
            ))
            .id();
        Self {
            three_d: Some(three_d),
            two_d: Some(two_d),
        }
    }

    /// Shows every scene of `roots` to our 2D camera zoomed far out (one pixel for a thousand
    /// units), so Bevy lays out their text and computes its bounds; the 3D camera stays off.
    pub(super) fn survey(&self, world: &mut World, roots: &[Entity]) {
        for root in roots {
            world.entity_mut(*root).insert(Visibility::Inherited);
        }
        if let Some(e) = self.two_d {
            world
                .entity_mut(e)
                .insert(Projection::Orthographic(OrthographicProjection {
                    scale: 1_000.0,
                    ..OrthographicProjection::default_2d()
                }));
            if let Some(mut camera) = world.get_mut::<Camera>(e) {
                camera.is_active = true;
            }
        }
    }

    /// Aims the cameras at `bounds` (width by height pixels): a camera whose kind of content
    /// `bounds` lacks is left out (`None`) until the next call.
    pub(super) fn frame(
        &mut self,
        world: &mut World,
        bounds: &[Bounds],
        width: u32,
        height: u32,
        all: &AutoCameras,
    ) {
        let union = |two_d: bool| {
            let mut it = bounds.iter().filter(|b| b.two_d == two_d);
            let first = *it.next()?;
            Some(it.fold((first.min, first.max), |(a, b), x| {
                (a.min(x.min), b.max(x.max))
            }))
        };
        let aspect = width as f32 / height as f32;
        self.three_d = None;
        self.two_d = None;
        let boxes: Vec<(Vec3, Vec3)> = bounds
            .iter()
            .filter(|b| !b.two_d)
            .map(|b| (b.min, b.max))
            .collect();
        if let Some(e) = all.three_d
            && !boxes.is_empty()
        {
            let fov = std::f32::consts::FRAC_PI_4;
            let (eye, target, near, far) = aim_three_quarter(&boxes, fov, aspect);
            world.entity_mut(e).insert((
                Projection::Perspective(PerspectiveProjection {
                    fov,
                    near,
                    far,
                    ..Default::default()
                }),
                Transform::from_translation(eye).looking_at(target, Vec3::Y),
            ));
            self.three_d = Some(e);
        }
        if let (Some(e), Some((min, max))) = (all.two_d, union(true)) {
            let centre = (min + max) / 2.0;
            let size = (max - min).truncate();
            let fit = (size.x / width as f32).max(size.y / height as f32) * 1.1;
            let scale = if fit > 0.0 { fit } else { 1.0 };
            world.entity_mut(e).insert((
                Projection::Orthographic(OrthographicProjection {
                    scale,
                    ..OrthographicProjection::default_2d()
                }),
                Transform::from_xyz(centre.x, centre.y, 0.0),
            ));
            self.two_d = Some(e);
        }
    }
}

/// Turns on the cameras that draw scene `side` and off every other: returns them in words.
pub(super) fn choose_cameras(
    app: &mut App,
    roots: &[Entity],
    side: usize,
    choice: &CameraChoice,
    auto: &AutoCameras,
    all: &AutoCameras,
    target: &Handle<Image>,
) -> Result<String, String> {
    let world = app.world_mut();
    // Every scene's cameras, off.
    let mut own: Vec<(Vec<u64>, Entity)> = Vec::new();
    for (i, root) in roots.iter().enumerate() {
        let Some(instance) = world.get::<ForgeSceneInstance>(*root) else {
            continue;
        };
        let cameras: Vec<(Vec<u64>, Entity)> = instance
            .iter()
            .filter(|(_, e)| world.get::<Camera>(*e).is_some())
            .map(|(p, e)| (p.to_vec(), e))
            .collect();
        for (path, e) in cameras {
            if let Some(mut camera) = world.get_mut::<Camera>(e) {
                camera.is_active = false;
            }
            if i == side {
                own.push((path, e));
            }
        }
    }
    for e in [all.three_d, all.two_d].into_iter().flatten() {
        if let Some(mut camera) = world.get_mut::<Camera>(e) {
            camera.is_active = false;
        }
    }
    own.sort_by(|a, b| a.0.cmp(&b.0));
    let picked: Vec<(Vec<u64>, Entity)> = match choice {
        CameraChoice::Auto => Vec::new(),
        CameraChoice::Scene => own,
        CameraChoice::Entity(path) => {
            let found: Vec<_> = own.iter().filter(|(p, _)| p == path).cloned().collect();
            if found.is_empty() {
                let known: Vec<String> = own.iter().map(|(p, _)| path_text(p)).collect();
                return Err(format!(
                    "--camera {}: the scene has no camera at that id path (its cameras: {})",
                    path_text(path),
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ));
            }
            found
        }
    };
    if picked.is_empty() {
        let mut words = Vec::new();
        for (e, what) in [
            (auto.three_d, "auto 3D camera"),
            (auto.two_d, "auto 2D camera"),
        ] {
            if let Some(e) = e
                && let Some(mut camera) = world.get_mut::<Camera>(e)
            {
                camera.is_active = true;
                camera.clear_color = if words.is_empty() {
                    ClearColorConfig::Default
                } else {
                    ClearColorConfig::None
                };
                words.push(what);
            }
        }
        if words.is_empty() {
            words.push("no camera (nothing to frame)");
        }
        return Ok(words.join(" and "));
    }
    // The scene's cameras: 3D before 2D, then by their own order; each later one draws over.
    let mut cameras: Vec<(bool, isize, Vec<u64>, Entity)> = picked
        .into_iter()
        .map(|(p, e)| {
            let two_d = world.get::<Camera2d>(e).is_some();
            let order = world.get::<Camera>(e).map_or(0, |c| c.order);
            (two_d, order, p, e)
        })
        .collect();
    cameras.sort_by_key(|a| (a.0, a.1));
    let mut words = Vec::new();
    for (n, (_, _, path, e)) in cameras.iter().enumerate() {
        let name = world
            .get::<bevy_internal::ecs::name::Name>(*e)
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default();
        words.push(format!("the scene's camera {} {name:?}", path_text(path)));
        world.entity_mut(*e).insert((
            RenderTarget::Image(target.clone().into()),
            DebandDither::Disabled,
        ));
        // Bevy's `camera_system` computes a camera's target size only when the camera is
        // added, its projection changes or its target's image or window changes, not when
        // its `RenderTarget` is replaced: touch the projection so the image's size is taken.
        if let Some(mut projection) = world.get_mut::<Projection>(*e) {
            projection.set_changed();
        }
        if let Some(mut camera) = world.get_mut::<Camera>(*e) {
            camera.is_active = true;
            camera.order = n as isize;
            camera.clear_color = if n == 0 {
                ClearColorConfig::Default
            } else {
                ClearColorConfig::None
            };
        }
    }
    Ok(words.join(" and "))
}

/// `[5, 2]`.
pub(crate) fn path_text(path: &[u64]) -> String {
    let ids: Vec<String> = path.iter().map(u64::to_string).collect();
    format!("[{}]", ids.join(", "))
}
