//! The gizmo's geometry, free of Bevy's world: rays against planes and axes, angles in a
//! plane, distances on screen, snapping. Units: world units for positions, radians for
//! angles, logical pixels for screen positions.

use bevy_internal::math::{Vec2, Vec3};

/// Below this, a ray and a plane (or two lines) count as parallel: no meeting point.
const PARALLEL: f32 = 1e-4;

/// A ray in world space: every `origin + t * direction` (`direction` need not be unit length;
/// negative `t` is allowed, since an orthographic camera's ray may start past the point).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where it starts.
    pub origin: Vec3,
    /// Where it goes.
    pub direction: Vec3,
}

impl Ray {
    /// The ray from `origin` along `direction`.
    pub fn new(origin: Vec3, direction: Vec3) -> Self {
        Self { origin, direction }
    }

    /// The point at parameter `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }
}

/// Where `ray` meets the plane through `point` with normal `normal`; `None` when the ray
/// runs along the plane.
pub fn ray_plane(ray: Ray, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let n = normal.normalize_or_zero();
    let d = ray.direction.normalize_or_zero();
    let denom = d.dot(n);
    if denom.abs() < PARALLEL || n == Vec3::ZERO {
        return None;
    }
    let t = (point - ray.origin).dot(n) / denom;
    Some(ray.origin + d * t)
}

/// The parameter `s` of the point `origin + s * axis` (axis made unit length) nearest to
/// `ray`: how far along the axis the pointer is. `None` when the ray runs along the axis.
pub fn axis_parameter(ray: Ray, origin: Vec3, axis: Vec3) -> Option<f32> {
    let a = axis.normalize_or_zero();
    let d = ray.direction.normalize_or_zero();
    if a == Vec3::ZERO || d == Vec3::ZERO {
        return None;
    }
    // Closest points of two lines: origin + s a and ray.origin + t d.
    let w = origin - ray.origin;
    let b = a.dot(d);
    let denom = 1.0 - b * b;
    if denom < PARALLEL {
        return None;
    }
    let e = a.dot(w);
    let f = d.dot(w);
    Some((b * f - e) / denom)
}

/// The signed angle (radians, right-handed about `normal`) from `from` to `to` as seen along
/// `normal`, both taken relative to `center` and flattened onto the plane.
pub fn angle_about(center: Vec3, normal: Vec3, from: Vec3, to: Vec3) -> f32 {
    let n = normal.normalize_or_zero();
    let flat = |p: Vec3| {
        let v = p - center;
        v - n * v.dot(n)
    };
    let (a, b) = (flat(from), flat(to));
    if a.length_squared() < 1e-12 || b.length_squared() < 1e-12 {
        return 0.0;
    }
    let cross = a.cross(b).dot(n);
    cross.atan2(a.dot(b))
}

/// `value` rounded to the nearest multiple of `step`; `value` itself when `step` is not a
/// positive number.
pub fn snap(value: f32, step: f32) -> f32 {
    if step.is_finite() && step > 0.0 {
        (value / step).round() * step
    } else {
        value
    }
}

/// The distance from `p` to the segment from `a` to `b` (on screen, in pixels).
pub fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

/// The distance from `p` to the closed polyline through `points`.
pub fn polyline_distance(p: Vec2, points: &[Vec2]) -> f32 {
    let n = points.len();
    (0..n)
        .map(|i| segment_distance(p, points[i], points[(i + 1) % n]))
        .fold(f32::INFINITY, f32::min)
}

/// Whether `p` is inside the convex polygon `corners` (in order, either winding).
pub fn inside_convex(p: Vec2, corners: &[Vec2]) -> bool {
    let n = corners.len();
    if n < 3 {
        return false;
    }
    let mut sign = 0.0f32;
    for i in 0..n {
        let a = corners[i];
        let b = corners[(i + 1) % n];
        let c = (b - a).perp_dot(p - a);
        if c.abs() < 1e-6 {
            continue;
        }
        if sign == 0.0 {
            sign = c.signum();
        } else if c.signum() != sign {
            return false;
        }
    }
    // A polygon seen edge-on has no inside.
    sign != 0.0
}

