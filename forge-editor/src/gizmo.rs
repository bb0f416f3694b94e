//! The transform gizmo, as geometry: which handles a mode shows (the 2D subset for a 2D
//! camera), where each is on screen, which one the pointer is on, and what a drag from one
//! does to a `Transform`. Drawing and input are in [`crate::systems`]; nothing here touches a
//! world, so every rule is unit-tested.

use bevy_internal::math::{Affine3A, Quat, Vec2, Vec3};
use bevy_internal::transform::components::Transform;

use crate::math::{
    Ray, angle_about, axis_parameter, inside_convex, polyline_distance, ray_plane, scale_factor,
    segment_distance, snap,
};

/// What a drag does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum GizmoMode {
    /// Move: along an axis, in a plane, or in the view plane.
    #[default]
    Translate,
    /// Turn about an axis.
    Rotate,
    /// Scale along an axis of the entity, or uniformly.
    Scale,
}

/// Whose axes the handles follow. Scale handles always follow the entity's own axes (a scale
/// is along them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum GizmoSpace {
    /// The world's X, Y and Z.
    #[default]
    World,
    /// The entity's own axes (its global rotation).
    Local,
}

/// One handle of the gizmo. Axes are numbered 0, 1, 2 for X, Y, Z of the gizmo's space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GizmoHandle {
    /// Move along an axis.
    Axis(usize),
    /// Move in the plane across an axis (`Plane(2)` is the XY plane).
    Plane(usize),
    /// Move in the plane facing the camera.
    ViewPlane,
    /// Turn about an axis.
    Rotate(usize),
    /// Scale along one of the entity's axes.
    ScaleAxis(usize),
    /// Scale along all three at once.
    ScaleUniform,
}

/// Where the gizmo is: its centre and axes in world space, how long an axis handle is in world
/// units (so that it shows at a steady size on screen), and the camera's view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The centre: the primary selected entity's global translation.
    pub origin: Vec3,
    /// The three unit axes, world space.
    pub axes: [Vec3; 3],
    /// The length of an axis handle, world units.
    pub size: f32,
    /// The direction the camera looks, world space.
    pub view: Vec3,
    /// A 2D camera: the 2D subset of handles.
    pub two_d: bool,
}

/// How far, in logical pixels, the pointer may be from a handle and still take it.
pub const GRAB_PIXELS: f32 = 8.0;
/// The radius, in logical pixels, of the centre handles (view plane, uniform scale).
pub const CENTRE_PIXELS: f32 = 10.0;
/// Where a plane handle's square starts and ends along its two axes, as parts of `size`.
const PLANE_SPAN: (f32, f32) = (0.25, 0.45);
/// A rotation ring's radius, as a part of `size`.
const RING: f32 = 0.9;
/// Points along a rotation ring.
const RING_POINTS: usize = 48;

/// The handles `mode` shows: the 2D subset (X, Y, the view plane; Z rotation; X and Y scale)
/// for a 2D camera.
pub fn handles(mode: GizmoMode, two_d: bool) -> &'static [GizmoHandle] {
    use GizmoHandle::*;
    match (mode, two_d) {
        (GizmoMode::Translate, false) => &[
            ViewPlane,
            Plane(0),
            Plane(1),
            Plane(2),
            Axis(0),
            Axis(1),
            Axis(2),
        ],
        (GizmoMode::Translate, true) => &[ViewPlane, Axis(0), Axis(1)],
        (GizmoMode::Rotate, false) => &[Rotate(0), Rotate(1), Rotate(2)],
        (GizmoMode::Rotate, true) => &[Rotate(2)],
        (GizmoMode::Scale, false) => &[ScaleUniform, ScaleAxis(0), ScaleAxis(1), ScaleAxis(2)],
        (GizmoMode::Scale, true) => &[ScaleUniform, ScaleAxis(0), ScaleAxis(1)],
    }
}

