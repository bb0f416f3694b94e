//! Every field kind a schema describes, imported from each era's spelling: colours in every
//! colour space of `bevy_color` (and `bevy_render`'s before it), vectors, quaternions, enums as
//! fields, options, lists, tuples, arrays, nested structs, and maps as far as a schema goes.
//! A component that does not read is listed with its entity, field, line and column; the rest
//! of the file imports.

use std::collections::BTreeMap;

use bevy_color::{Color, LinearRgba, Srgba};
use glam::{Quat, Vec2, Vec3, Vec4};

use super::*;

/// A colour in each colour space of `bevy_color` 0.20, and the spaces' own structs.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "kinds"]
struct Palette {
    srgba: Color,
    linear: Color,
    hsla: Color,
    hsva: Color,
    hwba: Color,
    laba: Color,
    lcha: Color,
    oklaba: Color,
    oklcha: Color,
    xyza: Color,
    okhsla: Color,
    okhsva: Color,
    okhwba: Color,
    plain: Srgba,
    plain_linear: LinearRgba,
}

#[derive(Reflect, Default, Debug, Clone, PartialEq)]
#[reflect(Default)]
enum Mode {
    #[default]
    Idle,
    Chase(f32),
    Patrol {
        speed: f32,
        loops: bool,
    },
}

#[derive(Reflect, Default, Debug, Clone, PartialEq)]
#[reflect(Default)]
struct Inner {
    weight: f32,
    colour: Color,
    mode: Mode,
}

/// Vectors, a quaternion, enums as fields, options, lists, a tuple, an array, a nested struct
/// and scalars.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "kinds"]
struct Shapes {
    offset: Vec2,
    position: Vec3,
    tint: Vec4,
    facing: Quat,
    mode: Mode,
    next: Mode,
    fallback: Option<Mode>,
    speed: Option<f32>,
    nothing: Option<f32>,
    path: Vec<Vec3>,
    tags: Vec<String>,
    inner: Inner,
    pair: (u8, f32),
    grid: [i32; 3],
    label: String,
    count: u64,
    lit: bool,
    key: char,
}

/// A tuple struct of a colour.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "kinds"]
struct Glint(Color);

/// A map, which no field expression holds: listed, naming the field.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "kinds"]
struct Stock {
    counts: BTreeMap<String, u32>,
    gold: u32,
}

#[derive(Reflect, Default, Debug, Clone, PartialEq)]
#[reflect(Default)]
struct Badge(u8, String);

/// References (plain and optional) and a tuple struct as a field.
#[derive(Component, Reflect, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "kinds"]
struct Link {
    target: Entity,
    backup: Option<Entity>,
    badge: Badge,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            target: Entity::PLACEHOLDER,
            backup: None,
            badge: Badge::default(),
        }
    }
}

fn kinds_schemas() -> ForgeSchemas {
    let schemas = ForgeSchemas::default();
    schemas.insert::<Palette>();
    schemas.insert::<Shapes>();
    schemas.insert::<Glint>();
    schemas.insert::<Stock>();
    schemas.insert::<Link>();
    schemas
}

fn kinds_setup(app: &mut App) {
    register_builtins(app);
    app.register_type::<Palette>()
        .register_type::<Shapes>()
        .register_type::<Glint>()
        .register_type::<Stock>()
        .register_type::<Link>();
}

fn kinds_registry() -> App {
    let mut app = App::new();
    kinds_setup(&mut app);
    app.insert_resource(kinds_schemas());
    app
}

/// The channels written for each space: distinct, exact in `f32`.
fn channels(i: usize) -> [f32; 4] {
    let k = i as f32;
    [0.125 + k, 0.25, 0.5 - k / 64.0, 0.75]
}

/// An era's spelling of what this file writes: `minor` is Bevy's minor version.
#[derive(Clone, Copy)]
struct Era {
    minor: u32,
}

