//! `runtime::import`: Bevy `.scn.ron` worlds, written in each test by Bevy's own
//! `DynamicWorldSerializer`, read back as scene documents. `forge import` is tested with the
//! command line (`forge-cli/tests/cli/import.rs`), on files written here.
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

use bevy_app::App;
use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::AppTypeRegistry;
use bevy_forge_scene::format::{ComponentData, MeshSource, SceneDoc, TransformData};
use bevy_forge_scene::import::{
    self, ImportError, ImportOptions, ImportReport, NoteKind, file_transform,
};
use bevy_forge_scene::prelude::*;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_transform::components::{GlobalTransform, Transform};
use bevy_world_serialization::serde::DynamicWorldSerializer;
use bevy_world_serialization::{DynamicWorld, DynamicWorldBuilder};
use glam::{DQuat, EulerRot, Quat, Vec3};
use harness::Harness;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

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
        .register_type::<Transform>()
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
        .register_type::<bevy_light::SpotLight>()
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
fn angle_between(a: &TransformData, b: &TransformData) -> f64 {
    let q = |t: &TransformData| {
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
        .map(|k| {
            let path = scene.expanded().map_or(vec![*k], |e| e.path(*k).unwrap());
            instance.entity_path(&path).unwrap()
        })
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
        let customs = |n: &bevy_forge_scene::format::EntityNode| {
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
    add_dir(&h, &Path::new(ROOT).join("tests/fixtures/valid"), "seeds");
    h
}

#[test]
fn every_fixture_spawned_and_written_by_bevy_imports_as_the_same_world() {
    let mut scenes: Vec<String> = Vec::new();
    for (dir, prefix) in [
        ("assets/scenes", "scenes"),
        ("tests/fixtures/valid", "seeds"),
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
        let report = bevy_forge_scene::validate::validate_parsed(&parsed, None);
        assert!(!report.has_errors(), "{path}: {:?}", report.diagnostics);
    }
}

// ---------------------------------------------------------------------------------------------
// A world built by hand: custom fields of every shape, odd names, what cannot be mapped.

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default)]
enum Mood {
    #[default]
    Calm,
    Angry {
        level: u8,
    },
    Lost(String),
}

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default)]
struct Leg {
    length: f32,
    knee: Option<Vec3>,
}

/// Every kind of field: enum, `Option`, `Vec`, nested struct, `Entity`.
#[derive(Component, Reflect, Clone, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_test::Creature")]
struct Creature {
    mood: Mood,
    nickname: Option<String>,
    legs: Vec<Leg>,
    body: Leg,
    friend: Option<Entity>,
    leader: Entity,
    speed: f32,
}

impl Default for Creature {
    fn default() -> Self {
        Self {
            mood: Mood::Calm,
            nickname: None,
            legs: Vec::new(),
            body: Leg::default(),
            friend: None,
            leader: Entity::PLACEHOLDER,
            speed: 1.0,
        }
    }
}

/// A reflected component that is not a `ForgeComponent`: kept under its Rust type path.
#[derive(Component, Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
struct Plain {
    x: i32,
    y: i32,
}

/// A map field cannot be written as a field expression.
#[derive(Component, Reflect, Default, Clone, Debug)]
#[reflect(Component, Default)]
struct Inventory {
    items: std::collections::HashMap<String, u32>,
}

/// An enum component has no fields to write.
#[derive(Component, Reflect, Default, Clone, Debug)]
#[reflect(Component, Default)]
enum Stance {
    #[default]
    Standing,
    Crouching,
}

/// A generic type's path cannot be a custom component's.
#[derive(Component, Reflect, Default, Clone, Debug)]
#[reflect(Component, Default)]
struct Tagged<T: Reflect + Default + bevy_reflect::TypePath + Clone + Send + Sync + 'static> {
    value: T,
}

/// Only in the game's registry.
#[derive(Component, Reflect, Default, Clone, Debug)]
#[reflect(Component, Default)]
struct Secret {
    code: u32,
}

#[derive(Resource, Reflect, Default, Clone, Debug)]
#[reflect(Resource, Default)]
struct Score(u32);

const ODD_NAMES: &[&str] = &[
    "Zoë 🐉 ドラゴン",
    "with \"quotes\" and \\ backslash",
    "line\nbreak\ttab",
    "#7",
    "   ",
    "(type: custom)",
];

