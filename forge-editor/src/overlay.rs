//! What edit mode draws over the scene: each selected entity's bounds, the gizmo's handles on
//! the primary one (the taken or hovered handle in yellow), and where the label goes.

use bevy_forge_scene_render::headless::world_box;
use bevy_internal::camera::primitives::Aabb;
use bevy_internal::color::Color;
use bevy_internal::ecs::hierarchy::Children;
use bevy_internal::ecs::prelude::*;
use bevy_internal::gizmos::gizmos::Gizmos;
use bevy_internal::math::{Isometry3d, Vec2, Vec3};
use bevy_internal::transform::components::{GlobalTransform, Transform};

use crate::gizmo::{CENTRE_PIXELS, GizmoHandle, Shape, handles};
use crate::interact::{GIZMO_PIXELS, View, view_of};
use crate::{EditorGizmos, GizmoState, SelectedInfo, Selection};

/// The selection's outline colour.
const OUTLINE: Color = Color::srgb(1.0, 0.6, 0.1);
/// A handle under the pointer or being dragged.
const ACTIVE: Color = Color::srgb(1.0, 0.95, 0.2);
/// The axes' colours: X, Y, Z.
const AXES: [Color; 3] = [
    Color::srgb(0.95, 0.25, 0.3),
    Color::srgb(0.35, 0.85, 0.3),
    Color::srgb(0.3, 0.5, 1.0),
];
/// The view-plane and uniform-scale handles.
const CENTRE: Color = Color::srgb(0.92, 0.92, 0.92);
/// At most this many descendants make up an entity's bounds (a whole level under one root
/// would cost a frame).
const MOST_DESCENDANTS: usize = 512;

/// Where the label of the primary selection goes (logical pixels, the top of its bounds) and
/// what it says; the panel places it.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub(crate) struct LabelPlace {
    pub(crate) at: Option<Vec2>,
    pub(crate) text: String,
}

/// The world-space box around `entity` and its descendants with bounds, if any has them.
fn selection_box(world: &World, entity: Entity) -> Option<(Vec3, Vec3)> {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut stack = vec![entity];
    let mut seen = 0;
    while let Some(e) = stack.pop() {
        seen += 1;
        if seen > MOST_DESCENDANTS {
            break;
        }
        if let (Some(aabb), Some(global)) = (world.get::<Aabb>(e), world.get::<GlobalTransform>(e))
        {
            let (min, max) = world_box(global, aabb);
            lo = lo.min(min);
            hi = hi.max(max);
        }
        if let Some(children) = world.get::<Children>(e) {
            stack.extend(children.iter());
        }
    }
    (lo.x <= hi.x).then_some((lo, hi))
}

/// Draws the outline, the handles and places the label: a few entities' worth of lines each
/// frame, whatever the scene's size.
pub(crate) fn draw(world: &mut World) {
    let selected = world.resource::<Selection>().entities.clone();
    let camera = world.resource::<GizmoState>().camera;
    let view = camera.and_then(|c| view_of(world, c));
    let mut lines: Vec<Line> = Vec::new();
    let mut label = LabelPlace::default();
    let primary = selected.last().copied();
    for &e in &selected {
        if world.get_entity(e).is_err() {
            continue;
        }
        let own = match (world.get::<Aabb>(e), world.get::<GlobalTransform>(e)) {
            (Some(aabb), Some(global)) if world.get::<Children>(e).is_none_or(|c| c.is_empty()) => {
                let local = Transform::from_translation(Vec3::from(aabb.center))
                    .with_scale((Vec3::from(aabb.half_extents) * 2.0).max(Vec3::splat(1e-3)));
                Some(global.mul_transform(local).compute_transform())
            }
            _ => None,
        };
        let boxed = own.or_else(|| {
            selection_box(world, e).map(|(lo, hi)| {
                Transform::from_translation((lo + hi) / 2.0)
                    .with_scale((hi - lo).max(Vec3::splat(1e-3)))
            })
        });
        match boxed {
            Some(t) => {
                lines.push(Line::Cube(t, OUTLINE));
                if Some(e) == primary
                    && let Some(view) = &view
                {
                    let top = t.transform_point(Vec3::new(0.0, 0.5, 0.0));
                    label.at = view.project(top);
                }
            }
            None => {
                if let Some(global) = world.get::<GlobalTransform>(e) {
                    let p = global.translation();
                    if let Some(view) = &view
                        && let Some(frame) = view.frame(
                            global,
                            crate::GizmoMode::Translate,
                            crate::GizmoSpace::World,
                        )
                    {
                        let r = frame.size * 0.1;
                        for a in [Vec3::X, Vec3::Y, Vec3::Z] {
                            lines.push(Line::Segment(p - a * r, p + a * r, OUTLINE));
                        }
                        if Some(e) == primary {
                            label.at = view.project(p + Vec3::Y * r);
                        }
                    }
                }
            }
        }
    }
    if let Some(e) = primary {
        let info = world.resource::<SelectedInfo>();
        if info.entity == Some(e) {
            label.text = format!("{} {:?}", info.name, info.id_path);
        }
        if let Some(view) = &view {
            handle_lines(world, view, e, &mut lines);
        }
    }
    if *world.resource::<LabelPlace>() != label {
        *world.resource_mut::<LabelPlace>() = label;
    }
    world.run_system_cached_with(emit, lines).ok();
}

