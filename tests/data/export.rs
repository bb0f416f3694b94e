//! `bevy_forge_scene::export`: the generated text for odd names, rotations, each built-in,
//! custom field expressions, entity references and what cannot be exported. The command
//! (`forge export`) and the freshness of the committed exports of the seed scenes are tested
//! with the command line (`forge-cli/tests/cli/export.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use bevy_forge_scene::export::{
    ExportError, ExportOptions, bsn_ident, expanded_to_bsn, expanded_to_rust, snake_case, to_bsn,
    to_rust,
};
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::pipeline::PrefabFiles;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One entity entry of a test scene: a root with `rotation` and one component (or none).
fn entity(id: u64, name: &str, rotation: &str, component: &str) -> String {
    format!(
        "{id}: (id: {id}, name: {name:?}, parent: None, children: [], transform: (translation: (x: 1.0, y: 2.0, z: 0.5), rotation: {rotation}, scale: (x: 1.0, y: 1.0, z: 1.0)), components: [{component}]),"
    )
}

fn scene(name: &str, entities: &[String]) -> String {
    let roots: Vec<String> = (1..=entities.len()).map(|i| i.to_string()).collect();
    format!(
        "(format_version: 1, name: {name:?}, entities: {{ {} }}, roots: [{}], next_id: {})",
        entities.join("\n"),
        roots.join(", "),
        entities.len() + 1
    )
}

fn doc(text: &str) -> SceneDoc {
    SceneDoc::from_str(text).unwrap().doc
}

fn rust(doc: &SceneDoc) -> String {
    to_rust(doc, &ExportOptions::default()).unwrap()
}

fn bsn(doc: &SceneDoc) -> String {
    to_bsn(doc, &ExportOptions::default()).unwrap()
}

const ZERO: &str = "(x: 0.0, y: 0.0, z: 0.0)";

#[test]
fn odd_and_repeated_names_get_clean_unique_idents_and_keep_their_name() {
    let names = [
        "Enemy 1",
        "élan",
        "1st",
        "Goblin",
        "Goblin",
        "match",
        "",
        "Say \"hi\"",
    ];
    let entities: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| entity(i as u64 + 1, n, ZERO, ""))
        .collect();
    let d = doc(&scene("Odd Names", &entities));
    let code = bsn(&d);
    for (ident, name) in [
        ("#Enemy1", Some("Enemy 1")),
        ("#Lan", Some("élan")),
        ("#_1st", Some("1st")),
        ("#Goblin\n", None),
        ("#Goblin_2", Some("Goblin")),
        ("#Match", Some("match")),
        ("#Entity", Some("")),
        ("#SayHi", Some("Say \\\"hi\\\"")),
    ] {
        assert!(code.contains(ident), "{ident} in\n{code}");
        if let Some(name) = name {
            assert!(
                code.contains(&format!("{}\n        Name(\"{name}\")", ident.trim_end())),
                "{ident} then Name({name:?}) in\n{code}"
            );
        }
    }
    assert!(code.contains("pub fn odd_names_scene() -> impl SceneList"));
    let code = rust(&d);
    assert!(code.contains("pub fn spawn_odd_names(world: &mut World) -> Vec<Entity>"));
    assert!(code.contains("Name::new(\"élan\")"), "{code}");
    assert!(code.contains("Name::new(\"Say \\\"hi\\\"\")"), "{code}");
    assert_eq!(bsn_ident("Camera 3D"), "Camera3D");
    assert_eq!(snake_case("Castle Gate"), "castle_gate");
}

