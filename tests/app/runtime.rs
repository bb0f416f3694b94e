//! Headless Bevy tests: scenes load through the real `AssetServer` from an in-memory asset
//! source and spawn real components.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::harness::Harness;

use bevy_asset::{AssetApp, AssetServer, LoadState};
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeScene as Scene;
use bevy_forge_scene::ForgeSceneLoadError;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::prelude::*;
use bevy_transform::components::Transform;

fn seed(name: &str) -> String {
    common::fixture_text(&format!("valid/{name}.forge.ron"))
}

#[test]
fn garden_spawns_lights_meshes_and_transforms() {
    let mut h = Harness::new();
    h.add("scenes/garden.forge.ron", &seed("garden"));
    let (root, instance) = h.spawn_scene("scenes/garden.forge.ron");
    let world = h.world();
    assert_eq!(instance.len(), 2);
    let sun = instance.entity(1).unwrap();
    assert_eq!(world.get::<Name>(sun).unwrap().as_str(), "Sun");
    assert_eq!(world.get::<ForgeEntityId>(sun), Some(&ForgeEntityId(1)));
    assert_eq!(world.get::<ChildOf>(sun).unwrap().parent(), root);
    let t = world.get::<Transform>(sun).unwrap();
    assert_eq!(t.translation, bevy_math::Vec3::new(-4.0, 8.0, -6.0));
    let expected = bevy_math::Quat::from_euler(
        bevy_math::EulerRot::XYZ,
        45f32.to_radians(),
        30f32.to_radians(),
        0.0,
    );
    assert!(t.rotation.abs_diff_eq(expected, 1e-6), "{:?}", t.rotation);
    let light = world.get::<bevy_light::DirectionalLight>(sun).unwrap();
    assert_eq!(light.illuminance, 10000.0);
    assert!(light.shadow_maps_enabled);
    assert_eq!(light.color, bevy_color::Color::srgba(1.0, 0.95, 0.85, 1.0));
    assert_eq!(
        world.get::<bevy_camera::visibility::Visibility>(sun),
        Some(&bevy_camera::visibility::Visibility::Inherited)
    );
    let ground = instance.entity(2).unwrap();
    let mesh = world.get::<bevy_mesh::Mesh3d>(ground).unwrap();
    let path = mesh.0.path().unwrap().to_string();
    assert_eq!(path, "scenes/garden.forge.ron#Mesh0");
    let children: Vec<Entity> = world.get::<Children>(root).unwrap().iter().collect();
    assert_eq!(children, vec![sun, ground]);
}

#[test]
fn platformer_spawns_sprites_text_cameras_and_visibility() {
    let mut h = Harness::new();
    h.add("scenes/platformer.forge.ron", &seed("platformer"));
    h.add("textures/player.png", "not really a png");
    let (_, instance) = h.spawn_scene("scenes/platformer.forge.ron");
    let world = h.world();
    let camera = instance.entity(1).unwrap();
    assert!(world.get::<bevy_camera::Camera2d>(camera).is_some());
    let player = instance.entity(2).unwrap();
    let sprite = world.get::<bevy_sprite::Sprite>(player).unwrap();
    assert_eq!(sprite.custom_size, Some(bevy_math::Vec2::new(32.0, 48.0)));
    assert_eq!(
        sprite.image.path().unwrap().to_string(),
        "textures/player.png"
    );
    assert_eq!(sprite.color, bevy_color::Color::srgba(1.0, 1.0, 1.0, 1.0));
    assert!(!sprite.flip_x && !sprite.flip_y);
    assert_eq!(
        world.get::<bevy_camera::visibility::Visibility>(player),
        Some(&bevy_camera::visibility::Visibility::Visible)
    );
    let label = instance.entity(3).unwrap();
    assert_eq!(world.get::<ChildOf>(label).unwrap().parent(), player);
    assert_eq!(
        world.get::<bevy_sprite::Text2d>(label).unwrap().0,
        "Bevy Forge"
    );
    let font = world.get::<bevy_text::TextFont>(label).unwrap();
    assert_eq!(font.font_size, bevy_text::FontSize::Px(24.0));
    assert_eq!(
        world.get::<bevy_text::TextColor>(label).unwrap().0,
        bevy_color::Color::srgba(0.9, 0.9, 1.0, 1.0)
    );
    assert_eq!(world.get::<Transform>(label).unwrap().translation.y, 32.0);
}

