//! Placed glTF models as Blender writes them, offline: `forge validate` follows a node path as
//! the runtime finds it (through a named light's entity, a mesh primitive) and warns at a
//! built-in the target lacks; `forge tree` shows light entities under their nodes, camera
//! nodes, only the first of same-named siblings as overridden, and a scene entity an
//! override's `children` moves under a node there. The model is
//! `tests/fixtures/models/cart.gltf` (and `.glb`), shaped as Blender 4.2's exporter writes
//! a scene.

use std::path::Path;

use super::{ROOT, forge, json, project, status, stdout};

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

/// A project with the cart models in `assets/models/`.
fn with_carts() -> tempfile::TempDir {
    let dir = project(&[], &[]);
    let models = dir.path().join("assets/models");
    std::fs::create_dir_all(&models).unwrap();
    for name in ["cart.gltf", "cart.glb"] {
        let from = Path::new(ROOT).join("tests/fixtures/models").join(name);
        std::fs::copy(from, models.join(name)).unwrap();
    }
    dir
}

/// A yard: the game's camera (1), entity 5 placing `model` with `overrides` (RON, each ending
/// in a comma), the dog (7) its child and the sign (6) the child an override's `children`
/// puts under a node (the file lists it there, not in the entity's `children`).
fn yard(model: &str, overrides: &str) -> String {
    format!(
        "(\n  format_version: 1,\n  name: \"Yard\",\n  entities: {{\n    1: (id: 1, name: \"Camera\", parent: None, children: [], {T}, components: [(type: camera3d)]),\n    5: (id: 5, name: \"Cart\", parent: None, children: [7], {T}, components: [],\n        instance: Some((\n          model: \"{model}\",\n          overrides: [\n{overrides}\n          ],\n        ))),\n    6: (id: 6, name: \"Sign\", parent: Some(5), children: [], {T}, components: []),\n    7: (id: 7, name: \"Dog\", parent: Some(5), children: [], {T}, components: []),\n  }},\n  roots: [1, 5],\n  next_id: 8,\n)\n"
    )
}

/// The warnings and errors `forge validate --format json` printed (not the remarks).
fn problems(o: &std::process::Output) -> Vec<serde_json::Value> {
    json(o)
        .into_iter()
        .filter(|d| d["severity"] != "info")
        .collect()
}

#[test]
fn validate_follows_a_path_through_a_named_lights_entity_and_warns_at_a_built_in_the_node_lacks() {
    let dir = with_carts();
    let path = dir.path().join("scenes/yard.forge.ron");
    let run = |text: &str| {
        std::fs::write(&path, text).unwrap();
        forge(
            dir.path(),
            &["validate", "--format", "json", "scenes/yard.forge.ron"],
        )
    };
    for model in ["models/cart.gltf#Scene0", "models/cart.glb#Scene0"] {
        // The light's own entity, as Bevy names it after Blender's light.
        let o = run(&yard(
            model,
            r#"            (target: ["Cart"], children: [6]),
            (target: ["Cart", "Lantern", "Point"], set: [(type: point_light, data: (intensity: 1234.0))]),
            (target: ["Cart", "Lantern"], set: [(type: point_light, data: (range: 9.0))]),"#,
        ));
        assert_eq!(status(&o), 0, "{model}: {}", stdout(&o));
        assert!(problems(&o).is_empty(), "{model}: {}", stdout(&o));
        // A spot light set on the lantern, whose light is a point light.
        let text = yard(
            model,
            r#"            (target: ["Cart"], children: [6]),
            (target: ["Cart", "Lantern"], set: [(type: spot_light, data: (intensity: 5.0))]),"#,
        );
        let o = run(&text);
        assert_eq!(status(&o), 0, "a warning: {}", stdout(&o));
        let items = problems(&o);
        assert_eq!(items.len(), 1, "{items:?}");
        assert_eq!(items[0]["code"], "forge::model::no_component");
        assert_eq!(items[0]["severity"], "warning");
        let line = text.lines().position(|l| l.contains("spot_light")).unwrap() + 1;
        assert_eq!(items[0]["line"], line);
        assert!(
            items[0]["help"]
                .as_str()
                .unwrap()
                .starts_with("the node has point_light;"),
            "{items:?}"
        );
    }
}