fn game_app() -> App {
    let mut app = App::new();
    register_builtins(&mut app);
    app.register_type::<Creature>()
        .register_type::<Plain>()
        .register_type::<Inventory>()
        .register_type::<Stance>()
        .register_type::<Tagged<f32>>()
        .register_type::<Secret>()
        .register_type::<Score>();
    let schemas = ForgeSchemas::default();
    schemas.insert::<Creature>();
    app.insert_resource(schemas);
    app
}

/// The hand-built world: a leader with a creature child pointing back at it, odd names, a
/// nameless entity, and the unmappable components on one entity.
fn build_world(world: &mut World) -> (Entity, Entity, Creature) {
    let leader = world
        .spawn((
            Name::new("Leader"),
            Transform::from_xyz(1.0, 2.0, 3.0),
            Plain { x: 3, y: 0 },
        ))
        .id();
    let creature = Creature {
        mood: Mood::Angry { level: 7 },
        nickname: Some("Zoë \"the\" 🐉".to_owned()),
        legs: vec![
            Leg {
                length: 0.5,
                knee: Some(Vec3::new(0.0, 0.25, -0.0)),
            },
            Leg {
                length: 0.75,
                knee: None,
            },
        ],
        body: Leg {
            length: 2.0,
            knee: None,
        },
        friend: Some(leader),
        leader,
        speed: 1.0,
    };
    let child = world
        .spawn((
            Name::new("Creature"),
            Transform::from_rotation(Quat::from_euler(EulerRot::XYZ, 0.3, 1.2, -2.0)),
            creature.clone(),
            ChildOf(leader),
        ))
        .id();
    for name in ODD_NAMES {
        world.spawn((Name::new(*name), ChildOf(leader)));
    }
    world.spawn(Transform::from_xyz(0.0, -1.0, 0.0));
    let mut items = std::collections::HashMap::new();
    items.insert("sword".to_owned(), 1);
    world.spawn((
        Name::new("Odd components"),
        Inventory { items },
        Stance::Crouching,
        Tagged { value: 2.5f32 },
        Secret { code: 42 },
        Creature {
            friend: Some(Entity::from_raw_u32(999_999).unwrap()),
            ..Default::default()
        },
    ));
    world.insert_resource(Score(12));
    (leader, child, creature)
}

/// Bevy's text of every entity and resource of `world`.
fn bevy_world_text(world: &World) -> String {
    let registry = world.resource::<AppTypeRegistry>().read();
    let entities: Vec<Entity> = world
        .iter_entities()
        .map(|e| e.id())
        .filter(|e| world.get::<Name>(*e).is_some() || world.get::<Transform>(*e).is_some())
        .collect();
    let dynamic = DynamicWorldBuilder::from_world(world, &registry)
        .extract_entities(entities.into_iter())
        .deny_all_resources()
        .allow_resource::<Score>()
        .extract_resources()
        .build();
    dynamic.serialize(&registry).unwrap()
}

fn custom_of<'a>(
    doc: &'a SceneDoc,
    id: u64,
    type_path: &str,
) -> Option<&'a bevy_forge_scene::format::CustomComponent> {
    doc.entities[&id].components.iter().find_map(|c| match c {
        ComponentData::Custom(c) if c.type_path == type_path => Some(c),
        _ => None,
    })
}

fn fields(c: &bevy_forge_scene::format::CustomComponent) -> Vec<(String, String)> {
    c.fields
        .iter()
        .map(|f| (f.name.to_string(), f.expr.to_string()))
        .collect()
}

