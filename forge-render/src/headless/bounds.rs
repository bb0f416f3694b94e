//! Where entities are: their world bounds (for framing a scene) and the pixels they cover in
//! a capture (for outlining them in a review).

use bevy_forge_scene::prelude::*;
use bevy_internal::camera::primitives::Aabb;
use bevy_internal::camera::{Camera, Camera2d};
use bevy_internal::ecs::prelude::*;
use bevy_internal::light::{DirectionalLight, PointLight, SpotLight};
use bevy_internal::math::{Vec2, Vec3};
use bevy_internal::sprite::{Sprite, Text2d};
use bevy_internal::transform::components::GlobalTransform;

use crate::job::{EntityBox, PixelRect, RenderJob};

/// What one entity covers in the world, for framing.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    pub(super) min: Vec3,
    pub(super) max: Vec3,
    pub(super) two_d: bool,
}

/// The world bounds of every drawn entity of the instance on `root` (sprites, text, meshes);
/// when nothing is drawn, the places of its entities.
pub(super) fn scene_bounds(world: &mut World, root: Entity) -> Vec<Bounds> {
    let entities: Vec<Entity> = match world.get::<ForgeSceneInstance>(root) {
        Some(instance) => instance.iter().map(|(_, e)| e).collect(),
        None => return Vec::new(),
    };
    let mut drawn = Vec::new();
    let mut places = Vec::new();
    for e in entities {
        let Ok(entity) = world.get_entity(e) else {
            continue;
        };
        let Some(global) = entity.get::<GlobalTransform>() else {
            continue;
        };
        let two_d = entity.contains::<Sprite>() || entity.contains::<Text2d>();
        match entity.get::<Aabb>() {
            Some(aabb) => {
                let (min, max) = world_box(global, aabb);
                drawn.push(Bounds { min, max, two_d });
            }
            None if !entity.contains::<Camera>() && !entity.contains::<DirectionalLight>() => {
                let p = global.translation();
                places.push(Bounds {
                    min: p,
                    max: p,
                    two_d,
                });
            }
            None => {}
        }
    }
    if drawn.is_empty() { places } else { drawn }
}

/// The eight corners of `aabb` through `global`, as a world-space box (min, max): it holds the
/// entity however it is turned. `forge-editor` frames and outlines with it too.
pub fn world_box(global: &GlobalTransform, aabb: &Aabb) -> (Vec3, Vec3) {
    let c = Vec3::from(aabb.center);
    let h = Vec3::from(aabb.half_extents);
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for corner in corners(c - h, c + h) {
        let p = global.transform_point(corner);
        min = min.min(p);
        max = max.max(p);
    }
    (min, max)
}

pub(super) fn corners(min: Vec3, max: Vec3) -> [Vec3; 8] {
    [
        Vec3::new(min.x, min.y, min.z),
        Vec3::new(max.x, min.y, min.z),
        Vec3::new(min.x, max.y, min.z),
        Vec3::new(max.x, max.y, min.z),
        Vec3::new(min.x, min.y, max.z),
        Vec3::new(max.x, min.y, max.z),
        Vec3::new(min.x, max.y, max.z),
        Vec3::new(max.x, max.y, max.z),
    ]
}

/// Where every entity of the instance on `root` shows, through the cameras now active.
pub(super) fn entity_boxes(world: &mut World, root: Entity, job: &RenderJob) -> Vec<EntityBox> {
    let (w, h) = (job.width, job.height);
    let mut cameras: Vec<(Camera, GlobalTransform, bool)> = Vec::new();
    let mut query = world.query::<(&Camera, &GlobalTransform, Has<Camera2d>)>();
    for (camera, global, two_d) in query.iter(world) {
        if camera.is_active {
            cameras.push((camera.clone(), *global, two_d));
        }
    }
    cameras.sort_by_key(|c| c.0.order);
    let camera_for = |two_d: bool| {
        cameras
            .iter()
            .find(|c| c.2 == two_d)
            .or_else(|| cameras.first())
            .map(|c| (&c.0, &c.1))
    };
    let project = |two_d: bool, points: &[Vec3]| -> Option<PixelRect> {
        let (camera, global) = camera_for(two_d)?;
        let mut min = Vec2::splat(f32::INFINITY);
        let mut max = Vec2::splat(f32::NEG_INFINITY);
        let mut any = false;
        for p in points {
            if let Ok(v) = camera.world_to_viewport(global, *p) {
                min = min.min(v);
                max = max.max(v);
                any = true;
            }
        }
        if !any {
            return None;
        }
        let x0 = min.x.floor().max(0.0);
        let y0 = min.y.floor().max(0.0);
        let x1 = max.x.ceil().min(w as f32);
        let y1 = max.y.ceil().min(h as f32);
        (x1 > x0 && y1 > y0).then_some(PixelRect {
            x0: x0 as u32,
            y0: y0 as u32,
            x1: x1 as u32,
            y1: y1 as u32,
        })
    };
    let Some(instance) = world.get::<ForgeSceneInstance>(root).cloned() else {
        return Vec::new();
    };
    let mut boxes: Vec<EntityBox> = Vec::new();
    let mut index = bevy_internal::platform::collections::HashMap::new();
    let mut parents = Vec::new();
    let mut entries: Vec<(Vec<u64>, Entity)> =
        instance.iter().map(|(p, e)| (p.to_vec(), e)).collect();
    entries.sort();
    for (path, e) in entries {
        let Ok(entity) = world.get_entity(e) else {
            continue;
        };
        let name = entity
            .get::<bevy_internal::ecs::name::Name>()
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default();
        let global = entity.get::<GlobalTransform>().copied().unwrap_or_default();
        let two_d = entity.contains::<Sprite>() || entity.contains::<Text2d>();
        let at = global.translation();
        let own = if entity.contains::<Camera>() {
            None
        } else if entity.contains::<DirectionalLight>() {
            Some(PixelRect {
                x0: 0,
                y0: 0,
                x1: w,
                y1: h,
            })
        } else if let Some(aabb) = entity.get::<Aabb>() {
            let (min, max) = world_box(&global, aabb);
            project(two_d, &corners(min, max))
        } else if let Some(range) = entity
            .get::<PointLight>()
            .map(|l| l.range)
            .or_else(|| entity.get::<SpotLight>().map(|l| l.range))
        {
            project(
                false,
                &corners(at - Vec3::splat(range), at + Vec3::splat(range)),
            )
        } else {
            project(two_d, &[at]).map(|r| {
                let (cx, cy) = (r.x0, r.y0);
                PixelRect {
                    x0: cx,
                    y0: cy,
                    x1: cx + 1,
                    y1: cy + 1,
                }
                .grown(8, w, h)
            })
        };
        let parent = entity
            .get::<bevy_internal::ecs::hierarchy::ChildOf>()
            .map(|c| c.parent());
        index.insert(e, boxes.len());
        parents.push(parent);
        boxes.push(EntityBox {
            path,
            name,
            own,
            subtree: own,
        });
    }
    // Each entity's box into every ancestor's subtree box.
    for i in 0..boxes.len() {
        let Some(own) = boxes[i].own else { continue };
        let mut up = parents[i];
        let mut guard = 0;
        while let Some(p) = up
            && let Some(&j) = index.get(&p)
            && guard < 1_000
        {
            boxes[j].subtree = Some(match boxes[j].subtree {
                Some(s) => s.union(own),
                None => own,
            });
            up = parents[j];
            guard += 1;
        }
    }
    boxes
}
