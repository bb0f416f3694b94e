//! Shared helpers and proptest strategies for the integration tests.
#![allow(dead_code)]

pub mod cooked;
pub mod game;
pub mod harness;
pub mod incremental;
pub mod scenes;

use bevy_forge_scene::format::*;
use proptest::prelude::*;

/// `forge_demo::Orbit` of the Platformer seed scene: deriving it registers it in every test
/// binary that includes this module.
#[derive(
    bevy_ecs::component::Component,
    bevy_reflect::Reflect,
    Default,
    Debug,
    PartialEq,
    bevy_forge_scene::ForgeComponent,
)]
#[forge(type_path = "forge_demo::Orbit")]
pub struct Orbit {
    /// Metres.
    #[forge(range = 0.0..=100.0)]
    pub radius: f32,
    /// Radians per second.
    #[forge(required)]
    pub speed: f32,
    /// Axis of rotation.
    pub axis: bevy_math::Vec3,
}

/// The repository root (the directory with the workspace's `Cargo.lock`), from the library's
/// tests and from the command line's alike.
pub fn repo() -> &'static std::path::Path {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(manifest)
}

/// Starts Bevy's async compute task pool, as an app's `TaskPoolPlugin` does, so large scenes
/// decode and check on its threads in tests without an app.
pub fn task_pools() {
    bevy_tasks::AsyncComputeTaskPool::get_or_init(bevy_tasks::TaskPool::new);
}

/// The fixture directory inside the repository.
pub fn fixture(rel: &str) -> std::path::PathBuf {
    repo().join("tests/fixtures").join(rel)
}

/// Reads a fixture as text.
pub fn fixture_text(rel: &str) -> String {
    std::fs::read_to_string(fixture(rel)).expect("fixture exists")
}

/// Any f32 but NaN (NaN != NaN would make equality checks meaningless).
pub fn float() -> BoxedStrategy<f32> {
    prop_oneof![
        4 => -1000.0f32..1000.0,
        1 => any::<f32>().prop_filter("not NaN", |f| !f.is_nan()),
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(f32::INFINITY),
    ]
    .boxed()
}

/// Strings with quotes, escapes, newlines, control characters and non-ASCII text.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-zA-Z0-9 _-]{0,12}",
        1 => any::<String>(),
        1 => Just("quote \" backslash \\ newline \n tab \t nul \0 é 💡".to_owned()),
    ]
    .boxed()
}

pub fn vec2() -> BoxedStrategy<Vec2Data> {
    (float(), float())
        .prop_map(|(x, y)| Vec2Data { x, y })
        .boxed()
}

pub fn vec3() -> BoxedStrategy<Vec3Data> {
    (float(), float(), float())
        .prop_map(|(x, y, z)| Vec3Data { x, y, z })
        .boxed()
}

pub fn color() -> BoxedStrategy<ColorData> {
    (float(), float(), float(), float())
        .prop_map(|(r, g, b, a)| ColorData { r, g, b, a })
        .boxed()
}

pub fn transform() -> BoxedStrategy<TransformData> {
    (vec3(), vec3(), vec3())
        .prop_map(|(translation, rotation, scale)| TransformData {
            translation,
            rotation,
            scale,
        })
        .boxed()
}

pub fn shape() -> BoxedStrategy<PrimitiveShape> {
    prop_oneof![
        vec3().prop_map(|size| PrimitiveShape::Cuboid { size }),
        float().prop_map(|radius| PrimitiveShape::Sphere { radius }),
        vec2().prop_map(|size| PrimitiveShape::Plane { size }),
        (float(), float()).prop_map(|(radius, height)| PrimitiveShape::Cylinder { radius, height }),
        (float(), float()).prop_map(|(radius, length)| PrimitiveShape::Capsule { radius, length }),
    ]
    .boxed()
}

