//! Validation: one test per rule, each showing the diagnostic's code, entity and line, plus
//! ordering and robustness properties.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_forge_scene::format::{IntegrityProblem, SceneDoc};
use bevy_forge_scene::project::AssetIndex;
use bevy_forge_scene::validate::{Diagnostic, Severity};
use bevy_forge_scene::validate::{ValidationReport, validate_parsed, validate_scene};
use common::*;
use proptest::prelude::*;

const T: &str = "transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))";
const CAMERA: &str = "(type: camera2d)";
const SUN: &str = "(type: directional_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), illuminance: 1000.0, shadows: false))";

/// One entity entry on one line: a root named `E<id>` with the identity transform.
fn ent(id: u64, components: &str) -> String {
    format!(
        "{id}: (id: {id}, name: \"E{id}\", parent: None, children: [], {T}, components: [{components}]),"
    )
}

/// A scene whose entity `i` (0-based) sits on line `5 + i`; every entity is a root. Entity 1 is a
/// camera and entity 2 the scene's light unless the caller's entities replace them, so only the
/// rule under test fires.
fn scene(entities: &[String]) -> String {
    let ids: Vec<String> = entities
        .iter()
        .map(|e| e.split(':').next().unwrap().trim().to_owned())
        .collect();
    let max: u64 = ids
        .iter()
        .map(|i| i.parse::<u64>().unwrap())
        .max()
        .unwrap_or(0);
    format!(
        "(\n  format_version: 1,\n  name: \"Test\",\n  entities: {{\n    {}\n  }},\n  roots: [{}],\n  next_id: {},\n)\n",
        entities.join("\n    "),
        ids.join(", "),
        max + 1
    )
}

fn check_text(text: &str, assets: Option<&AssetIndex>) -> ValidationReport {
    let parsed = SceneDoc::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    validate_parsed(&parsed, assets)
}

fn check(entities: &[String]) -> ValidationReport {
    check_text(&scene(entities), None)
}

/// The single diagnostic with `code`; fails when there is none or more than one.
fn only<'a>(report: &'a ValidationReport, code: &str) -> &'a Diagnostic {
    let found: Vec<&Diagnostic> = report.iter().filter(|d| d.code == code).collect();
    assert_eq!(
        found.len(),
        1,
        "expected one {code} in {:#?}",
        report.diagnostics
    );
    found[0]
}

/// Asserts one diagnostic with `code`, `severity`, `entity` and `line`, and returns it.
fn expect<'a>(
    report: &'a ValidationReport,
    code: &str,
    severity: Severity,
    entity: Option<u64>,
    line: u32,
) -> &'a Diagnostic {
    let d = only(report, code);
    assert_eq!(d.severity, severity, "{d}");
    assert_eq!(d.entity, entity, "{d}");
    assert_eq!(d.line(), Some(line), "{d}");
    d
}

/// A normal scene around the entity under test: a camera (1), a light (2), then `entity` (3, on
/// line 7).
fn with_basics(entity: String) -> ValidationReport {
    check(&[ent(1, CAMERA), ent(2, SUN), entity])
}

fn column_of(text: &str, line: u32, needle: &str) -> u32 {
    let l = text.lines().nth(line as usize - 1).unwrap();
    l[..l.find(needle).unwrap()].chars().count() as u32 + 1
}

#[test]
fn a_normal_scene_reports_nothing() {
    let report = with_basics(ent(3, "(type: visibility, data: hidden)"));
    assert!(report.is_empty(), "{:#?}", report.diagnostics);
}

// ---- structure ----

fn structural(text: &str, code: &str, entity: Option<u64>, line: u32) {
    let report = check_text(text, None);
    let d = expect(&report, code, Severity::Error, entity, line);
    assert!(d.help.is_some(), "{d}");
    assert!(report.has_errors());
}

fn raw_scene(entities: &[&str], roots: &str, next_id: u64) -> String {
    format!(
        "(\n  format_version: 1,\n  name: \"S\",\n  entities: {{\n    {}\n  }},\n  roots: [{roots}],\n  next_id: {next_id},\n)\n",
        entities.join("\n    ")
    )
}

fn node(key: u64, id: u64, parent: &str, children: &str) -> String {
    format!(
        "{key}: (id: {id}, name: \"N{key}\", parent: {parent}, children: [{children}], {T}, components: [(type: camera2d)]),"
    )
}

#[test]
fn key_and_id_must_agree() {
    let text = raw_scene(&[&node(1, 2, "None", "")], "1", 3);
    structural(&text, "forge::structure::id_mismatch", Some(1), 5);
    assert_eq!(
        only(&check_text(&text, None), "forge::structure::id_mismatch")
            .path
            .as_deref(),
        Some("id")
    );
}

#[test]
fn parent_must_exist() {
    let text = raw_scene(
        &[&node(1, 1, "None", ""), &node(2, 2, "Some(7)", "")],
        "1, 2",
        8,
    );
    structural(&text, "forge::structure::missing_parent", Some(2), 6);
}