/// The factor a scale drag gives when the pointer went from `start` to `now` parameters along
/// an axis measured from the gizmo's centre (both in world units): `now / start`, or 1 when
/// the drag started at the centre. Never below `min` in size, never zero: a scale of zero
/// flattens an entity, which the format warns about.
pub fn scale_factor(start: f32, now: f32, min: f32) -> f32 {
    if start.abs() < 1e-6 {
        return 1.0;
    }
    let f = now / start;
    if f.abs() < min {
        if f < 0.0 { -min } else { min }
    } else {
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn a_ray_meets_a_plane_where_it_crosses_it() {
        let ray = Ray::new(Vec3::new(1.0, 5.0, 2.0), Vec3::new(0.0, -2.0, 0.0));
        let hit = ray_plane(ray, Vec3::ZERO, Vec3::Y).unwrap();
        assert!(hit.distance(Vec3::new(1.0, 0.0, 2.0)) < 1e-5);
        // A ray that starts past the plane still meets it (behind its origin).
        let hit = ray_plane(
            Ray::new(Vec3::new(0.0, -3.0, 0.0), Vec3::NEG_Y),
            Vec3::ZERO,
            Vec3::Y,
        );
        assert!(hit.unwrap().distance(Vec3::ZERO) < 1e-5);
        // Along the plane: none.
        assert_eq!(
            ray_plane(Ray::new(Vec3::Y, Vec3::X), Vec3::ZERO, Vec3::Y),
            None
        );
    }

    #[test]
    fn the_axis_parameter_is_where_the_ray_passes_nearest() {
        // A ray straight down through x = 3 passes nearest the x axis at s = 3.
        let ray = Ray::new(Vec3::new(3.0, 10.0, 0.0), Vec3::NEG_Y);
        assert!(close(
            axis_parameter(ray, Vec3::ZERO, Vec3::X).unwrap(),
            3.0
        ));
        // From an axis origin elsewhere, and an axis not of unit length.
        let s = axis_parameter(ray, Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0)).unwrap();
        assert!(close(s, 2.0));
        // A slanted ray: the nearest point is still found.
        let ray = Ray::new(Vec3::new(-1.0, 4.0, 4.0), Vec3::new(0.0, -1.0, -1.0));
        assert!(close(
            axis_parameter(ray, Vec3::ZERO, Vec3::X).unwrap(),
            -1.0
        ));
        // Along the axis: none.
        assert_eq!(
            axis_parameter(Ray::new(Vec3::Y, Vec3::X), Vec3::ZERO, Vec3::X),
            None
        );
    }

    #[test]
    fn angles_about_an_axis_are_signed_right_handed() {
        let a = angle_about(Vec3::ZERO, Vec3::Z, Vec3::X, Vec3::Y);
        assert!(close(a, std::f32::consts::FRAC_PI_2));
        let a = angle_about(Vec3::ZERO, Vec3::Z, Vec3::Y, Vec3::X);
        assert!(close(a, -std::f32::consts::FRAC_PI_2));
        // Points off the plane are flattened onto it first; the centre may be anywhere.
        let c = Vec3::new(1.0, 1.0, 0.0);
        let a = angle_about(
            c,
            Vec3::Z,
            c + Vec3::new(1.0, 0.0, 5.0),
            c + Vec3::new(-1.0, 0.0, -2.0),
        );
        assert!(close(a.abs(), std::f32::consts::PI));
        // A point at the centre gives no angle.
        assert_eq!(angle_about(c, Vec3::Z, c, Vec3::X), 0.0);
    }

    #[test]
    fn snapping_rounds_to_the_nearest_step() {
        assert!(close(snap(1.26, 0.5), 1.5));
        assert!(close(snap(-0.74, 0.5), -0.5));
        assert!(close(snap(37.0, 15.0), 30.0));
        assert!(close(snap(38.0, 15.0), 45.0));
        // No step: the value as it is.
        assert_eq!(snap(1.26, 0.0), 1.26);
        assert_eq!(snap(1.26, f32::NAN), 1.26);
    }

    #[test]
    fn screen_distances_to_segments_rings_and_quads() {
        let (a, b) = (Vec2::new(0.0, 0.0), Vec2::new(10.0, 0.0));
        assert!(close(segment_distance(Vec2::new(5.0, 3.0), a, b), 3.0));
        assert!(close(segment_distance(Vec2::new(-4.0, 3.0), a, b), 5.0));
        assert!(close(
            segment_distance(Vec2::new(1.0, 1.0), a, a),
            2f32.sqrt()
        ));
        let square = [
            Vec2::new(0.0, 0.0),
            Vec2::new(4.0, 0.0),
            Vec2::new(4.0, 4.0),
            Vec2::new(0.0, 4.0),
        ];
        assert!(close(polyline_distance(Vec2::new(2.0, 2.0), &square), 2.0));
        assert!(close(polyline_distance(Vec2::new(2.0, 5.0), &square), 1.0));
        assert!(inside_convex(Vec2::new(2.0, 2.0), &square));
        assert!(!inside_convex(Vec2::new(5.0, 2.0), &square));
        let mut reversed = square;
        reversed.reverse();
        assert!(inside_convex(Vec2::new(1.0, 3.0), &reversed));
        // Seen edge-on (all corners on a line): nothing is inside.
        let flat = [Vec2::ZERO, Vec2::X, Vec2::X, Vec2::ZERO];
        assert!(!inside_convex(Vec2::new(0.5, 0.0), &flat));
    }

    #[test]
    fn scale_factors_follow_the_pointer_and_never_reach_zero() {
        assert!(close(scale_factor(1.0, 2.0, 0.01), 2.0));
        assert!(close(scale_factor(2.0, 1.0, 0.01), 0.5));
        assert!(close(scale_factor(1.0, 0.0, 0.01), 0.01));
        assert!(close(scale_factor(1.0, -0.001, 0.01), -0.01));
        assert_eq!(scale_factor(0.0, 5.0, 0.01), 1.0);
    }
}
