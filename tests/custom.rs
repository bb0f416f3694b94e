//! Custom components at runtime: scenes build real `ForgeComponent` types through reflection,
//! and every problem fails the load with its line and column.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bevy_app::App;
use bevy_asset::{AssetServer, Handle, LoadState};
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeScene as Scene;
use bevy_forge_scene::prelude::*;
use bevy_math::Vec3;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;
use common::Orbit;
use common::game::{Brain, Mode};

/// Registered by hand (no inventory), to check `register_forge_component`.
#[derive(Component, Reflect, Default, Debug, PartialEq)]
#[reflect(Component, Default)]
struct Manual {
    level: u8,
}

impl ForgeComponent for Manual {
    fn schema() -> bevy_forge_scene::ComponentSchema {
        bevy_forge_scene::ComponentSchema {
            type_path: "game::Manual".into(),
            type_name: "Manual".into(),
            docs: String::new(),
            fields: vec![bevy_forge_scene::FieldSchema::of::<u8>(
                "level", &0, false, None, "",
            )],
            skipped: vec![],
        }
    }
}

/// The shared harness, with `Manual` registered by hand.
struct Harness(common::harness::Harness);

impl std::ops::Deref for Harness {
    type Target = common::harness::Harness;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Harness {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Harness {
    fn new() -> Self {
        Self(common::harness::Harness::with_setup(|app| {
            app.register_forge_component::<Manual>();
        }))
    }

    fn spawn(&mut self, path: &str, text: &str) -> (Entity, ForgeSceneInstance) {
        self.add(path, text);
        self.0.spawn_scene(path)
    }

    /// Loads `text` expecting failure; returns the error message.
    fn fail(&mut self, text: &str) -> String {
        self.add("bad.forge.ron", text);
        let handle: Handle<Scene> = self
            .app
            .world()
            .resource::<AssetServer>()
            .load("bad.forge.ron");
        self.run_until(|w| {
            matches!(
                w.resource::<AssetServer>().load_state(&handle),
                LoadState::Failed(_)
            )
        });
        let LoadState::Failed(error) = self
            .app
            .world()
            .resource::<AssetServer>()
            .load_state(&handle)
        else {
            unreachable!()
        };
        error.to_string()
    }
}

/// A one-entity scene (entity 1, "Thing") whose component list is `components`, which starts on
/// line 3.
fn scene(components: &str) -> String {
    format!(
        "(format_version: 1, name: \"T\", entities: {{\n  1: (id: 1, name: \"Thing\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [\n{components}\n  ]),\n}}, roots: [1], next_id: 2)"
    )
}

fn custom(type_path: &str, fields: &[(&str, &str)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(n, e)| format!("(name: \"{n}\", expr: \"{}\")", e.replace('"', "\\\"")))
        .collect();
    format!(
        "    (type: custom, data: (type_path: \"{type_path}\", fields: [\n      {}\n    ])),",
        fields.join(",\n      ")
    )
}

#[test]
fn platformer_orbit_gets_the_file_values() {
    let mut h = Harness::new();
    h.add("textures/player.png", "png");
    let text = common::fixture_text("valid/platformer.forge.ron");
    let (_, instance) = h.spawn("platformer.forge.ron", &text);
    let player = instance.entity(2).unwrap();
    let orbit = h.app.world().get::<Orbit>(player).unwrap();
    assert_eq!(
        orbit,
        &Orbit {
            radius: 2.0,
            speed: -0.5,
            axis: Vec3::ZERO
        }
    );
}

#[test]
fn fields_the_file_does_not_set_keep_their_defaults() {
    let mut h = Harness::new();
    let text = scene(
        &[
            custom(
                "forge_demo::Orbit",
                &[("speed", "1.0"), ("axis", "Vec3::Y")],
            ),
            custom(
                "forge_demo::Brain",
                &[
                    ("mode", "Mode::Patrol { speed: 2.5 }"),
                    ("target", "Some(Vec3::new(1.0, 2.0, 3.0))"),
                    ("label", "\"boss\".into()"),
                ],
            ),
            custom("game::Manual", &[("level", "7")]),
        ]
        .join("\n"),
    );
    let (root, instance) = h.spawn("ok.forge.ron", &text);
    let thing = instance.entity(1).unwrap();
    let world = h.app.world();
    assert_eq!(
        world.get::<Orbit>(thing),
        Some(&Orbit {
            radius: 0.0,
            speed: 1.0,
            axis: Vec3::Y
        })
    );
    assert_eq!(
        world.get::<Brain>(thing),
        Some(&Brain {
            mode: Mode::Patrol { speed: 2.5 },
            target: Some(Vec3::new(1.0, 2.0, 3.0)),
            hp: 0,
            label: "boss".into(),
            ticks: 0,
        })
    );
    assert_eq!(world.get::<Manual>(thing), Some(&Manual { level: 7 }));
    assert_eq!(world.get::<ChildOf>(thing).unwrap().parent(), root);
}

#[derive(Resource, Default)]
struct Seen(Vec<(Entity, Option<Entity>)>);

#[test]
fn insert_observers_see_the_final_entity_and_parent() {
    let mut h = Harness::new();
    h.app.init_resource::<Seen>();
    h.app.add_observer(
        |add: On<Add<Orbit>>, parents: Query<&ChildOf>, mut seen: ResMut<Seen>| {
            let parent = parents.get(add.entity).ok().map(ChildOf::parent);
            seen.0.push((add.entity, parent));
        },
    );
    let text = scene(&custom("forge_demo::Orbit", &[("speed", "2.0")]));
    let (root, instance) = h.spawn("obs.forge.ron", &text);
    let seen = &h.app.world().resource::<Seen>().0;
    assert_eq!(seen, &vec![(instance.entity(1).unwrap(), Some(root))]);
}

#[test]
fn every_custom_error_fails_the_load_with_line_and_column() {
    let mut h = Harness::new();
    let text = scene(
        &[
            custom("forge_demo::Orbitt", &[("speed", "1.0")]),
            custom(
                "forge_demo::Brain",
                &[
                    ("hp", "1.5"),
                    ("mood", "1"),
                    ("ticks", "3"),
                    ("label", "format!(\"x\")"),
                ],
            ),
            custom("forge_demo::Orbit", &[("radius", "150.0")]),
        ]
        .join("\n"),
    );
    let message = h.fail(&text);
    // Line 3: the unknown type; its `type_path` value starts at column 38.
    assert!(
        message.contains("bad.forge.ron:3:38: error[forge::custom::unknown_type]: unknown custom component type `forge_demo::Orbitt`"),
        "{message}"
    );
    assert!(
        message.contains("did you mean `forge_demo::Orbit`?"),
        "{message}"
    );
    assert!(
        message.contains("must derive `ForgeComponent`"),
        "{message}"
    );
    // Line 7: `(name: "hp", expr: "1.5")`, the expression's first character.
    assert!(
        message.contains("bad.forge.ron:7:27: error[forge::custom::expr]: entity 1 (`Thing`), `Brain` field `hp`: expected an integer (u32), found a float in `1.5`"),
        "{message}"
    );
    assert!(
        message.contains(
            "bad.forge.ron:8:14: error[forge::custom::unknown_field]: `Brain` has no field `mood`"
        ),
        "{message}"
    );
    assert!(
        message.contains("fields: `mode`, `target`, `hp`, `label`"),
        "{message}"
    );
    assert!(
        message.contains("bad.forge.ron:9:14: error[forge::custom::unknown_field]: field `ticks` of `Brain` is marked `#[forge(skip)]`"),
        "{message}"
    );
    assert!(
        message.contains("bad.forge.ron:10:29: error[forge::custom::expr]: entity 1 (`Thing`), `Brain` field `label`: the macro `format!` is not supported"),
        "{message}"
    );
    assert!(message.contains("field expressions are data"), "{message}");
    // Line 13: Orbit's radius is out of range; line 12: its required speed is missing (at
    // the `fields` list).
    assert!(
        message.contains("bad.forge.ron:13:31: error[forge::custom::range]: entity 1 (`Thing`), `Orbit` field `radius`: 150 is outside `0..=100`"),
        "{message}"
    );
    assert!(
        message.contains("error[forge::custom::missing_required]: entity 1 (`Thing`): `Orbit` needs field `speed`"),
        "{message}"
    );
    assert!(message.contains("bad.forge.ron:12:67:"), "{message}");
}

#[test]
fn errors_inside_expressions_point_at_the_offending_part() {
    let mut h = Harness::new();
    let text = scene(&custom(
        "forge_demo::Orbit",
        &[("speed", "1.0"), ("axis", "Vec3::new(1.0, true, 0.0)")],
    ));
    let message = h.fail(&text);
    // The expression starts at column 29 of line 5; `true` is 15 characters in.
    assert!(
        message.contains("bad.forge.ron:5:44: error[forge::custom::expr]"),
        "{message}"
    );
    assert!(message.contains("found a boolean"), "{message}");
}

#[test]
fn scenes_cannot_create_engine_components_or_resources() {
    let mut h = Harness::new();
    h.app.init_resource::<Secret>();
    h.app.register_type::<Secret>();
    let text = scene(
        &[
            custom("bevy_forge_scene::spawn::ForgeEntityId", &[("0", "9")]),
            custom(&Secret::type_path_string(), &[]),
        ]
        .join("\n"),
    );
    let message = h.fail(&text);
    assert!(
        message.contains("error[forge::custom::not_allowed]: `bevy_forge_scene::spawn::ForgeEntityId` is a component that does not derive `ForgeComponent`"),
        "{message}"
    );
    assert!(message.contains("is a resource"), "{message}");
}

#[derive(Resource, Reflect, Default)]
#[reflect(Resource, Default)]
struct Secret {
    key: u32,
}

impl Secret {
    fn type_path_string() -> String {
        <Secret as bevy_reflect::TypePath>::type_path().to_owned()
    }
}

#[test]
fn resources_are_refused_by_register_forge_component() {
    #[derive(Resource, Reflect, Default)]
    #[reflect(Resource, Component, Default)]
    struct Sneaky;
    impl ForgeComponent for Sneaky {
        fn schema() -> bevy_forge_scene::ComponentSchema {
            bevy_forge_scene::ComponentSchema {
                type_path: "game::Sneaky".into(),
                type_name: "Sneaky".into(),
                docs: String::new(),
                fields: vec![],
                skipped: vec![],
            }
        }
    }
    let _ = Sneaky::schema();
    let mut app = App::new();
    app.register_forge_component::<Sneaky>();
    let schemas = app.world().get_resource::<ForgeSchemas>();
    assert!(schemas.is_none_or(|s| s.get("game::Sneaky").is_none()));
}