#[test]
fn rotations_are_written_so_from_euler_gives_the_loaders_quaternion_to_the_bit() {
    let rotations = [
        (45.0_f32, 30.0_f32, 0.0_f32),
        (0.1, -90.0, 1e-7),
        (89.99999, 90.0, -179.5),
        (-0.0, 0.0, 0.0),
        (1234.5678, -0.333, 360.0),
    ];
    let entities: Vec<String> = rotations
        .iter()
        .enumerate()
        .map(|(i, (x, y, z))| {
            entity(
                i as u64 + 1,
                "R",
                &format!("(x: {x:?}, y: {y:?}, z: {z:?})"),
                "",
            )
        })
        .collect();
    let d = doc(&scene("Rotations", &entities));
    let code = rust(&d);
    // Each entity's rotation, evaluated as Rust would.
    let rotations: Vec<glam::Quat> = code
        .split("rotation: ")
        .skip(1)
        .map(|s| {
            let text: String = s[..s.find("scale:").unwrap()]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            if text.starts_with("Quat::IDENTITY") {
                return glam::Quat::IDENTITY;
            }
            let args = &text["Quat::from_euler(EulerRot::XYZ,".len()..];
            let mut out = [0.0; 3];
            for (i, arg) in args.split(',').take(3).enumerate() {
                out[i] = match arg.strip_prefix("f32::to_radians(") {
                    Some(deg) => f32::to_radians(deg[..deg.find(')').unwrap()].parse().unwrap()),
                    None => arg.trim_end_matches(')').parse().unwrap(),
                };
            }
            glam::Quat::from_euler(glam::EulerRot::XYZ, out[0], out[1], out[2])
        })
        .collect();
    assert_eq!(rotations.len(), d.entities.len(), "{code}");
    for (node, generated) in d.entities.values().zip(rotations) {
        let loader = node.transform.rotation_quat();
        assert_eq!(
            generated.to_array().map(f32::to_bits),
            loader.to_array().map(f32::to_bits),
            "{:?}",
            node.transform.rotation
        );
    }
    // BSN writes the same calls.
    let calls = |code: &str| -> Vec<String> {
        code.split("Quat::from_euler(")
            .skip(1)
            .map(|s| {
                // Up to the call's own closing parenthesis.
                let mut depth = 1;
                let end = s
                    .char_indices()
                    .find(|(_, c)| {
                        depth += match c {
                            '(' => 1,
                            ')' => -1,
                            _ => 0,
                        };
                        depth == 0
                    })
                    .unwrap()
                    .0;
                let call: String = s[..end].split_whitespace().collect();
                call.trim_end_matches(',').to_owned()
            })
            .collect()
    };
    assert_eq!(calls(&rust(&d)), calls(&bsn(&d)));
    // A rotation of zeros is written out: `from_euler` gives `y: -0.0`, not `Quat::IDENTITY`.
    let d = doc(&scene("Still", &[entity(1, "S", ZERO, "")]));
    assert!(
        rust(&d).contains("rotation: Quat::from_euler(EulerRot::XYZ, 0.0, 0.0, 0.0),"),
        "{}",
        rust(&d)
    );
}