pub fn component() -> BoxedStrategy<ComponentData> {
    prop_oneof![
        (
            proptest::option::of(text()),
            color(),
            proptest::option::of(vec2()),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(image, color, custom_size, flip_x, flip_y)| {
                ComponentData::Sprite(Box::new(SpriteData {
                    image,
                    color,
                    custom_size,
                    flip_x,
                    flip_y,
                }))
            }),
        (text(), float(), color()).prop_map(|(text, font_size, color)| {
            ComponentData::Text2d(Box::new(Text2dData {
                text,
                font_size,
                color,
            }))
        }),
        Just(ComponentData::Camera2d),
        Just(ComponentData::Camera3d),
        (color(), float(), float(), any::<bool>()).prop_map(
            |(color, intensity, range, shadows)| {
                ComponentData::PointLight(PointLightData {
                    color,
                    intensity,
                    range,
                    shadows,
                })
            }
        ),
        (
            color(),
            (float(), float(), float()),
            (float(), float()),
            any::<bool>()
        )
            .prop_map(
                |(color, (intensity, range, radius), (inner_angle, outer_angle), shadows)| {
                    ComponentData::SpotLight(SpotLightData {
                        color,
                        intensity,
                        range,
                        radius,
                        inner_angle,
                        outer_angle,
                        shadows,
                    })
                }
            ),
        (color(), float(), any::<bool>()).prop_map(|(color, illuminance, shadows)| {
            ComponentData::DirectionalLight(DirectionalLightData {
                color,
                illuminance,
                shadows,
            })
        }),
        (
            prop_oneof![
                shape().prop_map(MeshSource::Primitive),
                text().prop_map(MeshSource::Asset)
            ],
            color(),
            float(),
            float(),
            any::<bool>()
        )
            .prop_map(
                |(mesh, base_color, metallic, perceptual_roughness, unlit)| {
                    ComponentData::Mesh3d(Box::new(Mesh3dData {
                        mesh,
                        material: MaterialData {
                            base_color,
                            metallic,
                            perceptual_roughness,
                            unlit,
                        },
                    }))
                }
            ),
        prop_oneof![
            Just(VisibilityMode::Inherited),
            Just(VisibilityMode::Visible),
            Just(VisibilityMode::Hidden)
        ]
        .prop_map(ComponentData::Visibility),
        (
            text(),
            proptest::collection::vec((text(), text()), 0..4),
            proptest::option::of(text())
        )
            .prop_map(|(type_path, fields, value)| {
                ComponentData::Custom(CustomComponent {
                    type_path: type_path.into(),
                    fields: fields
                        .into_iter()
                        .map(|(n, e)| CustomField::new(n, e))
                        .collect(),
                    value: value.map(Into::into),
                })
            }),
    ]
    .boxed()
}

/// A document with arbitrary content: ids, parents and children are random, so the forest is
/// usually not valid (the reader and writer do not care).
pub fn any_doc() -> BoxedStrategy<SceneDoc> {
    let entity = (
        text(),
        proptest::option::of(any::<u64>()),
        proptest::collection::vec(any::<u64>(), 0..4),
        transform(),
        proptest::collection::vec(component(), 0..4),
        any::<bool>(),
    );
    (
        text(),
        proptest::collection::vec((any::<u64>(), any::<u64>(), entity), 0..8),
        proptest::collection::vec(any::<u64>(), 0..5),
        any::<u64>(),
    )
        .prop_map(|(name, entries, roots, next_id)| {
            let mut doc = SceneDoc::new(name);
            for (key, id, (name, parent, children, transform, components, locked)) in entries {
                doc.entities.insert(
                    key,
                    EntityNode {
                        id,
                        name: name.into(),
                        parent,
                        children,
                        transform,
                        components,
                        locked,
                        instance: None,
                    }
                    .into(),
                );
            }
            doc.roots = roots;
            doc.next_id = next_id;
            doc
        })
        .boxed()
}

/// One editing step for building valid forests.
#[derive(Debug, Clone)]
pub enum Edit {
    Add {
        name: String,
        parent_pick: Option<usize>,
    },
    Delete(usize),
    Duplicate(usize),
    Reparent {
        pick: usize,
        parent_pick: Option<usize>,
        index: usize,
    },
    AddComponent(usize, ComponentData),
    RemoveComponent(usize, usize),
    Rename(usize, String),
    SetTransform(usize, TransformData),
}

