//! Hot reload: a changed file is diffed by id and patched into live instances; unchanged
//! entities and components are untouched; a bad edit keeps the last good scene.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bevy_asset::{AssetServer, Assets};
use bevy_ecs::change_detection::ComponentTicks;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_transform::components::Transform as BevyTransform;
use common::harness::Harness;

fn entity(
    id: u64,
    name: &str,
    parent: Option<u64>,
    children: &[u64],
    x: f32,
    components: &str,
) -> String {
    let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
    let children: Vec<String> = children.iter().map(u64::to_string).collect();
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: {parent}, children: [{}], transform: (translation: (x: {x:?}, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [{components}]),",
        children.join(", ")
    )
}

fn scene(entities: &[String], roots: &[u64], next_id: u64) -> String {
    let roots: Vec<String> = roots.iter().map(u64::to_string).collect();
    format!(
        "(format_version: 1, name: \"R\", entities: {{\n{}\n}}, roots: [{}], next_id: {next_id})",
        entities.join("\n"),
        roots.join(", ")
    )
}

const LIGHT: &str = "(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800, range: 20, shadows: false))";
const SPRITE: &str = "(type: sprite, data: (image: None, color: (r: 1, g: 0, b: 0, a: 1), custom_size: Some((x: 8, y: 8)), flip_x: false, flip_y: false))";

/// A: 1 [2, 3 [4]], 5
fn base() -> String {
    scene(
        &[
            entity(1, "A", None, &[2, 3], 0.0, ""),
            entity(2, "B", Some(1), &[], 1.0, LIGHT),
            entity(3, "C", Some(1), &[4], 2.0, SPRITE),
            entity(4, "D", Some(3), &[], 3.0, ""),
            entity(5, "E", None, &[], 4.0, "(type: camera2d)"),
        ],
        &[1, 5],
        6,
    )
}

#[derive(Component)]
struct AddedByGame;

#[derive(Resource, Default)]
struct Log {
    reloaded: Vec<ForgeSceneReloaded>,
    failed: Vec<ForgeSceneReloadFailed>,
}

struct Live {
    h: Harness,
    root: Entity,
    instance: ForgeSceneInstance,
}

impl Live {
    fn start(text: &str) -> Self {
        let mut h = Harness::new();
        h.app.init_resource::<Log>();
        h.app
            .add_observer(|e: On<ForgeSceneReloaded>, mut log: ResMut<Log>| {
                log.reloaded.push(e.event().clone())
            });
        h.app
            .add_observer(|e: On<ForgeSceneReloadFailed>, mut log: ResMut<Log>| {
                log.failed.push(e.event().clone())
            });
        h.add("level.forge.ron", text);
        let (root, instance) = h.spawn_scene("level.forge.ron");
        Self { h, root, instance }
    }

    /// Saves new text and waits for the reload to be applied or to fail.
    fn save(&mut self, text: &str) {
        let before = (self.log().reloaded.len(), self.log().failed.len());
        self.h.add("level.forge.ron", text);
        self.h
            .app
            .world()
            .resource::<AssetServer>()
            .reload("level.forge.ron");
        self.h.run_until(|w| {
            let log = w.resource::<Log>();
            (log.reloaded.len(), log.failed.len()) != before
        });
        self.h.app.update();
        self.instance = self
            .h
            .world()
            .get::<ForgeSceneInstance>(self.root)
            .unwrap()
            .clone();
    }

    fn log(&self) -> &Log {
        self.h.world().resource::<Log>()
    }

    fn e(&self, id: u64) -> Entity {
        self.instance.entity(id).unwrap()
    }

    fn ticks<T: Component>(&self, id: u64) -> ComponentTicks {
        self.h
            .world()
            .entity(self.e(id))
            .get_change_ticks::<T>()
            .unwrap()
    }

    fn children(&self, entity: Entity) -> Vec<Entity> {
        self.h
            .world()
            .get::<Children>(entity)
            .map(|c| c.iter().collect())
            .unwrap_or_default()
    }
}

