//! `#[derive(ForgeComponent)]`: the schemas it generates and its automatic registration.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy_app::App;
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::schema::{FieldKind, FieldRange, MemberSchema, TypeSchema, VariantSchema};
use bevy_math::Vec3;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;

/// Moves the entity on a circle around its parent.
#[derive(Component, Reflect, Default, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "forge_demo::Orbit")]
struct Orbit {
    /// Metres.
    #[forge(range = 0.0..=100.0)]
    radius: f32,
    /// Radians per second.
    #[forge(required)]
    speed: f32,
    axis: Vec3,
    #[forge(skip)]
    phase: f32,
}

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default)]
enum Mode {
    #[default]
    Slow,
    Fast,
    Wander(f32),
}

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
struct Spot {
    x: f32,
    tag: Option<String>,
}

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
struct Meters(f32);

/// Every kind of field.
#[derive(Component, Reflect, Default, ForgeComponent)]
struct Kinds {
    flag: bool,
    #[forge(range = 0..10)]
    small: u8,
    big: i64,
    ratio: f64,
    label: String,
    letter: char,
    tint: bevy_color::Color,
    mode: Mode,
    target: Option<Vec3>,
    points: Vec<f32>,
    pair: (u32, bool),
    spot: Spot,
    length: Meters,
    grid: [u8; 2],
}

/// Hit points.
#[derive(Component, Reflect, Default, ForgeComponent)]
struct Health(#[forge(range = 0..=1000)] u32);

#[derive(Component, Reflect, Default, ForgeComponent)]
struct Marker;

#[test]
fn schema_lists_fields_with_kinds_ranges_defaults_and_docs() {
    let schema = Orbit::schema();
    assert_eq!(schema.type_path, "forge_demo::Orbit");
    assert_eq!(schema.type_name, "Orbit");
    assert_eq!(
        schema.docs,
        "Moves the entity on a circle around its parent."
    );
    let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["radius", "speed", "axis"]);
    assert_eq!(schema.skipped, ["phase"]);
    let radius = schema.field("radius").unwrap();
    assert_eq!(radius.kind, FieldKind::Float { bits: 32 });
    assert_eq!(radius.type_name, "f32");
    assert_eq!(radius.docs, "Metres.");
    assert_eq!(
        radius.range,
        Some(FieldRange {
            min: 0.0,
            max: 100.0,
            inclusive: true
        })
    );
    assert!(!radius.required);
    assert_eq!(radius.default.as_deref(), Some("0.0"));
    assert!(schema.field("speed").unwrap().required);
    let axis = schema.field("axis").unwrap();
    assert_eq!(axis.kind, FieldKind::Vector { len: 3 });
    assert_eq!(axis.default.as_deref(), Some("Vec3::new(0.0, 0.0, 0.0)"));
    assert_eq!(axis.docs, "");
}

