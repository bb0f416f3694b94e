//! `runtime::import`: Bevy `.scn.ron` worlds, written in each test by Bevy's own
//! `DynamicWorldSerializer`, read back as scene documents. `forge import` is tested with the
//! command line (`forge-cli/tests/cli/import.rs`), on files written here.
#![cfg(all(feature = "import", feature = "builtins"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The harness alone: the shared game types name `forge_demo::Health` differently from the
// goblin prefab, which this file's `Health` matches.
#[path = "importing/dump.rs"]
mod dump;
#[path = "../examples/support/gate.rs"]
mod gate;
#[allow(dead_code)]
#[path = "common/harness.rs"]
mod harness;
#[path = "importing/kinds.rs"]
mod kinds;

use std::path::Path;

use bevy_app::App;
use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::AppTypeRegistry;
use bevy_forge_scene::format::{ComponentData, MeshSource, SceneDoc, TransformData};
use bevy_forge_scene::import::{
    self, ImportError, ImportNote, ImportOptions, ImportReport, NoteKind, file_transform,
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

/// The goblin prefab's health, and the era samples' (`tests/fixtures/bevy_eras`).
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Health {
    hp: u32,
    max: u32,
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
        ..ImportOptions::default()
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
        // Only primitive meshes (not files) are left out of the seed scenes; the roots name
        // the entity the scene was spawned on, which the file does not hold.
        for note in &imported.report.notes {
            match &note.kind {
                NoteKind::ParentOutside { .. } => {
                    assert!(
                        imported.doc.roots.contains(&note.entity.unwrap()),
                        "{path}: {note}"
                    )
                }
                kind => assert_eq!(*kind, NoteKind::MeshWithoutPath, "{path}: {note}"),
            }
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

/// An enum component, not a `ForgeComponent`: kept whole (`value`), and said not to load.
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
            (
                Some(odd),
                "import::Stance".to_owned(),
                NoteKind::NotForgeComponent
            ),
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
    // `Stance` is an enum: written whole, as the variant.
    assert_eq!(
        custom_of(doc, odd, "import::Stance").and_then(|c| c.value.as_deref()),
        Some("Stance::Crouching")
    );
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

    // Without the game's registry or schemas, a game type is kept where the text alone says
    // what it holds and listed otherwise, never dropped in silence.
    let builtin = import::from_scn_ron(&text, &import::builtin_types()).unwrap();
    let kinds = |t: &str| -> Vec<(Option<u64>, NoteKind)> {
        builtin
            .report
            .notes
            .iter()
            .filter(|n| n.type_path == t)
            .map(|n| (n.entity, n.kind.clone()))
            .collect()
    };
    let needs = |field: Option<&str>| NoteKind::NeedsType {
        field: field.map(str::to_owned),
    };
    assert_eq!(
        kinds("import::Plain"),
        [(Some(1), NoteKind::NotForgeComponent)]
    );
    assert_eq!(
        kinds("import::Secret"),
        [(Some(odd), NoteKind::NotForgeComponent)]
    );
    assert_eq!(
        kinds("import::Inventory"),
        [(Some(odd), needs(Some("items")))]
    );
    assert_eq!(kinds("import::Stance"), [(Some(odd), needs(None))]);
    assert_eq!(
        kinds("import::Tagged<f32>"),
        [(Some(odd), NoteKind::TypePath)]
    );
    let creature = builtin.doc.find_by_name("Creature").next().unwrap();
    assert_eq!(
        kinds("import::Creature"),
        [
            (Some(creature), needs(Some("mood"))),
            (Some(odd), needs(Some("mood")))
        ]
    );
    let plain = custom_of(&builtin.doc, 1, "import::Plain").unwrap();
    assert_eq!(
        fields(plain),
        [
            ("x".to_owned(), "3".to_owned()),
            ("y".to_owned(), "0".to_owned())
        ]
    );
    assert!(custom_of(&builtin.doc, odd, "import::Inventory").is_none());
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
    for e in doc.entities.values_mut().map(std::sync::Arc::make_mut) {
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

/// A value that does not fit its type leaves that component out, listed at its line and
/// column with its field; the entity and the rest of the file are imported.
#[test]
fn a_value_of_the_wrong_type_is_listed_at_its_line_and_column() {
    let text = format!(
        "(\n  resources: {{}},\n  entities: {{\n    4294967295: (components: {{\n      \"{NAME}\": \"Crate\",\n      \"{TRANSFORM}\": (translation: \"up\"),\n    }}),\n  }},\n)"
    );
    let imported = import::from_scn_ron(&text, &import::builtin_types()).unwrap();
    assert_eq!(imported.doc.entities[&1].name, "Crate");
    let [note] = imported.report.notes.as_slice() else {
        panic!("{:?}", notes_of(&imported));
    };
    assert_eq!((note.entity, note.type_path.as_str()), (Some(1), TRANSFORM));
    let column = text.lines().nth(5).unwrap().find("\"up\"").unwrap() + 1;
    match &note.kind {
        NoteKind::Unreadable {
            field: Some(field),
            line: 6,
            column: c,
            message,
        } if field == "translation" && *c >= column && *c <= column + 4 => {
            assert!(message.contains("found the string \"up\""), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        note.to_string().starts_with(
            "entity 1 (`Crate`): `bevy_transform::components::transform::Transform` left out: its field `translation` does not read as its type (6:"
        ),
        "{note}"
    );
}

#[test]
fn an_entity_written_twice_is_refused() {
    let text = format!(
        "(resources: {{}}, entities: {{4294967295: (components: {{\"{NAME}\": \"A\"}}), 4294967295: (components: {{}})}})"
    );
    let e = import::from_scn_ron(&text, &import::builtin_types()).unwrap_err();
    let ImportError::Ron {
        line,
        column,
        message,
        ..
    } = &e
    else {
        panic!("{e}");
    };
    // At the second key, naming the entity as Bevy does (index v generation).
    assert_eq!((*line, *column), (1, text.rfind("4294967295").unwrap() + 1));
    assert!(
        message.contains("`0v0`") && message.contains("twice"),
        "{message}"
    );
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
    // Bevy's text lists an entity's components by type path, a world in its archetype's order.
    let by_path = |doc: &SceneDoc| {
        let mut doc = doc.clone();
        for node in doc.entities.values_mut().map(std::sync::Arc::make_mut) {
            node.components.sort_by_key(|c| match c {
                ComponentData::Custom(c) => Some(c.type_path.clone()),
                _ => None,
            });
        }
        doc
    };
    assert_eq!(by_path(&forward.doc), by_path(&imported.doc));
}

// ---------------------------------------------------------------------------------------------
// Every era of Bevy's `.scn.ron` (`tests/fixtures/bevy_eras`, `expected.ron` says what each
// holds): imported with the game's registry and with its schema file alone, loaded through the
// plugin, and compared with the file.

/// `forge_demo::Follow` of the era samples: a reference to another entity.
#[derive(Component, Reflect, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Follow {
    target: Entity,
    distance: f32,
}

impl Default for Follow {
    fn default() -> Self {
        Self {
            target: Entity::PLACEHOLDER,
            distance: 0.0,
        }
    }
}

/// A handle without a path in every era.
#[derive(Component, Reflect, Default, Debug, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Glow {
    texture: bevy_asset::Handle<bevy_image::Image>,
}

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Loot {
    items: Vec<String>,
}

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Interactable;

/// A handle loaded from `textures/chest.png` (its path written from Bevy 0.19 on).
#[derive(Component, Reflect, Default, Debug, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Icon {
    image: bevy_asset::Handle<bevy_image::Image>,
}

/// The samples' `forge_demo::Score` resource.
#[derive(Resource, Reflect, Default, Debug)]
#[reflect(Resource, Default)]
#[type_path = "forge_demo"]
#[type_name = "Score"]
struct Points {
    value: u32,
}

const ERAS: &str = "tests/fixtures/bevy_eras";

/// `expected.ron`: what every era sample holds.
#[derive(serde::Deserialize)]
struct Expected {
    world: ExpectedWorld,
    eras: std::collections::BTreeMap<String, ExpectedEra>,
}

#[derive(serde::Deserialize)]
struct ExpectedWorld {
    entities: Vec<ExpectedEntity>,
    #[allow(dead_code)]
    resources: Vec<ExpectedGame>,
}

#[derive(serde::Deserialize)]
struct ExpectedEntity {
    name: String,
    parent: Option<String>,
    children: Vec<String>,
    translation: (f32, f32, f32),
    rotation: (f32, f32, f32, f32),
    scale: (f32, f32, f32),
    game: Vec<ExpectedGame>,
}

#[derive(serde::Deserialize)]
struct ExpectedGame {
    type_path: String,
    fields: Vec<(String, ExpectedValue)>,
}

#[derive(serde::Deserialize, Debug)]
enum ExpectedValue {
    U32(u32),
    F32(f32),
    Strings(Vec<String>),
    Entity(String),
    Handle(ExpectedHandle),
}

#[derive(serde::Deserialize, Debug)]
enum ExpectedHandle {
    ToPath(String),
    NoPath,
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct ExpectedEra {
    refuse: bool,
    has_resources: bool,
    file_order: Vec<String>,
    icon: Option<ron::Value>,
}

fn expected() -> Expected {
    let text = std::fs::read_to_string(Path::new(ROOT).join(ERAS).join("expected.ron")).unwrap();
    ron::from_str(&text).unwrap()
}

fn era_sample(era: &str) -> String {
    std::fs::read_to_string(
        Path::new(ROOT)
            .join(ERAS)
            .join(format!("bevy-{era}.scn.ron")),
    )
    .unwrap()
}

/// The game of the era samples: its types registered, its schemas exported.
fn era_app() -> App {
    let mut app = App::new();
    register_builtins(&mut app);
    app.register_type::<Points>();
    let schemas = ForgeSchemas::default();
    schemas.insert::<Health>();
    schemas.insert::<Follow>();
    schemas.insert::<Glow>();
    schemas.insert::<Loot>();
    schemas.insert::<Interactable>();
    schemas.insert::<Icon>();
    app.insert_resource(schemas);
    app.register_type::<Health>()
        .register_type::<Follow>()
        .register_type::<Glow>()
        .register_type::<Loot>()
        .register_type::<Interactable>()
        .register_type::<Icon>();
    app
}

/// The minor version an era name stands for (`main` is 0.20's).
fn minor(era: &str) -> u32 {
    match era {
        "main" => 20,
        e => e.trim_start_matches("0.").parse().unwrap(),
    }
}

/// Imports the sample of `era` with the game's registry and with its schema file alone
/// (the command line's way): both give the same scene and notes; loaded through the plugin,
/// it spawns the names, hierarchy (in `Children` order), transforms and game components the
/// file holds.
fn era_round_trip(era: &str) {
    let expected = expected();
    let facts = &expected.eras[era];
    assert!(!facts.refuse);
    let text = era_sample(era);
    let app = era_app();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let schemas = app.world().resource::<ForgeSchemas>().clone();
    let by_registry = import::from_scn_ron_with(
        &text,
        &registry,
        &ImportOptions {
            schemas: Some(schemas.clone()),
            ..ImportOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{era}: {e}"));
    let by_schema_file = import::from_scn_ron_with(
        &text,
        &import::builtin_types(),
        &ImportOptions {
            schema_file: Some(schemas.to_schema_file()),
            ..ImportOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{era}: {e}"));
    drop(registry);
    assert_eq!(by_registry.doc, by_schema_file.doc, "{era}: the same scene");
    assert_eq!(
        by_registry.report, by_schema_file.report,
        "{era}: the same notes"
    );
    let v = minor(era);
    let read_as = by_registry.era.unwrap();
    assert!(
        read_as.oldest <= v && read_as.newest.is_none_or(|n| v <= n),
        "{era}: read as {read_as}"
    );
    let doc = &by_registry.doc;
    let name_of = |id: &u64| doc.entities[id].name.to_string();

    // The notes: the resource (0.11 on), and the two handles a custom field cannot hold.
    let mut notes: Vec<String> = by_registry
        .report
        .notes
        .iter()
        .map(ToString::to_string)
        .collect();
    notes.sort();
    let mut want = Vec::new();
    if facts.has_resources {
        want.push(
            "resource `forge_demo::Score` not imported (scenes hold entities only)".to_owned(),
        );
    }
    let id = |name: &str| doc.find_by_name(name).next().unwrap();
    if facts.icon.is_some() {
        // The path the icon was loaded from, written from Bevy 0.19 on.
        let icon_path = expected
            .world
            .entities
            .iter()
            .flat_map(|e| &e.game)
            .filter(|g| g.type_path == "forge_demo::Icon")
            .find_map(|g| match &g.fields[0].1 {
                ExpectedValue::Handle(ExpectedHandle::ToPath(p)) => Some(p.clone()),
                _ => None,
            })
            .unwrap();
        let path = if v >= 19 {
            format!(" (to `{icon_path}`), which a custom field cannot hold")
        } else {
            ", which a custom field cannot hold (and the file does not say its asset path)"
                .to_owned()
        };
        want.push(format!(
            "entity {} (`Chest`): `forge_demo::Icon` left out: its field `image` is an asset handle{path}",
            id("Chest")
        ));
    }
    want.push(format!(
        "entity {} (`Lamp`): `forge_demo::Glow` left out: its field `texture` is an asset handle, which a custom field cannot hold (and the file does not say its asset path)",
        id("Lamp")
    ));
    want.sort();
    assert_eq!(notes, want, "{era}");

    // The document: roots and children in the world's order, whatever the file's order.
    let roots: Vec<String> = doc.roots.iter().map(name_of).collect();
    let want_roots: Vec<&str> = expected
        .world
        .entities
        .iter()
        .filter(|e| e.parent.is_none())
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(roots, want_roots, "{era}: roots");
    assert_ne!(
        facts.file_order,
        expected
            .world
            .entities
            .iter()
            .map(|e| e.name.clone())
            .collect::<Vec<_>>(),
        "{era}: the file lists the entities in another order"
    );

    // Loaded through the plugin.
    let scene = doc.to_canonical_string();
    let mut h = Harness::with_setup(register_builtins);
    h.add("imported.forge.ron", &scene);
    let (root, instance) = h.spawn_scene("imported.forge.ron");
    let world = h.world();
    let spawned = |name: &str| {
        instance
            .iter()
            .map(|(_, e)| e)
            .find(|e| world.get::<Name>(*e).is_some_and(|n| n.as_str() == name))
            .unwrap_or_else(|| panic!("{era}: `{name}` spawned"))
    };
    for e in &expected.world.entities {
        let what = format!("{era}: `{}`", e.name);
        let entity = spawned(&e.name);
        assert_eq!(
            world.get::<ChildOf>(entity).map(|c| c.parent()),
            Some(e.parent.as_deref().map_or(root, spawned)),
            "{what}: parent (the scene's roots are children of the entity it was spawned on)"
        );
        let children: Vec<Entity> = world
            .get::<Children>(entity)
            .map(|c| c.iter().collect())
            .unwrap_or_default();
        let want: Vec<Entity> = e.children.iter().map(|c| spawned(c)).collect();
        assert_eq!(children, want, "{what}: children in order");
        let t = world.get::<Transform>(entity).unwrap();
        assert_eq!(t.translation, Vec3::from(e.translation), "{what}");
        assert_eq!(t.scale, Vec3::from(e.scale), "{what}");
        let (x, y, z, w) = e.rotation;
        let angle = angle_of(
            t.rotation.as_dquat(),
            Quat::from_xyzw(x, y, z, w).as_dquat(),
        );
        assert!(angle < 1e-4, "{what}: rotation off by {angle} degrees");
        for game in &e.game {
            let field = |name: &str| {
                game.fields
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v)
                    .unwrap()
            };
            match game.type_path.as_str() {
                "forge_demo::Health" => {
                    let (ExpectedValue::U32(hp), ExpectedValue::U32(max)) =
                        (field("hp"), field("max"))
                    else {
                        panic!("{what}: {:?}", game.fields)
                    };
                    assert_eq!(
                        world.get::<Health>(entity),
                        Some(&Health { hp: *hp, max: *max }),
                        "{what}"
                    );
                }
                "forge_demo::Follow" => {
                    let (ExpectedValue::Entity(target), ExpectedValue::F32(distance)) =
                        (field("target"), field("distance"))
                    else {
                        panic!("{what}: {:?}", game.fields)
                    };
                    assert_eq!(
                        world.get::<Follow>(entity),
                        Some(&Follow {
                            target: spawned(target),
                            distance: *distance
                        }),
                        "{what}"
                    );
                }
                "forge_demo::Loot" => {
                    let ExpectedValue::Strings(items) = field("items") else {
                        panic!("{what}: {:?}", game.fields)
                    };
                    assert_eq!(
                        world.get::<Loot>(entity),
                        Some(&Loot {
                            items: items.clone()
                        }),
                        "{what}"
                    );
                }
                "forge_demo::Interactable" => {
                    assert!(world.get::<Interactable>(entity).is_some(), "{what}");
                }
                "forge_demo::Glow" | "forge_demo::Icon" => {
                    // Listed above: a handle is not a field expression.
                    assert!(matches!(
                        game.fields[0].1,
                        ExpectedValue::Handle(ExpectedHandle::NoPath | ExpectedHandle::ToPath(_))
                    ));
                    assert!(world.get::<Glow>(entity).is_none());
                    assert!(world.get::<Icon>(entity).is_none());
                }
                other => panic!("{what}: unexpected `{other}`"),
            }
        }
    }
}

macro_rules! era_tests {
    ($($name:ident: $era:literal,)*) => {$(
        #[test]
        fn $name() {
            era_round_trip($era);
        }
    )*};
}

era_tests! {
    bevy_0_9_sample_imports_and_loads_as_the_world_it_holds: "0.9",
    bevy_0_10_sample_imports_and_loads_as_the_world_it_holds: "0.10",
    bevy_0_11_sample_imports_and_loads_as_the_world_it_holds: "0.11",
    bevy_0_12_sample_imports_and_loads_as_the_world_it_holds: "0.12",
    bevy_0_13_sample_imports_and_loads_as_the_world_it_holds: "0.13",
    bevy_0_14_sample_imports_and_loads_as_the_world_it_holds: "0.14",
    bevy_0_15_sample_imports_and_loads_as_the_world_it_holds: "0.15",
    bevy_0_16_sample_imports_and_loads_as_the_world_it_holds: "0.16",
    bevy_0_17_sample_imports_and_loads_as_the_world_it_holds: "0.17",
    bevy_0_18_sample_imports_and_loads_as_the_world_it_holds: "0.18",
    bevy_0_19_sample_imports_and_loads_as_the_world_it_holds: "0.19",
    bevy_0_20_sample_imports_and_loads_as_the_world_it_holds: "0.20",
    bevy_main_sample_imports_and_loads_as_the_world_it_holds: "main",
}

#[test]
fn bevy_0_8_list_form_is_refused_naming_its_era() {
    assert!(expected().eras["0.8"].refuse);
    let e = import::from_scn_ron(&era_sample("0.8"), &import::builtin_types()).unwrap_err();
    let ImportError::Era {
        era, line, column, ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!((*line, *column), (1, 1));
    assert_eq!(era.newest, Some(8));
    assert!(e.to_string().contains("Bevy 0.8"), "{e}");
    // A list that is not a scene is not called one.
    let e = import::from_scn_ron("[1, 2, 3]", &import::builtin_types()).unwrap_err();
    assert!(matches!(e, ImportError::Ron { .. }), "{e}");
}

/// `forge_demo.forge-schema.ron` beside the era samples is what the samples' game exports
/// (`ForgeSchemas::export`): the command line's tests import the samples with it.
/// `UPDATE_SNAPSHOTS=1` writes it again.
#[test]
fn the_era_samples_schema_file_is_the_games_export() {
    let app = era_app();
    let schemas = app.world().resource::<ForgeSchemas>();
    let path = Path::new(ROOT)
        .join(ERAS)
        .join("forge_demo.forge-schema.ron");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        schemas.export(&path).unwrap();
    }
    let file = bevy_forge_scene::schema::SchemaFile::read(&path).unwrap();
    assert_eq!(file, schemas.to_schema_file());
}

/// Every `.scn.ron` beside the era samples (the refused 0.8 one and the extra shapes too).
fn every_era_file() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(Path::new(ROOT).join(ERAS))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".scn.ron"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    files.sort();
    files
}

/// Imports damaged `text` with the game's registry and with its schema file alone: a scene or
/// an error whose line and column are inside the text, never a panic.
fn import_damaged(text: &str, registry: &bevy_reflect::TypeRegistry, schemas: &ImportOptions) {
    let lines = text.lines().count() + 1;
    for result in [
        import::from_scn_ron_with(text, registry, &ImportOptions::default()),
        import::from_scn_ron_with(text, &import::builtin_types(), schemas),
    ] {
        if let Err(e) = result
            && let Some((line, column)) = e.position()
        {
            assert!(line >= 1 && line <= lines && column >= 1, "{e}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any era's sample, cut anywhere and with bytes replaced by ones that matter to RON (or
    /// any byte), imports or fails with a position: never a panic or a hang.
    #[test]
    fn damaged_era_samples_never_panic(
        file in 0usize..64,
        cut in 0.0f64..=1.0,
        flips in proptest::collection::vec(
            (0.0f64..1.0, proptest::prelude::prop_oneof![
                proptest::sample::select(b"(){}[],:\"#0123456789.-eEvx \n/*".to_vec()),
                proptest::prelude::any::<u8>(),
            ]),
            0..4,
        ),
    ) {
        let files = every_era_file();
        let (_, text) = &files[file % files.len()];
        let mut bytes = text.as_bytes().to_vec();
        for (at, byte) in flips {
            let i = ((bytes.len() as f64) * at) as usize;
            if i < bytes.len() {
                bytes[i] = byte;
            }
        }
        bytes.truncate(((bytes.len() as f64) * cut) as usize);
        let damaged = String::from_utf8_lossy(&bytes);
        let app = era_app();
        let registry = app.world().resource::<AppTypeRegistry>().read();
        let schemas = ImportOptions {
            schema_file: Some(app.world().resource::<ForgeSchemas>().to_schema_file()),
            ..ImportOptions::default()
        };
        import_damaged(&damaged, &registry, &schemas);
    }
}

/// Every era's sample cut at every line end imports or fails at a position inside it.
#[test]
fn every_era_sample_cut_at_every_line_fails_cleanly() {
    let app = era_app();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let schemas = ImportOptions {
        schema_file: Some(app.world().resource::<ForgeSchemas>().to_schema_file()),
        ..ImportOptions::default()
    };
    for (name, text) in every_era_file() {
        let mut cuts = 0;
        for (at, _) in text.match_indices('\n') {
            let cut = &text[..at];
            import_damaged(cut, &registry, &schemas);
            // Cut before its end, a world is not whole: refused, never read as a smaller one.
            if at + 1 < text.trim_end().len() {
                assert!(
                    import::from_scn_ron_with(cut, &registry, &ImportOptions::default()).is_err(),
                    "{name} cut at byte {at}"
                );
                cuts += 1;
            }
        }
        assert!(cuts > 10, "{name}");
    }
}

/// Entity keys and references as `Entity`'s `Display` strings (`"4v0"`, proposed for after
/// Bevy 0.20, bevy#25893) read as the same world as 0.20's numbers.
#[test]
fn string_entity_keys_read_as_the_numbers_they_stand_for() {
    let numbers = era_sample("0.20");
    let mut keys: Vec<u64> = numbers
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| w.len() >= 10)
        .map(|w| w.parse().unwrap())
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 4, "the four entities' keys");
    let mut strings = numbers.clone();
    for k in &keys {
        let entity = Entity::try_from_bits(*k).unwrap();
        strings = strings.replace(&k.to_string(), &format!("\"{entity}\""));
    }
    assert!(strings.contains("\"2v0\": ("), "{strings}");
    let app = era_app();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let options = ImportOptions {
        schemas: Some(app.world().resource::<ForgeSchemas>().clone()),
        ..ImportOptions::default()
    };
    let from_numbers = import::from_scn_ron_with(&numbers, &registry, &options).unwrap();
    let from_strings = import::from_scn_ron_with(&strings, &registry, &options).unwrap();
    assert_eq!(from_strings.doc, from_numbers.doc);
    assert_eq!(from_strings.report, from_numbers.report);
    let era = from_strings.era.unwrap();
    assert_eq!((era.oldest, era.newest), (21, None));
    assert_eq!(era.to_string(), "after Bevy 0.20 (string entity keys)");
    // A string that is not an entity leaves its component out, listed at its place; the rest
    // of the file imports.
    let bad = strings.replacen("\"2v0\"", "\"2w0\"", 1);
    let imported = import::from_scn_ron_with(&bad, &registry, &options).unwrap();
    let at = bad.find("\"2w0\"").unwrap();
    let line = bad[..at].matches('\n').count() + 1;
    let unreadable: Vec<_> = imported
        .report
        .notes
        .iter()
        .filter(|n| matches!(n.kind, NoteKind::Unreadable { .. }))
        .collect();
    let [note] = unreadable.as_slice() else {
        panic!("{:?}", notes_of(&imported));
    };
    let NoteKind::Unreadable {
        field,
        line: l,
        message,
        ..
    } = &note.kind
    else {
        unreachable!()
    };
    assert_eq!((field.as_deref(), *l), (Some("target"), line), "{note}");
    assert!(message.contains("`2w0` is not an entity"), "{note}");
    assert_eq!(imported.doc.entities.len(), from_strings.doc.entities.len());
}

// ---- the extra samples: shapes seen in public save files ----

#[derive(Reflect, Default, Debug, Clone, PartialEq)]
#[reflect(Default)]
struct Weapon {
    name: String,
    damage: u32,
}

/// Nested structs, an `Option` of one, a list, an optional string.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Loadout {
    primary: Weapon,
    secondary: Option<Weapon>,
    tags: Vec<String>,
    motto: Option<String>,
}

#[derive(Reflect, Default, Debug, Clone, PartialEq)]
#[reflect(Default)]
enum PatrolMode {
    #[default]
    Loop,
    PingPong(u32),
}

/// References in a list and in options, an enum's newtype variant, a tuple. The sample's
/// `forge_demo::Patrol`, renamed since (the gate example's game has a `forge_demo::Patrol` of
/// its own in this test binary).
#[derive(Component, Reflect, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "watch"]
#[forge(renamed_from = "forge_demo::Patrol")]
struct Patrol {
    waypoints: Vec<Entity>,
    next: Option<Entity>,
    fallback: Option<Entity>,
    mode: PatrolMode,
    timing: (f32, f32),
}

impl Default for Patrol {
    fn default() -> Self {
        Self {
            waypoints: Vec::new(),
            next: None,
            fallback: None,
            mode: PatrolMode::Loop,
            timing: (0.0, 0.0),
        }
    }
}

/// A tuple struct of an optional reference (moonshine_save's shape).
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Wielder(Option<Entity>);

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Guard;

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "forge_demo"]
struct Flicker {
    speed: f32,
    lit: bool,
}

/// The extra samples' game, as a schema file (what `forge import --schema` reads).
fn extras_schema_file() -> bevy_forge_scene::schema::SchemaFile {
    let schemas = ForgeSchemas::default();
    schemas.insert::<Loadout>();
    schemas.insert::<Patrol>();
    schemas.insert::<Wielder>();
    schemas.insert::<Guard>();
    schemas.insert::<Flicker>();
    schemas.to_schema_file()
}

fn import_extra(name: &str) -> import::Imported {
    let text = std::fs::read_to_string(
        Path::new(ROOT)
            .join(ERAS)
            .join(format!("extra-{name}.scn.ron")),
    )
    .unwrap();
    import::from_scn_ron_with(
        &text,
        &import::builtin_types(),
        &ImportOptions {
            schema_file: Some(extras_schema_file()),
            ..ImportOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Loads `doc` through the plugin with the extra samples' game registered.
fn load_extras(doc: &SceneDoc) -> (Harness, ForgeSceneInstance) {
    let mut h = Harness::with_setup(|app| {
        register_builtins(app);
        app.register_type::<Loadout>()
            .register_type::<Patrol>()
            .register_type::<Wielder>()
            .register_type::<Guard>()
            .register_type::<Flicker>();
    });
    h.add("extra.forge.ron", &doc.to_canonical_string());
    let (_, instance) = h.spawn_scene("extra.forge.ron");
    (h, instance)
}

fn notes_of(imported: &import::Imported) -> Vec<String> {
    imported
        .report
        .notes
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn references_in_every_container_shape_load_as_the_entities_they_name() {
    let imported = import_extra("nested-refs-0.19");
    let doc = &imported.doc;
    let id = |name: &str| doc.find_by_name(name).next().unwrap();
    let sentry = id("Sentry");
    // `Stance` is an enum component the schema file does not list: listed for each entity,
    // with its type path. `Patrol` is written with its new path, and said so.
    let notes = notes_of(&imported);
    assert_eq!(notes.len(), 4, "{notes:?}");
    assert_eq!(
        notes
            .iter()
            .filter(|n| n.contains("`forge_demo::Stance`"))
            .count(),
        3,
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`forge_demo::Patrol`") && n.contains("`watch::Patrol`")),
        "{notes:?}"
    );
    let (h, instance) = load_extras(doc);
    let world = h.world();
    let spawned = |name: &str| instance.entity(id(name)).unwrap();
    assert_eq!(
        world.get::<Patrol>(spawned("Sentry")),
        Some(&Patrol {
            waypoints: vec![spawned("Gate"), spawned("Tower")],
            next: Some(spawned("Tower")),
            fallback: None,
            mode: PatrolMode::PingPong(2),
            timing: (1.0, 0.25),
        })
    );
    assert_eq!(
        world.get::<Loadout>(spawned("Sentry")),
        Some(&Loadout {
            primary: Weapon {
                name: "spear".into(),
                damage: 7
            },
            secondary: None,
            tags: vec!["night".into(), "gate".into()],
            motto: Some("hold".into()),
        })
    );
    assert_eq!(
        world
            .get::<Transform>(spawned("Sentry"))
            .unwrap()
            .translation,
        Vec3::new(0.0, 0.0, 1.5)
    );
    assert!(doc.entities[&sentry].parent.is_none());
}

#[test]
fn optional_references_and_unit_markers_of_a_save_crate_load() {
    let imported = import_extra("option-entity-0.12");
    let doc = &imported.doc;
    // Nameless entities are named by their new id; `Blade` (an enum component) is listed.
    let notes = notes_of(&imported);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes.iter().all(|n| n.contains("`forge_demo::Blade`")),
        "{notes:?}"
    );
    let (h, instance) = load_extras(doc);
    let world = h.world();
    let mut wielders: Vec<(u64, Option<u64>)> = doc
        .entities
        .keys()
        .filter_map(|id| {
            let e = instance.entity(*id).unwrap();
            let w = world.get::<Wielder>(e)?;
            assert!(world.get::<Guard>(e).is_some(), "a wielder is a guard");
            let target =
                w.0.map(|t| instance.iter().find(|(_, x)| *x == t).unwrap().0[0]);
            Some((*id, target))
        })
        .collect();
    wielders.sort();
    // Keys 5..=9 in the file: 6 holds 5, 8 holds 7, 9 holds nothing.
    let by_key = |k: u64| doc.entities.keys().copied().nth((k - 5) as usize).unwrap();
    let mut want = vec![
        (by_key(6), Some(by_key(5))),
        (by_key(8), Some(by_key(7))),
        (by_key(9), None),
    ];
    want.sort();
    assert_eq!(wielders, want);
}

#[test]
fn an_app_export_with_a_parent_outside_the_file_keeps_the_rest() {
    let imported = import_extra("app-export-0.14");
    let doc = &imported.doc;
    let id = |name: &str| doc.find_by_name(name).next().unwrap();
    // `Torch`'s parent is not in the file: a root, with a note naming it.
    assert!(doc.entities[&id("Torch")].parent.is_none());
    assert_eq!(doc.entities[&id("Book")].parent, Some(id("Shelf")));
    let notes = notes_of(&imported);
    let torch = format!(
        "entity {} (`Torch`): `bevy_ecs::hierarchy::ChildOf` names entity `40v3`, which the file does not hold; it became a root",
        id("Torch")
    );
    assert!(notes.contains(&torch), "{notes:?}");
    // Resources are listed, each once.
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`bevy_render::camera::clear_color::ClearColor`")),
        "{notes:?}"
    );
    let (h, instance) = load_extras(doc);
    let torch = instance.entity(id("Torch")).unwrap();
    assert_eq!(
        h.world().get::<Flicker>(torch),
        Some(&Flicker {
            speed: 1.5,
            lit: true
        })
    );
    assert_eq!(
        h.world().get::<Transform>(torch).unwrap().translation,
        Vec3::new(0.5, 2.0, 0.25)
    );
}

#[test]
fn a_0_15_name_written_as_a_string_reads_as_the_struct_form() {
    let serialize = import_extra("0.15-serialize-feature");
    let default = import::from_scn_ron_with(
        &era_sample("0.15"),
        &import::builtin_types(),
        &ImportOptions {
            schema_file: Some(extras_schema_file()),
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(serialize.doc, default.doc);
    assert!(serialize.doc.find_by_name("Player").next().is_some());
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