#[test]
fn one_transform_edit_touches_exactly_one_entity() {
    let mut live = Live::start(&base());
    let entities: Vec<(u64, Entity)> = (1..=5).map(|id| (id, live.e(id))).collect();
    let b = live.e(2);
    live.h.app.world_mut().entity_mut(b).insert(AddedByGame);
    let transforms: Vec<ComponentTicks> =
        (1..=5).map(|id| live.ticks::<BevyTransform>(id)).collect();
    let names: Vec<ComponentTicks> = (1..=5).map(|id| live.ticks::<Name>(id)).collect();
    let lights = live.ticks::<bevy_light::PointLight>(2);

    live.save(&base().replace("(x: 2.0, y: 0.0", "(x: 7.5, y: 0.0"));

    let log = &live.log().reloaded;
    assert_eq!(log.len(), 1);
    assert_eq!(
        (
            log[0].added.clone(),
            log[0].removed.clone(),
            log[0].changed.clone()
        ),
        (vec![], vec![], vec![3])
    );
    for (id, entity) in &entities {
        assert_eq!(live.e(*id), *entity, "entity {id} kept its Entity");
    }
    let world = live.h.world();
    assert_eq!(
        world.get::<BevyTransform>(live.e(3)).unwrap().translation.x,
        7.5
    );
    for id in 1..=5u64 {
        let changed =
            live.ticks::<BevyTransform>(id).changed != transforms[id as usize - 1].changed;
        assert_eq!(changed, id == 3, "Transform of {id} changed: {changed}");
        assert_eq!(
            live.ticks::<Name>(id).changed,
            names[id as usize - 1].changed,
            "Name of {id} untouched"
        );
    }
    assert_eq!(
        live.ticks::<bevy_light::PointLight>(2).changed,
        lights.changed
    );
    assert!(
        world.get::<AddedByGame>(live.e(2)).is_some(),
        "runtime components stay"
    );
}

#[test]
fn entities_are_added_removed_reparented_and_reordered_in_place() {
    let mut live = Live::start(&base());
    let (a, b, e) = (live.e(1), live.e(2), live.e(5));
    let (c, d) = (live.e(3), live.e(4));
    // Remove 3 (and 4), add 6 under 1 before 2, move 5 under 1 at the end, and add 7 as a root.
    let edited = scene(
        &[
            entity(1, "A", None, &[6, 2, 5], 0.0, ""),
            entity(2, "B", Some(1), &[], 1.0, LIGHT),
            entity(5, "E", Some(1), &[], 4.0, "(type: camera2d)"),
            entity(6, "F", Some(1), &[], 5.0, SPRITE),
            entity(7, "G", None, &[], 6.0, ""),
        ],
        &[7, 1],
        8,
    );
    live.save(&edited);
    let event = live.log().reloaded[0].clone();
    assert_eq!(event.added, vec![6, 7]);
    assert_eq!(event.removed, vec![3, 4]);
    let world = live.h.world();
    assert!(
        world.get_entity(c).is_err() && world.get_entity(d).is_err(),
        "removed subtree despawned"
    );
    assert_eq!(live.e(1), a);
    assert_eq!(live.e(2), b);
    assert_eq!(live.e(5), e, "moved, not respawned");
    assert_eq!(live.children(a), vec![live.e(6), b, e]);
    assert_eq!(live.children(live.root), vec![live.e(7), a]);
    assert_eq!(world.get::<ChildOf>(e).unwrap().parent(), a);
    assert!(world.get::<bevy_sprite::Sprite>(live.e(6)).is_some());
    assert_eq!(
        world.get::<ForgeEntityId>(live.e(7)),
        Some(&ForgeEntityId(7))
    );
    assert!(live.instance.entity(3).is_none());
}

#[test]
fn components_are_added_changed_and_removed() {
    let mut live = Live::start(&base());
    let edited = base()
        .replace("intensity: 800", "intensity: 1600")
        .replace(&format!("components: [{SPRITE}]"), "components: [(type: visibility, data: hidden)]")
        .replace("\"D\", parent: Some(3), children: [], transform: (translation: (x: 3.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: []", &format!("\"D\", parent: Some(3), children: [], transform: (translation: (x: 3.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [{LIGHT}]"));
    assert_ne!(edited, base());
    live.save(&edited);
    let world = live.h.world();
    assert_eq!(
        world
            .get::<bevy_light::PointLight>(live.e(2))
            .unwrap()
            .intensity,
        1600.0
    );
    assert!(
        world.get::<bevy_sprite::Sprite>(live.e(3)).is_none(),
        "sprite removed"
    );
    assert_eq!(
        world.get::<bevy_camera::visibility::Visibility>(live.e(3)),
        Some(&bevy_camera::visibility::Visibility::Hidden)
    );
    assert_eq!(
        world
            .get::<bevy_light::PointLight>(live.e(4))
            .unwrap()
            .range,
        20.0
    );
    let mut changed = live.log().reloaded[0].changed.clone();
    changed.sort();
    assert_eq!(changed, vec![2, 3, 4]);
}