#[test]
fn custom_fields_of_every_shape_are_written_as_expressions_with_entity_references() {
    let mut app = game_app();
    build_world(app.world_mut());
    let text = bevy_world_text(app.world());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let imported = import::from_scn_ron_with(&text, &registry, &schemas(app.world())).unwrap();
    let doc = &imported.doc;
    let leader = doc.find_by_name("Leader").next().unwrap();
    let child = doc.find_by_name("Creature").next().unwrap();
    assert_eq!(doc.entities[&child].parent, Some(leader));
    let creature = custom_of(doc, child, "forge_test::Creature").unwrap();
    assert_eq!(
        fields(creature),
        [
            ("mood", "Mood::Angry { level: 7 }".to_owned()),
            ("nickname", "Some(\"Zoë \\\"the\\\" 🐉\")".to_owned()),
            (
                "legs",
                "vec![Leg { length: 0.5, knee: Some(Vec3::new(0.0, 0.25, -0.0)) }, \
                 Leg { length: 0.75, knee: None }]"
                    .to_owned()
            ),
            ("body", "Leg { length: 2.0, knee: None }".to_owned()),
            ("friend", format!("Some(#{leader})")),
            ("leader", format!("#{leader}")),
        ]
        .map(|(n, e)| (n.to_owned(), e))
        .to_vec(),
        "`speed` equals the default and is left out"
    );
    // A reflected type that is not a `ForgeComponent` keeps its Rust path; zero fields drop.
    let plain = custom_of(doc, leader, "import::Plain").unwrap();
    assert_eq!(fields(plain), [("x".to_owned(), "3".to_owned())]);
}

#[test]
fn unicode_and_odd_names_come_back_exactly_and_nameless_entities_are_named_by_id() {
    let mut app = game_app();
    build_world(app.world_mut());
    let text = bevy_world_text(app.world());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let imported = import::from_scn_ron(&text, &registry).unwrap();
    let doc = &imported.doc;
    let leader = doc.find_by_name("Leader").next().unwrap();
    let names: Vec<&str> = doc.entities[&leader]
        .children
        .iter()
        .map(|c| doc.entities[c].name.as_str())
        .collect();
    let mut expected = vec!["Creature"];
    expected.extend(ODD_NAMES);
    assert_eq!(names, expected, "children in `Children` order");
    let nameless: Vec<_> = doc
        .entities
        .values()
        .filter(|e| e.name.starts_with("Entity "))
        .collect();
    assert_eq!(nameless.len(), 1);
    assert_eq!(nameless[0].name, format!("Entity {}", nameless[0].id));
    assert_eq!(nameless[0].transform.translation.y, -1.0);
    // Written and read back, the names survive the canonical writer.
    let again = SceneDoc::from_str(&doc.to_canonical_string()).unwrap().doc;
    assert_eq!(&again, doc);
}

#[test]
fn what_cannot_be_mapped_is_listed_and_left_out() {
    let mut app = game_app();
    build_world(app.world_mut());
    let text = bevy_world_text(app.world());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let imported = import::from_scn_ron_with(&text, &registry, &schemas(app.world())).unwrap();
    let doc = &imported.doc;
    let odd = doc.find_by_name("Odd components").next().unwrap();
    let notes: Vec<(Option<u64>, String, NoteKind)> = imported
        .report
        .notes
        .iter()
        .map(|n| (n.entity, n.type_path.clone(), n.kind.clone()))
        .collect();
    assert_eq!(
        notes,
        [
            (None, "import::Score".to_owned(), NoteKind::Resource),
            (
                Some(1),
                "import::Plain".to_owned(),
                NoteKind::NotForgeComponent
            ),
            (
                Some(odd),
                "import::Creature".to_owned(),
                NoteKind::Unwritable {
                    field: Some("friend".to_owned())
                }
            ),
            (
                Some(odd),
                "import::Inventory".to_owned(),
                NoteKind::Unwritable {
                    field: Some("items".to_owned())
                }
            ),
            (
                Some(odd),
                "import::Secret".to_owned(),
                NoteKind::NotForgeComponent
            ),
            (Some(odd), "import::Stance".to_owned(), NoteKind::NotAStruct),
            (
                Some(odd),
                "import::Tagged<f32>".to_owned(),
                NoteKind::TypePath
            ),
        ]
    );
    // `Secret` is a plain reflected struct: kept, and said not to load until it derives
    // `ForgeComponent`.
    assert!(custom_of(doc, odd, "import::Secret").is_some());
    let secret = imported.report.notes[4].to_string();
    assert!(
        secret.contains("does not derive `ForgeComponent`"),
        "{secret}"
    );
    let first = imported.report.notes[2].to_string();
    assert!(
        first.contains("`Odd components`") && first.contains("`friend`"),
        "{first}"
    );

    // Without the game's registry its types are read past and listed.
    let builtin = import::from_scn_ron(&text, &import::builtin_types()).unwrap();
    let unregistered: Vec<&str> = builtin
        .report
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::Unregistered)
        .map(|n| n.type_path.as_str())
        .collect();
    for t in [
        "import::Creature",
        "import::Secret",
        "import::Plain",
        "import::Inventory",
    ] {
        assert!(unregistered.contains(&t), "{t} in {unregistered:?}");
    }
    assert_eq!(builtin.doc.entities.len(), doc.entities.len());
    assert_eq!(builtin.doc.roots, doc.roots);
}