/// An entity under a parent that does not exist is in no place because of it: one problem,
/// one diagnostic (at its `parent`), not a second `unplaced` one. A parent that is a tile
/// layer's id is named as the layer.
#[test]
fn a_missing_parent_is_one_diagnostic_and_a_layer_is_named() {
    let text = raw_scene(
        &[&node(1, 1, "None", ""), &node(2, 2, "Some(7)", "")],
        "1",
        8,
    );
    let report = check_text(&text, None);
    let errors: Vec<&str> = report
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code)
        .collect();
    assert_eq!(errors, ["forge::structure::missing_parent"], "{report:#?}");
    let layer = "  layers: [(id: 7, name: \"Ground\", plane: xy, cell_size: (x: 1.0, y: 1.0), palette: {}, rows: [])],\n)\n";
    let text = text
        .replacen(")\n", "", 1)
        .trim_end()
        .trim_end_matches(')')
        .to_owned()
        + layer;
    let report = check_text(&text, None);
    let d = only(&report, "forge::structure::missing_parent");
    assert_eq!(d.entity, Some(2));
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.contains("tile layer `Ground`")),
        "{d}"
    );
    assert!(
        report
            .iter()
            .all(|d| d.code != "forge::structure::unplaced")
    );
}

#[test]
fn children_must_exist() {
    let text = raw_scene(&[&node(1, 1, "None", "9")], "1", 10);
    structural(&text, "forge::structure::missing_child", Some(1), 5);
    let d = only(&check_text(&text, None), "forge::structure::missing_child").clone();
    assert_eq!(d.column(), Some(column_of(&text, 5, "[9]")));
}

#[test]
fn roots_must_exist() {
    let text = raw_scene(&[&node(1, 1, "None", "")], "1, 4", 5);
    structural(&text, "forge::structure::missing_root", None, 7);
}

#[test]
fn parent_must_list_its_children() {
    let text = raw_scene(
        &[&node(1, 1, "None", ""), &node(2, 2, "Some(1)", "")],
        "1",
        3,
    );
    structural(&text, "forge::structure::not_listed_by_parent", Some(2), 6);
}

#[test]
fn listed_children_must_name_their_parent() {
    let text = raw_scene(
        &[&node(1, 1, "None", "2"), &node(2, 2, "None", "")],
        "1, 2",
        3,
    );
    structural(&text, "forge::structure::child_disagrees", Some(1), 5);
}

#[test]
fn roots_have_no_parent() {
    let text = raw_scene(
        &[&node(1, 1, "None", "2"), &node(2, 2, "Some(1)", "")],
        "1, 2",
        3,
    );
    structural(&text, "forge::structure::root_has_parent", Some(2), 6);
}

#[test]
fn an_entity_is_listed_once() {
    let text = raw_scene(&[&node(1, 1, "None", "")], "1, 1", 2);
    structural(&text, "forge::structure::duplicate_reference", Some(1), 5);
}

#[test]
fn every_entity_has_a_place() {
    let text = raw_scene(&[&node(1, 1, "None", ""), &node(2, 2, "None", "")], "1", 3);
    structural(&text, "forge::structure::unplaced", Some(2), 6);
}

#[test]
fn an_entity_is_not_its_own_parent() {
    let text = raw_scene(&[&node(1, 1, "Some(1)", "1")], "", 2);
    structural(&text, "forge::structure::self_parent", Some(1), 5);
}

#[test]
fn parent_cycles_are_errors() {
    let text = raw_scene(
        &[&node(1, 1, "Some(2)", "2"), &node(2, 2, "Some(1)", "1")],
        "",
        3,
    );
    structural(&text, "forge::structure::cycle", Some(1), 5);
}

#[test]
fn next_id_is_above_every_id() {
    let text = raw_scene(&[&node(5, 5, "None", "")], "5", 5);
    structural(&text, "forge::structure::next_id", None, 8);
    let report = check_text(&text, None);
    assert_eq!(
        only(&report, "forge::structure::next_id").help.as_deref(),
        Some("set `next_id: 6`")
    );
}

// ---- transforms ----

#[test]
fn transform_values_must_be_finite() {
    let e = ent(3, CAMERA).replace("rotation: (x: 0.0, y: 0.0", "rotation: (x: 0.0, y: NaN");
    let report = with_basics(e);
    let d = expect(
        &report,
        "forge::transform::non_finite",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("transform.rotation.y"));
    assert_eq!(
        d.column(),
        Some(column_of(
            &scene(&[
                ent(1, CAMERA),
                ent(2, SUN),
                ent(3, CAMERA).replace("rotation: (x: 0.0, y: 0.0", "rotation: (x: 0.0, y: NaN")
            ]),
            7,
            "NaN"
        ))
    );
    assert_eq!(d.message, "transform rotation.y must be finite, found NaN");
}

#[test]
fn zero_scale_warns() {
    let e = ent(3, CAMERA).replace(
        "scale: (x: 1.0, y: 1.0, z: 1.0)",
        "scale: (x: 1.0, y: 1.0, z: 0)",
    );
    let report = with_basics(e);
    let d = expect(
        &report,
        "forge::transform::zero_scale",
        Severity::Warning,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("transform.scale.z"));
    assert!(!report.has_errors());
}