/// A handle's shape in world space, to draw and to hit.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A segment from the first point to the second.
    Segment(Vec3, Vec3),
    /// A closed polygon (a plane handle's square, a ring).
    Loop(Vec<Vec3>),
    /// A dot at the centre, `CENTRE_PIXELS` wide on screen.
    Centre,
}

impl Frame {
    /// The shape of `handle`.
    pub fn shape(&self, handle: GizmoHandle) -> Shape {
        let o = self.origin;
        let s = self.size;
        match handle {
            GizmoHandle::Axis(i) | GizmoHandle::ScaleAxis(i) => {
                Shape::Segment(o + self.axes[i] * s * 0.15, o + self.axes[i] * s)
            }
            GizmoHandle::Plane(i) => {
                let (a, b) = (self.axes[(i + 1) % 3], self.axes[(i + 2) % 3]);
                let (lo, hi) = (PLANE_SPAN.0 * s, PLANE_SPAN.1 * s);
                Shape::Loop(vec![
                    o + a * lo + b * lo,
                    o + a * hi + b * lo,
                    o + a * hi + b * hi,
                    o + a * lo + b * hi,
                ])
            }
            GizmoHandle::Rotate(i) => {
                let (a, b) = (self.axes[(i + 1) % 3], self.axes[(i + 2) % 3]);
                let r = RING * s;
                Shape::Loop(
                    (0..RING_POINTS)
                        .map(|k| {
                            let t = k as f32 / RING_POINTS as f32 * std::f32::consts::TAU;
                            o + (a * t.cos() + b * t.sin()) * r
                        })
                        .collect(),
                )
            }
            GizmoHandle::ViewPlane | GizmoHandle::ScaleUniform => Shape::Centre,
        }
    }

    /// The handle of `mode` under the pointer at `pointer` (logical pixels), given `project`
    /// (world point to logical pixels, `None` behind the camera). The centre handle comes first,
    /// then plane squares, then the nearest axis or ring within [`GRAB_PIXELS`].
    pub fn hit(
        &self,
        mode: GizmoMode,
        pointer: Vec2,
        project: impl Fn(Vec3) -> Option<Vec2>,
    ) -> Option<GizmoHandle> {
        let centre = project(self.origin)?;
        let mut best: Option<(f32, GizmoHandle)> = None;
        for &handle in handles(mode, self.two_d) {
            match self.shape(handle) {
                Shape::Centre => {
                    if pointer.distance(centre) <= CENTRE_PIXELS {
                        return Some(handle);
                    }
                }
                Shape::Loop(points) if matches!(handle, GizmoHandle::Plane(_)) => {
                    let Some(corners) = points
                        .iter()
                        .map(|p| project(*p))
                        .collect::<Option<Vec<_>>>()
                    else {
                        continue;
                    };
                    if inside_convex(pointer, &corners) {
                        return Some(handle);
                    }
                }
                Shape::Loop(points) => {
                    let Some(ring) = points
                        .iter()
                        .map(|p| project(*p))
                        .collect::<Option<Vec<_>>>()
                    else {
                        continue;
                    };
                    let d = polyline_distance(pointer, &ring);
                    if d <= GRAB_PIXELS && best.is_none_or(|(b, _)| d < b) {
                        best = Some((d, handle));
                    }
                }
                Shape::Segment(a, b) => {
                    let (Some(a), Some(b)) = (project(a), project(b)) else {
                        continue;
                    };
                    let d = segment_distance(pointer, a, b);
                    if d <= GRAB_PIXELS && best.is_none_or(|(b, _)| d < b) {
                        best = Some((d, handle));
                    }
                }
            }
        }
        best.map(|(_, h)| h)
    }
}

/// Snapping steps, used while the snap modifier is held. `None` snaps nothing of that kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snapping {
    /// Moves go in steps of this many world units (along each of the gizmo's axes).
    pub translate: Option<f32>,
    /// Turns go in steps of this many degrees.
    pub rotate_degrees: Option<f32>,
    /// Scales land on multiples of this.
    pub scale: Option<f32>,
}

