//! `runtime::import` and `forge import`: Bevy `.scn.ron` worlds, written in each test by Bevy's
//! own `DynamicWorldSerializer`, read back as scene documents.
#![cfg(all(feature = "import", feature = "builtins"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The harness alone: the shared game types name `forge_demo::Health` differently from the
// goblin prefab, which this file's `Health` matches.
#[path = "../examples/support/gate.rs"]
mod gate;
#[allow(dead_code)]
#[path = "common/harness.rs"]
mod harness;

use std::path::Path;
use std::process::Command;

use bevy_app::App;
use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::AppTypeRegistry;
use bevy_forge_scene::format::{ComponentData, MeshSource, SceneDoc, Transform};
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::runtime::import::{
    self, ImportError, ImportOptions, ImportReport, NoteKind, file_transform,
};
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{Reflect, TypeRegistry};
use bevy_transform::components::{GlobalTransform, Transform as BevyTransform};
use bevy_world_serialization::serde::DynamicWorldSerializer;
use bevy_world_serialization::{DynamicWorld, DynamicWorldBuilder};
use glam::{DQuat, EulerRot, Quat, Vec3};
use harness::Harness;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const FORGE: &str = env!("CARGO_BIN_EXE_forge");

/// The platformer's orbiting component.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Orbit")]
struct Orbit {
    radius: f32,
    speed: f32,
    axis: Vec3,
}

/// The goblin prefab's health.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Health")]
struct Health {
    hp: u32,
}

/// Registers the Bevy types a scene spawns, as a game's plugins would.
fn register_builtins(app: &mut App) {
    app.register_type::<Name>()
        .register_type::<BevyTransform>()
        .register_type::<GlobalTransform>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<bevy_sprite::Sprite>()
        .register_type::<bevy_sprite::Anchor>()
        .register_type::<bevy_sprite::Text2d>()
        .register_type::<bevy_text::TextFont>()
        .register_type::<bevy_text::TextColor>()
        .register_type::<bevy_text::TextLayout>()
        .register_type::<bevy_camera::Camera2d>()
        .register_type::<bevy_camera::Camera3d>()
        .register_type::<bevy_camera::Camera>()
        .register_type::<bevy_light::PointLight>()
        .register_type::<bevy_light::DirectionalLight>()
        .register_type::<bevy_mesh::Mesh3d>()
        .register_type::<bevy_camera::visibility::Visibility>()
        .register_type::<bevy_camera::visibility::InheritedVisibility>()
        .register_type::<bevy_camera::visibility::ViewVisibility>();
}

/// Bevy's own `.scn.ron` text of `entities` of `world`, in that order.
fn bevy_text(world: &World, entities: &[Entity]) -> String {
    let registry = world.resource::<AppTypeRegistry>().read();
    let dynamic = DynamicWorldBuilder::from_world(world, &registry)
        .extract_entities(entities.iter().copied())
        .build();
    ron::ser::to_string_pretty(
        &DynamicWorldSerializer::new(&dynamic, &registry),
        ron::ser::PrettyConfig::default(),
    )
    .unwrap()
}

fn schemas(world: &World) -> ImportOptions {
    ImportOptions {
        name: "Imported".to_owned(),
        schemas: Some(world.resource::<ForgeSchemas>().clone()),
    }
}

/// The angle between the rotations of two file transforms, in degrees, worked out in `f64`.
fn angle_between(a: &Transform, b: &Transform) -> f64 {
    let q = |t: &Transform| {
        DQuat::from_euler(
            EulerRot::XYZ,
            f64::from(t.rotation.x).to_radians(),
            f64::from(t.rotation.y).to_radians(),
            f64::from(t.rotation.z).to_radians(),
        )
    };
    angle_of(q(a), q(b))
}

fn angle_of(a: DQuat, b: DQuat) -> f64 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    (2.0 * (a - b).length().atan2((a + b).length())).to_degrees()
}

/// Every file of `dir` under `prefix` in the harness's in-memory assets.
fn add_dir(h: &Harness, dir: &Path, prefix: &str) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if path.is_dir() {
            add_dir(h, &path, &rel);
        } else {
            h.add_bytes(&rel, &std::fs::read(&path).unwrap());
        }
    }
}

/// Spawns the scene at asset path `path` and writes its entities with Bevy's serializer, in
/// the spawned document's depth-first order: the document that spawned, and the text.
fn spawn_and_write(h: &mut Harness, path: &str) -> (SceneDoc, String) {
    let (_, instance) = h.spawn_scene(path);
    let world = h.app.world();
    let scene = world
        .resource::<bevy_asset::Assets<ForgeScene>>()
        .get(instance.scene())
        .unwrap();
    let doc = match scene.expanded() {
        Some(e) => SceneDoc::clone(&e.doc),
        None => scene.doc().clone(),
    };
    let order: Vec<Entity> = doc
        .depth_first()
        .iter()
        .map(|k| instance.entity(*k).unwrap())
        .collect();
    let text = bevy_text(world, &order);
    (doc, text)
}