#[test]
fn each_builtin_becomes_its_bevy_components() {
    let components = [
        r#"(type: sprite, data: (image: Some("textures/player.png"), color: (r: 1.0, g: 0.5, b: 0.25, a: 1.0), custom_size: Some((x: 32.0, y: 48.0)), flip_x: true, flip_y: false))"#,
        r#"(type: text2d, data: (text: "Hello\nBevy", font_size: 24.0, color: (r: 0.9, g: 0.9, b: 1.0, a: 1.0)))"#,
        "(type: camera2d)",
        "(type: camera3d)",
        "(type: point_light, data: (color: (r: 1.0, g: 0.8, b: 0.6, a: 1.0), intensity: 800.0, range: 20.0, shadows: true))",
        "(type: directional_light, data: (color: (r: 1.0, g: 0.95, b: 0.85, a: 1.0), illuminance: 10000.0, shadows: false))",
        "(type: spot_light, data: (color: (r: 0.5, g: 0.5, b: 1.0, a: 1.0), intensity: 4000.0, range: 30.0, radius: 0.25, inner_angle: 15.0, outer_angle: 40.0, shadows: true))",
        "(type: mesh3d, data: (mesh: (source: primitive, value: cuboid(size: (x: 2.0, y: 1.0, z: 0.5))), material: (base_color: (r: 0.35, g: 0.55, b: 0.3, a: 1.0), metallic: 0.0, perceptual_roughness: 0.9, unlit: false)))",
        "(type: mesh3d, data: (mesh: (source: primitive, value: cuboid(size: (x: 2.0, y: 1.0, z: 0.5))), material: (base_color: (r: 0.35, g: 0.55, b: 0.3, a: 1.0), metallic: 0.0, perceptual_roughness: 0.9, unlit: false)))",
        "(type: mesh3d, data: (mesh: (source: primitive, value: sphere(radius: 0.5)), material: (base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: 1.0, perceptual_roughness: 0.1, unlit: true)))",
        "(type: mesh3d, data: (mesh: (source: primitive, value: plane(size: (x: 10.0, y: 4.0))), material: (base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: 1.0, perceptual_roughness: 0.1, unlit: true)))",
        "(type: mesh3d, data: (mesh: (source: primitive, value: cylinder(radius: 0.5, height: 2.0)), material: (base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: 1.0, perceptual_roughness: 0.1, unlit: true)))",
        "(type: mesh3d, data: (mesh: (source: primitive, value: capsule(radius: 0.25, length: 1.0)), material: (base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: 1.0, perceptual_roughness: 0.1, unlit: true)))",
        r#"(type: mesh3d, data: (mesh: (source: asset, value: "models/robot.gltf#Mesh0/Primitive0"), material: (base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: 1.0, perceptual_roughness: 0.1, unlit: true)))"#,
        "(type: visibility, data: hidden)",
    ];
    let entities: Vec<String> = components
        .iter()
        .enumerate()
        .map(|(i, c)| entity(i as u64 + 1, &format!("E{i}"), ZERO, c))
        .collect();
    let d = doc(&scene("Builtins", &entities));
    let code = rust(&d);
    for expected in [
        "let asset_server = world.resource::<AssetServer>().clone();",
        "image: asset_server.load(\"textures/player.png\")",
        "color: Color::srgba(1.0, 0.5, 0.25, 1.0)",
        "custom_size: Some(Vec2::new(32.0, 48.0))",
        "flip_x: true",
        "Text2d::new(\"Hello\\nBevy\")",
        "TextFont::from_font_size(FontSize::Px(24.0))",
        "TextColor(Color::srgba(0.9, 0.9, 1.0, 1.0))",
        "            Camera2d,",
        "Camera3d::default()",
        "intensity: 800.0",
        "range: 20.0",
        "shadow_maps_enabled: true",
        "illuminance: 10000.0",
        "intensity: 4000.0",
        "radius: 0.25",
        // Bevy keeps a spot light's angles in radians.
        &format!("inner_angle: {:?}", 15f32.to_radians()),
        &format!("outer_angle: {:?}", 40f32.to_radians()),
        "let mesh0 = world.resource_mut::<Assets<Mesh>>().add(Cuboid::new(2.0, 1.0, 0.5));",
        "add(Sphere::new(0.5))",
        "add(Plane3d::default().mesh().size(10.0, 4.0))",
        "add(Cylinder::new(0.5, 2.0))",
        "add(Capsule3d::new(0.25, 1.0))",
        "Mesh3d(asset_server.load(\"models/robot.gltf#Mesh0/Primitive0\"))",
        "perceptual_roughness: 0.9",
        "unlit: true",
        "Visibility::Hidden",
    ] {
        assert!(code.contains(expected), "{expected} in\n{code}");
    }
    // The two identical cuboids share one mesh and one material, as the loader shares them.
    assert_eq!(code.matches("Cuboid::new").count(), 1);
    assert_eq!(code.matches("Mesh3d(mesh0.clone())").count(), 2);
    assert_eq!(code.matches("MeshMaterial3d(material0.clone())").count(), 2);
    assert_eq!(code.matches("let material").count(), 2);
    let code = bsn(&d);
    for expected in [
        "Sprite { image: \"textures/player.png\", color: Color::srgba(1.0, 0.5, 0.25, 1.0), custom_size: {Some(Vec2::new(32.0, 48.0))}, flip_x: true, flip_y: false }",
        "Text2d(\"Hello\\nBevy\")",
        "TextFont { font_size: FontSize::Px(24.0) }",
        "        Camera2d\n",
        "        Camera3d\n",
        "PointLight { color: Color::srgba(1.0, 0.8, 0.6, 1.0), intensity: 800.0, range: 20.0, shadow_maps_enabled: true }",
        "DirectionalLight { color: Color::srgba(1.0, 0.95, 0.85, 1.0), illuminance: 10000.0, shadow_maps_enabled: false }",
        &format!(
            "SpotLight {{ color: Color::srgba(0.5, 0.5, 1.0, 1.0), intensity: 4000.0, range: 30.0, radius: 0.25, inner_angle: {:?}, outer_angle: {:?}, shadow_maps_enabled: true }}",
            15f32.to_radians(),
            40f32.to_radians()
        ),
        "let mesh0 = asset_value::<_, Mesh>(Cuboid::new(2.0, 1.0, 0.5));",
        "Mesh3d({mesh0.clone_template()})",
        "MeshMaterial3d::<StandardMaterial>({material0.clone_template()})",
        "Mesh3d(\"models/robot.gltf#Mesh0/Primitive0\")",
        "Visibility::Hidden",
    ] {
        assert!(code.contains(expected), "{expected} in\n{code}");
    }
}