#[test]
fn tree_shows_lights_cameras_overridden_entities_and_children_moved_under_nodes() {
    let dir = with_carts();
    let path = dir.path().join("scenes/yard.forge.ron");
    let overrides = r#"            (target: ["Cart", "Lantern", "Point"], set: [(type: point_light, data: (intensity: 1234.0))]),
            (target: ["Cart"], children: [6]),
            (target: ["Cart", "Cube.Paint"], remove: ["mesh3d"]),
            (target: ["Cart", "Wheel"], name: Some("Typo")),"#;
    for model in ["models/cart.gltf#Scene0", "models/cart.glb#Scene0"] {
        std::fs::write(&path, yard(model, overrides)).unwrap();
        let o = forge(
            dir.path(),
            &["tree", "--assets", "assets", "scenes/yard.forge.ron"],
        );
        assert_eq!(status(&o), 0, "{model}: {}", stdout(&o));
        assert_eq!(
            stdout(&o),
            format!(
                "\"Yard\" (4 entities)\n\
                 |-- 1 \"Camera\" [camera3d]\n\
                 `-- 5 \"Cart\" [] (model \"{model}\")\n\
                 \x20   |-- \"Cart\" (model, overridden)\n\
                 \x20   |   |-- \"Cube.Paint\" (model mesh primitive, overridden)\n\
                 \x20   |   |-- \"Lantern\" (model)\n\
                 \x20   |   |   `-- \"Point\" (model light: point_light, overridden)\n\
                 \x20   |   |-- \"Headlight\" (model)\n\
                 \x20   |   |   `-- \"Spot\" (model light: spot_light)\n\
                 \x20   |   |-- \"Front Wheel\" (model)\n\
                 \x20   |   |-- \"Wheel.001\" (model)\n\
                 \x20   |   |-- \"Kürbis.002\" (model)\n\
                 \x20   |   `-- 6 \"Sign\" []\n\
                 \x20   |-- \"Camera\" (model, camera3d)\n\
                 \x20   |-- [\"Cart\", \"Wheel\"] (override target: no such node in the model)\n\
                 \x20   `-- 7 \"Dog\" []\n"
            ),
            "{model}"
        );
    }
}

#[test]
fn tree_marks_only_the_first_of_two_same_named_siblings_as_overridden() {
    let dir = with_carts();
    // Two wheels named `Wheel` under the cart (an exporter that does not make names unique).
    let two = r#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}],
      "nodes": [{"name": "Cart", "children": [1, 2]}, {"name": "Wheel"}, {"name": "Wheel"}]}"#;
    std::fs::write(dir.path().join("assets/models/two.gltf"), two).unwrap();
    std::fs::write(
        dir.path().join("scenes/yard.forge.ron"),
        yard(
            "models/two.gltf#Scene0",
            r#"            (target: ["Cart", "Wheel"], name: Some("Front"), children: [6]),"#,
        ),
    )
    .unwrap();
    let o = forge(
        dir.path(),
        &["tree", "--assets", "assets", "scenes/yard.forge.ron"],
    );
    assert_eq!(status(&o), 0, "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "\"Yard\" (4 entities)\n\
         |-- 1 \"Camera\" [camera3d]\n\
         `-- 5 \"Cart\" [] (model \"models/two.gltf#Scene0\")\n\
         \x20   |-- \"Cart\" (model)\n\
         \x20   |   |-- \"Wheel\" (model, overridden)\n\
         \x20   |   |   `-- 6 \"Sign\" []\n\
         \x20   |   `-- \"Wheel\" (model)\n\
         \x20   `-- 7 \"Dog\" []\n"
    );
}