#[test]
fn schema_kinds_cover_every_field_type() {
    let schema = Kinds::schema();
    assert!(
        schema.type_path.ends_with("::Kinds"),
        "{}",
        schema.type_path
    );
    let kind = |n: &str| schema.field(n).unwrap().kind.clone();
    assert_eq!(kind("flag"), FieldKind::Bool);
    assert_eq!(
        kind("small"),
        FieldKind::Integer {
            signed: false,
            bits: 8
        }
    );
    assert_eq!(
        kind("big"),
        FieldKind::Integer {
            signed: true,
            bits: 64
        }
    );
    assert_eq!(kind("ratio"), FieldKind::Float { bits: 64 });
    assert_eq!(kind("label"), FieldKind::String);
    assert_eq!(kind("letter"), FieldKind::Char);
    assert_eq!(kind("tint"), FieldKind::Colour);
    let ty = |type_name: &str, kind: FieldKind| TypeSchema {
        type_name: type_name.into(),
        kind,
    };
    let f32_kind = || FieldKind::Float { bits: 32 };
    assert_eq!(
        kind("mode"),
        FieldKind::Enum {
            variants: vec![
                VariantSchema::Unit {
                    name: "Slow".into()
                },
                VariantSchema::Unit {
                    name: "Fast".into()
                },
                VariantSchema::Tuple {
                    name: "Wander".into(),
                    fields: vec![ty("f32", f32_kind())]
                },
            ]
        }
    );
    assert_eq!(
        kind("target"),
        FieldKind::Option(Box::new(ty("Vec3", FieldKind::Vector { len: 3 })))
    );
    assert_eq!(
        kind("points"),
        FieldKind::List(Box::new(ty("f32", f32_kind())))
    );
    assert_eq!(
        kind("pair"),
        FieldKind::Tuple {
            fields: vec![
                ty(
                    "u32",
                    FieldKind::Integer {
                        signed: false,
                        bits: 32
                    }
                ),
                ty("bool", FieldKind::Bool),
            ]
        }
    );
    assert_eq!(
        kind("spot"),
        FieldKind::Struct {
            fields: vec![
                MemberSchema {
                    name: "x".into(),
                    type_name: "f32".into(),
                    kind: f32_kind(),
                },
                MemberSchema {
                    name: "tag".into(),
                    type_name: "Option<String>".into(),
                    kind: FieldKind::Option(Box::new(ty("String", FieldKind::String))),
                },
            ]
        }
    );
    assert_eq!(
        kind("length"),
        FieldKind::TupleStruct {
            fields: vec![ty("f32", f32_kind())]
        }
    );
    assert_eq!(
        kind("grid"),
        FieldKind::Array {
            item: Box::new(ty(
                "u8",
                FieldKind::Integer {
                    signed: false,
                    bits: 8
                }
            )),
            len: 2
        }
    );
    let default = |n: &str| schema.field(n).unwrap().default.clone().unwrap();
    assert_eq!(default("mode"), "Mode::Slow");
    assert_eq!(default("target"), "None");
    assert_eq!(default("points"), "vec![]");
    assert_eq!(default("label"), "\"\"");
    assert_eq!(default("pair"), "(0, false)");
    assert_eq!(default("spot"), "Spot { x: 0.0, tag: None }");
    assert_eq!(default("grid"), "[0, 0]");
    assert_eq!(
        schema.field("small").unwrap().range,
        Some(FieldRange {
            min: 0.0,
            max: 10.0,
            inclusive: false
        })
    );
}

#[test]
fn tuple_and_unit_structs_derive() {
    let health = Health::schema();
    assert_eq!(health.fields.len(), 1);
    assert_eq!(health.fields[0].name, "0");
    assert_eq!(health.docs, "Hit points.");
    assert!(Marker::schema().fields.is_empty());
}

#[test]
fn the_plugin_registers_every_derived_type() {
    let mut app = App::new();
    app.add_plugins((
        bevy_app::TaskPoolPlugin::default(),
        bevy_asset::AssetPlugin::default(),
        ForgeScenePlugin,
    ));
    let schemas = app.world().resource::<ForgeSchemas>();
    for path in ["forge_demo::Orbit", &Kinds::schema().type_path] {
        assert!(
            schemas.get(path).is_some(),
            "{path} in {:?}",
            schemas.type_paths()
        );
    }
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let kinds = registry.get(std::any::TypeId::of::<Kinds>()).unwrap();
    // `Kinds` has no `#[reflect(Component, Default)]`: registration adds the type data.
    assert!(kinds.data::<ReflectComponent>().is_some());
    assert!(kinds.data::<ReflectDefault>().is_some());
}

#[test]
fn register_forge_component_works_without_the_plugin() {
    let mut app = App::new();
    app.register_forge_component::<Orbit>();
    let schemas = app.world().resource::<ForgeSchemas>();
    assert_eq!(schemas.type_paths(), ["forge_demo::Orbit"]);
}

/// A recursive type with two branches: a naive description would double at every level.
#[derive(Reflect, Default, Clone, Debug, PartialEq)]
struct Tree {
    left: Vec<Tree>,
    right: Vec<Tree>,
}

fn parts(kind: &FieldKind) -> (usize, usize) {
    let mut count = 1;
    let mut depth = 0;
    let mut visit = |k: &FieldKind| {
        let (c, d) = parts(k);
        count += c;
        depth = depth.max(d + 1);
    };
    match kind {
        FieldKind::Struct { fields } => fields.iter().for_each(|f| visit(&f.kind)),
        FieldKind::List(item) | FieldKind::Option(item) => visit(&item.kind),
        _ => {}
    }
    (count, depth)
}

#[test]
fn recursive_types_have_a_bounded_schema() {
    let kind = bevy_forge_scene::schema::kind_of(<Tree as bevy_reflect::Typed>::type_info());
    let (count, depth) = parts(&kind);
    assert!(count <= 4096 + 1, "{count} parts");
    assert!(depth <= 17, "{depth} levels");
    let FieldKind::Struct { fields } = &kind else {
        panic!("{kind:?}")
    };
    assert_eq!(fields[0].type_name, "Vec<Tree>");
}