#[test]
fn parents_of_something_drawn_get_inherited_visibility() {
    let text = r#"(format_version: 1, name: "V", entities: {
        1: (id: 1, name: "Group", parent: None, children: [2], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),
        2: (id: 2, name: "Inner", parent: Some(1), children: [3], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),
        3: (id: 3, name: "Dot", parent: Some(2), children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
            components: [(type: sprite, data: (custom_size: Some((x: 4.0, y: 4.0))))]),
        4: (id: 4, name: "Plain", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),
    }, roots: [1, 4], next_id: 5)"#;
    let code = rust(&doc(text));
    assert_eq!(code.matches("Visibility::Inherited").count(), 2, "{code}");
    let code = bsn(&doc(text));
    assert_eq!(code.matches("Visibility::Inherited").count(), 2, "{code}");
    let group = code.find("#Group").unwrap();
    assert!(code[group..].find("Visibility::Inherited") < code[group..].find("#Inner"));
}

fn custom(type_path: &str, fields: &[(&str, &str)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(n, e)| format!("(name: {n:?}, expr: {e:?})"))
        .collect();
    format!(
        "(type: custom, data: (type_path: {type_path:?}, fields: [{}]))",
        fields.join(", ")
    )
}

#[test]
fn custom_components_keep_enum_option_vec_and_nested_struct_expressions() {
    let fields = [
        ("mode", "Mode::Fast"),
        ("target", "Some(3)"),
        ("path", "vec![1.5, -2.0]"),
        (
            "inner",
            "Inner { a: 1, b: Some(Vec3::Y), ..Default::default() }",
        ),
        ("count", "7"),
        ("speed", "-0.5"),
        ("label", "\"a # b\""),
    ];
    let d = doc(&scene(
        "Custom",
        &[entity(1, "Thing", ZERO, &custom("game::Thing", &fields))],
    ));
    let code = rust(&d);
    let literal = "game::Thing {\n                mode: Mode::Fast,\n                target: Some(3),\n                path: vec![1.5, -2.0],\n                inner: Inner { a: 1, b: Some(Vec3::Y), ..Default::default() },\n                count: 7,\n                speed: -0.5,\n                label: \"a # b\",\n                ..Default::default()\n            }";
    assert!(code.contains(literal), "{code}");
    let code = bsn(&d);
    let patch = "game::Thing { mode: {Mode::Fast}, target: {Some(3)}, path: {vec![1.5, -2.0]}, inner: {Inner { a: 1, b: Some(Vec3::Y), ..Default::default() }}, count: 7, speed: {-0.5}, label: \"a # b\" }";
    assert!(code.contains(patch), "{code}");
}