#[test]
fn bad_edit_keeps_last_good_scene_and_next_good_save_applies_once() {
    let mut live = Live::start(&base());
    let ticks: Vec<ComponentTicks> = (1..=5).map(|id| live.ticks::<BevyTransform>(id)).collect();
    // A syntax error, then a validation error: each fails with positions and changes nothing.
    live.save(&base().replace("children: [2, 3]", "childen: [2, 3]"));
    live.save(&base().replace("range: 20", "range: 0"));
    let failed = live.log().failed.clone();
    assert_eq!(failed.len(), 2);
    let syntax = &failed[0].diagnostics[0];
    assert_eq!(syntax.code, "forge::read::unknown_field");
    assert_eq!(syntax.position.map(|p| p.line), Some(2));
    let range = failed[1]
        .diagnostics
        .iter()
        .find(|d| d.code == "forge::light::range")
        .unwrap();
    assert_eq!(range.entity, Some(2));
    assert!(range.position.is_some_and(|p| p.line == 3 && p.column > 1));
    assert!(live.log().reloaded.is_empty(), "nothing applied");
    for id in 1..=5u64 {
        assert_eq!(
            live.ticks::<BevyTransform>(id).changed,
            ticks[id as usize - 1].changed
        );
    }
    // Bevy keeps the last good asset in `Assets` after a failed reload.
    let scenes = live.h.world().resource::<Assets<ForgeScene>>();
    let scene = scenes
        .get(live.instance.scene())
        .expect("the last good asset is still there");
    assert_eq!(scene.doc().entity(2).unwrap().components.len(), 1);
    assert_eq!(
        live.h
            .world()
            .get::<bevy_light::PointLight>(live.e(2))
            .unwrap()
            .range,
        20.0
    );
    // The next good save is diffed against the last good document.
    live.save(
        &base()
            .replace("range: 20", "range: 30")
            .replace("\"E\"", "\"Eve\""),
    );
    let reloaded = &live.log().reloaded;
    assert_eq!(reloaded.len(), 1);
    let mut changed = reloaded[0].changed.clone();
    changed.sort();
    assert_eq!(changed, vec![2, 5]);
    assert_eq!(
        live.h
            .world()
            .get::<bevy_light::PointLight>(live.e(2))
            .unwrap()
            .range,
        30.0
    );
    assert_eq!(
        live.h.world().get::<Name>(live.e(5)).unwrap().as_str(),
        "Eve"
    );
}

#[test]
fn saving_the_same_text_twice_applies_nothing_the_second_time() {
    let mut live = Live::start(&base());
    let edited = base().replace("\"B\"", "\"Bee\"");
    live.save(&edited);
    let ticks = live.ticks::<Name>(2);
    // A burst: the same content saved again, reloaded twice in one frame.
    live.h.add("level.forge.ron", &edited);
    live.h
        .app
        .world()
        .resource::<AssetServer>()
        .reload("level.forge.ron");
    live.h
        .app
        .world()
        .resource::<AssetServer>()
        .reload("level.forge.ron");
    for _ in 0..50 {
        live.h.app.update();
        std::thread::yield_now();
    }
    assert_eq!(
        live.log().reloaded.len(),
        1,
        "only the first save applied anything"
    );
    assert_eq!(live.ticks::<Name>(2).changed, ticks.changed);
}

#[test]
fn in_memory_edits_go_through_the_same_path() {
    let mut live = Live::start(&base());
    let id = live.instance.scene();
    {
        let mut scenes = live.h.app.world_mut().resource_mut::<Assets<ForgeScene>>();
        let mut scene = scenes.get_mut(id).unwrap();
        let doc = scene.doc_mut();
        doc.rename(4, "Dee").unwrap();
        let new = doc.add_entity("Added", Some(4)).unwrap();
        doc.add_component(new, ComponentData::Camera3d).unwrap();
    }
    live.h
        .run_until(|w| !w.resource::<Log>().reloaded.is_empty());
    live.instance = live
        .h
        .world()
        .get::<ForgeSceneInstance>(live.root)
        .unwrap()
        .clone();
    let world = live.h.world();
    assert_eq!(world.get::<Name>(live.e(4)).unwrap().as_str(), "Dee");
    let added = live.e(6);
    assert_eq!(world.get::<ChildOf>(added).unwrap().parent(), live.e(4));
    assert!(world.get::<bevy_camera::Camera3d>(added).is_some());
}

#[test]
fn entities_the_game_despawned_or_moved_are_handled() {
    let mut live = Live::start(&base());
    // The game despawns 4 and moves 2 under its own entity.
    let own = live.h.app.world_mut().spawn_empty().id();
    let (d, b) = (live.e(4), live.e(2));
    live.h.app.world_mut().entity_mut(d).despawn();
    live.h.app.world_mut().entity_mut(b).insert(ChildOf(own));
    // The file changes 4, adds a child under 4, and renames 2.
    let edited = scene(
        &[
            entity(1, "A", None, &[2, 3], 0.0, ""),
            entity(2, "Bee", Some(1), &[], 1.0, LIGHT),
            entity(3, "C", Some(1), &[4], 2.0, SPRITE),
            entity(4, "Dee", Some(3), &[6], 3.0, ""),
            entity(5, "E", None, &[], 4.0, "(type: camera2d)"),
            entity(6, "F", Some(4), &[], 0.0, ""),
        ],
        &[1, 5],
        7,
    );
    live.save(&edited);
    let world = live.h.world();
    assert!(
        live.instance.entity(4).is_none(),
        "a despawned entity leaves the map"
    );
    assert!(
        live.instance.entity(6).is_none(),
        "nothing is spawned under a despawned entity"
    );
    assert_eq!(
        world.get::<Name>(b).unwrap().as_str(),
        "Bee",
        "a moved entity is still patched"
    );
    assert_eq!(
        world.get::<ChildOf>(b).unwrap().parent(),
        own,
        "and keeps the game's parent"
    );
    let named_f = world
        .iter_entities()
        .filter(|e| e.get::<Name>().is_some_and(|n| n.as_str() == "F"))
        .count();
    assert_eq!(named_f, 0, "no orphan duplicate");
}