fn entity(id: u64, name: &str, parent: Option<u64>, children: &[u64], components: &str) -> String {
    let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
    let children: Vec<String> = children.iter().map(u64::to_string).collect();
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: {parent}, children: [{}], transform: (translation: (x: {id}, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [{components}]),",
        children.join(", ")
    )
}

fn scene(entities: &[String], roots: &[u64], next_id: u64) -> String {
    let roots: Vec<String> = roots.iter().map(u64::to_string).collect();
    format!(
        "(format_version: 1, name: \"T\", entities: {{ {} }}, roots: [{}], next_id: {next_id})",
        entities.join("\n"),
        roots.join(", ")
    )
}

const CUBE: &str = "(type: mesh3d, data: (mesh: (source: primitive, value: cuboid(size: (x: 1, y: 1, z: 1))), material: (base_color: (r: 1, g: 0, b: 0, a: 1), metallic: 0, perceptual_roughness: 0.5, unlit: false)))";

#[test]
fn children_keep_file_order_whatever_their_components() {
    let mut h = Harness::new();
    // Children listed in an order different from their ids and from map order.
    let text = scene(
        &[
            entity(1, "Parent", None, &[6, 3, 5, 2, 4], ""),
            entity(2, "A", Some(1), &[], "(type: camera2d)"),
            entity(3, "B", Some(1), &[], CUBE),
            entity(4, "C", Some(1), &[], "(type: visibility, data: hidden)"),
            entity(5, "D", Some(1), &[], ""),
            entity(
                6,
                "E",
                Some(1),
                &[],
                "(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800, range: 20, shadows: false))",
            ),
        ],
        &[1],
        7,
    );
    h.add("order.forge.ron", &text);
    let (_, instance) = h.spawn_scene("order.forge.ron");
    let world = h.world();
    let parent = instance.entity(1).unwrap();
    let children: Vec<Entity> = world.get::<Children>(parent).unwrap().iter().collect();
    let expected: Vec<Entity> = [6, 3, 5, 2, 4]
        .iter()
        .map(|id| instance.entity(*id).unwrap())
        .collect();
    assert_eq!(children, expected);
    let hidden = instance.entity(4).unwrap();
    assert_eq!(
        world.get::<bevy_camera::visibility::Visibility>(hidden),
        Some(&bevy_camera::visibility::Visibility::Hidden)
    );
    let light = world
        .get::<bevy_light::PointLight>(instance.entity(6).unwrap())
        .unwrap();
    assert_eq!(
        (light.intensity, light.range, light.shadow_maps_enabled),
        (800.0, 20.0, false)
    );
}