#[test]
fn imported_custom_components_spawn_as_the_values_they_were() {
    let mut app = game_app();
    let (_, _, original) = build_world(app.world_mut());
    let text = bevy_world_text(app.world());
    let imported = {
        let registry = app.world().resource::<AppTypeRegistry>().read();
        import::from_scn_ron_with(&text, &registry, &schemas(app.world())).unwrap()
    };
    // The plugin creates only `ForgeComponent`s: the plain reflected types go.
    let mut doc = imported.doc.clone();
    for e in doc.entities.values_mut() {
        e.components.retain(|c| match c {
            ComponentData::Custom(c) => c.type_path == "forge_test::Creature",
            _ => true,
        });
    }
    let scene = doc.to_canonical_string();
    let mut h = Harness::with_setup(register_builtins);
    h.add("imported.forge.ron", &scene);
    let (_, instance) = h.spawn_scene("imported.forge.ron");
    let world = h.world();
    let named = |name: &str| {
        instance
            .iter()
            .map(|(_, e)| e)
            .find(|e| world.get::<Name>(*e).is_some_and(|n| n.as_str() == name))
            .unwrap()
    };
    let leader = named("Leader");
    let spawned = world.get::<Creature>(named("Creature")).unwrap();
    assert_eq!(
        spawned,
        &Creature {
            friend: Some(leader),
            leader,
            ..original
        }
    );
    let rotation = world.get::<Transform>(named("Creature")).unwrap().rotation;
    let want = Quat::from_euler(EulerRot::XYZ, 0.3, 1.2, -2.0);
    assert!(angle_of(rotation.as_dquat(), want.as_dquat()) < 1e-4);
}

// ---------------------------------------------------------------------------------------------
// Rotations.

/// `file_transform` is the inverse of `TransformData::rotation_quat` up to `f32`: the rotation it
/// writes is within 1e-5 degrees of Bevy's quaternion, near gimbal lock too.
#[test]
fn rotations_near_gimbal_lock_read_back_within_tolerance() {
    let mut worst = 0.0f64;
    let ys = [
        0.0, 45.0, 89.0, 89.9, 89.99, 89.999, 89.9999, 90.0, 90.0001, 90.01, 91.0, -89.99, -90.0,
        -90.001, 179.99, -180.0,
    ];
    let xzs = [0.0, 30.0, -45.0, 90.0, 135.0, -179.5, 180.0];
    for y in ys {
        for x in xzs {
            for z in xzs {
                let original = TransformData {
                    rotation: bevy_forge_scene::format::Vec3Data { x, y, z },
                    ..TransformData::IDENTITY
                };
                let bevy = Transform::from_rotation(original.rotation_quat());
                let read = file_transform(&bevy);
                let angle = angle_of(
                    bevy.rotation.as_dquat().normalize(),
                    DQuat::from_euler(
                        EulerRot::XYZ,
                        f64::from(read.rotation.x).to_radians(),
                        f64::from(read.rotation.y).to_radians(),
                        f64::from(read.rotation.z).to_radians(),
                    ),
                );
                assert!(
                    angle < 1e-5,
                    "({x}, {y}, {z}) read back as {:?}: {angle}°",
                    read.rotation
                );
                // Within f32's own error of the angles that were written.
                let drift = angle_between(&original, &read);
                assert!(drift < 1e-4, "({x}, {y}, {z}) drifted {drift}°");
                worst = worst.max(angle);
            }
        }
    }
    assert!(worst < 1e-5, "{worst}");
}