/// One line to draw.
#[derive(Debug, Clone)]
pub(crate) enum Line {
    Segment(Vec3, Vec3, Color),
    Arrow(Vec3, Vec3, Color),
    Strip(Vec<Vec3>, Color),
    Cube(Transform, Color),
    Circle(Isometry3d, f32, Color),
}

fn emit(lines: In<Vec<Line>>, mut gizmos: Gizmos<EditorGizmos>) {
    for line in lines.0 {
        match line {
            Line::Segment(a, b, c) => gizmos.line(a, b, c),
            Line::Arrow(a, b, c) => {
                let tip = a.distance(b) * 0.2;
                gizmos.arrow(a, b, c).with_tip_length(tip);
            }
            Line::Strip(points, c) => gizmos.linestrip(points, c),
            Line::Cube(t, c) => gizmos.cube(t, c),
            Line::Circle(iso, r, c) => {
                gizmos.circle(iso, r, c);
            }
        }
    }
}

fn handle_lines(world: &World, view: &View, entity: Entity, lines: &mut Vec<Line>) {
    let state = world.resource::<GizmoState>();
    let Some(global) = world.get::<GlobalTransform>(entity) else {
        return;
    };
    let (frame, active) = match &state.drag {
        Some(drag) => (drag.start.frame, Some(drag.start.handle)),
        None => match view.frame(global, state.mode, state.space) {
            Some(f) => (f, state.hovered),
            None => return,
        },
    };
    // During a drag the gizmo follows the entity's centre.
    let frame = crate::gizmo::Frame {
        origin: global.translation(),
        ..frame
    };
    for &handle in handles(state.mode, frame.two_d) {
        let colour = if Some(handle) == active {
            ACTIVE
        } else {
            match handle {
                GizmoHandle::Axis(i)
                | GizmoHandle::Plane(i)
                | GizmoHandle::Rotate(i)
                | GizmoHandle::ScaleAxis(i) => AXES[i],
                GizmoHandle::ViewPlane | GizmoHandle::ScaleUniform => CENTRE,
            }
        };
        match frame.shape(handle) {
            Shape::Segment(a, b) => match handle {
                GizmoHandle::ScaleAxis(_) => {
                    lines.push(Line::Segment(a, b, colour));
                    lines.push(Line::Cube(
                        Transform::from_translation(b)
                            .with_rotation(view.transform.compute_transform().rotation)
                            .with_scale(Vec3::splat(frame.size * 0.08)),
                        colour,
                    ));
                }
                _ => lines.push(Line::Arrow(a, b, colour)),
            },
            Shape::Loop(mut points) => {
                if let Some(first) = points.first().copied() {
                    points.push(first);
                }
                lines.push(Line::Strip(points, colour));
            }
            Shape::Centre => {
                let radius = frame.size * CENTRE_PIXELS / GIZMO_PIXELS;
                let iso =
                    Isometry3d::new(frame.origin, view.transform.compute_transform().rotation);
                match handle {
                    GizmoHandle::ScaleUniform => lines.push(Line::Cube(
                        Transform::from_isometry(iso).with_scale(Vec3::splat(radius * 1.6)),
                        colour,
                    )),
                    _ => lines.push(Line::Circle(iso, radius, colour)),
                }
            }
        }
    }
}