/// Spawning follows the tree, not the file: entities listed after their children, or apart
/// from their siblings, get the same parents, the same `Children` order and the same names.
#[test]
fn entities_listed_out_of_tree_order_spawn_into_the_same_tree() {
    // Roots 1 and 7; 1 has [3, 2], 3 has [5, 4], 7 has [6].
    let tree: [(u64, Option<u64>, &[u64]); 7] = [
        (1, None, &[3, 2]),
        (2, Some(1), &[]),
        (3, Some(1), &[5, 4]),
        (4, Some(3), &[]),
        (5, Some(3), &[]),
        (6, Some(7), &[]),
        (7, None, &[6]),
    ];
    let listed = |order: &[u64]| {
        let entities: Vec<String> = order
            .iter()
            .map(|id| {
                let (_, parent, children) = tree.iter().find(|(i, ..)| i == id).unwrap();
                entity(*id, &format!("E{id}"), *parent, children, "")
            })
            .collect();
        scene(&entities, &[1, 7], 8)
    };
    let mut h = Harness::new();
    for (i, order) in [
        [1, 3, 5, 4, 2, 7, 6],
        [5, 4, 6, 2, 7, 3, 1],
        [7, 2, 1, 6, 4, 3, 5],
    ]
    .iter()
    .enumerate()
    {
        let path = format!("order{i}.forge.ron");
        h.add(&path, &listed(order));
        let (root, instance) = h.spawn_scene(&path);
        let world = h.world();
        assert_eq!(instance.len(), 7, "{order:?}");
        let live = |id: u64| instance.entity(id).unwrap();
        for (id, parent, children) in tree {
            let e = live(id);
            assert_eq!(world.get::<Name>(e).unwrap().as_str(), format!("E{id}"));
            let parent = parent.map_or(root, live);
            assert_eq!(
                world.get::<ChildOf>(e).unwrap().parent(),
                parent,
                "{order:?}: {id}"
            );
            let spawned: Vec<Entity> = world
                .get::<Children>(e)
                .map(|c| c.iter().collect())
                .unwrap_or_default();
            let expected: Vec<Entity> = children.iter().map(|c| live(*c)).collect();
            assert_eq!(spawned, expected, "{order:?}: children of {id}");
        }
        let roots: Vec<Entity> = world.get::<Children>(root).unwrap().iter().collect();
        assert_eq!(roots, vec![live(1), live(7)], "{order:?}");
    }
}

#[test]
fn identical_primitives_share_one_mesh_handle() {
    let mut h = Harness::new();
    let other = CUBE.replace("x: 1, y: 1, z: 1", "x: 2, y: 1, z: 1");
    let text = scene(
        &[
            entity(1, "A", None, &[], CUBE),
            entity(2, "B", None, &[], CUBE),
            entity(3, "C", None, &[], &other),
        ],
        &[1, 2, 3],
        4,
    );
    h.add("share.forge.ron", &text);
    let (_, instance) = h.spawn_scene("share.forge.ron");
    let world = h.world();
    let mesh = |id| {
        world
            .get::<bevy_mesh::Mesh3d>(instance.entity(id).unwrap())
            .unwrap()
            .0
            .clone()
    };
    assert_eq!(mesh(1), mesh(2));
    assert_ne!(mesh(1), mesh(3));
    assert_eq!(mesh(3).path().unwrap().label(), Some("Mesh1"));
    let meshes = world.resource::<bevy_asset::Assets<bevy_mesh::Mesh>>();
    assert!(meshes.get(&mesh(1)).is_some(), "the labeled mesh is loaded");
}

#[test]
fn two_instances_are_independent_and_despawn_with_their_root() {
    let mut h = Harness::new();
    h.add("garden.forge.ron", &seed("garden"));
    let handle = h.load("garden.forge.ron");
    let a = h.spawn_root(&handle);
    let b = h.spawn_root(&handle);
    h.run_until(|w| {
        w.get::<ForgeSceneInstance>(a).is_some() && w.get::<ForgeSceneInstance>(b).is_some()
    });
    let ia = h.world().get::<ForgeSceneInstance>(a).unwrap().clone();
    let ib = h.world().get::<ForgeSceneInstance>(b).unwrap().clone();
    assert_ne!(ia.entity(1), ib.entity(1));
    assert_eq!(
        h.world()
            .get::<ChildOf>(ib.entity(1).unwrap())
            .unwrap()
            .parent(),
        b
    );
    h.app.world_mut().entity_mut(a).despawn();
    h.app.update();
    for (_, e) in ia.iter() {
        assert!(h.world().get_entity(e).is_err(), "instance a is gone");
    }
    for (_, e) in ib.iter() {
        assert!(h.world().get_entity(e).is_ok(), "instance b stays");
    }
}