#[test]
fn plain_angles_come_back_as_written() {
    for (x, y, z) in [(0.0, 45.0, 0.0), (10.0, 20.0, 30.0), (-90.0, 0.0, 170.0)] {
        let t = TransformData {
            rotation: bevy_forge_scene::format::Vec3Data { x, y, z },
            ..TransformData::IDENTITY
        };
        let read = file_transform(&Transform::from_rotation(t.rotation_quat()));
        for (a, b) in [
            (read.rotation.x, x),
            (read.rotation.y, y),
            (read.rotation.z, z),
        ] {
            assert!(
                (a - b).abs() < 1e-4,
                "{:?} for ({x}, {y}, {z})",
                read.rotation
            );
            assert!(a != 0.0 || a.is_sign_positive(), "no -0.0");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed worlds: positioned errors, never a panic.

const NAME: &str = "bevy_ecs::name::Name";
const TRANSFORM: &str = "bevy_transform::components::transform::Transform";

#[test]
fn malformed_worlds_are_errors_at_their_line_and_column() {
    let registry = import::builtin_types();
    let cases: &[(&str, String, (usize, usize), &str)] = &[
        (
            "a value of the wrong type",
            format!(
                "(\n  resources: {{}},\n  entities: {{\n    4294967295: (components: {{\n      \"{TRANSFORM}\": (translation: \"up\"),\n    }}),\n  }},\n)"
            ),
            (5, 0),
            "",
        ),
        (
            "cut short",
            format!(
                "(\n  resources: {{}},\n  entities: {{\n    4294967295: (components: {{\"{NAME}\": \"A\""
            ),
            (4, 0),
            "",
        ),
        (
            "no entities",
            "(resources: {})".to_owned(),
            (1, 0),
            "entities",
        ),
        (
            "a component twice",
            format!(
                "(resources: {{}}, entities: {{\n 4294967295: (components: {{\"{NAME}\": \"A\", \"{NAME}\": \"B\"}}),\n}})"
            ),
            (2, 0),
            "duplicate",
        ),
        ("not a world at all", "[1, 2, 3]".to_owned(), (1, 1), ""),
    ];
    for (what, text, (line, column), says) in cases {
        let e = import::from_scn_ron(text, &registry).expect_err(what);
        let (l, c) = e.position().unwrap_or_else(|| panic!("{what}: {e}"));
        assert_eq!(l, *line, "{what}: {e}");
        if *column > 0 {
            assert_eq!(c, *column, "{what}: {e}");
        }
        assert!(c >= 1, "{what}: columns are 1-based: {e}");
        assert!(e.to_string().contains(says), "{what}: {e}");
        assert!(
            e.to_string().starts_with(&format!("{l}:{c}: ")),
            "{what}: {e}"
        );
    }
}

#[test]
fn an_entity_written_twice_is_refused() {
    let text = format!(
        "(resources: {{}}, entities: {{4294967295: (components: {{\"{NAME}\": \"A\"}}), 4294967295: (components: {{}})}})"
    );
    let e = import::from_scn_ron(&text, &import::builtin_types()).unwrap_err();
    assert_eq!(e, ImportError::DuplicateEntity { bits: 4294967295 });
}

#[test]
fn errors_from_a_file_name_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.scn.ron");
    std::fs::write(
        &path,
        "(resources: {}, entities: {4294967295: (components: {\"nope\"",
    )
    .unwrap();
    let e = import::from_scn_ron_file(&path, &import::builtin_types(), &ImportOptions::default())
        .unwrap_err();
    assert!(
        e.to_string().starts_with(&format!("{}:1:", path.display())),
        "{e}"
    );
    let missing = dir.path().join("missing.scn.ron");
    let e = import::from_scn_ron_file(
        &missing,
        &import::builtin_types(),
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::Io { .. }), "{e}");
    assert!(e.to_string().contains("missing.scn.ron"), "{e}");
}

/// Every prefix of a real world, and every byte of it changed, reads as a world or an error.
#[test]
fn damaged_text_never_panics() {
    let mut h = fixture_harness();
    let (_, text) = spawn_and_write(&mut h, "seeds/platformer.forge.ron");
    let registry = h.world().resource::<AppTypeRegistry>().read();
    let mut errors = 0;
    for end in (0..text.len()).filter(|e| text.is_char_boundary(*e)) {
        if import::from_scn_ron(&text[..end], &registry).is_err() {
            errors += 1;
        }
    }
    assert!(errors > text.len() / 2);
    let bytes = text.as_bytes();
    for (i, replacement) in (0..bytes.len())
        .step_by(3)
        .zip([b'}', b'(', b'"', b'0', b' '].iter().cycle())
    {
        let mut damaged = bytes.to_vec();
        damaged[i] = *replacement;
        if let Ok(damaged) = std::str::from_utf8(&damaged) {
            let _ = import::from_scn_ron(damaged, &registry);
        }
    }
}

/// A `DynamicWorld` built from a live world: handles give their own paths.
#[test]
fn a_world_in_memory_imports_with_its_asset_paths() {
    let mut h = fixture_harness();
    let (expected, _) = spawn_and_write(&mut h, "seeds/platformer.forge.ron");
    let world = h.world();
    let registry = world.resource::<AppTypeRegistry>().read();
    let entities: Vec<Entity> = world
        .iter_entities()
        .filter(|e| e.contains::<ForgeEntityId>())
        .map(|e| e.id())
        .collect();
    let dynamic: DynamicWorld = DynamicWorldBuilder::from_world(world, &registry)
        .extract_entities(entities.into_iter())
        .build();
    let imported = import::from_world_with(&dynamic, &registry, &schemas(world)).unwrap();
    assert_same_world(&expected, &imported.doc, &imported.report);
    let sprite = imported
        .doc
        .entities
        .values()
        .flat_map(|e| &e.components)
        .find_map(|c| match c {
            ComponentData::Sprite(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert_eq!(sprite.image.as_deref(), Some("textures/player.png"));
}

// ---------------------------------------------------------------------------------------------
// Built-ins kept in part, and broken hierarchies.

#[test]
fn built_ins_keep_what_the_format_has_and_list_the_rest() {
    use bevy_forge_scene::format::{
        ColorData, PointLightData, SpriteData, Text2dData, VisibilityMode,
    };
    let mut app = App::new();
    register_builtins(&mut app);
    let world = app.world_mut();
    let sprite = world
        .spawn((
            Name::new("Sprite"),
            bevy_sprite::Sprite {
                color: bevy_color::Color::srgba(0.5, 0.25, 1.0, 1.0),
                custom_size: Some(glam::Vec2::new(32.0, 48.0)),
                flip_y: true,
                rect: Some(bevy_math::Rect::new(0.0, 0.0, 8.0, 8.0)),
                ..Default::default()
            },
            bevy_sprite::Anchor::TOP_LEFT,
            bevy_camera::visibility::Visibility::Hidden,
        ))
        .id();
    world.spawn((
        Name::new("Label"),
        bevy_sprite::Text2d::new("Hello\nBevy"),
        bevy_text::TextFont::from_font_size(bevy_text::FontSize::Px(24.0)),
        bevy_text::TextColor(bevy_color::Color::WHITE),
        ChildOf(sprite),
    ));
    world.spawn((Name::new("Camera"), bevy_camera::Camera2d));
    world.spawn((
        Name::new("Lamp"),
        bevy_light::PointLight {
            intensity: 800.0,
            range: 20.0,
            radius: 0.5,
            shadow_maps_enabled: true,
            ..Default::default()
        },
    ));
    let text = bevy_world_text(app.world());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let imported = import::from_scn_ron(&text, &registry).unwrap();
    let doc = &imported.doc;
    let id = |name: &str| doc.find_by_name(name).next().unwrap();
    let components = |name: &str| doc.entities[&id(name)].components.clone();
    assert_eq!(
        components("Sprite"),
        [
            ComponentData::Sprite(Box::new(SpriteData {
                image: None,
                color: ColorData::rgba(0.5, 0.25, 1.0, 1.0),
                custom_size: Some(bevy_forge_scene::format::Vec2Data { x: 32.0, y: 48.0 }),
                flip_x: false,
                flip_y: true,
            })),
            ComponentData::Visibility(VisibilityMode::Hidden),
        ]
    );
    assert_eq!(
        components("Label"),
        [ComponentData::Text2d(Box::new(Text2dData {
            text: "Hello\nBevy".to_owned(),
            font_size: 24.0,
            color: ColorData::WHITE,
        }))]
    );
    assert_eq!(components("Camera"), [ComponentData::Camera2d]);
    assert_eq!(
        components("Lamp"),
        [ComponentData::PointLight(PointLightData {
            color: ColorData::WHITE,
            intensity: 800.0,
            range: 20.0,
            shadows: true,
        })]
    );
    let notes: Vec<String> = imported
        .report
        .notes
        .iter()
        .map(|n| n.to_string())
        .collect();
    assert_eq!(
        notes,
        [
            format!(
                "entity {} (`Sprite`): `bevy_sprite::sprite::Anchor` left out: `sprite` brings its default, and this one was changed",
                id("Sprite")
            ),
            format!(
                "entity {} (`Sprite`): `bevy_sprite::sprite::Sprite` became `sprite` without `rect`",
                id("Sprite")
            ),
            format!(
                "entity {} (`Lamp`): `bevy_light::point_light::PointLight` became `point_light` without `radius`",
                id("Lamp")
            ),
        ]
    );
}

#[test]
fn a_parent_loop_becomes_roots_with_a_note() {
    let child_of = "bevy_ecs::hierarchy::ChildOf";
    let text = format!(
        "(resources: {{}}, entities: {{\n\
         4294967295: (components: {{\"{NAME}\": \"A\", \"{child_of}\": (4294967294)}}),\n\
         4294967294: (components: {{\"{NAME}\": \"B\", \"{child_of}\": (4294967295)}}),\n\
         4294967293: (components: {{\"{NAME}\": \"C\", \"{child_of}\": (4294967000)}}),\n\
         }})"
    );
    let imported = import::from_scn_ron(&text, &import::builtin_types()).unwrap();
    let doc = &imported.doc;
    assert!(
        doc.check_integrity().is_empty(),
        "{:?}",
        doc.check_integrity()
    );
    // `C`'s parent is not in the world: a root. `A` and `B` point at each other: the first by
    // entity index becomes a root after the others, and the other stays its child.
    let names: Vec<&str> = doc
        .roots
        .iter()
        .map(|r| doc.entities[r].name.as_str())
        .collect();
    assert_eq!(names, ["C", "A"]);
    let a = doc.find_by_name("A").next().unwrap();
    assert_eq!(
        doc.entities[&a].children,
        [doc.find_by_name("B").next().unwrap()]
    );
    let loops: Vec<_> = imported
        .report
        .notes
        .iter()
        .filter(|n| n.kind == NoteKind::ParentLoop)
        .collect();
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].entity, Some(a));
}

#[test]
fn children_come_in_children_order_and_ids_do_not_depend_on_the_file_order() {
    let mut app = game_app();
    let (leader, _, _) = build_world(app.world_mut());
    // The last spawned child first, the first last: `Children` order, not spawn order.
    let mut kids = app.world_mut().get_mut::<Children>(leader).unwrap();
    let last = kids.len() - 1;
    kids.swap(0, last);
    let text = bevy_world_text(app.world());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let imported = import::from_scn_ron(&text, &registry).unwrap();
    let doc = &imported.doc;
    let first = doc.entities[&doc.find_by_name("Leader").next().unwrap()].children[0];
    assert_eq!(doc.entities[&first].name, ODD_NAMES[ODD_NAMES.len() - 1]);
    assert_eq!(doc.depth_first(), (1..doc.next_id).collect::<Vec<_>>());

    // The same world with its entities listed in reverse reads as the same document.
    let world = app.world();
    let entities: Vec<Entity> = world
        .iter_entities()
        .map(|e| e.id())
        .filter(|e| world.get::<Name>(*e).is_some() || world.get::<Transform>(*e).is_some())
        .collect();
    let mut reversed = DynamicWorldBuilder::from_world(world, &registry)
        .extract_entities(entities.into_iter())
        .build();
    let forward = import::from_world(&reversed, &registry).unwrap();
    reversed.entities.reverse();
    let backward = import::from_world(&reversed, &registry).unwrap();
    assert_eq!(forward.doc, backward.doc);
    assert_eq!(forward.doc, imported.doc);
}

// ---------------------------------------------------------------------------------------------
// Capture and import: one mapping from Bevy's components back to the file.

/// One entity entry of a scene text, `components` its component list.
fn entry(id: u64, name: &str, components: &str) -> String {
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [{components}]),"
    )
}