fn orbit(radius: &str, speed: &str) -> String {
    format!(
        "(type: custom, data: (type_path: \"forge_demo::Orbit\", fields: [(name: \"radius\", expr: \"{radius}\"), (name: \"speed\", expr: \"{speed}\")]))"
    )
}

#[test]
fn custom_components_reload_only_the_changed_fields() {
    let text = |radius: &str, extra: &str| {
        scene(
            &[entity(
                1,
                "Planet",
                None,
                &[],
                0.0,
                &format!("{}{extra}", orbit(radius, "-0.5")),
            )],
            &[1],
            2,
        )
    };
    let mut live = Live::start(&text("2.0", ""));
    let planet = live.e(1);
    assert_eq!(
        live.h.world().get::<common::Orbit>(planet).unwrap().radius,
        2.0
    );
    // The game changes the axis (a field the file does not set) at runtime.
    live.h
        .app
        .world_mut()
        .get_mut::<common::Orbit>(planet)
        .unwrap()
        .axis = bevy_math::Vec3::Z;
    live.save(&text("3.5", ""));
    let world = live.h.world();
    let orbit_now = world.get::<common::Orbit>(planet).unwrap();
    assert_eq!(orbit_now.radius, 3.5, "the changed field is set");
    assert_eq!(orbit_now.speed, -0.5);
    assert_eq!(
        orbit_now.axis,
        bevy_math::Vec3::Z,
        "fields the file does not set keep live values"
    );
    // A bad expression fails the reload and keeps the live value.
    live.save(&text("true", ""));
    assert_eq!(
        live.log().failed.last().unwrap().diagnostics[0].code,
        "forge::custom::expr"
    );
    assert_eq!(
        live.h.world().get::<common::Orbit>(planet).unwrap().radius,
        3.5
    );
    // Removing the component removes it.
    live.save(&scene(&[entity(1, "Planet", None, &[], 0.0, "")], &[1], 2));
    assert!(live.h.world().get::<common::Orbit>(planet).is_none());
}

#[test]
fn a_hundred_alternating_reloads_leave_no_ghosts() {
    let with_subtree = base();
    let without = scene(
        &[
            entity(1, "A", None, &[2], 0.0, ""),
            entity(2, "B", Some(1), &[], 1.0, LIGHT),
            entity(5, "E", None, &[], 4.0, "(type: camera2d)"),
        ],
        &[1, 5],
        6,
    );
    let mut live = Live::start(&with_subtree);
    let count = |live: &mut Live| {
        let world = live.h.app.world_mut();
        world.query::<&ForgeEntityId>().iter(world).count()
    };
    assert_eq!(count(&mut live), 5);
    for i in 0..100 {
        let text = if i % 2 == 0 { &without } else { &with_subtree };
        live.save(text);
        let expected = if i % 2 == 0 { 3 } else { 5 };
        assert_eq!(count(&mut live), expected, "after reload {i}");
        assert_eq!(live.instance.len(), expected);
    }
    assert_eq!(live.log().reloaded.len(), 100);
}

#[test]
fn every_instance_of_a_scene_is_patched() {
    let mut live = Live::start(&base());
    let handle = live.h.load("level.forge.ron");
    let second = live.h.spawn_root(&handle);
    live.h
        .run_until(|w| w.get::<ForgeSceneInstance>(second).is_some());
    live.save(&base().replace("\"C\"", "\"Sea\""));
    let world = live.h.world();
    let a = world.get::<ForgeSceneInstance>(live.root).unwrap();
    let b = world.get::<ForgeSceneInstance>(second).unwrap();
    assert_ne!(a.entity(3), b.entity(3));
    for instance in [a, b] {
        assert_eq!(
            world
                .get::<Name>(instance.entity(3).unwrap())
                .unwrap()
                .as_str(),
            "Sea"
        );
    }
    assert_eq!(live.log().reloaded.len(), 2, "one event per instance");
}