#[derive(Resource, Default)]
struct Ready(Vec<(Entity, Option<Entity>)>);

#[test]
fn ready_event_fires_with_final_entity_ids() {
    let mut h = Harness::new();
    h.add("garden.forge.ron", &seed("garden"));
    h.app.init_resource::<Ready>();
    h.app.add_observer(
        |ready: On<ForgeSceneReady>,
         instances: Query<&ForgeSceneInstance>,
         mut seen: ResMut<Ready>| {
            let sun = instances.get(ready.entity).ok().and_then(|i| i.entity(1));
            seen.0.push((ready.entity, sun));
        },
    );
    let (root, instance) = h.spawn_scene("garden.forge.ron");
    let seen = &h.world().resource::<Ready>().0;
    assert_eq!(seen, &vec![(root, instance.entity(1))]);
    let scenes = h.world().resource::<bevy_asset::Assets<Scene>>();
    let scene = scenes.get(instance.scene()).unwrap();
    assert_eq!(instance.entity_named(scene, "Ground"), instance.entity(2));
}

#[test]
fn every_invalid_fixture_fails_to_load_with_each_error_positioned() {
    let dir = common::fixture("invalid");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".forge.ron") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let expected =
            bevy_forge_scene::validate::validate_parsed(&SceneDoc::from_str(&text).unwrap(), None);
        let errors: Vec<_> = expected
            .diagnostics
            .iter()
            .filter(|d| d.severity == bevy_forge_scene::validate::Severity::Error)
            .collect();
        assert!(!errors.is_empty(), "{path:?} has errors");
        let mut h = Harness::new();
        h.add("bad.forge.ron", &text);
        let handle = h.load("bad.forge.ron");
        let root = h.spawn_root(&handle);
        h.run_until(|w| {
            matches!(
                w.resource::<AssetServer>().load_state(&handle),
                LoadState::Failed(_)
            )
        });
        let LoadState::Failed(error) = h.world().resource::<AssetServer>().load_state(&handle)
        else {
            unreachable!()
        };
        let message = error.to_string();
        for d in errors {
            let p = d.position.expect("positioned");
            let line = format!("bad.forge.ron:{}:{}: error[{}]", p.line, p.column, d.code);
            assert!(message.contains(&line), "{path:?}: `{line}` in {message}");
        }
        h.app.update();
        assert!(
            h.world().get::<ForgeSceneInstance>(root).is_none(),
            "nothing spawns"
        );
        checked += 1;
    }
    assert!(checked >= 4);
}

#[test]
fn syntax_errors_fail_to_load_with_file_line_and_column() {
    let mut h = Harness::new();
    h.add(
        "typo.forge.ron",
        &seed("garden").replace("children: [],", "childen: [],"),
    );
    let handle = h.load("typo.forge.ron");
    h.run_until(|w| {
        matches!(
            w.resource::<AssetServer>().load_state(&handle),
            LoadState::Failed(_)
        )
    });
    let LoadState::Failed(error) = h.world().resource::<AssetServer>().load_state(&handle) else {
        unreachable!()
    };
    let message = error.to_string();
    assert!(
        message.contains("typo.forge.ron:9:7: unknown field `childen`"),
        "{message}"
    );
    assert!(message.contains("did you mean `children`?"), "{message}");
}

#[test]
fn missing_assets_fail_the_load_when_checked() {
    let mut h = Harness::new();
    h.add("scenes/platformer.forge.ron", &seed("platformer"));
    let handle = h.load("scenes/platformer.forge.ron");
    h.run_until(|w| {
        matches!(
            w.resource::<AssetServer>().load_state(&handle),
            LoadState::Failed(_)
        )
    });
    let LoadState::Failed(error) = h.world().resource::<AssetServer>().load_state(&handle) else {
        unreachable!()
    };
    assert!(
        error
            .to_string()
            .contains("asset `textures/player.png` does not exist"),
        "{error}"
    );
}