#[test]
fn entity_references_become_variables_and_names() {
    let text = r##"(format_version: 1, name: "Refs", entities: {
        1: (id: 1, name: "Gate Switch", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),
        2: (id: 2, name: "Door", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
            components: [(type: custom, data: (type_path: "game::Door", fields: [
                (name: "opened_by", expr: "#1"),
                (name: "alarm", expr: "Some(#3)"),
                (name: "order", expr: "Order::Guard { post: #1, radius: 3.0 }"),
                (name: "link", expr: "Link(#2, -1.0)"),
                (name: "route", expr: "Route { speed: 2.0, to: #3 }"),
                (name: "note", expr: "\"#1 stays text\""),
            ]))]),
        3: (id: 3, name: "Bell", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),
    }, roots: [1, 2, 3], next_id: 4)"##;
    let d = doc(text);
    let code = rust(&d);
    assert!(code.contains("opened_by: e1,"), "{code}");
    assert!(code.contains("alarm: Some(e3),"), "{code}");
    assert!(
        code.contains("order: Order::Guard { post: e1, radius: 3.0 },"),
        "{code}"
    );
    assert!(code.contains("link: Link(e2, -1.0),"), "{code}");
    assert!(
        code.contains("route: Route { speed: 2.0, to: e3 },"),
        "{code}"
    );
    assert!(code.contains("note: \"#1 stays text\","), "{code}");
    // Inserted after every entity exists, on the entity's variable.
    let spawned_last = code.rfind(".spawn((").unwrap();
    let inserted = code.find(".entity_mut(e2)").unwrap();
    assert!(inserted > spawned_last, "{code}");
    let code = bsn(&d);
    assert!(
        code.contains("game::Door { opened_by: #GateSwitch, alarm: Option::Some(#Bell), order: Order::Guard { post: #GateSwitch, radius: 3.0 }, link: Link(#Door, {-1.0}), route: Route { speed: 2.0, to: #Bell }, note: \"#1 stays text\" }"),
        "{code}"
    );
}

#[test]
fn prefab_entities_are_exported_expanded_with_their_id_paths() {
    let read = |asset: &str| {
        std::fs::read(Path::new(ROOT).join("assets").join(asset)).map_err(|e| e.to_string())
    };
    let path = "scenes/castle_gate.forge.ron";
    let parsed = SceneDoc::read(Path::new(ROOT).join("assets").join(path)).unwrap();
    let mut prefabs = PrefabFiles::new(read);
    let (expanded, problems) = prefabs.expand_scene(path, &parsed);
    assert!(problems.is_empty(), "{problems:?}");
    let expanded = expanded.unwrap();
    let code = expanded_to_rust(&expanded, &ExportOptions::default()).unwrap();
    assert!(code.contains("let e8_1 = world"), "{code}");
    assert!(code.contains("alarm: Some(e8_1)"), "{code}");
    assert!(code.contains(".entity_mut(e9_1)"), "{code}");
    assert!(matches!(
        to_rust(&parsed.doc, &ExportOptions::default()),
        Err(ExportError::Instance { entity: 8, .. })
    ));
    let err = expanded_to_bsn(&expanded, &ExportOptions::default()).unwrap_err();
    assert!(
        matches!(&err, ExportError::BsnReference { entity, field, .. } if entity == "3" && field == "route"),
        "{err}"
    );
}

#[test]
fn what_cannot_be_exported_is_refused_with_the_reason() {
    let one = |component: &str| doc(&scene("Bad", &[entity(1, "A", ZERO, component)]));
    let err = to_rust(
        &one(&custom("game::Door", &[("opened_by", "#9")])),
        &ExportOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, ExportError::Dangling { reference, .. } if reference == "#9"),
        "{err}"
    );
    assert!(err.to_string().contains("`#9` names no entity"), "{err}");
    let err = to_rust(
        &one(&custom("game::Door", &[("opened_by", "(1,")])),
        &ExportOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ExportError::Custom { .. }), "{err}");
    assert!(
        err.to_string().contains("is not a Rust expression"),
        "{err}"
    );
    let err = to_rust(
        &one(&custom("game::Door", &[("type", "1")])),
        &ExportOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("field `type` is not a Rust identifier"),
        "{err}"
    );
    let err = to_bsn(&one(&custom("game::HP", &[])), &ExportOptions::default()).unwrap_err();
    assert!(err.to_string().contains("UpperCamelCase"), "{err}");
    let err = to_bsn(
        &one(&custom("game::Route", &[("stops", "[#1, #1]")])),
        &ExportOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ExportError::BsnReference { .. }), "{err}");
    let mut d = one("");
    d.entity_mut(1).unwrap().transform.translation.x = f32::NAN;
    let err = to_rust(&d, &ExportOptions::default()).unwrap_err();
    assert!(
        matches!(&err, ExportError::NonFinite { what, .. } if what == "transform"),
        "{err}"
    );
    let err = to_bsn(
        &one("(type: mesh3d, data: (mesh: (source: primitive, value: sphere(radius: -1.0)), material: (base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: 0.0, perceptual_roughness: 0.5, unlit: false)))"),
        &ExportOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ExportError::NegativeSize { .. }), "{err}");
    let mut d = one("");
    d.roots.push(7);
    assert!(matches!(
        to_rust(&d, &ExportOptions::default()),
        Err(ExportError::Forest(_))
    ));
}

