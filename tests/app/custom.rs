//! Custom components at runtime: scenes build real `ForgeComponent` types through reflection,
//! and every problem fails the load with its line and column.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_app::App;
use bevy_asset::{AssetServer, Handle, LoadState};
use bevy_camera::visibility::Visibility;
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
    fn schema() -> bevy_forge_scene::schema::ComponentSchema {
        bevy_forge_scene::schema::ComponentSchema {
            type_path: "game::Manual".into(),
            type_name: "Manual".into(),
            docs: String::new(),
            fields: vec![bevy_forge_scene::schema::FieldSchema::of::<u8>(
                "level", &0, false, None, "",
            )],
            skipped: vec![],
            renamed_from: vec![],
            ..Default::default()
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

/// A field reflection ignores, between two it does not: fields are set by their reflected
/// index, which skips it.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Gapped")]
struct Gapped {
    first: u32,
    #[reflect(ignore)]
    #[forge(skip)]
    cache: u64,
    last: String,
}

#[test]
fn fields_after_one_reflection_ignores_get_their_own_values() {
    let mut h = Harness::new();
    let text = scene(&custom(
        "game::Gapped",
        &[("last", "\"end\""), ("first", "7")],
    ));
    let (_, instance) = h.spawn("gapped.forge.ron", &text);
    let entity = instance.entity(1).unwrap();
    assert_eq!(
        h.app.world().get::<Gapped>(entity),
        Some(&Gapped {
            first: 7,
            cache: 0,
            last: "end".into()
        })
    );
}

/// Fields whose Rust names are keywords: written `r#type` in a scene, as in Rust.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Keyworded")]
struct Keyworded {
    #[forge(required)]
    r#type: u8,
    r#match: String,
}

#[test]
fn keyword_fields_are_set_by_their_raw_names() {
    let mut h = Harness::new();
    let text = scene(&custom(
        "game::Keyworded",
        &[("r#type", "3"), ("r#match", "\"any\"")],
    ));
    let (_, instance) = h.spawn("raw.forge.ron", &text);
    let entity = instance.entity(1).unwrap();
    assert_eq!(
        h.app.world().get::<Keyworded>(entity),
        Some(&Keyworded {
            r#type: 3,
            r#match: "any".into()
        })
    );
    // Without `r#`, the name is not an identifier, and the message says how to write it.
    let message = h.fail(&scene(&custom("game::Keyworded", &[("type", "3")])));
    assert!(message.contains("forge::custom::field_name"), "{message}");
    assert!(message.contains("write `r#type`"), "{message}");
}

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

#[derive(Resource, Default)]
struct SeenVisibility(Vec<Option<Visibility>>);

/// Built-ins are inserted before custom components, so a custom component's observers see them
/// (here the file's `visibility: hidden`, not the default `Inherited`).
#[test]
fn insert_observers_see_the_entity_built_ins() {
    let mut h = Harness::new();
    h.app.init_resource::<SeenVisibility>();
    h.app.add_observer(
        |add: On<Add<Orbit>>, vis: Query<&Visibility>, mut seen: ResMut<SeenVisibility>| {
            seen.0.push(vis.get(add.entity).ok().copied());
        },
    );
    let text = scene(&format!(
        "    (type: visibility, data: hidden),\n{}",
        custom("forge_demo::Orbit", &[("speed", "2.0")])
    ));
    h.spawn("obs_builtins.forge.ron", &text);
    let seen = &h.app.world().resource::<SeenVisibility>().0;
    assert_eq!(seen, &vec![Some(Visibility::Hidden)]);
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
        message.contains("bad.forge.ron:10:30: error[forge::custom::expr]: entity 1 (`Thing`), `Brain` field `label`: the macro `format!` is not supported"),
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
fn hostile_expressions_fail_the_load_with_one_line_messages() {
    let mut h = Harness::new();
    let deep = format!("{}0.5", "-".repeat(100_000));
    let text = scene(&custom(
        "forge_demo::Orbit",
        &[
            ("speed", &deep),
            ("radius", "1e39"),
            // `\n` and `\t` escapes: the expression has a newline and a tab.
            ("axis", "Vec3::new(1.0,\\n\\ttrue, 0.0)"),
        ],
    ));
    let message = h.fail(&text);
    let dashes = "-".repeat(80);
    assert!(
        message.contains(&format!("`Orbit` field `speed`: nesting deeper than 64 levels is not supported in a field expression in `{dashes}..`")),
        "{message}"
    );
    assert!(
        message.contains("`Orbit` field `radius`: 1e39 does not fit in f32 in `1e39`"),
        "{message}"
    );
    assert!(
        message.contains("found a boolean in `Vec3::new(1.0,\\n\\ttrue, 0.0)`"),
        "{message}"
    );
}

/// Two components with one type name, in different modules.
mod twins {
    use bevy_ecs::component::Component;
    use bevy_ecs::reflect::ReflectComponent;
    use bevy_forge_scene::ForgeComponent;
    use bevy_reflect::Reflect;
    use bevy_reflect::std_traits::ReflectDefault;

    pub mod a {
        use super::*;
        #[derive(Component, Reflect, Default, ForgeComponent)]
        #[reflect(Component, Default)]
        #[forge(type_path = "twins_a::Twin")]
        pub struct Twin {
            pub x: f32,
        }
    }

    pub mod b {
        use super::*;
        #[derive(Component, Reflect, Default, ForgeComponent)]
        #[reflect(Component, Default)]
        #[forge(type_path = "twins_b::Twin")]
        pub struct Twin {
            pub x: f32,
        }
    }
}

#[test]
fn an_ambiguous_type_name_lists_the_full_paths() {
    let mut h = Harness::new();
    let schemas = exported(&h);
    let text = scene(&custom("Twin", &[("x", "1.0")]));
    let message = h.fail(&text);
    let expected = "bad.forge.ron:3:38: error[forge::custom::unknown_type]: custom component type `Twin` is ambiguous: it may be `twins_a::Twin` or `twins_b::Twin` (entity 1, `components[0].data.type_path`); help: write the full type path";
    assert!(message.contains(expected), "{message}");
    assert!(!message.contains("did you mean"), "{message}");
    assert_eq!(offline_lines(&text, &schemas), [expected]);
    // The full path still resolves.
    let full = scene(&custom("twins_b::Twin", &[("x", "1.0")]));
    assert!(offline_lines(&full, &schemas).is_empty());
}

#[test]
fn scenes_cannot_create_engine_components_or_resources() {
    let mut h = Harness::new();
    h.app.init_resource::<Secret>();
    h.app.register_type::<Secret>();
    let text = scene(
        &[
            custom("bevy_forge_scene::ForgeEntityId", &[("0", "9")]),
            custom(&Secret::type_path_string(), &[]),
        ]
        .join("\n"),
    );
    let message = h.fail(&text);
    assert!(
        message.contains("error[forge::custom::not_allowed]: `bevy_forge_scene::ForgeEntityId` is a component that does not derive `ForgeComponent`"),
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
        fn schema() -> bevy_forge_scene::schema::ComponentSchema {
            bevy_forge_scene::schema::ComponentSchema {
                type_path: "game::Sneaky".into(),
                type_name: "Sneaky".into(),
                docs: String::new(),
                fields: vec![],
                skipped: vec![],
                renamed_from: vec![],
                ..Default::default()
            }
        }
    }
    let _ = Sneaky::schema();
    let mut app = App::new();
    app.register_forge_component::<Sneaky>();
    let schemas = app.world().get_resource::<ForgeSchemas>();
    assert!(schemas.is_none_or(|s| s.get("game::Sneaky").is_none()));
}

// ---- offline checks (`forge validate --schema`) give the loader's diagnostics ----

/// The errors of a failed load, one `path:line:column: error[code]: message (..); help: ..` line
/// each, sorted.
fn loader_lines(message: &str) -> Vec<String> {
    let mut lines: Vec<String> = message
        .lines()
        .filter_map(|l| l.strip_prefix("  bad.forge.ron"))
        .map(|l| format!("bad.forge.ron{l}"))
        .collect();
    lines.sort();
    lines
}

/// The errors of `validate_parsed_with_schemas`, written as the loader lists them, sorted.
fn offline_lines(text: &str, schemas: &bevy_forge_scene::schema::SchemaFile) -> Vec<String> {
    let parsed = bevy_forge_scene::format::SceneDoc::from_str(text).unwrap();
    let report = bevy_forge_scene::validate::validate_parsed_with_schemas(&parsed, None, schemas);
    let mut lines: Vec<String> = report
        .into_iter()
        .filter(|d| d.severity == bevy_forge_scene::validate::Severity::Error)
        .map(|mut d| {
            let p = d.position.take().expect("every error has a position");
            format!("bad.forge.ron:{}:{}: {d}", p.line, p.column)
        })
        .collect();
    lines.sort();
    lines
}

/// The harness app's schemas, exported to a file and read back, as a tool would get them.
fn exported(h: &Harness) -> bevy_forge_scene::schema::SchemaFile {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.forge-schema.ron");
    h.app
        .world()
        .resource::<ForgeSchemas>()
        .export(&path)
        .unwrap();
    bevy_forge_scene::schema::SchemaFile::read(&path).unwrap()
}

/// Entities 1..=n named `E1`.., each with the given components.
fn scene_of(entities: &[&[String]]) -> String {
    let mut out = String::from("(format_version: 1, name: \"T\", entities: {\n");
    for (i, components) in entities.iter().enumerate() {
        let id = i + 1;
        out.push_str(&format!(
            "  {id}: (id: {id}, name: \"E{id}\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [\n{}\n  ]),\n",
            components.join("\n")
        ));
    }
    let roots: Vec<String> = (1..=entities.len()).map(|i| i.to_string()).collect();
    out.push_str(&format!(
        "}}, roots: [{}], next_id: {})",
        roots.join(", "),
        entities.len() + 1
    ));
    out
}

#[test]
fn offline_checks_report_exactly_the_loader_errors() {
    let mut h = Harness::new();
    let schemas = exported(&h);
    let text = scene_of(&[
        &[
            // Unknown type, with "did you mean".
            custom("forge_demo::Orbitt", &[("speed", "1.0")]),
            // Mismatch, unknown field, skipped field, unsupported expression.
            custom(
                "forge_demo::Brain",
                &[
                    ("hp", "1.5"),
                    ("mood", "1"),
                    ("ticks", "3"),
                    ("label", "format!(\"x\")"),
                ],
            ),
            // Out of range and a missing required field.
            custom("forge_demo::Orbit", &[("radius", "150.0")]),
        ],
        &[
            // Nested: a struct literal's unknown field, a list item's mismatch, an enum payload,
            // a tuple's length, an array item's overflow.
            custom(
                "forge_demo::Route",
                &[
                    ("name", "\"loop\""),
                    ("home", "Stop { at: Vec3::X, wiat: 1.0 }"),
                    (
                        "stops",
                        "vec![Stop { at: Vec3::ZERO, wait: 1.0 }, Stop { at: 1.0, ..default() }]",
                    ),
                    ("on_arrival", "Some(Mode::Chase(1.5))"),
                    ("window", "(1.0, 2.0, 3.0)"),
                    ("tint", "[255, 0, 256]"),
                ],
            ),
            // A tuple struct field by index, out of range.
            custom("forge_demo::Health", &[("0", "5000")]),
        ],
        &[
            // Unknown variant, a struct variant's field type, a glam constructor's arity.
            custom(
                "forge_demo::Brain",
                &[
                    ("mode", "Mode::Sleep"),
                    ("target", "Some(Vec3::new(1.0, 2.0))"),
                ],
            ),
            custom(
                "forge_demo::Route",
                &[("on_arrival", "Some(Mode::Patrol { speed: \"fast\" })")],
            ),
            // A bare type name resolves; a syntax error points inside the expression.
            custom(
                "Orbit",
                &[("speed", "1.0 +"), ("axis", "Vec3::new(1.0, true, 0.0)")],
            ),
        ],
    ]);
    let loader = loader_lines(&h.fail(&text));
    let offline = offline_lines(&text, &schemas);
    // Offline, the help of an unknown type or field adds that the schema file may be stale.
    let stale = "; this schema file does not have it: if the game does, the file is stale; export the schemas again";
    let hinted: Vec<&String> = offline.iter().filter(|l| l.ends_with(stale)).collect();
    assert_eq!(hinted.len(), 2, "{hinted:#?}");
    assert!(hinted[0].contains("unknown custom component type `forge_demo::Orbitt`"));
    assert!(hinted[1].contains("`Brain` has no field `mood`"));
    let offline: Vec<String> = offline.iter().map(|l| l.replace(stale, "")).collect();
    assert_eq!(loader, offline);
    // Every kind of problem is there, each with its position.
    for code in [
        "unknown_type",
        "unknown_field",
        "expr",
        "range",
        "missing_required",
    ] {
        assert!(
            offline
                .iter()
                .any(|l| l.contains(&format!("error[forge::custom::{code}]"))),
            "{code} in {offline:#?}"
        );
    }
    assert_eq!(offline.len(), 19, "{offline:#?}");
}

#[test]
fn offline_checks_accept_what_the_loader_spawns() {
    let mut h = Harness::new();
    let schemas = exported(&h);
    let text = scene_of(&[
        &[
            custom("forge_demo::Orbit", &[("speed", "-0.5"), ("radius", "2")]),
            custom(
                "forge_demo::Brain",
                &[
                    ("mode", "Mode::Patrol { speed: 2.5 }"),
                    ("target", "Some(Vec3::new(1.0, 2.0, 3.0))"),
                    ("hp", "100"),
                    ("label", "String::from(\"boss\")"),
                ],
            ),
        ],
        &[
            custom(
                "forge_demo::Route",
                &[
                    ("name", "\"loop\".into()"),
                    ("home", "Stop { at: Vec3::X, ..default() }"),
                    ("stops", "vec![Stop { at: Vec3::ZERO, wait: 1.0 }]"),
                    ("on_arrival", "Some(Mode::Chase(3))"),
                    ("window", "(0.5, 2.0)"),
                    ("tint", "[255, 128, 0]"),
                ],
            ),
            custom("forge_demo::Health", &[("0", "1000")]),
        ],
    ]);
    assert_eq!(offline_lines(&text, &schemas), Vec::<String>::new());
    let (_, instance) = h.spawn("ok.forge.ron", &text);
    let route = h
        .app
        .world()
        .get::<common::game::Route>(instance.entity(2).unwrap())
        .unwrap();
    assert_eq!(route.tint, [255, 128, 0]);
    assert_eq!(route.on_arrival, Some(Mode::Chase(3)));
}

#[test]
fn a_byte_order_mark_does_not_shift_positions_inside_expressions() {
    let mut h = Harness::new();
    let schemas = exported(&h);
    let text = format!(
        "\u{feff}{}",
        scene(&custom("forge_demo::Brain", &[("hp", "1.5")]))
    );
    let loader = loader_lines(&h.fail(&text));
    assert_eq!(loader, offline_lines(&text, &schemas));
    // Line 4: `(name: "hp", expr: "1.5")`; column 27 is the `1`, not the opening quote.
    assert!(loader[0].starts_with("bad.forge.ron:4:27: "), "{loader:#?}");
}

/// Large scenes validate on a second thread while custom components are built: a validation
/// error and a custom component error are both reported, in the same order as for a small
/// scene (validation first).
#[test]
fn large_scenes_report_validation_and_custom_errors_together() {
    let entry = |id: u64, components: &str| {
        format!(
            "  {id}: (id: {id}, name: \"e{id}\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [{components}]),\n"
        )
    };
    for n in [3u64, 6_000] {
        let mut text = String::from("(format_version: 1, name: \"Big\", entities: {\n");
        for id in 1..=n {
            let components = match id {
                2 => {
                    "(type: visibility, data: hidden), (type: visibility, data: visible)".to_owned()
                }
                3 => custom("forge_demo::Orbit", &[("radius", "true")]),
                _ => "(type: visibility, data: visible)".to_owned(),
            };
            text.push_str(&entry(id, &components));
        }
        let roots: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        text.push_str(&format!(
            "}}, roots: [{}], next_id: {})",
            roots.join(", "),
            n + 1
        ));
        let message = Harness::new().fail(&text);
        let duplicate = message
            .find("forge::component::duplicate_key")
            .unwrap_or_else(|| panic!("{n}: no validation error in {message}"));
        let expr = message
            .find("forge::custom::expr")
            .unwrap_or_else(|| panic!("{n}: no custom error in {message}"));
        assert!(duplicate < expr, "{n}: {message}");
    }
}

/// A large scene builds its custom components in runs of a few thousand entities, on every
/// core: errors in several runs are all reported, in file order, exactly as offline checks
/// report them.
#[test]
fn errors_in_every_run_of_a_large_scene_are_reported_in_file_order() {
    let mut h = Harness::new();
    let schemas = exported(&h);
    let fine = [custom(
        "forge_demo::Orbit",
        &[("radius", "2.5"), ("speed", "1.0")],
    )];
    let out_of_range = [custom(
        "forge_demo::Orbit",
        &[("radius", "150.0"), ("speed", "1.0")],
    )];
    let mismatch = [custom("forge_demo::Brain", &[("hp", "1.5")])];
    let missing = [custom("forge_demo::Orbit", &[("radius", "1.0")])];
    // A type the first runs never meet.
    let later = [custom("forge_demo::Route", &[("name", "5")])];
    // Runs are 4,096 entities long: 4,096 ends the first and 4,097 begins the second.
    let bad: [(usize, &[String]); 7] = [
        (2, &out_of_range),
        (4_096, &missing),
        (4_097, &out_of_range),
        (4_500, &mismatch),
        (8_200, &missing),
        (12_001, &later),
        (13_000, &mismatch),
    ];
    let entities: Vec<&[String]> = (1..=13_000)
        .map(|id| {
            bad.iter()
                .find(|(at, _)| *at == id)
                .map_or(&fine[..], |(_, c)| *c)
        })
        .collect();
    let text = scene_of(&entities);
    let message = h.fail(&text);
    let loader = loader_lines(&message);
    assert_eq!(loader, offline_lines(&text, &schemas));
    assert_eq!(loader.len(), bad.len(), "{message}");
    // Listed in file order: each error's entity after the last one's.
    let listed: Vec<usize> = bad
        .iter()
        .map(|(id, _)| {
            message
                .find(&format!("entity {id} "))
                .unwrap_or_else(|| panic!("entity {id} not in {message}"))
        })
        .collect();
    assert!(listed.is_sorted(), "{message}");
}

/// A scene of `n` entities (ids 1..=n, non-ASCII names, a comment between entries) whose entity
/// `special` has `components`: over 1 MiB at a few thousand entities, so the loader reads it in
/// pieces rather than whole.
fn large_scene(n: u64, special: u64, components: &str) -> String {
    let mut text = String::from("(format_version: 1, name: \"Größe\", entities: {\n");
    for id in 1..=n {
        let these = if id == special {
            components.to_owned()
        } else {
            custom("forge_demo::Orbit", &[("radius", "2.5"), ("speed", "-1.0")])
        };
        text.push_str(&format!(
            "  // entity {id}\n  {id}: (id: {id}, name: \"Zoë {id} ✓\", parent: None, children: [], transform: (translation: (x: {id}.5, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [\n{these}\n  ]),\n"
        ));
    }
    let roots: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    text.push_str(&format!(
        "}}, roots: [{}], next_id: {})\n",
        roots.join(", "),
        n + 1
    ));
    assert!(text.len() > 1 << 20, "{} bytes", text.len());
    text
}

/// Files over 1 MiB are read in pieces: the asset holds exactly what reading the whole text
/// gives (document and every position).
#[test]
fn a_large_file_loads_as_its_whole_text_reads() {
    let mut h = Harness::new();
    let text = large_scene(4_000, 0, "");
    h.add("large.forge.ron", &text);
    let kept: Handle<Scene> = h
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(|s: &mut bevy_forge_scene::ForgeSceneLoaderSettings| {
            s.keep_source_map = true;
        })
        .load("large.forge.ron");
    let id = kept.id();
    h.run_until(|w| w.resource::<bevy_asset::Assets<Scene>>().contains(id));
    let whole = bevy_forge_scene::format::SceneDoc::from_str(&text).unwrap();
    let assets = h.world().resource::<bevy_asset::Assets<Scene>>();
    let scene = assets.get(id).unwrap();
    assert_eq!(scene.doc(), &whole.doc);
    let map = scene.source_map().expect("kept by the settings");
    assert_eq!(map, &whole.source_map);
    assert!(map.entity(4_000).unwrap().line > 16_000);
}

/// A loaded scene keeps its source map only when the loader settings ask for it.
#[test]
fn loaded_scenes_keep_their_source_map_on_request() {
    let mut h = Harness::new();
    let text = scene(&custom(
        "forge_demo::Orbit",
        &[("radius", "2.5"), ("speed", "1.0")],
    ));
    h.add("small.forge.ron", &text);
    let plain = h.load("small.forge.ron");
    let id = plain.id();
    h.run_until(|w| {
        if let LoadState::Failed(e) = w.resource::<AssetServer>().load_state(id) {
            panic!("{e}");
        }
        w.resource::<bevy_asset::Assets<Scene>>().contains(id)
    });
    let assets = h.world().resource::<bevy_asset::Assets<Scene>>();
    assert!(assets.get(id).unwrap().source_map().is_none());
    assert_eq!(
        assets.get(id).unwrap().doc(),
        &bevy_forge_scene::format::SceneDoc::from_str(&text)
            .unwrap()
            .doc
    );
}

/// Errors in a large file (read in pieces) are reported exactly as for a file read whole: a
/// syntax error near the end, and an error inside a custom expression (which needs the text).
#[test]
fn a_large_file_reports_errors_as_its_whole_text_does() {
    let mut h = Harness::new();
    let schemas = exported(&h);
    // Syntax: a missing `,` between two fields of entity 3,999.
    let broken = large_scene(4_000, 0, "").replacen(
        "name: \"Zoë 3999 ✓\", parent",
        "name: \"Zoë 3999 ✓\" parent",
        1,
    );
    let expected = bevy_forge_scene::format::SceneDoc::from_str(&broken)
        .unwrap_err()
        .with_path("bad.forge.ron")
        .to_string();
    assert!(expected.contains("entity 3999"), "{expected}");
    let message = h.fail(&broken);
    assert!(
        message.contains(&format!(": {expected}")),
        "{message}\n{expected}"
    );
    // A custom expression error on entity 3,990: the position is inside the expression.
    let text = large_scene(4_000, 3_990, &custom("forge_demo::Brain", &[("hp", "1.5")]));
    let loader = loader_lines(&h.fail(&text));
    assert_eq!(loader, offline_lines(&text, &schemas));
    assert_eq!(loader.len(), 1, "{loader:#?}");
}

/// One type written twice on one entity under two names (`Orbit` and `forge_demo::Orbit`) is
/// the same duplicate as writing it twice the same way: the load fails, and the offline check
/// says the same.
#[test]
fn one_type_under_two_names_on_one_entity_is_a_duplicate() {
    let mut h = Harness::new();
    let schemas = exported(&h);
    let orbit = |path: &str, radius: &str| custom(path, &[("radius", radius), ("speed", "1.0")]);
    let text = scene_of(&[
        &[orbit("Orbit", "1.0"), orbit("forge_demo::Orbit", "2.0")],
        &[orbit("Orbit", "3.0")],
    ]);
    let loader = loader_lines(&h.fail(&text));
    assert_eq!(loader, offline_lines(&text, &schemas));
    assert_eq!(loader.len(), 1, "{loader:#?}");
    assert!(
        loader[0].contains("forge::component::duplicate_key")
            && loader[0].contains("as `Orbit` and as `forge_demo::Orbit`")
            && loader[0].contains("entity 1"),
        "{loader:#?}"
    );
}

// ---- how spawning copies a prepared value ----

static CLONES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `Clone` by hand, counting its calls: spawning copies through it.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Counted")]
struct Counted {
    hits: u32,
    label: String,
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        CLONES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Self {
            hits: self.hits,
            label: self.label.clone(),
        }
    }
}

/// Not `Clone`: copied through reflection.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Unclonable")]
struct Unclonable {
    hits: u32,
}

/// Generic, `Clone` when its parameter is: the parameter is not known to be `Clone` where the
/// derive writes its impl, so it is copied through reflection too.
#[derive(Component, Reflect, Default, Debug, PartialEq, Clone, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Wrapped")]
struct Wrapped<
    T: bevy_reflect::FromReflect
        + bevy_reflect::TypePath
        + bevy_reflect::Typed
        + bevy_reflect::GetTypeRegistration
        + Default
        + PartialEq
        + std::fmt::Debug,
> {
    inner: T,
}

#[test]
fn a_clone_type_is_copied_by_clone_and_others_through_reflection() {
    use bevy_forge_scene::__private::ForgeComponent as _;
    assert_eq!(
        Counted {
            hits: 3,
            label: "x".into()
        }
        .copy_for_spawn()
        .map(|c| c.hits),
        Some(3)
    );
    assert_eq!(Unclonable { hits: 3 }.copy_for_spawn(), None);
    assert_eq!(Wrapped { inner: 5u32 }.copy_for_spawn(), None);

    let mut h = Harness(common::harness::Harness::with_setup(|app| {
        app.register_forge_component::<Counted>()
            .register_forge_component::<Unclonable>()
            .register_forge_component::<Wrapped<u32>>();
    }));
    let text = scene(
        &[
            custom("game::Counted", &[("hits", "7"), ("label", "\"seven\"")]),
            custom("game::Unclonable", &[("hits", "8")]),
        ]
        .join("\n"),
    );
    let before = CLONES.load(std::sync::atomic::Ordering::SeqCst);
    let (_, first) = h.spawn("copies.forge.ron", &text);
    let (_, second) = h.0.spawn_scene("copies.forge.ron");
    assert!(
        CLONES.load(std::sync::atomic::Ordering::SeqCst) >= before + 2,
        "one clone per instance"
    );
    for instance in [first, second] {
        let e = instance.entity(1).unwrap();
        let world = h.app.world();
        assert_eq!(
            world.get::<Counted>(e),
            Some(&Counted {
                hits: 7,
                label: "seven".into()
            })
        );
        assert_eq!(world.get::<Unclonable>(e), Some(&Unclonable { hits: 8 }));
    }
}

// ---- renamed types and fields (`#[forge(renamed_from = "..")]`) ----

/// Was `game::Stamina { amount, max }`: the game renamed the type and its field `amount`.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Vitality", renamed_from = "game::Stamina")]
struct Vitality {
    #[forge(renamed_from = "amount")]
    points: u32,
    max: u32,
}

/// What the loader logs (its warnings), from every thread, kept for the tests to read.
fn logged() -> &'static std::sync::Mutex<Vec<u8>> {
    static LOG: std::sync::OnceLock<std::sync::Mutex<Vec<u8>>> = std::sync::OnceLock::new();
    static SET: std::sync::Once = std::sync::Once::new();
    SET.call_once(|| {
        struct Sink;
        impl std::io::Write for Sink {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                logged().lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::WARN)
            .with_writer(|| Sink)
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
    });
    LOG.get_or_init(Default::default)
}

#[test]
fn a_renamed_type_and_field_load_with_a_warning_naming_the_new_names() {
    logged();
    let text = scene(&custom("game::Stamina", &[("amount", "7"), ("max", "9")]));
    let mut h = Harness::new();
    let (_, instance) = h.spawn("renamed.forge.ron", &text);
    let thing = instance.entity(1).unwrap();
    assert_eq!(
        h.world().get::<Vitality>(thing),
        Some(&Vitality { points: 7, max: 9 })
    );
    // One warning per old name, where the file writes it, naming the new name.
    let log = String::from_utf8(logged().lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("renamed.forge.ron"))
        .collect();
    let type_at = text.find("\"game::Stamina\"").unwrap();
    let field_at = text.find("\"amount\"").unwrap();
    let line = |at: usize| text[..at].matches('\n').count() + 1;
    let column = |at: usize| at - text[..at].rfind('\n').unwrap();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(
        lines[0].contains(&format!(
            "renamed.forge.ron:{}:{}: ",
            line(type_at),
            column(type_at)
        )) && lines[0]
            .contains("custom component type `game::Stamina` was renamed to `game::Vitality`"),
        "{log}"
    );
    assert!(
        lines[1].contains(&format!(
            "renamed.forge.ron:{}:{}: ",
            line(field_at),
            column(field_at)
        )) && lines[1].contains("field `amount` of `Vitality` was renamed to `points`"),
        "{log}"
    );
    assert!(log.contains("forge migrate --schema"), "{log}");
    // Offline (`forge validate --schema`), the exported schemas give the same warnings.
    let schemas = exported(&h);
    let vitality = schemas.get("game::Vitality").unwrap();
    assert_eq!(vitality.renamed_from, ["game::Stamina"]);
    assert_eq!(vitality.field("points").unwrap().renamed_from, ["amount"]);
    let parsed = bevy_forge_scene::format::SceneDoc::from_str(&text).unwrap();
    let report = bevy_forge_scene::validate::validate_parsed_with_schemas(&parsed, None, &schemas);
    let offline: Vec<(&str, usize, usize)> = report
        .iter()
        .filter(|d| d.code.starts_with("forge::custom::"))
        .map(|d| {
            let p = d.position.unwrap();
            (d.code, p.line as usize, p.column as usize)
        })
        .collect();
    assert_eq!(
        offline,
        [
            ("forge::custom::renamed", line(type_at), column(type_at)),
            (
                "forge::custom::renamed_field",
                line(field_at),
                column(field_at)
            )
        ]
    );
    assert!(!report.has_errors());
}

#[test]
fn a_current_name_beside_its_old_name_is_one_duplicate() {
    let text = scene(&format!(
        "{}\n{}",
        custom("game::Stamina", &[("amount", "7")]),
        custom("game::Vitality", &[("points", "8")])
    ));
    let message = Harness::new().fail(&text);
    let errors = loader_lines(&message);
    assert_eq!(errors.len(), 1, "{message}");
    assert!(errors[0].contains("game::Vitality"), "{message}");
}
