//! One corpus through both consumers of the pipeline: each scene loaded by the asset loader and
//! checked as `forge validate --schema` checks it (`pipeline::check` with the game's exported
//! schemas), as text and as its cooked twin. The errors are the same: codes, files, lines,
//! columns, entities, field paths and related places.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeMap;

use bevy_asset::{AssetServer, LoadState};
use bevy_forge_scene::cook::CookedScene;
use bevy_forge_scene::pipeline::{self, PrefabFiles, Source};
use bevy_forge_scene::validate::{Diagnostic, Severity};
use bevy_forge_scene::{ForgeSceneLoadError, ForgeSceneLoaderSettings, ForgeSchemas};
use common::harness::Harness;

/// A diagnostic as both sides must agree on it.
type Held = (
    &'static str,
    Option<String>,
    Option<(u32, u32)>,
    Option<u64>,
    Option<String>,
    Vec<(Option<String>, Option<(u32, u32)>, String)>,
);

fn held(diagnostics: &[Diagnostic]) -> Vec<Held> {
    let mut out: Vec<Held> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            (
                d.code,
                d.file.clone(),
                d.position.map(|p| (p.line, p.column)),
                d.entity,
                d.path.clone(),
                d.related
                    .iter()
                    .map(|r| {
                        (
                            r.file.clone(),
                            r.position.map(|p| (p.line, p.column)),
                            r.message.clone(),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    out.sort();
    out
}

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

/// A root entity `id` with `components`, placing `scene` when given.
fn entity(id: u64, name: &str, components: &str, scene: Option<&str>) -> String {
    let instance = scene.map_or(String::new(), |s| {
        format!(", instance: Some((scene: \"{s}\"))")
    });
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: None, children: [], {T}, components: [{components}]{instance}),\n"
    )
}

fn scene(name: &str, entities: &[String]) -> String {
    let roots: Vec<String> = entities
        .iter()
        .map(|e| e.split(':').next().unwrap().to_owned())
        .collect();
    format!(
        "(format_version: 1, name: \"{name}\", entities: {{\n{}}}, roots: [{}], next_id: 100)",
        entities.concat(),
        roots.join(", ")
    )
}

const BRAIN_BAD: &str = "(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"250\"), (name: \"label\", expr: \"\\\"x\\\"\")]))";
const LIGHT_BAD: &str = "(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800.0, range: -1.0, shadows: false))";
const CAMERA: &str = "(type: camera3d)";

/// The corpus: scene name, the files it needs (prefabs included) by asset path.
fn corpus() -> Vec<(&'static str, BTreeMap<String, String>)> {
    let mut out = Vec::new();
    let fixture = |name: &str| common::fixture_text(&format!("invalid/{name}.forge.ron"));
    for name in [
        "bad-values",
        "dangling-child",
        "id-mismatch",
        "parent-children-disagree",
    ] {
        let path = format!("{name}.forge.ron");
        let leaked: &'static str = Box::leak(path.clone().into_boxed_str());
        out.push((leaked, BTreeMap::from([(path, fixture(name))])));
    }
    // A prefab with a bad custom value placed twice, a bad light, a dangling reference.
    let mut files = BTreeMap::new();
    files.insert(
        "prefabs/grunt.forge.ron".to_owned(),
        scene(
            "Grunt",
            &[
                entity(1, "Grunt", BRAIN_BAD, None),
                entity(2, "Lamp", LIGHT_BAD, None),
                entity(
                    3,
                    "Pointer",
                    "(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"label\", expr: \"#9\")]))",
                    None,
                ),
            ],
        ),
    );
    files.insert(
        "level.forge.ron".to_owned(),
        scene(
            "Level",
            &[
                entity(1, "Camera", CAMERA, None),
                entity(2, "Grunt A", "", Some("prefabs/grunt.forge.ron")),
                entity(3, "Grunt B", "", Some("prefabs/grunt.forge.ron")),
            ],
        ),
    );
    out.push(("level.forge.ron", files));
    // A chain of 33 files (the scene and 32 prefabs, as deep as prefabs nest), broken at its
    // last link.
    let mut files = BTreeMap::new();
    for i in 0..32 {
        let next = format!("chain/c{}.forge.ron", i + 1);
        let text = if i == 31 {
            scene("End", &[entity(1, "End", LIGHT_BAD, None)])
        } else {
            scene(&format!("C{i}"), &[entity(1, "Link", "", Some(&next))])
        };
        files.insert(format!("chain/c{i}.forge.ron"), text);
    }
    files.insert(
        "long.forge.ron".to_owned(),
        scene(
            "Long",
            &[
                entity(1, "Camera", CAMERA, None),
                entity(2, "Start", "", Some("chain/c0.forge.ron")),
            ],
        ),
    );
    out.push(("long.forge.ron", files));
    // A cycle.
    let mut files = BTreeMap::new();
    files.insert(
        "a.forge.ron".to_owned(),
        scene(
            "A",
            &[
                entity(1, "Camera", CAMERA, None),
                entity(2, "B", "", Some("b.forge.ron")),
            ],
        ),
    );
    files.insert(
        "b.forge.ron".to_owned(),
        scene("B", &[entity(1, "A", "", Some("a.forge.ron"))]),
    );
    out.push(("a.forge.ron", files));
    out
}

/// The errors of loading `path` with asset checks off.
fn load_errors(h: &mut Harness, path: &str) -> Vec<Diagnostic> {
    let handle = h
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(|s: &mut ForgeSceneLoaderSettings| s.check_assets = false)
        .load::<bevy_forge_scene::ForgeScene>(path.to_owned());
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| {
        matches!(
            server.load_state(&handle),
            LoadState::Loaded | LoadState::Failed(_)
        )
    });
    match server.load_state(&handle) {
        LoadState::Failed(error) => ForgeSceneLoadError::from_asset_error(&error)
            .map(ForgeSceneLoadError::diagnostics)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// What `forge validate --schema` reports of `bytes` (the scene `path`), its prefabs read from
/// `files`.
fn validate_errors(
    path: &str,
    bytes: &[u8],
    files: &BTreeMap<String, String>,
    schemas: &ForgeSchemas,
) -> Vec<Diagnostic> {
    let files = files.clone();
    let mut prefabs = PrefabFiles::new(move |p: &str| {
        files
            .get(p)
            .map(|t| t.as_bytes().to_vec())
            .ok_or_else(|| format!("no `{p}`"))
    })
    .with_schemas(schemas.to_schema_file());
    match Source::read(path, bytes) {
        Ok(source) => pipeline::check(source, &mut prefabs).diagnostics,
        Err(e) => vec![e.diagnostic()],
    }
}

#[test]
fn validate_and_the_loader_hold_the_same_errors_for_text_and_cooked_scenes() {
    for (scene_path, files) in corpus() {
        let mut h = Harness::new();
        for (path, text) in &files {
            h.add(path, text);
        }
        let schemas = h.world().resource::<ForgeSchemas>().clone();
        let text = &files[scene_path];
        let loaded = load_errors(&mut h, scene_path);
        let validated = validate_errors(scene_path, text.as_bytes(), &files, &schemas);
        assert!(!loaded.is_empty(), "{scene_path} has errors");
        assert_eq!(
            held(&loaded),
            held(&validated),
            "{scene_path} as text:\nloaded {loaded:#?}\nvalidated {validated:#?}"
        );

        // Its cooked twin, with every prefab it places bundled.
        let Ok(source) = Source::read(scene_path, text.as_bytes()) else {
            continue; // text that does not read has no twin
        };
        let mut placed = PrefabFiles::new(|p: &str| {
            files
                .get(p)
                .map(|t| t.as_bytes().to_vec())
                .ok_or_else(|| format!("no `{p}`"))
        });
        let _ = placed.expand_scene(scene_path, &source.parsed);
        let cooked = CookedScene {
            source: scene_path.to_owned(),
            prefabs: placed
                .placed_by(&source.parsed.doc)
                .into_iter()
                .map(|(p, d)| (p.to_owned(), d.clone()))
                .collect(),
            doc: source.parsed.doc,
        }
        .encode();
        let twin = scene_path.replace(".forge.ron", ".forge.bin");
        h.add_bytes(&twin, &cooked);
        let loaded = load_errors(&mut h, &twin);
        let validated = validate_errors(&twin, &cooked, &BTreeMap::new(), &schemas);
        assert!(!loaded.is_empty(), "{twin} has errors");
        assert_eq!(
            held(&loaded),
            held(&validated),
            "{twin} cooked:\nloaded {loaded:#?}\nvalidated {validated:#?}"
        );
    }
}

#[test]
fn a_broken_link_of_a_long_chain_is_one_error_with_the_chain() {
    let (_, files) = corpus()
        .into_iter()
        .find(|(s, _)| *s == "long.forge.ron")
        .unwrap();
    let mut h = Harness::new();
    for (path, text) in &files {
        h.add(path, text);
    }
    let errors = load_errors(&mut h, "long.forge.ron");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let e = &errors[0];
    assert_eq!(e.code, "forge::light::range");
    assert_eq!(e.file.as_deref(), Some("chain/c31.forge.ron"));
    // Every link of the chain, the scene first, at the `scene` value that places the next.
    assert_eq!(e.related.len(), 32);
    assert_eq!(e.related[0].file.as_deref(), Some("long.forge.ron"));
    assert_eq!(e.related[0].message, "places `chain/c0.forge.ron`");
    assert_eq!(e.related[31].file.as_deref(), Some("chain/c30.forge.ron"));
    assert!(e.related.iter().all(|r| r.position.is_some()));
    // And the load error says one error, as `forge validate` does.
    let handle = h
        .world()
        .resource::<AssetServer>()
        .load::<bevy_forge_scene::ForgeScene>("long.forge.ron");
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| matches!(server.load_state(&handle), LoadState::Failed(_)));
    let LoadState::Failed(error) = server.load_state(&handle) else {
        unreachable!()
    };
    let message = ForgeSceneLoadError::from_asset_error(&error)
        .unwrap()
        .to_string();
    assert!(
        message.starts_with("`long.forge.ron` has 1 error:"),
        "{message}"
    );
}

#[test]
fn an_error_of_a_prefab_placed_twice_names_the_prefab_entity_once() {
    let (_, files) = corpus()
        .into_iter()
        .find(|(s, _)| *s == "level.forge.ron")
        .unwrap();
    let mut h = Harness::new();
    for (path, text) in &files {
        h.add(path, text);
    }
    let errors = load_errors(&mut h, "level.forge.ron");
    let range: Vec<_> = errors
        .iter()
        .filter(|d| d.code == "forge::custom::range")
        .collect();
    assert_eq!(range.len(), 1, "{errors:#?}");
    let range = range[0];
    assert_eq!(range.file.as_deref(), Some("prefabs/grunt.forge.ron"));
    assert_eq!(range.entity, Some(1), "the prefab's own entity");
    assert!(
        range.message.starts_with("entity 1 (`Grunt`)"),
        "{}",
        range.message
    );
    // The cooked twin says the same: entity 1 of the prefab, once.
    let source = Source::read("level.forge.ron", files["level.forge.ron"].as_bytes()).unwrap();
    let mut placed = PrefabFiles::new(|p: &str| {
        files
            .get(p)
            .map(|t| t.as_bytes().to_vec())
            .ok_or_else(|| format!("no `{p}`"))
    });
    let _ = placed.expand_scene("level.forge.ron", &source.parsed);
    let cooked = CookedScene {
        source: "level.forge.ron".to_owned(),
        prefabs: placed
            .placed_by(&source.parsed.doc)
            .into_iter()
            .map(|(p, d)| (p.to_owned(), d.clone()))
            .collect(),
        doc: source.parsed.doc,
    }
    .encode();
    h.add_bytes("level.forge.bin", &cooked);
    let errors = load_errors(&mut h, "level.forge.bin");
    let range: Vec<_> = errors
        .iter()
        .filter(|d| d.code == "forge::custom::range")
        .collect();
    assert_eq!(range.len(), 1, "{errors:#?}");
    assert_eq!(range[0].entity, Some(1));
    assert_eq!(range[0].file.as_deref(), Some("prefabs/grunt.forge.ron"));
    assert!(range[0].message.starts_with("entity 1 (`Grunt`)"));
}

#[test]
fn a_cooked_file_with_a_damaged_first_byte_is_said_to_be_one() {
    let source = Source::read(
        "garden.forge.ron",
        common::fixture_text("valid/garden.forge.ron").as_bytes(),
    )
    .unwrap();
    let mut bytes = CookedScene {
        source: "garden.forge.ron".to_owned(),
        doc: source.parsed.doc,
        prefabs: Vec::new(),
    }
    .encode();
    bytes[0] = b'x';
    let error = Source::read("garden.forge.bin", &bytes).unwrap_err();
    let d = error.diagnostic();
    assert_eq!(d.code, "forge::cook::magic", "{d}");
    assert!(d.message.contains("damaged cooked scene"), "{d}");
    // The loader says the same.
    let mut h = Harness::new();
    h.add_bytes("garden.forge.bin", &bytes);
    let errors = load_errors(&mut h, "garden.forge.bin");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, "forge::cook::magic");
    // Text that is simply not UTF-8 is still that.
    let error = Source::read("bad.forge.ron", b"(\xff").unwrap_err();
    assert_eq!(error.diagnostic().code, "forge::read::invalid_utf8");
}
