//! glTF models placed by instances (`instance: Some((model: "models/house.glb#Scene0"))`):
//! read and written canonically, kept by prefab expansion and the cooked twin, exported,
//! and (feature `gltf`) checked offline against the model's JSON node tree: the scene label and
//! each override's node path, a miss at the name's line and column with a did-you-mean.
//!
//! The models are `tests/fixtures/models/house.gltf` and `house.glb` (see the README there):
//! roots `House` (`Roof` > `Chimney`, `Door`, an unnamed `GltfNode3`, `Lamp`) and `Ground`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy_forge_scene::codes;
use bevy_forge_scene::format::*;
use bevy_forge_scene::pipeline::{PrefabFiles, Source, check};
use bevy_forge_scene::project::AssetIndex;
use bevy_forge_scene::validate::{Diagnostic, Severity, validate_parsed};

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

/// A level whose entity 5 places `model` with overrides of the node paths `targets` (each a
/// RON list), and whose entity 6 is placed under the first override's node (a root when there
/// are no overrides). The scene has no camera: its diagnostics include that remark (info).
fn level(model: &str, targets: &[&str]) -> String {
    let overrides: String = targets
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let children = if i == 0 { ", children: [6]" } else { "" };
            format!(
                "\n            (target: {t}, set: [(type: point_light, data: (intensity: 900.0))]{children}),"
            )
        })
        .collect();
    let parent = if targets.is_empty() {
        "None"
    } else {
        "Some(5)"
    };
    format!(
        r#"(
  format_version: 1,
  name: "Street",
  entities: {{
    5: (id: 5, name: "House", parent: None, children: [], {T}, components: [],
        instance: Some((
          model: "{model}",
          overrides: [{overrides}
          ],
        ))),
    6: (id: 6, name: "Cat", parent: {parent}, children: [], {T}, components: [(type: visibility, data: visible)]),
  }},
  roots: [5{roots}],
  next_id: 7,
)"#,
        roots = if targets.is_empty() { ", 6" } else { "" },
    )
}

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/models")
        .join(name)
}

/// The 1-based line and column (in characters) of the first `needle` in `text`.
fn line_col(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).expect("needle in text");
    let before = &text[..at];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().unwrap().chars().count() as u32 + 1;
    (line, col)
}

/// The warnings and errors of `d` (not the remark that the scene has no camera).
fn not_info<'a>(d: impl Iterator<Item = &'a Diagnostic>) -> Vec<Diagnostic> {
    d.filter(|d| d.severity != Severity::Info)
        .cloned()
        .collect()
}