/// `expr` of a spawned document with each reference (`#k`, `#a/b`) written as the imported id
/// of the same entity.
fn map_refs(expr: &str, ids: &std::collections::HashMap<u64, u64>) -> String {
    let mut out = String::new();
    let mut rest = expr;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || c == '/'))
            .unwrap_or(tail.len());
        let path: Vec<u64> = tail[..end]
            .split('/')
            .filter_map(|p| p.parse().ok())
            .collect();
        let key = bevy_forge_scene::prefab::key_of(&path);
        match ids.get(&key) {
            Some(id) => out.push_str(&format!("#{id}")),
            None => out.push_str(&rest[at..at + 1 + end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The imported document is the spawned one: names, hierarchy, transforms, built-ins, and the
/// custom components' fields (entity references followed to their new ids).
fn assert_same_world(expected: &SceneDoc, imported: &SceneDoc, report: &ImportReport) {
    let keys = expected.depth_first();
    let ids = imported.depth_first();
    assert_eq!(keys.len(), ids.len(), "entity count");
    assert_eq!(
        ids,
        (1..=ids.len() as u64).collect::<Vec<_>>(),
        "ids 1..n depth-first"
    );
    assert_eq!(imported.next_id, ids.len() as u64 + 1);
    let id_of: std::collections::HashMap<u64, u64> =
        keys.iter().copied().zip(ids.iter().copied()).collect();
    let map = |v: &[u64]| v.iter().map(|k| id_of[k]).collect::<Vec<_>>();
    assert_eq!(imported.roots, map(&expected.roots), "roots");
    for (key, id) in keys.iter().zip(&ids) {
        let e = &expected.entities[key];
        let i = &imported.entities[id];
        let what = format!("entity {key} `{}`", e.name);
        assert_eq!(i.name, e.name, "{what}: name");
        assert_eq!(i.parent, e.parent.map(|p| id_of[&p]), "{what}: parent");
        assert_eq!(i.children, map(&e.children), "{what}: children");
        assert_eq!(i.transform.translation, e.transform.translation, "{what}");
        assert_eq!(i.transform.scale, e.transform.scale, "{what}");
        let angle = angle_between(&i.transform, &e.transform);
        assert!(angle < 1e-5, "{what}: rotation off by {angle} degrees");
        let mut expected_builtins = Vec::new();
        for c in &e.components {
            match c {
                ComponentData::Custom(_) => {}
                ComponentData::Visibility(bevy_forge_scene::format::VisibilityMode::Inherited) => {}
                ComponentData::Mesh3d(m) if matches!(m.mesh, MeshSource::Primitive(_)) => {
                    assert!(
                        report
                            .of_entity(*id)
                            .any(|n| n.kind == NoteKind::MeshWithoutPath),
                        "{what}: a primitive mesh is reported"
                    );
                }
                ComponentData::Mesh3d(m) => {
                    let mut m = m.clone();
                    m.material = Default::default();
                    expected_builtins.push(ComponentData::Mesh3d(m));
                }
                other => expected_builtins.push(other.clone()),
            }
        }
        let mut builtins: Vec<ComponentData> = i
            .components
            .iter()
            .filter(|c| !matches!(c, ComponentData::Custom(_)))
            .cloned()
            .collect();
        let by_tag = |a: &ComponentData, b: &ComponentData| a.tag().cmp(b.tag());
        expected_builtins.sort_by(by_tag);
        builtins.sort_by(by_tag);
        assert_eq!(builtins, expected_builtins, "{what}: built-ins");
        for c in &e.components {
            let ComponentData::Custom(want) = c else {
                continue;
            };
            let got = i
                .components
                .iter()
                .find_map(|c| match c {
                    ComponentData::Custom(got) if got.type_path == want.type_path => Some(got),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{what}: `{}` imported", want.type_path));
            for field in &got.fields {
                let w = want
                    .fields
                    .iter()
                    .find(|f| f.name == field.name)
                    .unwrap_or_else(|| {
                        panic!("{what}: `{}` has no `{}`", want.type_path, field.name)
                    });
                let same = match (w.expr.parse::<f32>(), field.expr.parse::<f32>()) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => map_refs(&w.expr, &id_of) == field.expr,
                };
                assert!(
                    same,
                    "{what}: `{}`: `{}` for `{}`",
                    field.name, field.expr, w.expr
                );
            }
        }
        let customs = |n: &bevy_forge_scene::EntityNode| {
            n.components
                .iter()
                .filter(|c| matches!(c, ComponentData::Custom(_)))
                .count()
        };
        assert_eq!(customs(i), customs(e), "{what}: custom components");
    }
}

fn fixture_harness() -> Harness {
    let h = Harness::with_setup(register_builtins);
    add_dir(&h, &Path::new(ROOT).join("assets"), "");
    add_dir(
        &h,
        &Path::new(ROOT).join("../shared/fixtures/valid"),
        "seeds",
    );
    h
}

#[test]
fn every_fixture_spawned_and_written_by_bevy_imports_as_the_same_world() {
    let mut scenes: Vec<String> = Vec::new();
    for (dir, prefix) in [
        ("assets/scenes", "scenes"),
        ("../shared/fixtures/valid", "seeds"),
    ] {
        let mut found: Vec<String> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".forge.ron"))
            .map(|n| format!("{prefix}/{n}"))
            .collect();
        found.sort();
        scenes.extend(found);
    }
    assert!(scenes.len() >= 7, "{scenes:?}");
    for path in &scenes {
        let mut h = fixture_harness();
        let (expected, text) = spawn_and_write(&mut h, path);
        let registry = h.world().resource::<AppTypeRegistry>().read();
        let imported = import::from_scn_ron_with(&text, &registry, &schemas(h.world()))
            .unwrap_or_else(|e| panic!("{path}: {e}\n{text}"));
        assert_same_world(&expected, &imported.doc, &imported.report);
        // Only primitive meshes (not files) are left out of the seed scenes.
        for note in &imported.report.notes {
            assert_eq!(note.kind, NoteKind::MeshWithoutPath, "{path}: {note}");
        }
        // And the result is a valid scene.
        let canonical = imported.doc.to_canonical_string();
        let parsed = SceneDoc::from_str(&canonical).unwrap();
        let report = bevy_forge_scene::validate_parsed(&parsed, None);
        assert!(!report.has_errors(), "{path}: {:?}", report.diagnostics);
    }
}