// ---- lights ----

fn point(intensity: &str, range: &str) -> String {
    format!(
        "(type: point_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), intensity: {intensity}, range: {range}, shadows: true))"
    )
}

#[test]
fn light_values_must_be_finite() {
    let report = with_basics(ent(3, &point("inf", "10.0")));
    let d = expect(
        &report,
        "forge::light::non_finite",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.intensity"));
    // Non-finite is reported once, not also as a negative value.
    assert_eq!(report.error_count(), 1);
}

#[test]
fn point_light_intensity_is_not_negative() {
    let report = with_basics(ent(3, &point("-1.0", "10.0")));
    let d = expect(
        &report,
        "forge::light::intensity",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(
        d.message,
        "point light intensity must be non-negative, found -1"
    );
    assert!(with_basics(ent(3, &point("0.0", "10.0"))).is_empty());
}

#[test]
fn point_light_range_is_positive() {
    let text = scene(&[ent(1, CAMERA), ent(2, SUN), ent(3, &point("800.0", "0"))]);
    let report = check_text(&text, None);
    let d = expect(&report, "forge::light::range", Severity::Error, Some(3), 7);
    assert_eq!(d.message, "point light range must be positive, found 0");
    assert_eq!(d.column(), Some(column_of(&text, 7, "range: 0") + 7));
}

#[test]
fn directional_illuminance_is_not_negative() {
    let sun = SUN.replace("illuminance: 1000.0", "illuminance: -3");
    let report = with_basics(ent(3, &sun));
    expect(
        &report,
        "forge::light::illuminance",
        Severity::Error,
        Some(3),
        7,
    );
}

fn spot(fields: &str) -> String {
    format!(
        "(type: spot_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), intensity: 800.0, range: 20.0, {fields}shadows: true))"
    )
}

#[test]
fn a_spot_light_with_its_angles_left_out_is_valid() {
    assert!(with_basics(ent(3, &spot(""))).is_empty());
    let all = "radius: 0.5, inner_angle: 10.0, outer_angle: 30.0, ";
    assert!(with_basics(ent(3, &spot(all))).is_empty());
}

#[test]
fn spot_light_angles_are_degrees_within_0_and_90() {
    let text = scene(&[
        ent(1, CAMERA),
        ent(2, SUN),
        ent(3, &spot("outer_angle: 95.0, ")),
    ]);
    let report = check_text(&text, None);
    let d = expect(&report, "forge::light::angle", Severity::Error, Some(3), 7);
    assert_eq!(
        d.message,
        "spot light outer_angle must be within 0..=90, found 95"
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.outer_angle"));
    assert_eq!(
        d.column(),
        Some(column_of(&text, 7, "outer_angle: 95") + 13)
    );
    assert_eq!(report.error_count(), 1);
}

#[test]
fn a_spot_light_inner_angle_wider_than_its_outer_one_is_one_error_at_the_inner_angle() {
    let text = scene(&[
        ent(1, CAMERA),
        ent(2, SUN),
        ent(3, &spot("inner_angle: 50.0, outer_angle: 40.0, ")),
    ]);
    let report = check_text(&text, None);
    let d = expect(&report, "forge::light::angle", Severity::Error, Some(3), 7);
    assert_eq!(
        d.message,
        "spot light inner_angle must not exceed outer_angle, found 50 > 40"
    );
    assert_eq!(
        d.column(),
        Some(column_of(&text, 7, "inner_angle: 50") + 13)
    );
    assert_eq!(report.error_count(), 1);
    // Equal angles are a hard-edged cone: allowed.
    let equal = spot("inner_angle: 40.0, outer_angle: 40.0, ");
    assert!(with_basics(ent(3, &equal)).is_empty());
}

#[test]
fn spot_light_intensity_range_and_radius_are_checked_like_a_point_light() {
    let cases = [
        (
            ("intensity: 800.0", "intensity: -1.0"),
            "forge::light::intensity",
            "spot light intensity must be non-negative, found -1",
        ),
        (
            ("range: 20.0", "range: 0.0"),
            "forge::light::range",
            "spot light range must be positive, found 0",
        ),
        (
            ("shadows", "radius: -0.5, shadows"),
            "forge::light::radius",
            "spot light radius must be non-negative, found -0.5",
        ),
        (
            ("shadows", "inner_angle: inf, shadows"),
            "forge::light::non_finite",
            "spot light inner_angle must be finite, found inf",
        ),
    ];
    for ((from, to), code, message) in cases {
        let report = with_basics(ent(3, &spot("").replace(from, to)));
        let d = expect(&report, code, Severity::Error, Some(3), 7);
        assert_eq!(d.message, message);
        assert_eq!(report.error_count(), 1, "{to}: {:?}", report.diagnostics);
    }
}

// ---- meshes and materials ----

fn mesh(mesh: &str, metallic: &str, roughness: &str) -> String {
    format!(
        "(type: mesh3d, data: (mesh: {mesh}, material: (base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: {metallic}, perceptual_roughness: {roughness}, unlit: false)))"
    )
}

const SPHERE: &str = "(source: primitive, value: sphere(radius: 0.5))";

#[test]
fn material_values_must_be_finite() {
    let report = with_basics(ent(3, &mesh(SPHERE, "NaN", "0.5")));
    let d = expect(
        &report,
        "forge::material::non_finite",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(
        d.path.as_deref(),
        Some("components[0].data.material.metallic")
    );
    assert!(report.iter().all(|d| d.code != "forge::material::metallic"));
}

#[test]
fn metallic_outside_unit_range_warns() {
    let report = with_basics(ent(3, &mesh(SPHERE, "1.5", "0.5")));
    let d = expect(
        &report,
        "forge::material::metallic",
        Severity::Warning,
        Some(3),
        7,
    );
    assert_eq!(
        d.message,
        "material.metallic should be within 0..=1, found 1.5"
    );
}

#[test]
fn roughness_outside_unit_range_warns() {
    let report = with_basics(ent(3, &mesh(SPHERE, "0.0", "-0.1")));
    expect(
        &report,
        "forge::material::roughness",
        Severity::Warning,
        Some(3),
        7,
    );
}

#[test]
fn primitive_sizes_must_be_finite() {
    let cube = "(source: primitive, value: cuboid(size: (x: 1.0, y: inf, z: 1.0)))";
    let report = with_basics(ent(3, &mesh(cube, "0.0", "0.5")));
    let d = expect(
        &report,
        "forge::mesh::non_finite",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(
        d.path.as_deref(),
        Some("components[0].data.mesh.value.size.y")
    );
}

// ---- sprites and text ----

fn sprite(image: &str, size: &str) -> String {
    format!(
        "(type: sprite, data: (image: {image}, color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), custom_size: {size}, flip_x: false, flip_y: false))"
    )
}

#[test]
fn sprite_custom_size_is_positive() {
    let report = with_basics(ent(3, &sprite("None", "Some((x: 16.0, y: -2.0))")));
    let d = expect(
        &report,
        "forge::sprite::custom_size",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.custom_size.y"));
}

#[test]
fn sprite_colour_must_be_finite() {
    let s = sprite("None", "Some((x: 1.0, y: 1.0))").replace("g: 1.0", "g: NaN");
    let report = with_basics(ent(3, &s));
    let d = expect(
        &report,
        "forge::sprite::non_finite",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.color.g"));
}

#[test]
fn a_sprite_without_image_or_size_warns() {
    let report = with_basics(ent(3, &sprite("None", "None")));
    expect(
        &report,
        "forge::sprite::invisible",
        Severity::Warning,
        Some(3),
        7,
    );
}

fn text2d(text: &str, size: &str) -> String {
    format!(
        "(type: text2d, data: (text: \"{text}\", font_size: {size}, color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0)))"
    )
}

#[test]
fn font_size_is_positive() {
    for size in ["0", "-4.0", "NaN"] {
        let report = with_basics(ent(3, &text2d("hi", size)));
        let d = expect(
            &report,
            "forge::text::font_size",
            Severity::Error,
            Some(3),
            7,
        );
        assert_eq!(d.path.as_deref(), Some("components[0].data.font_size"));
    }
}

#[test]
fn text_colour_must_be_finite() {
    let report = with_basics(ent(3, &text2d("hi", "12").replace("a: 1.0", "a: -inf")));
    expect(
        &report,
        "forge::text::non_finite",
        Severity::Error,
        Some(3),
        7,
    );
}

#[test]
fn empty_text_warns() {
    let report = with_basics(ent(3, &text2d("", "12")));
    expect(&report, "forge::text::empty", Severity::Warning, Some(3), 7);
}

// ---- custom components ----

fn custom(path: &str, fields: &[(&str, &str)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(n, e)| format!("(name: \"{n}\", expr: \"{e}\")"))
        .collect();
    format!(
        "(type: custom, data: (type_path: \"{path}\", fields: [{}]))",
        fields.join(", ")
    )
}

#[test]
fn custom_type_paths_are_rust_paths() {
    for path in ["my game::Health", "", "Timer<Fast>", "a::::b"] {
        let report = with_basics(ent(3, &custom(path, &[])));
        let d = expect(
            &report,
            "forge::custom::type_path",
            Severity::Error,
            Some(3),
            7,
        );
        assert_eq!(d.path.as_deref(), Some("components[0].data.type_path"));
        assert!(d.help.is_some());
    }
    let generic = with_basics(ent(3, &custom("Timer<Fast>", &[])));
    assert!(
        only(&generic, "forge::custom::type_path")
            .help
            .as_deref()
            .unwrap()
            .contains("type alias")
    );
    for path in ["Health", "my_game::Health", "a::b::Health"] {
        assert!(
            with_basics(ent(3, &custom(path, &[("hp", "1")]))).is_empty(),
            "{path}"
        );
    }
}

#[test]
fn custom_field_names_are_identifiers() {
    let text = scene(&[
        ent(1, CAMERA),
        ent(2, SUN),
        ent(3, &custom("Health", &[("hp", "1"), ("max hp", "2")])),
    ]);
    let report = check_text(&text, None);
    let d = expect(
        &report,
        "forge::custom::field_name",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.fields[1].name"));
    assert_eq!(d.column(), Some(column_of(&text, 7, "\"max hp\"")));
}

/// Names are checked once and then looked up: every use of a bad name is still reported, and a
/// name valid in one role (a type path) is still checked in the other (a field name).
#[test]
fn every_use_of_a_bad_name_is_reported() {
    let report = check(&[
        ent(1, CAMERA),
        ent(2, SUN),
        ent(3, &custom("a:b", &[("crate", "1")])),
        // `a::b` is a type path but no field name; `0` a field name but no type path.
        ent(4, &custom("a::b", &[("a::b", "1"), ("1x", "2")])),
        ent(5, &custom("a:b", &[("crate", "1"), ("1x", "2")])),
        ent(6, &custom("0", &[("0", "1")])),
    ]);
    // Sorted: the report orders an entity's diagnostics by message.
    let at = |code: &str| -> Vec<(Option<u64>, Option<String>)> {
        let mut found: Vec<_> = report
            .iter()
            .filter(|d| d.code == code)
            .map(|d| (d.entity, d.path.clone()))
            .collect();
        found.sort();
        found
    };
    assert_eq!(
        at("forge::custom::type_path"),
        [
            (Some(3), Some("components[0].data.type_path".to_owned())),
            (Some(5), Some("components[0].data.type_path".to_owned())),
            (Some(6), Some("components[0].data.type_path".to_owned())),
        ]
    );
    let field = |entity: u64, j: usize| {
        (
            Some(entity),
            Some(format!("components[0].data.fields[{j}].name")),
        )
    };
    assert_eq!(
        at("forge::custom::field_name"),
        [
            field(3, 0),
            field(4, 0),
            field(4, 1),
            field(5, 0),
            field(5, 1)
        ]
    );
}

#[test]
fn type_path_messages_say_how_to_write_keywords_and_refuse_crate_alone() {
    let keyword = with_basics(ent(3, &custom("my_game::type", &[])));
    let d = only(&keyword, "forge::custom::type_path");
    assert_eq!(
        d.help.as_deref(),
        Some("`type` is a Rust keyword: write `r#type`")
    );
    let alone = with_basics(ent(3, &custom("crate", &[])));
    let d = only(&alone, "forge::custom::type_path");
    assert!(
        d.message.contains("`crate` names no type on its own"),
        "{}",
        d.message
    );
    let fine = with_basics(ent(3, &custom("crate::Health", &[])));
    assert!(
        fine.iter().all(|d| d.code != "forge::custom::type_path"),
        "{fine:?}"
    );
}

#[test]
fn tuple_struct_fields_are_named_by_their_index() {
    // `struct Health(u32, u32)`: the schema names the fields `0` and `1`.
    let ok = with_basics(ent(3, &custom("Health", &[("0", "10"), ("1", "20")])));
    assert!(ok.is_empty(), "{ok:?}");
    for bad in ["01", "-1", "1.0"] {
        let report = with_basics(ent(3, &custom("Health", &[(bad, "1")])));
        let d = expect(
            &report,
            "forge::custom::field_name",
            Severity::Error,
            Some(3),
            7,
        );
        assert!(d.message.contains(&format!("`{bad}`")), "{}", d.message);
    }
}

#[test]
fn custom_expressions_are_not_empty() {
    let text = scene(&[
        ent(1, CAMERA),
        ent(2, SUN),
        ent(3, &custom("Health", &[("hp", "  ")])),
    ]);
    let report = check_text(&text, None);
    let d = expect(
        &report,
        "forge::custom::empty_expr",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.fields[0].expr"));
    assert_eq!(d.column(), Some(column_of(&text, 7, "\"  \"")));
}

#[test]
fn custom_fields_are_set_once() {
    let report = with_basics(ent(3, &custom("Health", &[("hp", "1"), ("hp", "2")])));
    let d = expect(
        &report,
        "forge::custom::duplicate_field",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.fields[1].name"));
}

// ---- components ----

#[test]
fn one_component_per_key() {
    let comps = format!("{CAMERA}, {}, {}", custom("A", &[]), custom("A", &[]));
    let report = check(&[ent(1, &comps), ent(2, SUN)]);
    let d = expect(
        &report,
        "forge::component::duplicate_key",
        Severity::Error,
        Some(1),
        5,
    );
    assert_eq!(d.path.as_deref(), Some("components[2]"));
    assert!(d.message.contains("custom:A"), "{d}");
    // Two different custom types may coexist.
    let ok = format!("{CAMERA}, {}, {}", custom("A", &[]), custom("B", &[]));
    assert!(check(&[ent(1, &ok), ent(2, SUN)]).is_empty());
}

// ---- assets ----

#[test]
fn absolute_asset_paths_are_errors() {
    let report = with_basics(ent(3, &sprite("Some(\"/abs/a.png\")", "None")));
    let d = expect(
        &report,
        "forge::asset::absolute",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.image"));
    let windows = with_basics(ent(3, &sprite("Some(\"C:/a.png\")", "None")));
    expect(
        &windows,
        "forge::asset::absolute",
        Severity::Error,
        Some(3),
        7,
    );
}

#[test]
fn parent_components_in_asset_paths_are_errors() {
    let m = mesh("(source: asset, value: \"../models/a.glb\")", "0.0", "0.5");
    let report = with_basics(ent(3, &m));
    let d = expect(
        &report,
        "forge::asset::parent_dir",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(d.path.as_deref(), Some("components[0].data.mesh.value"));
}

#[test]
fn backslashes_in_asset_paths_are_errors() {
    let report = with_basics(ent(3, &sprite("Some(\"textures\\\\a.png\")", "None")));
    let d = expect(
        &report,
        "forge::asset::backslash",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(
        d.help.as_deref(),
        Some("use `/` as the separator: `textures/a.png`")
    );
}

#[test]
fn empty_asset_paths_are_errors() {
    let report = with_basics(ent(3, &sprite("Some(\"\")", "None")));
    expect(&report, "forge::asset::empty", Severity::Error, Some(3), 7);
}

#[test]
fn missing_assets_are_errors_only_with_an_index() {
    let e = ent(3, &sprite("Some(\"textures/gone.png\")", "None"));
    let text = scene(&[ent(1, CAMERA), ent(2, SUN), e]);
    assert!(check_text(&text, None).is_empty());
    let index = AssetIndex::from_paths(["textures/here.png"]);
    let report = check_text(&text, Some(&index));
    expect(
        &report,
        "forge::asset::missing",
        Severity::Error,
        Some(3),
        7,
    );
    let present = text.replace("gone.png", "here.png");
    assert!(check_text(&present, Some(&index)).is_empty());
}

#[test]
fn assets_of_the_wrong_kind_are_errors() {
    let index = AssetIndex::from_paths(["sfx/jump.ogg", "models/robot.gltf", "t/a.png"]);
    let text = scene(&[
        ent(1, CAMERA),
        ent(2, SUN),
        ent(3, &sprite("Some(\"sfx/jump.ogg\")", "None")),
        ent(
            4,
            &mesh("(source: asset, value: \"t/a.png\")", "0.0", "0.5"),
        ),
        ent(
            5,
            &mesh(
                "(source: asset, value: \"models/robot.gltf#Mesh0/Primitive0\")",
                "0.0",
                "0.5",
            ),
        ),
    ]);
    let report = check_text(&text, Some(&index));
    let wrong: Vec<&Diagnostic> = report
        .iter()
        .filter(|d| d.code == "forge::asset::wrong_kind")
        .collect();
    assert_eq!(wrong.len(), 2, "{:#?}", report.diagnostics);
    assert_eq!((wrong[0].entity, wrong[0].line()), (Some(3), Some(7)));
    assert_eq!(
        wrong[0].message,
        "sprite image `sfx/jump.ogg` is an audio file, not an image"
    );
    assert_eq!((wrong[1].entity, wrong[1].line()), (Some(4), Some(8)));
    assert_eq!(report.error_count(), 2);
}

// ---- names ----

#[test]
fn duplicate_entity_names_warn_on_each_entity() {
    let text = scene(&[ent(1, CAMERA), ent(2, SUN), ent(3, SUN)]).replace("\"E3\"", "\"E2\"");
    let report = check_text(&text, None);
    let dups: Vec<&Diagnostic> = report
        .iter()
        .filter(|d| d.code == "forge::name::duplicate")
        .collect();
    assert_eq!(dups.len(), 2);
    assert_eq!((dups[0].entity, dups[0].line()), (Some(2), Some(6)));
    assert_eq!(dups[0].message, "entity name `E2` is also used by entity 3");
    assert_eq!((dups[1].entity, dups[1].line()), (Some(3), Some(7)));
}

#[test]
fn blank_entity_names_warn() {
    let text = scene(&[ent(1, CAMERA), ent(2, SUN), ent(3, SUN)]).replace("\"E3\"", "\" \t\"");
    let report = check_text(&text, None);
    let d = expect(&report, "forge::name::empty", Severity::Warning, Some(3), 7);
    assert_eq!(d.path.as_deref(), Some("name"));
    assert_eq!(d.column(), Some(column_of(&text, 7, "\" \t\"")));
}

#[test]
fn blank_scene_names_warn() {
    for name in ["", "   "] {
        let text = scene(&[ent(1, CAMERA), ent(2, SUN)])
            .replace("name: \"Test\"", &format!("name: \"{name}\""));
        let report = check_text(&text, None);
        expect(
            &report,
            "forge::scene::empty_name",
            Severity::Warning,
            None,
            3,
        );
    }
}

#[test]
fn format_version_zero_warns() {
    let text =
        scene(&[ent(1, CAMERA), ent(2, SUN)]).replace("format_version: 1", "format_version: 0");
    let report = check_text(&text, None);
    expect(
        &report,
        "forge::format::version_zero",
        Severity::Warning,
        None,
        2,
    );
    // The document alone no longer knows it was format 0.
    let doc = SceneDoc::from_str(&text).unwrap().doc;
    assert!(validate_scene(&doc, None).is_empty());
}

// ---- cameras, lights, empty entities ----

#[test]
fn mixed_2d_and_3d_cameras_warn() {
    let report = check(&[ent(1, CAMERA), ent(2, "(type: camera3d)")]);
    let d = expect(&report, "forge::camera::mixed", Severity::Warning, None, 4);
    assert!(
        d.message.contains("entity 1") && d.message.contains("entity 2"),
        "{d}"
    );
}

#[test]
fn no_camera_is_info() {
    let report = check(&[ent(1, SUN)]);
    expect(&report, "forge::camera::none", Severity::Info, None, 4);
    assert!(!report.has_errors() && !report.has_warnings());
}

#[test]
fn more_than_one_camera_is_info() {
    let report = check(&[ent(1, CAMERA), ent(2, CAMERA)]);
    let d = expect(&report, "forge::camera::multiple", Severity::Info, None, 4);
    assert_eq!(d.message, "the scene has 2 cameras (on entities 1, 2)");
}

#[test]
fn meshes_without_light_is_info() {
    let report = check(&[ent(1, CAMERA), ent(2, &mesh(SPHERE, "0.0", "0.5"))]);
    expect(&report, "forge::light::none", Severity::Info, None, 4);
    let lit = check(&[
        ent(1, CAMERA),
        ent(2, &mesh(SPHERE, "0.0", "0.5")),
        ent(3, SUN),
    ]);
    assert!(lit.is_empty(), "{:#?}", lit.diagnostics);
}

#[test]
fn an_entity_with_only_a_transform_is_info() {
    let report = with_basics(ent(3, ""));
    expect(
        &report,
        "forge::entity::transform_only",
        Severity::Info,
        Some(3),
        7,
    );
}

// ---- report behaviour ----

#[test]
fn diagnostics_are_sorted_by_severity_then_entity_then_message() {
    let text = scene(&[
        ent(1, &text2d("", "12")),
        ent(2, &point("-1", "0")),
        ent(3, ""),
    ]);
    let report = check_text(&text, None);
    let keys: Vec<(Severity, Option<u64>, &str)> = report
        .iter()
        .map(|d| (d.severity, d.entity, d.message.as_str()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(report.diagnostics[0].code, "forge::light::intensity");
    assert_eq!(report.diagnostics[1].code, "forge::light::range");
    assert_eq!(report.error_count(), 2);
    assert_eq!(report.warning_count(), 1);
    assert_eq!(report.info_count(), 2);
    assert_eq!(report.len(), 5);
    assert_eq!(report.for_entity(2).count(), 2);
    assert_eq!((&report).into_iter().count(), 5);
}

#[test]
fn validate_scene_has_no_positions() {
    let text = scene(&[ent(1, &point("-1", "0"))]);
    let doc = SceneDoc::from_str(&text).unwrap().doc;
    let report = validate_scene(&doc, None);
    assert_eq!(report.error_count(), 2);
    assert!(report.iter().all(|d| d.position.is_none()));
}

#[test]
fn the_valid_fixtures_have_no_errors_or_warnings() {
    for name in ["valid/garden.forge.ron", "valid/platformer.forge.ron"] {
        let parsed = SceneDoc::from_str(&fixture_text(name)).unwrap();
        let report = validate_parsed(&parsed, None);
        assert!(
            !report.has_errors() && !report.has_warnings(),
            "{name}: {:#?}",
            report.diagnostics
        );
    }
}

fn strip_positions(report: ValidationReport) -> Vec<Diagnostic> {
    report
        .into_iter()
        .map(|mut d| {
            d.position = None;
            d
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn validation_never_panics_and_is_sorted(doc in any_doc(), with_index in any::<bool>()) {
        let index = AssetIndex::from_paths(["a.png", "b.glb", "c.ogg"]);
        let report = validate_scene(&doc, with_index.then_some(&index));
        let keys: Vec<_> = report.iter().map(|d| (d.severity, d.entity, d.message.clone())).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        prop_assert_eq!(keys, sorted);
        // Every integrity problem is an error of the report, but the `unplaced` of an entity
        // whose parent is missing (the missing parent is its one diagnostic).
        let problems = doc.check_integrity();
        let orphans: Vec<u64> = problems
            .iter()
            .filter_map(|p| match p {
                IntegrityProblem::MissingParent { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        let expected = problems
            .iter()
            .filter(|p| !matches!(p, IntegrityProblem::Unplaced { id } if orphans.contains(id)))
            .count();
        prop_assert!(report.error_count() >= expected);
        for d in &report {
            prop_assert!(d.code.starts_with("forge::"));
            prop_assert!(!d.message.is_empty());
        }
    }

    #[test]
    fn positions_do_not_change_what_is_reported(doc in any_doc()) {
        let text = doc.to_canonical_string();
        if let Ok(parsed) = SceneDoc::from_str(&text) {
            let with_positions = validate_parsed(&parsed, None);
            // Each diagnostic about an entity points into the text.
            for d in &with_positions {
                if d.entity.is_some() {
                    let p = d.position.expect("entity diagnostics have a position");
                    prop_assert!(p.line as usize <= text.lines().count());
                }
            }
            prop_assert_eq!(
                strip_positions(with_positions),
                validate_scene(&parsed.doc, None).diagnostics
            );
        }
    }

    #[test]
    fn edited_forests_have_no_structural_errors(doc in valid_doc()) {
        let report = validate_scene(&doc, None);
        prop_assert!(report.iter().all(|d| !d.code.starts_with("forge::structure::")), "{:#?}", report.diagnostics);
    }
}

#[test]
fn a_malformed_forest_of_many_entities_is_validated() {
    // Entity k is the parent of k - 1, and 1 the child of n: one long cycle that no root reaches.
    let mut doc = SceneDoc::new("ring");
    let n = 10_000u64;
    for id in 1..=n {
        let mut e = bevy_forge_scene::format::EntityNode::new(id, "same");
        e.parent = Some(id % n + 1);
        e.children = vec![if id == 1 { n } else { id - 1 }];
        doc.entities.insert(id, e.into());
    }
    doc.next_id = n + 1;
    let report = validate_scene(&doc, None);
    assert_eq!(only(&report, "forge::structure::cycle").entity, Some(1));
    assert_eq!(
        report
            .iter()
            .filter(|d| d.code == "forge::name::duplicate")
            .count(),
        n as usize
    );
    let first = report
        .iter()
        .find(|d| d.code == "forge::name::duplicate")
        .unwrap();
    assert_eq!(
        first.message,
        format!(
            "entity name `same` is also used by entities 2, 3, 4 and {} more",
            n - 4
        )
    );
}

#[test]
fn duplicates_are_found_in_long_lists_too() {
    let many: Vec<String> = (0..12).map(|i| custom(&format!("T{i}"), &[])).collect();
    let comps = format!("{CAMERA}, {}, {}", many.join(", "), custom("T3", &[]));
    let report = check(&[ent(1, &comps), ent(2, SUN)]);
    let d = expect(
        &report,
        "forge::component::duplicate_key",
        Severity::Error,
        Some(1),
        5,
    );
    assert_eq!(d.path.as_deref(), Some("components[13]"));
    assert!(d.message.contains("first at components[4]"), "{d}");

    let names: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
    let mut fields: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "1")).collect();
    fields.push(("f7", "2"));
    let report = with_basics(ent(3, &custom("Big", &fields)));
    let d = expect(
        &report,
        "forge::custom::duplicate_field",
        Severity::Error,
        Some(3),
        7,
    );
    assert_eq!(
        d.path.as_deref(),
        Some("components[0].data.fields[12].name")
    );
}

/// Every "did you mean" is offered as a replacement of the value at the diagnostic's position:
/// read errors (fields, tags), custom types and fields (with a schema file), references.
#[test]
fn did_you_mean_is_a_list_of_replacements() {
    let garden = fixture_text("valid/garden.forge.ron");
    let read = |text: &str| Diagnostic::from_read_error(&SceneDoc::from_str(text).unwrap_err());
    let typo = read(&garden.replacen("children:", "childen:", 1));
    assert_eq!(typo.suggestions(), ["children"]);
    let tag = read(&garden.replacen("type: directional_light", "type: directional_lite", 1));
    assert_eq!(tag.suggestions(), ["directional_light"]);
    let text = garden.replacen(
        "components: [",
        "components: [(type: custom, data: (type_path: \"forge_demo::Orbt\", fields: [(name: \"radus\", expr: \"1.0\")])), (type: custom, data: (type_path: \"forge_demo::Orbit\", fields: [(name: \"radus\", expr: \"#3\"), (name: \"speed\", expr: \"1.0\")])), ",
        1,
    );
    let parsed = SceneDoc::from_str(&text).unwrap();
    let schemas = common::game::schemas().to_schema_file();
    let report = bevy_forge_scene::validate::validate_parsed_with_schemas(&parsed, None, &schemas);
    let of = |code: &str| {
        report
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("no {code}: {report:?}"))
    };
    assert_eq!(
        of("forge::custom::unknown_type").suggestions(),
        ["forge_demo::Orbit"]
    );
    assert_eq!(of("forge::custom::unknown_field").suggestions(), ["radius"]);
    let refs = bevy_forge_scene::validate::validate_references(&parsed);
    let dangling = refs
        .iter()
        .find(|d| d.code == "forge::custom::reference")
        .unwrap();
    assert_eq!(dangling.suggestions(), ["#2", "#1"], "{dangling}");
    // Nothing to offer: no suggestions.
    assert!(
        read(&garden.replacen("children:", "velocity:", 1))
            .suggestions()
            .is_empty()
    );
}
