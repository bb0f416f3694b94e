//! Every type a game writes as a component: enum components (unit, tuple and struct variants,
//! a `#[default]` variant, a renamed variant), tuple structs and unit structs, through text,
//! schemas and their file, validation (offline and at load), spawning, the cooked twin,
//! export, the edit layer, capture and save, hot reload, overrides and import.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_ecs::prelude::*;
use bevy_forge_scene::capture::{CaptureOptions, capture_instance, save_instance};
use bevy_forge_scene::cook::CookedScene;
use bevy_forge_scene::edit::{SceneEdit, migrate_names};
use bevy_forge_scene::export::{ExportOptions, to_bsn, to_rust};
use bevy_forge_scene::format::{ComponentData, CustomComponent, SceneDoc};
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::schema::{
    ComponentSchema, FieldKind, SchemaFile, SchemaFileError, VariantSchema,
};
use bevy_forge_scene::validate::{Diagnostic, Severity, validate_parsed_with_schemas};
use bevy_math::Vec3;
use bevy_reflect::prelude::*;
use common::harness::Harness;
use common::scenes::{
    Log, edit, entity, load_errors, log_reloads, outcome, placing, position_of, scene,
};

/// How the physics engine moves a body (avian's `RigidBody`, with a payload or two more).
#[derive(Component, Reflect, Default, Debug, Clone, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::RigidBody")]
pub enum RigidBody {
    /// Moved by forces.
    #[default]
    Dynamic,
    /// Never moves.
    Static,
    /// Moved by the game; scenes wrote `Moving` before.
    #[forge(renamed_from = "Moving")]
    Kinematic,
    /// Pushed with a force along an axis.
    Pushed(f32, Vec3),
    /// Driven towards another entity.
    Driven {
        /// Metres per second.
        speed: f32,
        /// The entity it drives to.
        target: Option<Entity>,
    },
}

/// Metres per second: a tuple struct, its field `0`.
#[derive(Component, Reflect, Default, Debug, Clone, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Speed")]
pub struct Speed(pub f32);

/// A unit marker.
#[derive(Component, Reflect, Default, Debug, Clone, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "game::Marker")]
pub struct Marker;

/// An enum component written with `value`.
fn body(value: &str) -> String {
    format!(
        "(type: custom, data: (type_path: \"game::RigidBody\", value: \"{}\"))",
        common::scenes::ron_str(value)
    )
}

const SPEED: &str =
    "(type: custom, data: (type_path: \"game::Speed\", fields: [(name: \"0\", expr: \"2.5\")]))";
const MARKER: &str = "(type: custom, data: (type_path: \"game::Marker\", fields: []))";
const DEFAULT_BODY: &str = "(type: custom, data: (type_path: \"game::RigidBody\"))";

/// A scene with one entity per shape: a unit variant with a tuple struct and a unit struct, a
/// tuple variant written by its bare name, a struct variant naming another entity, and the
/// enum's `Default` (no `value`).
fn shapes() -> String {
    scene(
        &[
            entity(
                1,
                "Crate",
                None,
                &[],
                &format!("{}, {SPEED}, {MARKER}", body("RigidBody::Kinematic")),
            ),
            entity(2, "Ball", None, &[], &body("Pushed(2.0, Vec3::Y)")),
            entity(
                3,
                "Cart",
                None,
                &[],
                &body("RigidBody::Driven { speed: 3.0, target: Some(#2) }"),
            ),
            entity(4, "Rock", None, &[], DEFAULT_BODY),
        ],
        &[1, 2, 3, 4],
    )
}

fn schema_file() -> SchemaFile {
    SchemaFile::new(vec![RigidBody::schema(), Speed::schema(), Marker::schema()])
}

/// The errors and warnings of `text` checked against the schema file, without the game.
fn offline(text: &str) -> Vec<Diagnostic> {
    let parsed = SceneDoc::from_str(text).unwrap();
    validate_parsed_with_schemas(&parsed, None, &schema_file()).diagnostics
}

/// `(line, column, code)` of each diagnostic of `severity`, sorted.
fn places(diagnostics: &[Diagnostic], severity: Severity) -> Vec<(u32, u32, &'static str)> {
    let mut out: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .map(|d| {
            let p = d.position.expect("a position");
            (p.line, p.column, d.code)
        })
        .collect();
    out.sort();
    out
}