#[test]
fn a_line_comment_in_an_expression_does_not_swallow_what_follows() {
    let d = doc(&scene(
        "Comments",
        &[entity(
            1,
            "A",
            ZERO,
            &custom(
                "game::Orbit",
                &[("radius", "2.0 // metres"), ("speed", "Some(1.0) // rad/s")],
            ),
        )],
    ));
    let code = rust(&d);
    assert!(code.contains("radius: 2.0 // metres\n,"), "{code}");
    let code = bsn(&d);
    assert!(
        code.contains("game::Orbit { radius: 2.0 // metres\n, speed: {Some(1.0) // rad/s\n} }"),
        "{code}"
    );
}

#[test]
fn errors_name_prefab_entities_by_id_path() {
    let files = [(
        "post.forge.ron",
        r#"(format_version: 1, name: "Post", entities: {
            1: (id: 1, name: "Flag", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
                components: [(type: custom, data: (type_path: "game::Flags", fields: [(name: "all", expr: "[#1]")]))]),
        }, roots: [1], next_id: 2)"#,
    )];
    let level = SceneDoc::from_str(r#"(format_version: 1, name: "Level", entities: {
        4: (id: 4, name: "Camp", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
            components: [], instance: Some((scene: "post.forge.ron"))),
    }, roots: [4], next_id: 5)"#).unwrap();
    let mut prefabs = PrefabFiles::new(|path: &str| {
        files
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.as_bytes().to_vec())
            .ok_or_else(|| "no such file".to_owned())
    });
    let (expanded, problems) = prefabs.expand_scene("level.forge.ron", &level);
    assert!(problems.is_empty(), "{problems:?}");
    let expanded = expanded.unwrap();
    let code = expanded_to_rust(&expanded, &ExportOptions::default()).unwrap();
    assert!(code.contains("all: [e4_1],"), "{code}");
    let err = expanded_to_bsn(&expanded, &ExportOptions::default()).unwrap_err();
    assert!(err.to_string().starts_with("entity 4/1 (`Flag`)"), "{err}");
}

#[test]
fn options_name_the_function_and_the_source() {
    let d = doc(&scene("Garden", &[entity(1, "A", ZERO, "")]));
    let options = ExportOptions {
        source: Some("scenes/garden.forge.ron".into()),
        function: Some("build_level".into()),
    };
    let code = to_rust(&d, &options).unwrap();
    assert!(code.starts_with(
        "// Generated by `forge export --to rust` from `scenes/garden.forge.ron` (scene \"Garden\")"
    ));
    assert!(code.contains("pub fn build_level(world: &mut World)"));
    let code = to_bsn(&d, &options).unwrap();
    assert!(code.contains("pub fn build_level() -> impl SceneList"));
    let options = ExportOptions {
        source: None,
        function: Some("2fast".into()),
    };
    let err = to_rust(&d, &options).unwrap_err();
    assert_eq!(err.to_string(), "`2fast` is not a Rust function name");
}