impl Default for Snapping {
    /// Half a unit, 15 degrees, a tenth.
    fn default() -> Self {
        Self {
            translate: Some(0.5),
            rotate_degrees: Some(15.0),
            scale: Some(0.1),
        }
    }
}

/// Where a drag started: the handle, the gizmo then, and the pointer's ray and place.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DragStart {
    /// The handle taken.
    pub handle: GizmoHandle,
    /// The gizmo when the drag started (it does not follow the entity during the drag).
    pub frame: Frame,
    /// The pointer's ray then.
    pub ray: Ray,
    /// The pointer then, logical pixels.
    pub pointer: Vec2,
    /// The gizmo's centre on screen then, logical pixels.
    pub centre: Vec2,
}

/// What a drag does so far, in world terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Delta {
    /// Move by this world-space offset.
    Translate(Vec3),
    /// Turn by `angle` radians about the world-space `axis`.
    Rotate {
        /// The unit axis.
        axis: Vec3,
        /// Radians, right-handed.
        angle: f32,
    },
    /// Multiply the local scale by these factors.
    Scale(Vec3),
}

/// Below this |cos| between the view and a ring's axis, the ring is seen edge-on and the turn
/// is read from the pointer's angle about the centre on screen instead.
const EDGE_ON: f32 = 0.2;

impl DragStart {
    /// What the drag does with the pointer now at `pointer` with ray `ray`; `None` when the
    /// pointer's ray does not meet the handle's line or plane (keep the last delta).
    /// Translation snaps its offset along each gizmo axis, rotation its angle; scale snaps in
    /// [`apply`].
    pub fn delta(&self, ray: Ray, pointer: Vec2, snapping: Option<&Snapping>) -> Option<Delta> {
        let f = &self.frame;
        let o = f.origin;
        let step = |s: Option<f32>| s.unwrap_or(0.0);
        match self.handle {
            GizmoHandle::Axis(i) => {
                let a = f.axes[i];
                let d = axis_parameter(ray, o, a)? - axis_parameter(self.ray, o, a)?;
                let d = snap(d, step(snapping.and_then(|s| s.translate)));
                Some(Delta::Translate(a * d))
            }
            GizmoHandle::Plane(_) | GizmoHandle::ViewPlane => {
                let n = match self.handle {
                    GizmoHandle::Plane(i) => f.axes[i],
                    _ => f.view,
                };
                let d = ray_plane(ray, o, n)? - ray_plane(self.ray, o, n)?;
                let d = match snapping.and_then(|s| s.translate) {
                    Some(st) => f
                        .axes
                        .iter()
                        .map(|a| *a * snap(d.dot(*a), st))
                        .fold(Vec3::ZERO, |acc, v| acc + v),
                    None => d,
                };
                Some(Delta::Translate(d))
            }
            GizmoHandle::Rotate(i) => {
                let n = f.axes[i];
                let angle = if f.view.normalize_or_zero().dot(n).abs() >= EDGE_ON {
                    let from = ray_plane(self.ray, o, n)?;
                    let to = ray_plane(ray, o, n)?;
                    angle_about(o, n, from, to)
                } else {
                    screen_turn(self.centre, self.pointer, pointer, f.view.dot(n) < 0.0)
                };
                let angle = match snapping.and_then(|s| s.rotate_degrees) {
                    Some(deg) => snap(angle.to_degrees(), deg).to_radians(),
                    None => angle,
                };
                Some(Delta::Rotate { axis: n, angle })
            }
            GizmoHandle::ScaleAxis(i) => {
                let a = f.axes[i];
                let factor = scale_factor(
                    axis_parameter(self.ray, o, a)?,
                    axis_parameter(ray, o, a)?,
                    0.01,
                );
                let mut v = Vec3::ONE;
                v[i] = factor;
                Some(Delta::Scale(v))
            }
            GizmoHandle::ScaleUniform => {
                let factor = scale_factor(
                    self.pointer.distance(self.centre),
                    pointer.distance(self.centre),
                    0.01,
                );
                Some(Delta::Scale(Vec3::splat(factor)))
            }
        }
    }
}