fn body_of(h: &Harness, instance: &ForgeSceneInstance, id: u64) -> RigidBody {
    h.world()
        .get::<RigidBody>(instance.entity(id).unwrap())
        .unwrap()
        .clone()
}

// ---- text, schema, validation ----

#[test]
fn every_shape_reads_back_from_its_canonical_text() {
    let read = SceneDoc::from_str(&shapes()).unwrap().doc;
    let canonical = read.to_canonical_string();
    let again = SceneDoc::from_str(&canonical).unwrap().doc;
    assert_eq!(again, read);
    assert_eq!(again.to_canonical_string(), canonical, "a fixed point");
    // The enum's value replaces `fields`, which an enum never writes.
    assert!(
        canonical.contains("type_path: \"game::RigidBody\",\n")
            && !canonical.contains("value: \"\""),
        "{canonical}"
    );
    let customs = |id: u64| -> Vec<CustomComponent> {
        again.entities[&id]
            .components
            .iter()
            .filter_map(|c| match c {
                ComponentData::Custom(c) => Some(c.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(customs(2)[0].value.as_deref(), Some("Pushed(2.0, Vec3::Y)"));
    assert!(customs(2)[0].fields.is_empty());
    assert_eq!(customs(4)[0].value, None, "the default: no value");
    assert_eq!(customs(1)[1].fields[0].name, "0");
    assert!(customs(1)[2].fields.is_empty() && customs(1)[2].value.is_none());
    // Without `fields` or `value`, a custom component is still refused.
    let bare = shapes().replace(DEFAULT_BODY, "(type: custom, data: ())");
    let err = SceneDoc::from_str(&bare).unwrap_err();
    assert!(err.to_string().contains("type_path"), "{err}");
}

#[test]
fn an_enum_schema_lists_its_variants_default_and_old_names() {
    let schema = RigidBody::schema();
    assert_eq!(schema.type_path, "game::RigidBody");
    assert_eq!(schema.type_name, "RigidBody");
    assert!(schema.is_enum() && schema.fields.is_empty());
    assert_eq!(
        schema.docs,
        "How the physics engine moves a body (avian's `RigidBody`, with a payload or two more)."
    );
    let names: Vec<&str> = schema.variants.iter().map(VariantSchema::name).collect();
    assert_eq!(
        names,
        ["Dynamic", "Static", "Kinematic", "Pushed", "Driven"]
    );
    match schema.variant("Pushed").unwrap() {
        VariantSchema::Tuple { fields, .. } => {
            assert_eq!(fields[0].kind, FieldKind::Float { bits: 32 });
            assert_eq!(fields[1].kind, FieldKind::Vector { len: 3 });
        }
        other => panic!("{other:?}"),
    }
    match schema.variant("Driven").unwrap() {
        VariantSchema::Struct { fields, .. } => {
            assert_eq!(fields[1].name, "target");
            assert_eq!(fields[1].type_name, "Option<Entity>");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(schema.default.as_deref(), Some("RigidBody::Dynamic"));
    assert_eq!(schema.renamed_variant("Moving"), Some("Kinematic"));
    assert_eq!(schema.renamed_variant("Static"), None);
    // The tuple struct names its field `0`; the unit struct has none; neither is an enum.
    let speed = Speed::schema();
    assert_eq!(speed.fields[0].name, "0");
    assert_eq!(speed.fields[0].default.as_deref(), Some("0.0"));
    assert!(!speed.is_enum() && Marker::schema().fields.is_empty());
}

#[test]
fn the_schema_file_of_an_enum_reads_back_and_struct_schemas_are_written_as_before() {
    let file = schema_file();
    let text = file.to_ron_string().unwrap();
    assert_eq!(SchemaFile::from_ron_str(&text).unwrap(), file);
    assert!(text.contains("variants: ["), "{text}");
    assert!(
        text.contains("from: \"Moving\",") && text.contains("to: \"Kinematic\","),
        "{text}"
    );
    assert!(
        text.contains("default: Some(\"RigidBody::Dynamic\")"),
        "{text}"
    );
    // Struct schemas have none of the enum parts: files of struct components are unchanged.
    let structs = SchemaFile::new(vec![Speed::schema(), Marker::schema()])
        .to_ron_string()
        .unwrap();
    for part in ["variants", "renamed_variants"] {
        assert!(!structs.contains(part), "{part} in\n{structs}");
    }
    // A hand-written enum schema may leave out `fields`.
    let hand = r#"(format: 1, components: [(type_path: "game::Team", type_name: "Team",
        variants: [Unit(name: "Red"), Unit(name: "Blue")], default: Some("Team::Red"))])"#;
    let read = SchemaFile::from_ron_str(hand).unwrap();
    assert!(read.get("game::Team").unwrap().is_enum());
    // What cannot be: fields on an enum, an old name of no variant, one that is current.
    for (bad, says) in [
        (
            hand.replace("type_name: \"Team\",", "type_name: \"Team\", fields: [(name: \"x\", type_name: \"f32\", kind: Float(bits: 32))],"),
            "not `fields`",
        ),
        (
            hand.replace("default:", "renamed_variants: [(from: \"Green\", to: \"Purple\")], default:"),
            "not a variant",
        ),
        (
            hand.replace("default:", "renamed_variants: [(from: \"Red\", to: \"Blue\")], default:"),
            "is a current variant",
        ),
    ] {
        let err = SchemaFile::from_ron_str(&bad).unwrap_err();
        assert!(
            matches!(&err, SchemaFileError::Invalid { message, .. } if message.contains(says)),
            "{says}: {err}"
        );
    }
}

#[test]
fn an_unknown_variant_is_reported_at_its_column_with_the_nearest_name_offline_and_at_load() {
    let text = shapes().replace("RigidBody::Kinematic", "RigidBody::Kinematik");
    let d = offline(&text);
    let errors: Vec<&Diagnostic> = d.iter().filter(|d| d.severity == Severity::Error).collect();
    assert_eq!(errors.len(), 1, "{d:?}");
    let e = errors[0];
    assert_eq!(e.code, "forge::custom::expr");
    assert!(
        e.message.contains("`RigidBody` has no variant `Kinematik`"),
        "{}",
        e.message
    );
    assert_eq!(e.help.as_deref(), Some("did you mean `Kinematic`?"));
    assert_eq!(e.entity, Some(1));
    assert_eq!(e.path.as_deref(), Some("components[0].data.value"));
    let at = position_of(&text, "Kinematik", 0);
    let p = e.position.unwrap();
    assert_eq!((p.line, p.column), at, "at the variant itself");

    // The loader: the same error at the same place, and nothing spawns.
    let mut h = Harness::new();
    let loaded = outcome(&mut h, "typo.forge.ron", &text).unwrap_err();
    assert_eq!(
        places(&loaded, Severity::Error),
        places(&d, Severity::Error)
    );
    let at_load = loaded
        .iter()
        .find(|d| d.severity == Severity::Error)
        .unwrap();
    assert_eq!(at_load.help.as_deref(), Some("did you mean `Kinematic`?"));
}

#[test]
fn a_value_of_the_wrong_shape_fields_on_an_enum_and_a_value_on_a_struct_are_errors() {
    let text = scene(
        &[
            // A tuple variant whose first field is a string, escaped in the file.
            entity(
                1,
                "A",
                None,
                &[],
                &body("RigidBody::Pushed(\"fast\", Vec3::Y)"),
            ),
            // A unit variant written with fields.
            entity(2, "B", None, &[], &body("Static(1.0)")),
            entity(
                3,
                "C",
                None,
                &[],
                "(type: custom, data: (type_path: \"game::RigidBody\", fields: [(name: \"speed\", expr: \"1.0\")]))",
            ),
            entity(
                4,
                "D",
                None,
                &[],
                "(type: custom, data: (type_path: \"game::Speed\", value: \"Speed(1.0)\"))",
            ),
        ],
        &[1, 2, 3, 4],
    );
    let d = offline(&text);
    let found = places(&d, Severity::Error);
    let expected = vec![
        {
            let (l, c) = position_of(&text, "\\\"fast\\\"", 0);
            (l, c, "forge::custom::expr")
        },
        {
            let (l, c) = position_of(&text, "Static(1.0)", 0);
            (l, c, "forge::custom::expr")
        },
        {
            let (l, c) = position_of(&text, "[(name: \"speed\"", 0);
            (l, c, "forge::custom::value")
        },
        {
            let (l, c) = position_of(&text, "\"Speed(1.0)\"", 0);
            (l, c, "forge::custom::value")
        },
    ];
    assert_eq!(found, expected, "{d:#?}");
    let value_on_struct = d.iter().find(|d| d.entity == Some(4)).unwrap();
    assert!(
        value_on_struct.message.contains("`Speed` is a struct"),
        "{}",
        value_on_struct.message
    );
    let fields_on_enum = d.iter().find(|d| d.entity == Some(3)).unwrap();
    assert!(
        fields_on_enum
            .help
            .as_deref()
            .unwrap()
            .contains("value: \"RigidBody::Dynamic\""),
        "{fields_on_enum:?}"
    );
    let mut h = Harness::new();
    let loaded = outcome(&mut h, "wrong.forge.ron", &text).unwrap_err();
    assert_eq!(places(&loaded, Severity::Error), found, "the loader agrees");
}

#[test]
fn a_renamed_variant_loads_as_the_new_one_with_a_warning_and_migrate_rewrites_it() {
    let text = shapes().replace("RigidBody::Kinematic", "RigidBody::Moving");
    let d = offline(&text);
    assert!(places(&d, Severity::Error).is_empty(), "{d:?}");
    let warning = d
        .iter()
        .find(|d| d.code == "forge::custom::renamed_variant")
        .unwrap();
    assert_eq!(warning.severity, Severity::Warning);
    assert!(
        warning
            .message
            .contains("variant `Moving` of `RigidBody` was renamed to `Kinematic`"),
        "{}",
        warning.message
    );
    let p = warning.position.unwrap();
    assert_eq!((p.line, p.column), position_of(&text, "Moving", 0));

    let mut h = Harness::new();
    let (_, instance) = outcome(&mut h, "old.forge.ron", &text).unwrap();
    assert_eq!(body_of(&h, &instance, 1), RigidBody::Kinematic);

    let mut edit = SceneEdit::from_text(&text).unwrap();
    let group = migrate_names(&mut edit, &schema_file()).unwrap();
    assert!(group.is_some());
    assert_eq!(edit.text(), shapes(), "only the old name changed");
    assert!(migrate_names(&mut edit, &schema_file()).unwrap().is_none());
}

#[test]
fn a_schema_diff_lists_variants_added_removed_renamed_and_changed() {
    let old = schema_file();
    let mut schema = RigidBody::schema();
    // `Static` goes, `Pushed` takes one field, `Dynamic` becomes `Free` (and stays the
    // default), `Frozen` is new.
    schema.variants.retain(|v| v.name() != "Static");
    for v in &mut schema.variants {
        match v {
            VariantSchema::Tuple { fields, .. } => fields.truncate(1),
            VariantSchema::Unit { name } if name == "Dynamic" => *name = "Free".to_owned(),
            _ => {}
        }
    }
    schema.variants.push(VariantSchema::Unit {
        name: "Frozen".to_owned(),
    });
    schema
        .renamed_variants
        .push(bevy_forge_scene::schema::RenamedVariant {
            from: "Dynamic".to_owned(),
            to: "Free".to_owned(),
        });
    schema.default = Some("RigidBody::Free".to_owned());
    let new = SchemaFile::new(vec![schema.clone(), Speed::schema(), Marker::schema()]);
    let changes: Vec<(String, bool)> = old
        .diff(&new)
        .iter()
        .map(|c| (c.to_string(), c.may_break()))
        .collect();
    let t = "`game::RigidBody`";
    assert_eq!(
        changes,
        [
            (
                format!("~ {t}: variant `Free` renamed from `Dynamic`"),
                false
            ),
            (format!("~ {t}: variant `Pushed` has other fields"), true),
            (format!("+ {t}: new variant `Frozen`"), false),
            (format!("- {t}: variant `Static` removed"), true),
        ],
        "the default followed its variant's rename: no change"
    );
    schema.default = Some("RigidBody::Frozen".to_owned());
    let moved = SchemaFile::new(vec![schema, Speed::schema(), Marker::schema()]);
    let last = old.diff(&moved).last().unwrap().to_string();
    assert_eq!(
        last,
        format!("~ {t}: default is now `RigidBody::Frozen` (was `RigidBody::Dynamic`)")
    );
    assert!(old.diff(&old).is_empty());
}

// ---- the runtime ----

#[test]
fn every_shape_spawns_with_its_value_and_references_resolved() {
    let mut h = Harness::new();
    let (_, instance) = outcome(&mut h, "shapes.forge.ron", &shapes()).unwrap();
    let crate_ = instance.entity(1).unwrap();
    assert_eq!(body_of(&h, &instance, 1), RigidBody::Kinematic);
    assert_eq!(h.world().get::<Speed>(crate_), Some(&Speed(2.5)));
    assert!(h.world().get::<Marker>(crate_).is_some());
    assert_eq!(body_of(&h, &instance, 2), RigidBody::Pushed(2.0, Vec3::Y));
    assert_eq!(
        body_of(&h, &instance, 3),
        RigidBody::Driven {
            speed: 3.0,
            target: instance.entity(2)
        }
    );
    assert_eq!(body_of(&h, &instance, 4), RigidBody::Dynamic);
}

#[test]
fn the_cooked_twin_keeps_every_shape_and_spawns_the_same() {
    let doc = SceneDoc::from_str(&shapes()).unwrap().doc;
    let cooked = CookedScene {
        source: "shapes.forge.ron".to_owned(),
        doc: doc.clone(),
        prefabs: Vec::new(),
    };
    let bytes = cooked.encode();
    assert_eq!(CookedScene::decode(&bytes).unwrap().doc, doc);
    // A scene without `value` cooks to the bytes it always did: no tag 2 in the body.
    let plain = SceneDoc::from_str(&scene(&[entity(1, "S", None, &[], SPEED)], &[1]))
        .unwrap()
        .doc;
    let plain_bytes = CookedScene {
        source: "s.forge.ron".to_owned(),
        doc: plain.clone(),
        prefabs: Vec::new(),
    }
    .encode();
    assert_eq!(CookedScene::decode(&plain_bytes).unwrap().doc, plain);

    let mut h = Harness::new();
    h.add_bytes("shapes.forge.bin", &bytes);
    let (_, from_bytes) = h.spawn_scene("shapes.forge.bin");
    let mut t = Harness::new();
    let (_, from_text) = outcome(&mut t, "shapes.forge.ron", &shapes()).unwrap();
    for id in 1..=3 {
        let cooked = body_of(&h, &from_bytes, id);
        let text = body_of(&t, &from_text, id);
        match (cooked, text) {
            (RigidBody::Driven { speed: a, .. }, RigidBody::Driven { speed: b, .. }) => {
                assert_eq!(a, b)
            }
            (a, b) => assert_eq!(a, b),
        }
    }
    assert_eq!(
        body_of(&h, &from_bytes, 3),
        RigidBody::Driven {
            speed: 3.0,
            target: from_bytes.entity(2)
        }
    );
}

#[test]
fn a_changed_variant_is_patched_in_place_on_hot_reload() {
    let mut h = Harness::with_setup(log_reloads);
    h.add("shapes.forge.ron", &shapes());
    let (root, instance) = h.spawn_scene("shapes.forge.ron");
    let before: Vec<Entity> = (1..=4).map(|id| instance.entity(id).unwrap()).collect();
    let changed = shapes()
        .replace("RigidBody::Kinematic", "RigidBody::Static")
        .replace("Pushed(2.0, Vec3::Y)", "Pushed(5.0, Vec3::X)")
        .replace("target: Some(#2)", "target: Some(#1)")
        .replace("expr: \\\"2.5\\\"", "expr: \\\"4.0\\\"")
        .replace("expr: \"2.5\"", "expr: \"4.0\"");
    edit(&mut h, "shapes.forge.ron", &changed);
    assert!(h.world().resource::<Log>().failed.is_empty());
    let after = common::scenes::instance_of(&h, root);
    let now: Vec<Entity> = (1..=4).map(|id| after.entity(id).unwrap()).collect();
    assert_eq!(now, before, "the same live entities");
    assert_eq!(body_of(&h, &after, 1), RigidBody::Static);
    assert_eq!(body_of(&h, &after, 2), RigidBody::Pushed(5.0, Vec3::X));
    assert_eq!(
        body_of(&h, &after, 3),
        RigidBody::Driven {
            speed: 3.0,
            target: Some(before[0])
        }
    );
    assert_eq!(h.world().get::<Speed>(before[0]), Some(&Speed(4.0)));
    assert!(h.world().get::<Marker>(before[0]).is_some());

    // Back to the default: the `value` removed.
    let defaulted = changed.replace(&body("RigidBody::Static"), DEFAULT_BODY);
    edit(&mut h, "shapes.forge.ron", &defaulted);
    assert_eq!(body_of(&h, &after, 1), RigidBody::Dynamic);
}

#[test]
fn captured_values_are_kept_as_written_and_changed_ones_are_rendered() {
    let mut h = Harness::new();
    h.add("shapes.forge.ron", &shapes());
    let (root, instance) = h.spawn_scene("shapes.forge.ron");
    let unchanged = capture_instance(h.world(), root, &CaptureOptions::default()).unwrap();
    assert!(unchanged.skipped.is_empty(), "{:?}", unchanged.skipped);
    assert_eq!(
        unchanged.doc,
        SceneDoc::from_str(&shapes()).unwrap().doc,
        "an unchanged instance captures back to its document"
    );

    let [a, b, c, d] = [1, 2, 3, 4].map(|id| instance.entity(id).unwrap());
    let world = h.app.world_mut();
    *world.get_mut::<RigidBody>(a).unwrap() = RigidBody::Static;
    world.get_mut::<Speed>(a).unwrap().0 = 4.5;
    *world.get_mut::<RigidBody>(b).unwrap() = RigidBody::Dynamic;
    *world.get_mut::<RigidBody>(c).unwrap() = RigidBody::Driven {
        speed: 1.5,
        target: Some(a),
    };
    *world.get_mut::<RigidBody>(d).unwrap() = RigidBody::Pushed(1.0, Vec3::Z);
    let captured = capture_instance(h.world(), root, &CaptureOptions::default()).unwrap();
    let value = |id: u64, path: &str| -> CustomComponent {
        captured.doc.entities[&id]
            .components
            .iter()
            .find_map(|c| match c {
                ComponentData::Custom(c) if c.type_path == path => Some(c.clone()),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(
        value(1, "game::RigidBody").value.as_deref(),
        Some("RigidBody::Static")
    );
    assert_eq!(value(1, "game::Speed").fields[0].expr, "4.5");
    assert!(value(1, "game::Marker").fields.is_empty());
    // Set to the default where the file wrote a value: the value says so.
    assert_eq!(
        value(2, "game::RigidBody").value.as_deref(),
        Some("RigidBody::Dynamic")
    );
    assert_eq!(
        value(3, "game::RigidBody").value.as_deref(),
        Some("RigidBody::Driven { speed: 1.5, target: Some(#1) }")
    );
    assert_eq!(
        value(4, "game::RigidBody").value.as_deref(),
        Some("RigidBody::Pushed(1.0, Vec3::new(0.0, 0.0, 1.0))")
    );

    // Saved over the file, only the changed strings change, and it spawns as it was left.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shapes.forge.ron");
    std::fs::write(&path, shapes()).unwrap();
    save_instance(h.world(), root, &path, &CaptureOptions::default()).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert_eq!(SceneDoc::from_str(&saved).unwrap().doc, captured.doc);
    assert!(saved.contains("value: \"RigidBody::Static\""), "{saved}");
    let mut again = Harness::new();
    let (_, respawned) = outcome(&mut again, "saved.forge.ron", &saved).unwrap();
    assert_eq!(body_of(&again, &respawned, 1), RigidBody::Static);
    assert_eq!(
        body_of(&again, &respawned, 3),
        RigidBody::Driven {
            speed: 1.5,
            target: respawned.entity(1)
        }
    );
}

#[test]
fn the_edit_layer_replaces_only_the_value_string_and_undoes_it() {
    let text = shapes().replace("  2: (id: 2,", "  // the ball\n  2: (id: 2,");
    let mut edit = SceneEdit::from_text(&text).unwrap();
    edit.set_custom_value(2, "game::RigidBody", "RigidBody::Static")
        .unwrap();
    let after = edit.text();
    assert_eq!(
        after,
        text.replace(
            "value: \"Pushed(2.0, Vec3::Y)\"",
            "value: \"RigidBody::Static\""
        ),
        "one string changed, the comment kept"
    );
    edit.undo().unwrap();
    assert_eq!(edit.text(), text);
    // The default component gets a value: the entry is written again, canonically.
    edit.set_custom_value(4, "game::RigidBody", "Static")
        .unwrap();
    let doc = SceneDoc::from_str(&edit.text()).unwrap().doc;
    let ComponentData::Custom(c) = &doc.entities[&4].components[0] else {
        panic!()
    };
    assert_eq!(c.value.as_deref(), Some("Static"));
}

#[test]
fn an_override_sets_an_enum_value_and_its_errors_point_into_the_override() {
    let prefab = scene(
        &[entity(1, "Crate", None, &[], &body("RigidBody::Static"))],
        &[1],
    );
    let set = |value: &str| {
        format!(
            "(target: [1], set: [(type: custom, data: (type_path: \"game::RigidBody\", value: \"{value}\"))])"
        )
    };
    let level = |value: &str| {
        scene(
            &[placing(5, "Crate 1", "crate.forge.ron", &set(value))],
            &[5],
        )
    };
    let mut h = Harness::new();
    h.add("crate.forge.ron", &prefab);
    let (_, instance) = outcome(&mut h, "level.forge.ron", &level("Kinematic")).unwrap();
    let placed = instance.entity_path(&[5, 1]).unwrap();
    assert_eq!(
        h.world().get::<RigidBody>(placed),
        Some(&RigidBody::Kinematic)
    );

    let text = level("Kinematc");
    h.add("typo.forge.ron", &text);
    let errors = load_errors(&mut h, "typo.forge.ron");
    let e = errors
        .iter()
        .find(|d| d.severity == Severity::Error)
        .unwrap();
    assert_eq!(
        e.help
            .as_deref()
            .map(|h| h.starts_with("did you mean `Kinematic`?")),
        Some(true),
        "{e:?}"
    );
    let p = e.position.unwrap();
    assert_eq!((p.line, p.column), position_of(&text, "Kinematc", 0));
}

#[test]
fn a_range_error_points_at_the_value_in_an_override_as_in_the_entity_itself() {
    let brain = |hp: &str| common::scenes::custom("forge_demo::Brain", &[("hp", hp)]);
    let prefab = scene(&[entity(1, "Goblin", None, &[], &brain("50"))], &[1]);
    let overridden = scene(
        &[placing(
            5,
            "Goblin 1",
            "goblin.forge.ron",
            "(target: [1], set: [(type: custom, data: (type_path: \"forge_demo::Brain\", fields: [(name: \"hp\", expr: \"150\")]))])",
        )],
        &[5],
    );
    let own = scene(&[entity(1, "Goblin", None, &[], &brain("150"))], &[1]);
    let mut h = Harness::new();
    h.add("goblin.forge.ron", &prefab);
    for (file, text) in [
        ("overridden.forge.ron", &overridden),
        ("own.forge.ron", &own),
    ] {
        h.add(file, text);
        let errors = load_errors(&mut h, file);
        let e = errors
            .iter()
            .find(|d| d.code == "forge::custom::range")
            .unwrap_or_else(|| panic!("{file}: {errors:?}"));
        let p = e.position.unwrap();
        assert_eq!(
            (p.line, p.column),
            position_of(text, "150", 0),
            "{file}: at `150`, not at its quote"
        );
    }
}

// ---- export ----

#[test]
fn export_writes_each_variant_by_the_type_path() {
    let doc = SceneDoc::from_str(&shapes()).unwrap().doc;
    let rust = to_rust(&doc, &ExportOptions::default()).unwrap();
    for expected in [
        "game::RigidBody::Kinematic",
        "game::RigidBody::Pushed(2.0, Vec3::Y)",
        "game::RigidBody::Driven { speed: 3.0, target: Some(",
        "game::Speed {\n                0: 2.5,\n                ..Default::default()\n            }",
        // Nothing set (the unit struct, the enum's default): the type's `Default`.
        "game::Marker::default()",
        "game::RigidBody::default()",
    ] {
        assert!(rust.contains(expected), "{expected} in\n{rust}");
    }
    let bsn = to_bsn(&doc, &ExportOptions::default()).unwrap();
    for expected in [
        "game::RigidBody::Kinematic\n",
        "game::RigidBody::Pushed(2.0, {Vec3::Y})",
        "game::RigidBody::Driven { speed: 3.0, target: Option::Some(#Ball) }",
        // A tuple struct by position, a unit struct and the enum's default by the type alone.
        "game::Speed(2.5)",
        "game::Marker\n",
        "game::RigidBody\n",
    ] {
        assert!(bsn.contains(expected), "{expected} in\n{bsn}");
    }
    // `bsn!` patches a tuple struct by position: a field left out before one set is refused.
    let sparse = SceneDoc::from_str(
        &shapes()
            .replace("(name: \\\"0\\\"", "(name: \\\"1\\\"")
            .replace("(name: \"0\"", "(name: \"1\""),
    )
    .unwrap()
    .doc;
    let err = to_bsn(&sparse, &ExportOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("field `0` is not set before `1`"),
        "{err}"
    );
}

// ---- import ----

#[cfg(feature = "import")]
mod import {
    use super::*;
    use bevy_forge_scene::import::{ImportOptions, builtin_types, from_scn_ron_with};

    /// A Bevy world dump writing the enum component as a bare variant, and the others by their
    /// own spellings, under avian's type path.
    const WORLD: &str = r#"(
  resources: {},
  entities: {
    4294967296: (
      components: {
        "bevy_ecs::name::Name": "Crate",
        "avian3d::dynamics::rigid_body::RigidBody": Dynamic,
      },
    ),
    4294967297: (
      components: {
        "bevy_ecs::name::Name": "Ball",
        "avian3d::dynamics::rigid_body::RigidBody": Pushed(2.0, (0.0, 1.0, 0.0)),
      },
    ),
    4294967298: (
      components: {
        "bevy_ecs::name::Name": "Cart",
        "avian3d::dynamics::rigid_body::RigidBody": Driven(speed: 3.0, target: Some(4294967297)),
      },
    ),
  },
)"#;

    #[test]
    fn a_bare_variant_imports_as_the_enum_value_by_its_schema() {
        let mut schema: ComponentSchema = RigidBody::schema();
        schema.type_path = "avian3d::dynamics::rigid_body::RigidBody".to_owned();
        let options = ImportOptions {
            schema_file: Some(SchemaFile::new(vec![schema])),
            ..ImportOptions::default()
        };
        let imported = from_scn_ron_with(WORLD, &builtin_types(), &options).unwrap();
        assert!(imported.report.is_empty(), "{:?}", imported.report);
        let values: Vec<(String, Option<String>)> = imported
            .doc
            .entities
            .values()
            .flat_map(|e| e.components.iter())
            .filter_map(|c| match c {
                ComponentData::Custom(c) => Some((
                    c.type_path.to_string(),
                    c.value.as_deref().map(str::to_owned),
                )),
                _ => None,
            })
            .collect();
        let path = "avian3d::dynamics::rigid_body::RigidBody".to_owned();
        let ball = imported
            .doc
            .entities
            .values()
            .find(|e| e.name == "Ball")
            .unwrap()
            .id;
        assert_eq!(
            values,
            [
                (path.clone(), Some("RigidBody::Dynamic".to_owned())),
                (
                    path.clone(),
                    Some("RigidBody::Pushed(2.0, Vec3::new(0.0, 1.0, 0.0))".to_owned())
                ),
                (
                    path,
                    Some(format!(
                        "RigidBody::Driven {{ speed: 3.0, target: Some(#{ball}) }}"
                    ))
                ),
            ]
        );
    }

    #[test]
    fn an_enum_component_imports_by_reflection_and_spawns_as_it_was() {
        let mut h = Harness::new();
        let (_, instance) = outcome(&mut h, "shapes.forge.ron", &shapes()).unwrap();
        let entities: Vec<Entity> = (1..=4).map(|id| instance.entity(id).unwrap()).collect();
        let world = h.app.world();
        let registry = world
            .resource::<bevy_ecs::reflect::AppTypeRegistry>()
            .read();
        let dynamic = bevy_world_serialization::DynamicWorldBuilder::from_world(world, &registry)
            .extract_entities(entities.iter().copied())
            .build();
        let text = ron::ser::to_string_pretty(
            &bevy_world_serialization::serde::DynamicWorldSerializer::new(&dynamic, &registry),
            ron::ser::PrettyConfig::default(),
        )
        .unwrap();
        let options = ImportOptions {
            schemas: Some(world.resource::<ForgeSchemas>().clone()),
            ..ImportOptions::default()
        };
        let imported = from_scn_ron_with(&text, &registry, &options).unwrap();
        drop(registry);
        let doc_text = imported.doc.to_canonical_string();
        assert!(
            doc_text.contains("value: \"RigidBody::Kinematic\""),
            "{doc_text}"
        );
        let mut again = Harness::new();
        let (_, respawned) = outcome(&mut again, "imported.forge.ron", &doc_text).unwrap();
        let bodies: Vec<RigidBody> = imported
            .doc
            .entities
            .keys()
            .map(|id| body_of(&again, &respawned, *id))
            .collect();
        assert_eq!(bodies[0], RigidBody::Kinematic);
        assert_eq!(bodies[1], RigidBody::Pushed(2.0, Vec3::Y));
        assert!(matches!(
            bodies[2],
            RigidBody::Driven {
                speed: 3.0,
                target: Some(_)
            }
        ));
        assert_eq!(bodies[3], RigidBody::Dynamic);
    }
}