impl Era {
    fn key(self, i: u64) -> u64 {
        match self.minor {
            9..=12 => i,
            13..=16 => (1 << 32) | i,
            _ => (1 << 32) - 1 - i,
        }
    }
    fn name(self, name: &str) -> String {
        if self.minor >= 16 {
            format!("\"bevy_ecs::name::Name\": {name:?}")
        } else {
            format!("\"bevy_core::name::Name\": (hash: 7, name: {name:?})")
        }
    }
    fn vector(self, v: &[f32]) -> String {
        let n = |f: &f32| format!("{f:?}");
        if self.minor <= 14 {
            let names = ["x", "y", "z", "w"];
            let fields: Vec<String> = v
                .iter()
                .zip(names)
                .map(|(f, k)| format!("{k}: {}", n(f)))
                .collect();
            format!("({})", fields.join(", "))
        } else {
            format!("({})", v.iter().map(n).collect::<Vec<_>>().join(", "))
        }
    }
    fn quat(self, q: Quat) -> String {
        let v = q.to_array();
        if (12..=14).contains(&self.minor) {
            self.vector(&v)
        } else {
            format!(
                "({})",
                v.iter()
                    .map(|f| format!("{f:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }
    /// The spaces this era's `Color` has, as `(space index, the variant it writes)`.
    fn spaces(self) -> Vec<(usize, &'static str)> {
        match self.minor {
            ..=9 => vec![(0, "Rgba"), (1, "RgbaLinear"), (2, "Hsla")],
            10..=13 => vec![(0, "Rgba"), (1, "RgbaLinear"), (2, "Hsla"), (6, "Lcha")],
            14..=19 => (0..10).map(|i| (i, SPACES[i].0)).collect(),
            _ => (0..13).map(|i| (i, SPACES[i].0)).collect(),
        }
    }
    /// A colour of space `i` with `c`'s channels, as this era writes a `Color`.
    fn colour(self, i: usize, c: [f32; 4]) -> String {
        let (space, names) = SPACES[i];
        let fields: Vec<String> = names
            .iter()
            .zip(c)
            .map(|(k, f)| format!("{k}: {f:?}"))
            .collect();
        if self.minor <= 13 {
            let old = self
                .spaces()
                .into_iter()
                .find(|(j, _)| *j == i)
                .map_or(space, |(_, v)| v);
            format!("{old}({})", fields.join(", "))
        } else {
            format!("{space}(({}))", fields.join(", "))
        }
    }
}

/// `bevy_color`'s spaces: the variant and its channels, in `Color`'s order.
const SPACES: [(&str, [&str; 4]); 13] = [
    ("Srgba", ["red", "green", "blue", "alpha"]),
    ("LinearRgba", ["red", "green", "blue", "alpha"]),
    ("Hsla", ["hue", "saturation", "lightness", "alpha"]),
    ("Hsva", ["hue", "saturation", "value", "alpha"]),
    ("Hwba", ["hue", "whiteness", "blackness", "alpha"]),
    ("Laba", ["lightness", "a", "b", "alpha"]),
    ("Lcha", ["lightness", "chroma", "hue", "alpha"]),
    ("Oklaba", ["lightness", "a", "b", "alpha"]),
    ("Oklcha", ["lightness", "chroma", "hue", "alpha"]),
    ("Xyza", ["x", "y", "z", "alpha"]),
    ("Okhsla", ["hue", "saturation", "lightness", "alpha"]),
    ("Okhsva", ["hue", "saturation", "value", "alpha"]),
    ("Okhwba", ["hue", "whiteness", "blackness", "alpha"]),
];

const PALETTE_FIELDS: [&str; 13] = [
    "srgba", "linear", "hsla", "hsva", "hwba", "laba", "lcha", "oklaba", "oklcha", "xyza",
    "okhsla", "okhsva", "okhwba",
];

fn make(i: usize, c: [f32; 4]) -> Color {
    let [a, b, x, d] = c;
    [
        Color::srgba,
        Color::linear_rgba,
        Color::hsla,
        Color::hsva,
        Color::hwba,
        Color::laba,
        Color::lcha,
        Color::oklaba,
        Color::oklcha,
        Color::xyza,
        Color::okhsla,
        Color::okhsva,
        Color::okhwba,
    ][i](a, b, x, d)
}

/// The `Palette` an era can write: each of its spaces in the field of that space.
fn palette_of(era: Era) -> Palette {
    let mut p = Palette {
        plain: Srgba::new(0.5, 0.25, 0.125, 1.0),
        plain_linear: LinearRgba::new(0.25, 0.5, 0.75, 0.5),
        ..Palette::default()
    };
    for (i, _) in era.spaces() {
        let c = make(i, channels(i));
        let slot = match i {
            0 => &mut p.srgba,
            1 => &mut p.linear,
            2 => &mut p.hsla,
            3 => &mut p.hsva,
            4 => &mut p.hwba,
            5 => &mut p.laba,
            6 => &mut p.lcha,
            7 => &mut p.oklaba,
            8 => &mut p.oklcha,
            9 => &mut p.xyza,
            10 => &mut p.okhsla,
            11 => &mut p.okhsva,
            _ => &mut p.okhwba,
        };
        *slot = c;
    }
    p
}

fn palette_text(era: Era) -> String {
    let mut fields: Vec<String> = era
        .spaces()
        .into_iter()
        .map(|(i, _)| format!("{}: {}", PALETTE_FIELDS[i], era.colour(i, channels(i))))
        .collect();
    // A colour space's own struct has the same fields in every era that has it.
    fields.push("plain: (red: 0.5, green: 0.25, blue: 0.125, alpha: 1.0)".to_owned());
    fields.push("plain_linear: (red: 0.25, green: 0.5, blue: 0.75, alpha: 0.5)".to_owned());
    format!("(\n          {},\n        )", fields.join(",\n          "))
}

fn shapes() -> Shapes {
    Shapes {
        offset: Vec2::new(1.5, -2.0),
        position: Vec3::new(0.5, 2.0, -3.0),
        tint: Vec4::new(0.25, 0.5, 0.75, 1.0),
        facing: Quat::from_xyzw(0.0, 0.70710677, 0.0, 0.70710677),
        mode: Mode::Patrol {
            speed: 1.5,
            loops: true,
        },
        next: Mode::Chase(2.5),
        fallback: Some(Mode::Chase(0.5)),
        speed: Some(4.0),
        nothing: None,
        path: vec![Vec3::X, Vec3::new(0.0, 1.0, 2.0)],
        tags: vec!["north".into(), "gate \"one\"".into()],
        inner: Inner {
            weight: 3.25,
            colour: Color::srgba(1.0, 0.5, 0.25, 1.0),
            mode: Mode::Idle,
        },
        pair: (7, 0.5),
        grid: [1, -2, 3],
        label: "Crate".into(),
        count: 12,
        lit: true,
        key: 'k',
    }
}

fn shapes_text(era: Era) -> String {
    let s = shapes();
    let v = |x: &[f32]| era.vector(x);
    format!(
        "(
          offset: {},
          position: {},
          tint: {},
          facing: {},
          mode: Patrol(speed: 1.5, loops: true),
          next: Chase(2.5),
          fallback: Some(Chase(0.5)),
          speed: Some(4.0),
          nothing: None,
          path: [{}, {}],
          tags: [\"north\", \"gate \\\"one\\\"\"],
          inner: (weight: 3.25, colour: {}, mode: Idle),
          pair: (7, 0.5),
          grid: (1, -2, 3),
          label: \"Crate\",
          count: 12,
          lit: true,
          key: 'k',
        )",
        v(&s.offset.to_array()),
        v(&s.position.to_array()),
        v(&s.tint.to_array()),
        era.quat(s.facing),
        v(&[1.0, 0.0, 0.0]),
        v(&[0.0, 1.0, 2.0]),
        era.colour(0, [1.0, 0.5, 0.25, 1.0]),
    )
}

/// A world of three entities as `era` writes it: `Palette`, `Shapes` and a `Glint` on
/// `Painter`, a `Stock` (a map) on `Shop`, and `broken` (if any) as `Broken`'s `Palette`.
fn kinds_world(era: Era, broken: Option<&str>) -> String {
    let resources = if era.minor <= 10 {
        ""
    } else {
        "  resources: {},\n"
    };
    let entity = |i: u64, name: &str, components: &[(&str, String)]| {
        let mut parts = vec![era.name(name)];
        parts.extend(
            components
                .iter()
                .map(|(path, value)| format!("\"kinds::{path}\": {value}")),
        );
        format!(
            "    {}: (\n      components: {{\n        {},\n      }},\n    ),\n",
            era.key(i),
            parts.join(",\n        ")
        )
    };
    let mut entities = entity(
        0,
        "Painter",
        &[
            (
                "Glint",
                format!("({})", era.colour(0, [0.0, 1.0, 0.0, 1.0])),
            ),
            ("Palette", palette_text(era)),
            ("Shapes", shapes_text(era)),
        ],
    );
    entities += &entity(
        1,
        "Shop",
        &[(
            "Stock",
            "(\n          counts: {\"apple\": 3, \"pear\": 1},\n          gold: 9,\n        )"
                .to_owned(),
        )],
    );
    if let Some(broken) = broken {
        entities += &entity(
            2,
            "Broken",
            &[("Palette", broken.to_owned()), ("Shapes", shapes_text(era))],
        );
    }
    format!("(\n{resources}  entities: {{\n{entities}  }},\n)\n")
}

/// Imports `text` with the game's registry and, the command line's way, with its schema file
/// alone.
fn import_both(text: &str) -> [(&'static str, import::Imported); 2] {
    let app = kinds_registry();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let by_registry = import::from_scn_ron_with(
        text,
        &registry,
        &ImportOptions {
            schemas: Some(kinds_schemas()),
            ..ImportOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("by registry: {e}\n{text}"));
    let by_schema = import::from_scn_ron_with(
        text,
        &import::builtin_types(),
        &ImportOptions {
            schema_file: Some(kinds_schemas().to_schema_file()),
            ..ImportOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("by schema file: {e}\n{text}"));
    [("registry", by_registry), ("schema file", by_schema)]
}

fn spawn_kinds(doc: &SceneDoc) -> (Harness, ForgeSceneInstance) {
    let mut h = Harness::with_setup(kinds_setup);
    h.add("kinds.forge.ron", &doc.to_canonical_string());
    let (_, instance) = h.spawn_scene("kinds.forge.ron");
    (h, instance)
}

const ERA_MINORS: [u32; 9] = [9, 10, 11, 12, 13, 14, 15, 17, 20];

#[test]
fn every_field_kind_imports_from_each_eras_spelling_and_spawns_as_written() {
    for minor in ERA_MINORS {
        let era = Era { minor };
        let text = kinds_world(era, None);
        for (how, imported) in import_both(&text) {
            let at = format!("Bevy 0.{minor} by {how}");
            // The map is the one thing left out: listed with its entity and field.
            let notes = notes_of(&imported);
            assert_eq!(imported.report.len(), 1, "{at}: {notes:?}\n{text}");
            let note = &imported.report.notes[0];
            assert_eq!(note.entity_name.as_deref(), Some("Shop"), "{at}");
            assert_eq!(note.type_path, "kinds::Stock", "{at}");
            assert_eq!(
                note.kind,
                NoteKind::Unwritable {
                    field: Some("counts".into())
                },
                "{at}"
            );
            let doc = &imported.doc;
            let painter = doc.find_by_name("Painter").next().unwrap();
            let (h, instance) = spawn_kinds(doc);
            let e = instance.entity(painter).unwrap();
            let world = h.world();
            assert_eq!(world.get::<Palette>(e), Some(&palette_of(era)), "{at}");
            assert_eq!(world.get::<Shapes>(e), Some(&shapes()), "{at}");
            assert_eq!(
                world.get::<Glint>(e),
                Some(&Glint(Color::srgba(0.0, 1.0, 0.0, 1.0))),
                "{at}"
            );
            // Each colour is written in its own space, as the game wrote it.
            if minor == 20 {
                let custom = custom_of(doc, painter, "kinds::Palette").unwrap();
                let written = fields(custom);
                for (i, field) in PALETTE_FIELDS.iter().enumerate() {
                    let expr = &written.iter().find(|(n, _)| n == field).unwrap().1;
                    let func = SPACES[i].0.to_lowercase();
                    assert!(
                        expr.starts_with(&format!(
                            "Color::{}(",
                            func.replace("linearrgba", "linear_rgba")
                        )),
                        "{at}: {field} = {expr}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_damaged_field_lists_its_component_and_entity_and_the_rest_imports() {
    let era = Era { minor: 15 };
    // A colour with another space's channels, a variant the enum does not have, a list
    // where a number goes: each one problem, one note.
    let damaged = [
        (
            "hsla",
            "(\n          hsla: Hsla((red: 1.0, green: 0.5, blue: 0.0, alpha: 1.0)),\n        )",
            "`red` is not a channel of `Hsla`",
        ),
        (
            "srgba",
            "(\n          srgba: Cmyk((c: 1.0)),\n        )",
            "`Cmyk` is not a colour space",
        ),
        (
            "plain",
            "(\n          plain: (red: [1.0], green: 0.5, blue: 0.0, alpha: 1.0),\n        )",
            "",
        ),
    ];
    for (field, broken, says) in damaged {
        let text = kinds_world(era, Some(broken));
        let lines: Vec<&str> = text.lines().collect();
        let line = lines
            .iter()
            .rposition(|l| l.trim_start().starts_with(&format!("{field}:")))
            .unwrap()
            + 1;
        for (how, imported) in import_both(&text) {
            let at = format!("{field} by {how}");
            let notes = notes_of(&imported);
            assert_eq!(imported.report.len(), 2, "{at}: {notes:?}");
            let note = imported
                .report
                .notes
                .iter()
                .find(|n| n.type_path == "kinds::Palette")
                .unwrap_or_else(|| panic!("{at}: {notes:?}"));
            assert_eq!(note.entity_name.as_deref(), Some("Broken"), "{at}");
            let NoteKind::Unreadable {
                field: Some(named),
                line: l,
                column,
                message,
            } = &note.kind
            else {
                panic!("{at}: {note}");
            };
            assert_eq!(named, field, "{at}: {note}");
            assert_eq!(*l, line, "{at}: {note}");
            assert!(*column > 10, "{at}: {note}");
            assert!(message.contains(says), "{at}: {note}");
            let shown = note.to_string();
            assert!(
                shown.contains("`Broken`") && shown.contains(&format!("`{field}`")),
                "{shown}"
            );
            // The broken entity keeps its other component, and the others all of theirs.
            let doc = &imported.doc;
            let (h, instance) = spawn_kinds(doc);
            let world = h.world();
            let broken = instance
                .entity(doc.find_by_name("Broken").next().unwrap())
                .unwrap();
            let painter = instance
                .entity(doc.find_by_name("Painter").next().unwrap())
                .unwrap();
            assert_eq!(world.get::<Palette>(broken), None, "{at}");
            assert_eq!(world.get::<Shapes>(broken), Some(&shapes()), "{at}");
            assert_eq!(
                world.get::<Palette>(painter),
                Some(&palette_of(era)),
                "{at}"
            );
        }
    }
}

const EVERY_KIND: &str = "tests/fixtures/import/every-kind.scn.ron";
const EVERY_KIND_SCHEMA: &str = "tests/fixtures/import/every-kind.forge-schema.ron";

/// The world of `every-kind.scn.ron`: eight game components of five types over four entities,
/// every field kind a schema describes among them.
fn every_kind_world() -> (App, Vec<Entity>) {
    let mut app = kinds_registry();
    let world = app.world_mut();
    let painter = world
        .spawn((
            Name::new("Painter"),
            palette_of(Era { minor: 20 }),
            shapes(),
            Glint(Color::oklcha(0.5, 0.25, 120.0, 1.0)),
        ))
        .id();
    let shop = world
        .spawn((
            Name::new("Shop"),
            Stock {
                counts: [("apple".to_owned(), 3), ("pear".to_owned(), 1)].into(),
                gold: 9,
            },
            Glint(Color::srgba(0.0, 1.0, 0.0, 1.0)),
        ))
        .id();
    let guard = world
        .spawn((
            Name::new("Guard"),
            Shapes {
                mode: Mode::Idle,
                fallback: None,
                tags: Vec::new(),
                ..shapes()
            },
            Link {
                target: painter,
                backup: Some(shop),
                badge: Badge(3, "night".into()),
            },
        ))
        .id();
    let lamp = world
        .spawn((Name::new("Lamp"), Glint(Color::hsva(40.0, 0.5, 1.0, 0.75))))
        .id();
    (app, vec![painter, shop, guard, lamp])
}

#[test]
fn the_every_kind_scene_is_what_bevy_writes_and_keeps_all_but_its_map() {
    let (app, entities) = every_kind_world();
    let text = bevy_text(app.world(), &entities);
    let path = Path::new(ROOT).join(EVERY_KIND);
    let schema_path = Path::new(ROOT).join(EVERY_KIND_SCHEMA);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &text).unwrap();
        kinds_schemas().export(&schema_path).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_eq!(
        bevy_forge_scene::schema::SchemaFile::read(&schema_path).unwrap(),
        kinds_schemas().to_schema_file()
    );
    let game = |path: &str| path.starts_with("kinds::");
    let total = text.matches("\"kinds::").count();
    for (how, imported) in import_both(&text) {
        let kept: usize = imported
            .doc
            .entities
            .values()
            .map(|e| {
                e.components
                    .iter()
                    .filter(|c| matches!(c, ComponentData::Custom(c) if game(&c.type_path)))
                    .count()
            })
            .sum();
        // The one left out is the map, listed with its entity and field.
        assert_eq!((kept, total), (7, 8), "{how}: {:?}", notes_of(&imported));
        let [note] = imported.report.notes.as_slice() else {
            panic!("{how}: {:?}", notes_of(&imported));
        };
        assert_eq!(
            (note.entity_name.as_deref(), note.type_path.as_str()),
            (Some("Shop"), "kinds::Stock")
        );
        // Spawned, each kept component is the value Bevy wrote.
        let doc = &imported.doc;
        let (h, instance) = spawn_kinds(doc);
        let world = h.world();
        let spawned = |name: &str| {
            instance
                .entity(doc.find_by_name(name).next().unwrap())
                .unwrap()
        };
        let source = app.world();
        for (i, name) in ["Painter", "Shop", "Guard", "Lamp"].iter().enumerate() {
            let (from, to) = (entities[i], spawned(name));
            assert_eq!(
                world.get::<Palette>(to),
                source.get::<Palette>(from),
                "{how} {name}"
            );
            assert_eq!(
                world.get::<Shapes>(to),
                source.get::<Shapes>(from),
                "{how} {name}"
            );
            assert_eq!(
                world.get::<Glint>(to),
                source.get::<Glint>(from),
                "{how} {name}"
            );
        }
        assert_eq!(
            world.get::<Link>(spawned("Guard")),
            Some(&Link {
                target: spawned("Painter"),
                backup: Some(spawned("Shop")),
                badge: Badge(3, "night".into()),
            }),
            "{how}"
        );
    }
}