/// A directory whose name ends in `.forge.ron` (a file reader seeks it to a meaningless size) and
/// a 5 GiB sparse file fail to load with an error: nothing is reserved for their "size".
#[test]
fn a_directory_or_a_huge_file_fails_to_load_without_reserving_its_size() {
    use bevy_app::{App, TaskPoolPlugin};
    use bevy_asset::AssetPlugin;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folder.forge.ron")).unwrap();
    std::fs::File::create(dir.path().join("huge.forge.ron"))
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: dir.path().to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    let server = app.world().resource::<AssetServer>().clone();
    let folder = server.load::<Scene>("folder.forge.ron");
    let huge = server.load::<Scene>("huge.forge.ron");
    let failed = |handle| matches!(server.load_state(handle), LoadState::Failed(_));
    let started = std::time::Instant::now();
    while !(failed(&folder) && failed(&huge)) {
        assert!(started.elapsed().as_secs() < 60, "still loading");
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let LoadState::Failed(error) = server.load_state(&huge) else {
        unreachable!()
    };
    let codes: Vec<_> = ForgeSceneLoadError::from_asset_error(&error)
        .map(|e| e.diagnostics().into_iter().map(|d| d.code).collect())
        .unwrap_or_default();
    assert_eq!(codes, ["forge::read::too_large"], "{error}");
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

/// Beyond the message: a missing file fails the load at its entity and field, in a small scene
/// and in a large one (whose asset paths are listed on the validating thread), once per
/// component, after a label (`#Mesh0`) is cut off; a file that exists passes, and
/// `check_assets: false` skips the check.
#[test]
fn missing_asset_files_fail_the_load_at_their_field() {
    const SPRITE: &str = "(type: sprite, data: (image: Some(\"IMAGE\")))";
    const MESH: &str = "(type: mesh3d, data: (mesh: (source: asset, value: \"models/gone.gltf#Mesh0/Primitive0\"), material: (base_color: (r: 1, g: 1, b: 1, a: 1), metallic: 0, perceptual_roughness: 0.5, unlit: false)))";
    for n in [3u64, 6_000] {
        let entities: Vec<String> = (1..=n)
            .map(|id| {
                let components = match id {
                    1 => SPRITE.replace("IMAGE", "textures/here.png"),
                    _ if id == n - 1 => MESH.to_owned(),
                    _ if id == n => SPRITE.replace("IMAGE", "textures/gone.png"),
                    _ => String::new(),
                };
                common::scenes::entity(id, &format!("E{id}"), None, &[], &components)
            })
            .collect();
        let roots: Vec<u64> = (1..=n).collect();
        let text = common::scenes::scene(&entities, &roots);
        let mut h = Harness::new();
        h.add_bytes("textures/here.png", b"not read, only found");
        h.add("level.forge.ron", &text);
        let errors = common::scenes::load_errors(&mut h, "level.forge.ron");
        let found: Vec<(&str, Option<u64>, Option<&str>)> = errors
            .iter()
            .map(|d| (d.code, d.entity, d.path.as_deref()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "forge::asset::missing",
                    Some(n - 1),
                    Some("components[0].data.mesh.value")
                ),
                (
                    "forge::asset::missing",
                    Some(n),
                    Some("components[0].data.image")
                ),
            ],
            "{n} entities: {errors:#?}"
        );
        assert!(
            errors[1].message.contains("textures/gone.png"),
            "{errors:#?}"
        );
        assert!(errors.iter().all(|d| d.position.is_some()), "{errors:#?}");
        // Not checked: the same scene (under another path: the first load's handle stays failed)
        // loads.
        h.add("unchecked.forge.ron", &text);
        let handle: bevy_asset::Handle<Scene> = h
            .world()
            .resource::<AssetServer>()
            .load_builder()
            .with_settings(|s: &mut bevy_forge_scene::ForgeSceneLoaderSettings| {
                s.check_assets = false;
            })
            .load("unchecked.forge.ron");
        let id = handle.id();
        h.run_until(|w| w.resource::<bevy_asset::Assets<Scene>>().contains(id));
    }
}

/// What a game's system ordered after `ForgeSceneSystems::Spawn` saw: the frame it ran and
/// how many scene entities existed then.
#[derive(Resource, Default)]
struct SeenAfterSpawn(Vec<(u32, usize)>);

#[derive(Resource, Default)]
struct Frame(u32);

#[test]
fn a_system_after_the_spawn_set_sees_the_scene_the_frame_it_spawns() {
    let mut h = Harness::with_setup(|app| {
        app.init_resource::<SeenAfterSpawn>()
            .init_resource::<Frame>()
            .add_systems(
                bevy_app::PreUpdate,
                (|mut frame: ResMut<Frame>| frame.0 += 1).before(ForgeSceneSystems::Reload),
            )
            .add_systems(
                bevy_app::PreUpdate,
                (|roots: Query<&ForgeSceneInstance>,
                  ids: Query<&ForgeEntityId>,
                  frame: Res<Frame>,
                  mut seen: ResMut<SeenAfterSpawn>| {
                    if !roots.is_empty() {
                        seen.0.push((frame.0, ids.iter().count()));
                    }
                })
                .after(ForgeSceneSystems::Spawn),
            );
    });
    h.add("garden.forge.ron", &seed("garden"));
    let (root, instance) = h.spawn_scene("garden.forge.ron");
    let seen = &h.world().resource::<SeenAfterSpawn>().0;
    let spawned_in = h.world().resource::<Frame>().0;
    // The first frame the instance exists is the frame the system saw it, whole.
    assert_eq!(
        seen.first(),
        Some(&(spawned_in, instance.len())),
        "{seen:?}"
    );
    assert!(h.world().get::<ForgeSceneInstance>(root).is_some());
}

#[test]
fn the_plugin_works_added_before_the_asset_plugin() {
    let dir = bevy_asset::io::memory::Dir::default();
    dir.insert_asset_text(std::path::Path::new("garden.forge.ron"), &seed("garden"));
    let reader = dir.clone();
    let mut app = bevy_app::App::new();
    app.register_asset_source(
        bevy_asset::io::AssetSourceId::Default,
        bevy_asset::io::AssetSourceBuilder::new(move || {
            Box::new(bevy_asset::io::memory::MemoryAssetReader {
                root: reader.clone(),
            })
        }),
    );
    app.add_plugins((
        bevy_app::TaskPoolPlugin::default(),
        ForgeScenePlugin,
        bevy_asset::AssetPlugin {
            watch_for_changes_override: Some(false),
            use_asset_processor_override: Some(false),
            ..Default::default()
        },
    ));
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<Scene>("garden.forge.ron");
    let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
    for _ in 0..10_000 {
        app.update();
        if app.world().get::<ForgeSceneInstance>(root).is_some() {
            break;
        }
        std::thread::yield_now();
    }
    let instance = app.world().get::<ForgeSceneInstance>(root).unwrap();
    assert_eq!(instance.len(), 2);
}

#[test]
fn without_the_asset_plugin_the_app_runs_and_says_what_to_add() {
    let mut app = bevy_app::App::new();
    app.add_plugins((bevy_app::TaskPoolPlugin::default(), ForgeScenePlugin));
    app.finish();
    app.cleanup();
    // A root without an asset server spawns nothing; nothing panics.
    app.world_mut().spawn(ForgeSceneRoot::default());
    app.update();
    app.update();
    assert!(
        app.world()
            .get_resource::<bevy_asset::Assets<Scene>>()
            .is_none()
    );
}