/// `code` with every run of whitespace one space: what a test looks for, however indented.
fn squeezed(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `code` holds `want`, whitespace aside.
fn holds(code: &str, want: &str) -> bool {
    squeezed(code).contains(&squeezed(want))
}

/// A scene of `render-tests/tests/scenes/` (exported there and spawned against Bevy).
fn render_test_scene(name: &str) -> SceneDoc {
    let path = Path::new(ROOT).join(format!("render-tests/tests/scenes/{name}.forge.ron"));
    doc(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn a_placed_model_is_exported_as_world_asset_root_with_its_overrides_in_an_observer() {
    let d = render_test_scene("porch");
    let code = rust(&d);
    for want in [
        "use bevy::world_serialization::{InstanceId, WorldInstanceReady};",
        "WorldAssetRoot(asset_server.load(\"models/house.gltf#Scene0\")),",
        "world.entity_mut(e3).observe(\n        move |ready: On<WorldInstanceReady>, mut commands: Commands| {",
        "let n0 = model_node(world, instance, &[\"House\", \"Lamp\"]);",
        "let h0_0 = n0.and_then(|n| model_holder::<PointLight>(world, n, true));",
        "c.intensity = 900.0;",
        "c.shadow_maps_enabled = true;",
        "world.entity_mut(node).insert(Name::new(\"Red Roof\"));",
        "world.entity_mut(node).insert(Visibility::Hidden);",
        "|c: &mut forge_demo::Health| {\n                        c.hp = 3;",
        "fn model_node(world: &World, instance: InstanceId, path: &[&str]) -> Option<Entity> {",
    ] {
        assert!(holds(&code, want), "{want:?} in\n{code}");
    }
    // Every node is found before an override renames one: the chimney under the renamed roof.
    let found = code.find("model_node(world, instance, &[\"House\", \"Roof\", \"Chimney\"])");
    let renamed = code.find("Name::new(\"Red Roof\")");
    assert!(found.unwrap() < renamed.unwrap(), "{code}");
    // No `Visibility::Inherited` of its own: `WorldAssetRoot` requires `Visibility`.
    assert!(!code.contains("Visibility::Inherited"), "{code}");
    let code = bsn(&d);
    for want in [
        "use bevy::world_serialization::{InstanceId, WorldInstanceReady};",
        "        WorldAssetRoot(\"models/house.gltf#Scene0\")\n        on(model_overrides_e3)\n",
        "fn model_overrides_e3(ready: On<WorldInstanceReady>, mut commands: Commands) {",
        "c.intensity = 900.0;",
        "fn model_holder<T: Component>(world: &World, node: Entity, light: bool) -> Option<Entity> {",
    ] {
        assert!(holds(&code, want), "{want:?} in\n{code}");
    }
}

#[test]
fn model_overrides_that_name_scene_entities_are_written_in_rust_and_refused_in_bsn() {
    let d = render_test_scene("street");
    let code = rust(&d);
    for want in [
        // The cat spawns under the instance entity, then moves under the roof node.
        "ChildOf(e5),",
        "if world.get_entity(e6).is_ok() {\n                        world.entity_mut(node).add_child(e6);",
        // A reference in an override's value is the entity's variable.
        "post: e1,",
        "if let Some(holder) = model_holder::<PointLight>(world, node, true) {\n                        world.entity_mut(holder).remove::<PointLight>();",
    ] {
        assert!(holds(&code, want), "{want:?} in\n{code}");
    }
    let err = to_bsn(&d, &ExportOptions::default()).unwrap_err();
    match &err {
        ExportError::ModelOverride {
            entity, node, why, ..
        } => {
            assert_eq!(
                (entity.as_str(), node.as_str()),
                ("5", "[\"House\", \"Roof\"]")
            );
            assert!(why.contains("--to rust"), "{why}");
        }
        other => panic!("{other}"),
    }
    assert!(
        err.to_string().starts_with(
            "entity 5 (`House`) places the glTF model `models/house.gltf#Scene0`: the override of node [\"House\", \"Roof\"] cannot be exported: its `children` are entities of the scene"
        ),
        "{err}"
    );
}

#[test]
fn a_model_override_set_of_a_material_is_refused_with_the_reason() {
    let mut d = render_test_scene("porch");
    let instance = d.entity_mut(3).unwrap().instance.as_mut().unwrap();
    instance.overrides[0].node = vec!["House".into(), "Door".into(), "Planks.Wood".into()];
    instance.overrides[0].set = SceneDoc::from_str(&scene(
        "Set",
        &[entity(
            1,
            "A",
            ZERO,
            "(type: mesh3d, data: (mesh: (source: primitive, value: sphere(radius: 0.5)), material: (base_color: (r: 1.0, g: 0.0, b: 0.0, a: 1.0), metallic: 0.0, perceptual_roughness: 0.5, unlit: false)))",
        )],
    ))
    .unwrap()
    .doc
    .entities[&1]
        .components
        .iter()
        .map(|c| bevy_forge_scene::format::ComponentPatch {
            component: c.clone(),
            fields: vec!["material.base_color".into()],
        })
        .collect();
    let err = to_rust(&d, &ExportOptions::default()).unwrap_err();
    assert!(
        matches!(&err, ExportError::ModelOverride { node, .. } if node == "[\"House\", \"Door\", \"Planks.Wood\"]"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("its `set` of `mesh3d.material.base_color` changes a value that is not one field of one Bevy component"),
        "{err}"
    );
}

#[test]
fn a_model_placed_by_a_prefab_is_exported_where_the_prefab_places_it() {
    let files = [(
        "house.forge.ron",
        r##"(format_version: 1, name: "House", entities: {
            1: (id: 1, name: "Model", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
                components: [], instance: Some((model: "models/house.gltf#Scene0", overrides: [
                    (target: ["House", "Door"], add: [(type: custom, data: (type_path: "game::Sign", fields: [(name: "at", expr: "#2")]))]),
                ]))),
            2: (id: 2, name: "Mailbox", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
                components: []),
        }, roots: [1, 2], next_id: 3)"##,
    )];
    let level = SceneDoc::from_str(r#"(format_version: 1, name: "Level", entities: {
        8: (id: 8, name: "Plot", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
            components: [], instance: Some((scene: "house.forge.ron"))),
    }, roots: [8], next_id: 9)"#).unwrap();
    let mut prefabs = PrefabFiles::new(|path: &str| {
        files
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.as_bytes().to_vec())
            .ok_or_else(|| "no such file".to_owned())
    });
    let (expanded, problems) = prefabs.expand_scene("level.forge.ron", &level);
    assert!(problems.is_empty(), "{problems:?}");
    let code = expanded_to_rust(&expanded.unwrap(), &ExportOptions::default()).unwrap();
    for want in [
        "WorldAssetRoot(asset_server.load(\"models/house.gltf#Scene0\")),",
        "world.entity_mut(e8_1).observe(",
        // `#2` in the prefab's override is the prefab's own mailbox, as this placement has it.
        "at: e8_2,",
    ] {
        assert!(holds(&code, want), "{want:?} in\n{code}");
    }
}

#[test]
fn a_model_without_overrides_gets_no_observer_and_no_unused_variable() {
    let mut d = render_test_scene("porch");
    d.entity_mut(3)
        .unwrap()
        .instance
        .as_mut()
        .unwrap()
        .overrides
        .clear();
    let code = rust(&d);
    assert!(code.contains("WorldAssetRoot(asset_server.load("), "{code}");
    assert!(!code.contains(".observe("), "{code}");
    let code = bsn(&d);
    assert!(!code.contains("on("), "{code}");
    assert!(!code.contains("fn model_overrides_"), "{code}");
    // Under a parent, the instance entity's variable is not bound: nothing reads it.
    let d = doc(r#"(format_version: 1, name: "Lot", entities: {
        1: (id: 1, name: "Lot", parent: None, children: [2], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []),
        2: (id: 2, name: "House", parent: Some(1), children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [],
            instance: Some((model: "models/house.gltf#Scene0"))),
    }, roots: [1], next_id: 3)"#);
    let code = rust(&d);
    assert!(code.contains("WorldAssetRoot(asset_server.load("), "{code}");
    assert!(!code.contains("let e2 = "), "{code}");
}