pub fn edit() -> BoxedStrategy<Edit> {
    let pick = any::<usize>();
    prop_oneof![
        4 => ("[A-Za-z ]{0,8}", proptest::option::of(pick)).prop_map(|(name, parent_pick)| Edit::Add { name, parent_pick }),
        1 => pick.prop_map(Edit::Delete),
        1 => pick.prop_map(Edit::Duplicate),
        2 => (pick, proptest::option::of(pick), any::<usize>()).prop_map(|(pick, parent_pick, index)| Edit::Reparent { pick, parent_pick, index }),
        2 => (pick, component()).prop_map(|(p, c)| Edit::AddComponent(p, c)),
        1 => (pick, any::<usize>()).prop_map(|(p, i)| Edit::RemoveComponent(p, i)),
        1 => (pick, text()).prop_map(|(p, n)| Edit::Rename(p, n)),
        1 => (pick, transform()).prop_map(|(p, t)| Edit::SetTransform(p, t)),
    ]
    .boxed()
}

/// Applies an edit through the public editing operations; refusals are ignored (they must leave
/// the document unchanged, which callers may check).
pub fn apply_edit(doc: &mut SceneDoc, edit: &Edit) {
    let ids: Vec<u64> = doc.entities.keys().copied().collect();
    let pick = |i: usize| (!ids.is_empty()).then(|| ids[i % ids.len()]);
    match edit {
        Edit::Add { name, parent_pick } => {
            let parent = parent_pick.and_then(pick);
            doc.add_entity(name.clone(), parent)
                .expect("add under an existing parent");
        }
        Edit::Delete(p) => {
            if let Some(id) = pick(*p) {
                doc.delete_subtree(id).expect("delete existing");
            }
        }
        Edit::Duplicate(p) => {
            if let Some(id) = pick(*p) {
                doc.duplicate_subtree(id).expect("duplicate existing");
            }
        }
        Edit::Reparent {
            pick: p,
            parent_pick,
            index,
        } => {
            if let Some(id) = pick(*p) {
                let parent = parent_pick.and_then(pick);
                let len = match parent {
                    None => doc.roots.iter().filter(|r| **r != id).count(),
                    Some(pid) => doc.entities[&pid]
                        .children
                        .iter()
                        .filter(|c| **c != id)
                        .count(),
                };
                let _ = doc.reparent(id, parent, index % (len + 1));
            }
        }
        Edit::AddComponent(p, c) => {
            if let Some(id) = pick(*p) {
                let _ = doc.add_component(id, c.clone());
            }
        }
        Edit::RemoveComponent(p, i) => {
            if let Some(id) = pick(*p) {
                let keys: Vec<String> = doc.entities[&id]
                    .components
                    .iter()
                    .map(|c| c.key())
                    .collect();
                if !keys.is_empty() {
                    doc.remove_component(id, &keys[i % keys.len()])
                        .expect("remove existing");
                }
            }
        }
        Edit::Rename(p, n) => {
            if let Some(id) = pick(*p) {
                doc.rename(id, n.clone()).expect("rename existing");
            }
        }
        Edit::SetTransform(p, t) => {
            if let Some(id) = pick(*p) {
                doc.set_transform(id, *t).expect("set transform");
            }
        }
    }
}

/// A valid forest built by random edits.
pub fn valid_doc() -> BoxedStrategy<SceneDoc> {
    ("[A-Za-z ]{0,10}", proptest::collection::vec(edit(), 0..40))
        .prop_map(|(name, edits)| {
            let mut doc = SceneDoc::new(name);
            for e in &edits {
                apply_edit(&mut doc, e);
            }
            doc
        })
        .boxed()
}

/// Writes `text` to `rel` under `dir`, creating its folders.
pub fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// The name the test harness gives the test function `name` of the module whose
/// `module_path!()` is `module`: that path without the crate's name, as `--exact` matches it
/// (`cook_hostile::a_huge_twin_is_not_read_whole` in the `app` binary, the bare name in a binary
/// of its own). For a test that runs an ignored test of its own binary alone in a child process.
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}