/// A spawned scene read back by `capture_instance` and, written by Bevy's serializer, by
/// `import`: both give the components the file holds, to the bit, for colours with every digit
/// an `f32` keeps, font sizes that are not whole and each field of a spot light.
#[test]
fn capture_and_import_read_colours_font_sizes_and_spot_lights_alike() {
    let colors = [
        "(r: 0.1, g: 0.2, b: 0.3, a: 0.4)",
        "(r: 0.123456789, g: 0.98765, b: 0.000001, a: 1.0)",
        "(r: 0.33333334, g: 0.6666667, b: 0.1, a: 0.5)",
    ];
    let sizes = ["7.3", "13.333", "0.5"];
    let mut entries = String::new();
    let mut id = 1;
    for (color, size) in colors.iter().zip(sizes) {
        entries.push_str(&entry(
            id,
            &format!("Label {id}"),
            &format!("(type: text2d, data: (text: \"t\", font_size: {size}, color: {color})),"),
        ));
        entries.push_str(&entry(
            id + 1,
            &format!("Tile {id}"),
            &format!(
                "(type: sprite, data: (image: None, color: {color}, custom_size: Some((x: 1.5, y: 2.25)), flip_x: true, flip_y: false)),"
            ),
        ));
        entries.push_str(&entry(
            id + 2,
            &format!("Lamp {id}"),
            &format!(
                "(type: spot_light, data: (color: {color}, intensity: 1234.5, range: 17.25, radius: 0.125, inner_angle: 12.5, outer_angle: 37.75, shadows: true)),"
            ),
        ));
        id += 3;
    }
    let roots: Vec<String> = (1..id).map(|i| i.to_string()).collect();
    let text = format!(
        "(format_version: 1, name: \"Odd values\", entities: {{{entries}}}, roots: [{}], next_id: {id})",
        roots.join(", ")
    );
    let file = SceneDoc::from_str(&text).unwrap().doc;

    let mut h = Harness::with_setup(register_builtins);
    h.add("scenes/odd.forge.ron", &text);
    let (root, instance) = h.spawn_scene("scenes/odd.forge.ron");
    let options = bevy_forge_scene::capture::CaptureOptions::default();
    let captured = bevy_forge_scene::capture::capture_instance(h.world(), root, &options)
        .unwrap()
        .doc;
    let order: Vec<Entity> = file
        .roots
        .iter()
        .map(|id| instance.entity(*id).unwrap())
        .collect();
    let bevy = bevy_text(h.world(), &order);
    let registry = h.world().resource::<AppTypeRegistry>().read();
    let imported = import::from_scn_ron_with(&bevy, &registry, &schemas(h.world()))
        .unwrap()
        .doc;
    assert_eq!(imported.roots.len(), file.roots.len());
    for (k, id) in file.roots.iter().enumerate() {
        let wanted = &file.entities[id].components;
        let name = &file.entities[id].name;
        assert_eq!(&captured.entities[id].components, wanted, "captured {name}");
        // The importer numbers entities 1..n in the order it is given them.
        let imported = &imported.entities[&imported.roots[k]];
        assert_eq!(&imported.name, name);
        // A spawned sprite or text gains Bevy's visibility, which import writes as a component.
        let imported: Vec<&ComponentData> = imported
            .components
            .iter()
            .filter(|c| !matches!(c, ComponentData::Visibility(_)))
            .collect();
        assert_eq!(
            imported,
            wanted.iter().collect::<Vec<_>>(),
            "imported {name}"
        );
    }
}

/// `forge import` reads every built-in without a game: the registry it uses knows the Bevy types
/// each built-in tag spawns as (a mesh's material lives in the render stack, which a game's
/// registry brings).
#[test]
fn the_registry_without_a_game_knows_every_builtins_bevy_types() {
    let registry = import::builtin_types();
    for b in bevy_forge_scene::format::BUILTINS {
        for ty in b
            .bevy
            .split(" + ")
            .filter(|t| !t.starts_with("MeshMaterial3d"))
        {
            assert!(
                registry.get_with_short_type_path(ty).is_some(),
                "`{}`: `{ty}` is not registered",
                b.tag
            );
        }
    }
}