/// The turn (radians, about an axis that points at the viewer when `towards_viewer`) of a
/// pointer moving from `from` to `to` around `centre` on screen (y down).
fn screen_turn(centre: Vec2, from: Vec2, to: Vec2, towards_viewer: bool) -> f32 {
    let (a, b) = (from - centre, to - centre);
    if a.length_squared() < 1e-6 || b.length_squared() < 1e-6 {
        return 0.0;
    }
    // With y down, a turn the viewer sees counter-clockwise has a negative cross product.
    let seen = -a.perp_dot(b).atan2(a.dot(b));
    if towards_viewer { seen } else { -seen }
}

/// `start` (a local transform, under a parent whose global transform is `parent`) after
/// `delta`: moves and turns are in world space, scales along the entity's own axes; with
/// `snapping`, each scale component changed lands on a multiple of its step (never zero).
pub fn apply(
    start: &Transform,
    parent: &Affine3A,
    delta: &Delta,
    snapping: Option<&Snapping>,
) -> Transform {
    let mut t = *start;
    match *delta {
        Delta::Translate(offset) => {
            let world = parent.transform_point3(start.translation) + offset;
            t.translation = parent.inverse().transform_point3(world);
        }
        Delta::Rotate { axis, angle } => {
            let (_, parent_rotation, _) = parent.to_scale_rotation_translation();
            let turn = Quat::from_axis_angle(axis.normalize_or_zero(), angle);
            t.rotation =
                (parent_rotation.inverse() * turn * parent_rotation * start.rotation).normalize();
        }
        Delta::Scale(factors) => {
            let mut s = start.scale * factors;
            if let Some(step) = snapping.and_then(|s| s.scale) {
                for i in 0..3 {
                    if factors[i] != 1.0 {
                        let v = snap(s[i], step);
                        s[i] = if v == 0.0 { step.copysign(s[i]) } else { v };
                    }
                }
            }
            t.scale = s;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A camera looking down -Z from z = 10, orthographic, 10 pixels per unit, centre at
    /// (400, 300) on screen: a 2D view.
    fn project_2d(p: Vec3) -> Option<Vec2> {
        Some(Vec2::new(400.0 + p.x * 10.0, 300.0 - p.y * 10.0))
    }

    fn ray_2d(screen: Vec2) -> Ray {
        let x = (screen.x - 400.0) / 10.0;
        let y = (300.0 - screen.y) / 10.0;
        Ray::new(Vec3::new(x, y, 10.0), Vec3::NEG_Z)
    }

    fn frame_2d() -> Frame {
        Frame {
            origin: Vec3::ZERO,
            axes: [Vec3::X, Vec3::Y, Vec3::Z],
            size: 8.0,
            view: Vec3::NEG_Z,
            two_d: true,
        }
    }

    fn start(handle: GizmoHandle, frame: Frame, at: Vec2) -> DragStart {
        DragStart {
            handle,
            frame,
            ray: ray_2d(at),
            pointer: at,
            centre: project_2d(frame.origin).unwrap(),
        }
    }

    #[test]
    fn a_2d_camera_gets_the_2d_subset() {
        assert_eq!(handles(GizmoMode::Rotate, true), &[GizmoHandle::Rotate(2)]);
        assert!(!handles(GizmoMode::Translate, true).contains(&GizmoHandle::Axis(2)));
        assert!(handles(GizmoMode::Translate, false).contains(&GizmoHandle::Axis(2)));
        assert!(!handles(GizmoMode::Scale, true).contains(&GizmoHandle::ScaleAxis(2)));
    }

    #[test]
    fn the_pointer_takes_the_handle_it_is_on() {
        let f = frame_2d();
        // The centre: the view plane.
        assert_eq!(
            f.hit(GizmoMode::Translate, Vec2::new(403.0, 302.0), project_2d),
            Some(GizmoHandle::ViewPlane)
        );
        // Along +X at 5 units (x = 450 on screen), 3 pixels off the line.
        assert_eq!(
            f.hit(GizmoMode::Translate, Vec2::new(450.0, 303.0), project_2d),
            Some(GizmoHandle::Axis(0))
        );
        // Along +Y.
        assert_eq!(
            f.hit(GizmoMode::Translate, Vec2::new(401.0, 240.0), project_2d),
            Some(GizmoHandle::Axis(1))
        );
        // Nowhere near.
        assert_eq!(
            f.hit(GizmoMode::Translate, Vec2::new(480.0, 200.0), project_2d),
            None
        );
        // The Z ring at radius 0.9 * 8 = 7.2 units: 72 pixels from the centre.
        assert_eq!(
            f.hit(
                GizmoMode::Rotate,
                Vec2::new(400.0, 300.0 - 74.0),
                project_2d
            ),
            Some(GizmoHandle::Rotate(2))
        );
        // A 3D frame: the XY plane square, from 0.25 to 0.45 of the size along X and Y.
        let f3 = Frame { two_d: false, ..f };
        assert_eq!(
            f3.hit(
                GizmoMode::Translate,
                Vec2::new(400.0 + 28.0, 300.0 - 28.0),
                project_2d
            ),
            Some(GizmoHandle::Plane(2))
        );
    }

    #[test]
    fn an_axis_drag_moves_along_the_axis_only() {
        let s = start(GizmoHandle::Axis(0), frame_2d(), Vec2::new(450.0, 300.0));
        let d = s.delta(
            ray_2d(Vec2::new(473.0, 280.0)),
            Vec2::new(473.0, 280.0),
            None,
        );
        let Some(Delta::Translate(v)) = d else {
            panic!("{d:?}")
        };
        assert!((v - Vec3::new(2.3, 0.0, 0.0)).length() < 1e-4, "{v}");
        // Snapped to half units.
        let d = s.delta(
            ray_2d(Vec2::new(473.0, 280.0)),
            Vec2::new(473.0, 280.0),
            Some(&Snapping::default()),
        );
        assert_eq!(d, Some(Delta::Translate(Vec3::new(2.5, 0.0, 0.0))));
    }

    #[test]
    fn a_view_plane_drag_follows_the_pointer_in_the_plane() {
        let s = start(GizmoHandle::ViewPlane, frame_2d(), Vec2::new(400.0, 300.0));
        let d = s.delta(
            ray_2d(Vec2::new(412.0, 286.0)),
            Vec2::new(412.0, 286.0),
            None,
        );
        let Some(Delta::Translate(v)) = d else {
            panic!("{d:?}")
        };
        assert!((v - Vec3::new(1.2, 1.4, 0.0)).length() < 1e-4, "{v}");
        let d = s.delta(
            ray_2d(Vec2::new(412.0, 286.0)),
            Vec2::new(412.0, 286.0),
            Some(&Snapping::default()),
        );
        assert_eq!(d, Some(Delta::Translate(Vec3::new(1.0, 1.5, 0.0))));
    }

    #[test]
    fn a_ring_drag_turns_by_the_angle_swept_and_snaps_to_degrees() {
        // From +X (x = 472) a quarter turn to +Y (y = 228): +90 degrees about +Z.
        let s = start(GizmoHandle::Rotate(2), frame_2d(), Vec2::new(472.0, 300.0));
        let Some(Delta::Rotate { axis, angle }) = s.delta(
            ray_2d(Vec2::new(400.0, 228.0)),
            Vec2::new(400.0, 228.0),
            None,
        ) else {
            panic!()
        };
        assert_eq!(axis, Vec3::Z);
        assert!(
            (angle.to_degrees() - 90.0).abs() < 1e-3,
            "{}",
            angle.to_degrees()
        );
        // 40 degrees snaps to 45.
        let to = Vec2::new(
            400.0 + 72.0 * 40f32.to_radians().cos(),
            300.0 - 72.0 * 40f32.to_radians().sin(),
        );
        let Some(Delta::Rotate { angle, .. }) = s.delta(ray_2d(to), to, Some(&Snapping::default()))
        else {
            panic!()
        };
        assert!(
            (angle.to_degrees() - 45.0).abs() < 1e-3,
            "{}",
            angle.to_degrees()
        );
    }

    #[test]
    fn an_edge_on_ring_reads_the_turn_on_screen() {
        // The X ring seen edge-on from a 2D camera: the pointer's sweep about the centre.
        let f = Frame {
            two_d: false,
            ..frame_2d()
        };
        let s = start(GizmoHandle::Rotate(0), f, Vec2::new(472.0, 300.0));
        let Some(Delta::Rotate { angle, .. }) = s.delta(
            ray_2d(Vec2::new(400.0, 228.0)),
            Vec2::new(400.0, 228.0),
            None,
        ) else {
            panic!()
        };
        assert!((angle.abs().to_degrees() - 90.0).abs() < 1e-3);
    }

    #[test]
    fn scale_drags_multiply_along_one_axis_or_all() {
        let s = start(
            GizmoHandle::ScaleAxis(0),
            frame_2d(),
            Vec2::new(440.0, 300.0),
        );
        let d = s.delta(
            ray_2d(Vec2::new(480.0, 300.0)),
            Vec2::new(480.0, 300.0),
            None,
        );
        assert_eq!(d, Some(Delta::Scale(Vec3::new(2.0, 1.0, 1.0))));
        let s = start(
            GizmoHandle::ScaleUniform,
            frame_2d(),
            Vec2::new(420.0, 300.0),
        );
        let d = s.delta(
            ray_2d(Vec2::new(400.0, 330.0)),
            Vec2::new(400.0, 330.0),
            None,
        );
        assert_eq!(d, Some(Delta::Scale(Vec3::splat(1.5))));
    }

    #[test]
    fn deltas_apply_in_world_space_under_a_parent() {
        let start = Transform::from_xyz(1.0, 0.0, 0.0);
        // A parent moved to x = 10, turned a quarter about Z and scaled twice.
        let parent = Affine3A::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            Vec3::new(10.0, 0.0, 0.0),
        );
        // Moving 4 world units along +Y is 2 local units along +X (the parent's X is world Y).
        let t = apply(
            &start,
            &parent,
            &Delta::Translate(Vec3::new(0.0, 4.0, 0.0)),
            None,
        );
        assert!(
            (t.translation - Vec3::new(3.0, 0.0, 0.0)).length() < 1e-4,
            "{}",
            t.translation
        );
        // A world turn about Z under a parent turned about Z is the same local turn.
        let turn = Delta::Rotate {
            axis: Vec3::Z,
            angle: 0.5,
        };
        let t = apply(&start, &parent, &turn, None);
        assert!(t.rotation.angle_between(Quat::from_rotation_z(0.5)) < 1e-4);
        // Scale snapping lands on steps and never on zero.
        let t = apply(
            &start,
            &Affine3A::IDENTITY,
            &Delta::Scale(Vec3::new(1.37, 1.0, 1.0)),
            Some(&Snapping::default()),
        );
        assert!((t.scale.x - 1.4).abs() < 1e-5 && t.scale.y == 1.0);
        let t = apply(
            &start,
            &Affine3A::IDENTITY,
            &Delta::Scale(Vec3::new(0.01, 1.0, 1.0)),
            Some(&Snapping::default()),
        );
        assert!((t.scale.x - 0.1).abs() < 1e-5);
    }
}