#[test]
fn a_model_instance_reads_and_writes_canonically() {
    let text = level(
        "models/house.glb#Scene0",
        &[r#"["House", "Roof", "Chimney"]"#, r#"["House", "Lamp"]"#],
    );
    let parsed = SceneDoc::from_str(&text).unwrap();
    let instance = parsed.doc.entities[&5].instance.as_deref().unwrap();
    assert_eq!(instance.model.as_deref(), Some("models/house.glb#Scene0"));
    assert!(instance.scene.is_empty());
    assert_eq!(instance.overrides.len(), 2);
    assert_eq!(instance.overrides[0].node, ["House", "Roof", "Chimney"]);
    assert!(instance.overrides[0].target.is_empty());
    assert_eq!(instance.overrides[0].children, [6]);
    let canonical = parsed.doc.to_canonical_string();
    assert!(
        canonical.contains("model: \"models/house.glb#Scene0\""),
        "{canonical}"
    );
    assert!(!canonical.contains("scene:"), "{canonical}");
    let again = SceneDoc::from_str(&canonical).unwrap();
    assert_eq!(again.doc, parsed.doc);
    assert_eq!(again.doc.to_canonical_string(), canonical);
}

#[test]
fn an_instance_writes_exactly_one_of_scene_and_model() {
    let both = level("models/house.glb#Scene0", &[]).replace(
        "model: ",
        "scene: \"props/lamp.forge.ron\",\n          model: ",
    );
    let e = SceneDoc::from_str(&both).unwrap_err();
    assert!(
        matches!(e.kind(), ReadErrorKind::InstancePlaces { both: true }),
        "{e}"
    );
    assert!(e.to_string().contains("both `scene` and `model`"), "{e}");
    assert_eq!(
        Diagnostic::from_read_error(&e).code,
        codes::read::INSTANCE_PLACES
    );
    let neither =
        level("models/house.glb#Scene0", &[]).replace("model: \"models/house.glb#Scene0\",", "");
    let e = SceneDoc::from_str(&neither).unwrap_err();
    assert!(
        matches!(e.kind(), ReadErrorKind::InstancePlaces { both: false }),
        "{e}"
    );
    // At the instance's `(`.
    let (line, _) = line_col(&neither, "instance: Some((");
    assert_eq!(e.position().line, line, "{e}");
}

#[test]
fn a_models_overrides_target_names_and_a_prefabs_ids() {
    let ids = level("models/house.glb#Scene0", &["[1, 2]"]);
    let e = SceneDoc::from_str(&ids).unwrap_err();
    assert!(e.to_string().contains("node names"), "{e}");
    assert_eq!(e.position().line, line_col(&ids, "[1, 2]").0);
    let names = level("models/house.glb#Scene0", &[r#"["Door"]"#]).replace(
        "model: \"models/house.glb#Scene0\"",
        "scene: \"props/lamp.forge.ron\"",
    );
    let e = SceneDoc::from_str(&names).unwrap_err();
    assert!(e.to_string().contains("ids"), "{e}");
    assert_eq!(e.position(), {
        let (line, column) = line_col(&names, r#"["Door"]"#);
        let p = e.position();
        assert_eq!((p.line, p.column), (line, column));
        p
    });
}

#[test]
fn expansion_keeps_a_model_instance_as_its_entity_and_its_overrides() {
    let text = level("models/house.glb#Scene0", &[r#"["House", "Door"]"#]);
    let source = Source::read("street.forge.ron", text.as_bytes()).unwrap();
    let mut files = PrefabFiles::new(|_: &str| Err::<Vec<u8>, _>("no prefabs here".to_owned()));
    let checked = check(source, &mut files);
    let d = not_info(checked.diagnostics.iter());
    assert!(d.is_empty(), "{d:?}");
    let spawned = checked.spawned();
    assert_eq!(spawned.entities.len(), 2);
    let house = &spawned.entities[&5];
    assert_eq!(house.children, [6]);
    let instance = house.instance.as_deref().unwrap();
    assert_eq!(instance.overrides[0].node, ["House", "Door"]);
}

#[test]
fn the_cooked_twin_keeps_a_model_instance() {
    let text = level("models/house.gltf#Scene0", &[r#"["House", "GltfNode3"]"#]);
    let parsed = SceneDoc::from_str(&text).unwrap();
    let scene = bevy_forge_scene::cook::CookedScene {
        source: "street.forge.ron".to_owned(),
        doc: parsed.doc.clone(),
        prefabs: Vec::new(),
    };
    let back = bevy_forge_scene::cook::CookedScene::decode(&scene.encode()).unwrap();
    assert_eq!(back.doc, parsed.doc);
    let instance = back.doc.entities[&5].instance.as_deref().unwrap();
    assert_eq!(instance.overrides[0].node, ["House", "GltfNode3"]);
}

#[test]
fn export_writes_a_model_instance_as_bevys_world_asset_root() {
    let text = level("models/house.glb#Scene0", &[r#"["House", "Door"]"#]);
    let parsed = SceneDoc::from_str(&text).unwrap();
    let code = bevy_forge_scene::export::to_rust(&parsed.doc, &Default::default()).unwrap();
    assert!(
        code.contains("WorldAssetRoot(asset_server.load(\"models/house.glb#Scene0\"))"),
        "{code}"
    );
    // The override's cat spawns under the instance entity and moves under the door.
    assert!(code.contains("ChildOf(e5)"), "{code}");
    assert!(code.contains(".add_child(e6);"), "{code}");
}

/// A level whose model override's `add` and `set` name entities by reference: `#6` (the cat)
/// and `bad`.
fn level_with_references(bad: &str) -> String {
    level("models/house.gltf#Scene0", &[r#"["House", "Door"]"#]).replace(
        "set: [(type: point_light, data: (intensity: 900.0))]",
        &format!(
            r##"add: [(type: custom, data: (type_path: "game::Post", fields: [(name: "at", expr: "#6")]))], set: [(type: custom, data: (type_path: "game::Aim", fields: [(name: "target", expr: "Some({bad})")]))]"##
        ),
    )
}

#[test]
fn a_reference_in_a_model_override_naming_no_entity_is_an_error_at_its_line_and_column() {
    let text = level_with_references("#9");
    let source = Source::read("street.forge.ron", text.as_bytes()).unwrap();
    let mut files = PrefabFiles::new(|_: &str| Err::<Vec<u8>, _>("no prefabs here".to_owned()));
    let checked = check(source, &mut files);
    let d = not_info(checked.diagnostics.iter());
    assert_eq!(d.len(), 1, "{d:?}");
    let d = &d[0];
    assert_eq!(
        (d.code, d.severity),
        (codes::custom::REFERENCE, Severity::Error)
    );
    assert_eq!(d.entity, Some(5));
    assert_eq!(
        d.path.as_deref(),
        Some("instance.overrides[0].set[0].data.fields[0].expr")
    );
    let (line, column) = line_col(&text, "#9");
    let p = d.position.unwrap();
    assert_eq!((p.line, p.column), (line, column), "{d:?}");
    assert!(
        d.message.starts_with(
            "entity 5 (`House`), override of node [\"House\", \"Door\"], `Aim.target`: entity reference `#9`:"
        ),
        "{}",
        d.message
    );
    // `#6`, the scene's cat, names an entity: no diagnostic for it.
    let text = level_with_references("#5");
    let source = Source::read("street.forge.ron", text.as_bytes()).unwrap();
    let checked = check(source, &mut files);
    let d = not_info(checked.diagnostics.iter());
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn a_model_path_needs_a_gltf_scene_label() {
    for bad in [
        "models/house.glb",
        "models/house.glb#Mesh0",
        "models/house.obj#Scene0",
    ] {
        let parsed = SceneDoc::from_str(&level(bad, &[])).unwrap();
        let report = validate_parsed(&parsed, None);
        let codes: Vec<_> = not_info(report.iter()).iter().map(|d| d.code).collect();
        assert_eq!(codes, [codes::model::NOT_A_MODEL], "{bad}");
    }
    let parsed = SceneDoc::from_str(&level("../house.glb#Scene0", &[])).unwrap();
    let report = validate_parsed(&parsed, None);
    assert_eq!(report.iter().next().unwrap().code, codes::asset::PARENT_DIR);
}

/// An assets directory holding the test models.
fn assets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("models")).unwrap();
    for name in ["house.gltf", "house.glb", "cart.gltf", "cart.glb"] {
        std::fs::copy(fixture(name), dir.path().join("models").join(name)).unwrap();
    }
    dir
}

#[test]
fn a_missing_model_file_is_reported_at_the_model_path() {
    let dir = assets();
    let index = AssetIndex::scan(dir.path()).unwrap();
    let text = level("models/barn.glb#Scene0", &[]);
    let parsed = SceneDoc::from_str(&text).unwrap();
    let report = validate_parsed(&parsed, Some(&index));
    let d = not_info(report.iter());
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, codes::asset::MISSING);
    let (line, column) = line_col(&text, "\"models/barn.glb#Scene0\"");
    assert_eq!((d[0].line(), d[0].column()), (Some(line), Some(column)));
}

#[cfg(feature = "gltf")]
mod with_gltf {
    use super::*;

    fn validate(text: &str) -> Vec<Diagnostic> {
        let dir = assets();
        let index = AssetIndex::scan(dir.path()).unwrap();
        let parsed = SceneDoc::from_str(text).unwrap();
        not_info(validate_parsed(&parsed, Some(&index)).iter())
    }

    #[test]
    fn the_model_tree_knows_each_nodes_mesh_primitives_and_light_in_gltf_and_glb() {
        use bevy_forge_scene::validate::ModelTree;
        for file in ["house.gltf", "house.glb"] {
            let tree = ModelTree::read(&std::fs::read(fixture(file)).unwrap()).unwrap();
            let at = |path: &[&str]| tree.find(0, path).unwrap();
            // Named as Bevy names the primitives' entities: `{mesh}.{material}`.
            assert_eq!(
                tree.primitives(at(&["House", "Roof"])),
                ["Tiles.Tiles"],
                "{file}"
            );
            assert_eq!(
                tree.primitives(at(&["House", "Door"])),
                ["Planks.Wood"],
                "{file}"
            );
            assert!(tree.primitives(at(&["Ground"])).is_empty(), "{file}");
            let light = tree.light(at(&["House", "Lamp"])).unwrap();
            assert_eq!(
                (
                    light.kind.as_str(),
                    light.name.as_deref(),
                    light.color,
                    light.intensity,
                    light.range
                ),
                ("point", None, [1.0, 0.9, 0.7], 800.0, None),
                "{file}"
            );
            assert!(tree.light(at(&["House", "Roof"])).is_none(), "{file}");
        }
    }

    /// The `set` of the overrides [`level`] writes.
    const SET_LIGHT: &str = "set: [(type: point_light, data: (intensity: 900.0))]";

    #[test]
    fn a_good_placement_validates_in_gltf_and_glb() {
        for model in ["models/house.gltf#Scene0", "models/house.glb#Scene0"] {
            let text = level(
                model,
                &[
                    r#"["House", "Roof", "Chimney"]"#,
                    r#"["House", "GltfNode3"]"#,
                    r#"["Ground"]"#,
                    r#"["House", "Lamp"]"#,
                ],
            );
            // Names on the nodes without a light; the lamp's light set.
            let text = text.replacen(SET_LIGHT, "name: Some(\"Renamed\")", 3);
            let d = validate(&text);
            assert!(d.is_empty(), "{model}: {d:?}");
        }
    }

    /// A yard placing `model` (of `cart.gltf` or `cart.glb`, Blender-shaped) with `overrides`
    /// (RON, each ending in a comma).
    fn yard(model: &str, overrides: &str) -> String {
        format!(
            "(\n  format_version: 1,\n  name: \"Yard\",\n  entities: {{\n    5: (id: 5, name: \"Cart\", parent: None, children: [], {T}, components: [],\n        instance: Some((\n          model: \"{model}\",\n          overrides: [\n{overrides}\n          ],\n        ))),\n  }},\n  roots: [5],\n  next_id: 6,\n)\n"
        )
    }

    #[test]
    fn paths_through_named_lights_primitives_and_odd_names_validate_as_the_runtime_finds_them() {
        let overrides = r#"            (target: ["Cart", "Lantern"], set: [(type: point_light, data: (intensity: 1234.0))]),
            (target: ["Cart", "Lantern", "Point"], name: Some("Bulb"), set: [(type: point_light, data: (range: 9.0))]),
            (target: ["Cart", "Headlight", "Spot"], remove: ["spot_light"]),
            (target: ["Cart", "Cube.Paint"], remove: ["mesh3d"]),
            (target: ["Cart", "Front Wheel"], name: Some("Left")),
            (target: ["Cart", "Kürbis.002"], set: [(type: visibility, data: hidden)]),
            (target: ["Camera"], remove: ["camera3d"]),"#;
        for file in ["cart.gltf", "cart.glb"] {
            let d = validate(&yard(&format!("models/{file}#Scene0"), overrides));
            assert!(d.is_empty(), "{file}: {d:?}");
            // The file's second scene, by its label.
            let d = validate(&yard(
                &format!("models/{file}#Scene1"),
                r#"            (target: ["Crate", "Cube.Paint"], remove: ["mesh3d"]),"#,
            ));
            assert!(d.is_empty(), "{file}: {d:?}");
        }
    }

    #[test]
    fn a_built_in_the_target_lacks_is_one_warning_at_its_entry_naming_what_is_there() {
        let overrides = r#"            (target: ["Cart", "Lantern"], set: [(type: spot_light, data: (intensity: 5.0))]),
            (target: ["Cart"], remove: ["mesh3d"]),"#;
        for file in ["cart.gltf", "cart.glb"] {
            let text = yard(&format!("models/{file}#Scene0"), overrides);
            let d = validate(&text);
            assert_eq!(d.len(), 2, "{file}: {d:?}");
            assert!(
                d.iter().all(
                    |d| d.code == codes::model::NO_COMPONENT && d.severity == Severity::Warning
                )
            );
            assert_eq!(d[0].path.as_deref(), Some("instance.overrides[0].set[0]"));
            let (line, column) = line_col(&text, "(type: spot_light");
            assert_eq!((d[0].line(), d[0].column()), (Some(line), Some(column)));
            assert!(d[0].message.contains("no `spot_light` there"), "{}", d[0]);
            let help = d[0].help.as_deref().unwrap();
            assert!(help.starts_with("the node has point_light;"), "{help}");
            // A mesh is on its primitives: the help names the path that reaches one.
            assert_eq!(
                d[1].path.as_deref(),
                Some("instance.overrides[1].remove[0]")
            );
            let help = d[1].help.as_deref().unwrap();
            assert!(help.contains(r#"["Cart", "Cube.Paint"]"#), "{help}");
        }
    }

    #[test]
    fn a_node_path_steps_through_primitives_then_the_light_then_child_nodes_as_bevy_spawns_them() {
        use bevy_forge_scene::validate::{ModelEntity, ModelTree};
        // Node 0 has a mesh whose primitive is named `Post.Wood`, a light named `Post.Wood`
        // too, and a child node named `Post.Wood`: the primitive comes first, as in Bevy.
        let json = r#"{
          "asset": {"version": "2.0"},
          "extensions": {"KHR_lights_punctual": {"lights": [{"type": "point", "name": "Post.Wood"}, {"type": "spot"}]}},
          "scenes": [{"nodes": [0]}],
          "nodes": [
            {"name": "Gate", "mesh": 0, "children": [1, 2], "extensions": {"KHR_lights_punctual": {"light": 0}}},
            {"name": "Post.Wood"},
            {"name": "Lamp", "extensions": {"KHR_lights_punctual": {"light": 1}}, "camera": 0}
          ],
          "cameras": [{"type": "perspective", "perspective": {"yfov": 1, "znear": 0.1}}],
          "materials": [{"name": "Wood"}],
          "meshes": [{"name": "Post", "primitives": [{"attributes": {}, "material": 0}]}]
        }"#;
        let tree = ModelTree::read(json.as_bytes()).unwrap();
        assert_eq!(tree.resolve::<&str>(0, &[]), Ok(ModelEntity::SceneRoot));
        assert_eq!(tree.resolve(0, &["Gate"]), Ok(ModelEntity::Node(0)));
        assert_eq!(
            tree.resolve(0, &["Gate", "Post.Wood"]),
            Ok(ModelEntity::Primitive {
                node: 0,
                primitive: 0
            })
        );
        // An unnamed light's entity is the step `""`.
        assert_eq!(
            tree.resolve(0, &["Gate", "Lamp", ""]),
            Ok(ModelEntity::Light { node: 2 })
        );
        let miss = tree.resolve(0, &["Gate", "Gone"]).unwrap_err();
        assert_eq!(miss.at, 1);
        assert_eq!(miss.names, ["Post.Wood", "Post.Wood", "Post.Wood", "Lamp"]);
        assert_eq!(
            tree.builtins_at(ModelEntity::Node(2)),
            ["camera3d", "spot_light"]
        );
        assert_eq!(
            tree.builtins_at(ModelEntity::Light { node: 0 }),
            ["point_light"]
        );
        assert!(tree.builtins_at(ModelEntity::SceneRoot).is_empty());
    }

    #[test]
    fn a_misspelled_node_is_one_warning_at_its_name_with_the_near_name() {
        for model in ["models/house.gltf#Scene0", "models/house.glb#Scene0"] {
            let text = level(
                model,
                &[r#"["House", "Roof", "Chimny"]"#, r#"["House", "Lamp"]"#],
            );
            let d = validate(&text);
            assert_eq!(d.len(), 1, "{model}: {d:?}");
            assert_eq!(d[0].code, codes::model::UNKNOWN_NODE);
            assert_eq!(d[0].entity, Some(5));
            assert_eq!(
                d[0].path.as_deref(),
                Some("instance.overrides[0].target[2]")
            );
            assert!(
                d[0].message.contains("no node `Chimny` under `Roof`"),
                "{}",
                d[0]
            );
            assert_eq!(d[0].suggestions(), ["Chimney"]);
            let (line, column) = line_col(&text, "\"Chimny\"");
            assert_eq!((d[0].line(), d[0].column()), (Some(line), Some(column)));
        }
    }

    #[test]
    fn a_root_node_miss_names_the_roots() {
        let text = level("models/house.glb#Scene0", &[r#"["Hous", "Door"]"#]);
        let d = validate(&text);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("among its root nodes"), "{}", d[0]);
        assert_eq!(d[0].suggestions(), ["House"]);
    }

    #[test]
    fn a_missing_scene_label_is_an_error_at_the_model_path() {
        let text = level("models/house.glb#Scene1", &[r#"["Huose"]"#]);
        let d = validate(&text);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, codes::model::MISSING_SCENE);
        assert_eq!(d[0].suggestions(), ["models/house.glb#Scene0"]);
        let (line, column) = line_col(&text, "\"models/house.glb#Scene1\"");
        assert_eq!((d[0].line(), d[0].column()), (Some(line), Some(column)));
    }

    #[test]
    fn a_file_that_is_not_gltf_is_unreadable() {
        let dir = assets();
        std::fs::write(
            dir.path().join("models/broken.glb"),
            b"glTF\x02\0\0\0\x0c\0\0\0",
        )
        .unwrap();
        let index = AssetIndex::scan(dir.path()).unwrap();
        let parsed = SceneDoc::from_str(&level("models/broken.glb#Scene0", &[])).unwrap();
        let report = validate_parsed(&parsed, Some(&index));
        let d = not_info(report.iter());
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, codes::model::UNREADABLE);
    }

    #[test]
    fn the_pipeline_reports_a_miss_once() {
        let dir = assets();
        let index = AssetIndex::scan(dir.path()).unwrap();
        let text = level("models/house.glb#Scene0", &[r#"["House", "Dor"]"#]);
        let source = Source::read("street.forge.ron", text.as_bytes()).unwrap();
        let mut files = PrefabFiles::new(|_: &str| Err::<Vec<u8>, _>("no prefabs here".to_owned()))
            .with_assets(index);
        let checked = check(source, &mut files);
        let d: Vec<_> = not_info(checked.diagnostics.iter())
            .iter()
            .map(|d| d.code)
            .collect();
        assert_eq!(d, [codes::model::UNKNOWN_NODE]);
    }
}

#[test]
fn formatting_keeps_a_comment_on_a_node_name() {
    let text = level(
        "models/house.glb#Scene0",
        &["[\n              \"House\", // the main block\n              \"Door\",\n            ]"],
    );
    let formatted = bevy_forge_scene::edit::format_text(&text).unwrap();
    let line = formatted
        .lines()
        .find(|l| l.contains("// the main block"))
        .unwrap_or_else(|| panic!("comment lost:\n{formatted}"));
    assert!(line.contains("\"House\","), "{formatted}");
    assert_eq!(
        SceneDoc::from_str(&formatted).unwrap().doc,
        SceneDoc::from_str(&text).unwrap().doc
    );
}
