//! Hot reload: a changed file is diffed by id and patched into live instances; unchanged
//! entities and components are untouched; a bad edit keeps the last good scene.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_asset::{AssetServer, Assets};
use bevy_ecs::change_detection::ComponentTicks;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::format::{ComponentData, SceneDoc};
use bevy_forge_scene::format::{CustomComponent, CustomField};
use bevy_forge_scene::prelude::*;
use bevy_transform::components::Transform;
use common::harness::Harness;
use common::scenes::edit_in_memory;

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
        Self::start_with(text, |_| {})
    }

    /// Like [`Live::start`], running `setup` on the app first (extra plugins).
    fn start_with(text: &str, setup: impl FnOnce(&mut bevy_app::App)) -> Self {
        let mut h = Harness::with_setup(|app| {
            setup(app);
            app.init_resource::<Log>();
            app.add_observer(|e: On<ForgeSceneReloaded>, mut log: ResMut<Log>| {
                log.reloaded.push(e.event().clone())
            });
            app.add_observer(|e: On<ForgeSceneReloadFailed>, mut log: ResMut<Log>| {
                log.failed.push(e.event().clone())
            });
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

    fn radius(&self, id: u64) -> Option<f32> {
        self.h
            .world()
            .get::<common::Orbit>(self.e(id))
            .map(|o| o.radius)
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

/// The ids of an event's id paths.
fn paths(list: &[ForgeEntityPath]) -> Vec<Vec<u64>> {
    list.iter().map(|p| p.to_vec()).collect()
}

#[test]
fn one_transform_edit_touches_exactly_one_entity() {
    let mut live = Live::start(&base());
    let entities: Vec<(u64, Entity)> = (1..=5).map(|id| (id, live.e(id))).collect();
    let b = live.e(2);
    live.h.app.world_mut().entity_mut(b).insert(AddedByGame);
    let transforms: Vec<ComponentTicks> = (1..=5).map(|id| live.ticks::<Transform>(id)).collect();
    let names: Vec<ComponentTicks> = (1..=5).map(|id| live.ticks::<Name>(id)).collect();
    let lights = live.ticks::<bevy_light::PointLight>(2);

    live.save(&base().replace("(x: 2.0, y: 0.0", "(x: 7.5, y: 0.0"));

    let log = &live.log().reloaded;
    assert_eq!(log.len(), 1);
    assert_eq!(
        (
            paths(&log[0].added),
            paths(&log[0].removed),
            paths(&log[0].changed)
        ),
        (vec![], vec![], vec![vec![3]])
    );
    for (id, entity) in &entities {
        assert_eq!(live.e(*id), *entity, "entity {id} kept its Entity");
    }
    let world = live.h.world();
    assert_eq!(
        world.get::<Transform>(live.e(3)).unwrap().translation.x,
        7.5
    );
    for id in 1..=5u64 {
        let changed = live.ticks::<Transform>(id).changed != transforms[id as usize - 1].changed;
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
    assert_eq!(event.added, [[6], [7]]);
    assert_eq!(event.removed, [[3], [4]]);
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
    assert_eq!(changed, [[2], [3], [4]]);
}

#[test]
fn bad_edit_keeps_last_good_scene_and_next_good_save_applies_once() {
    let mut live = Live::start(&base());
    let ticks: Vec<ComponentTicks> = (1..=5).map(|id| live.ticks::<Transform>(id)).collect();
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
            live.ticks::<Transform>(id).changed,
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
    assert_eq!(changed, [[2], [5]]);
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
    edit_in_memory(&mut live.h, id, |doc| {
        doc.rename(4, "Dee").unwrap();
        let new = doc.add_entity("Added", Some(4)).unwrap();
        doc.add_component(new, ComponentData::Camera3d).unwrap();
    })
    .unwrap();
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
    let (second, _) = live.h.spawn_scene("level.forge.ron");
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

/// Entity `id` without parent or children, at the origin, with `components`.
fn plain_entity(id: u64, name: &str, components: &str) -> String {
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [{components}]),"
    )
}

/// A scene whose roots are `entities`, in order.
fn roots_scene(entities: &[String], next_id: u64) -> String {
    let roots: Vec<String> = entities
        .iter()
        .map(|e| e.split(':').next().unwrap().to_owned())
        .collect();
    format!(
        "(format_version: 1, name: \"R\", entities: {{\n{}\n}}, roots: [{}], next_id: {next_id})",
        entities.join("\n"),
        roots.join(", ")
    )
}

/// A `forge_demo::Orbit` written as `path` (a full or bare type name) with `radius`.
fn orbit_of(path: &str, radius: &str) -> String {
    format!(
        "(type: custom, data: (type_path: \"{path}\", fields: [(name: \"radius\", expr: \"{radius}\"), (name: \"speed\", expr: \"1.0\")]))"
    )
}

/// A file may name a custom type by its bare name (`Orbit`); it loads. A hot reload that changes
/// one of its fields must patch it, and removing it from the file must remove it.
#[test]
fn a_bare_type_name_is_patched_on_reload() {
    let text = |r: &str| roots_scene(&[plain_entity(1, "P", &orbit_of("Orbit", r))], 2);
    let mut live = Live::start(&text("2.0"));
    assert_eq!(live.radius(1), Some(2.0), "bare name loads");
    live.save(&text("3.5"));
    assert_eq!(live.log().reloaded.len(), 1);
    assert_eq!(live.radius(1), Some(3.5), "changed field applied on reload");
}

#[test]
fn a_bare_type_name_is_removed_on_reload() {
    let mut live = Live::start(&roots_scene(
        &[plain_entity(1, "P", &orbit_of("Orbit", "2.0"))],
        2,
    ));
    assert_eq!(live.radius(1), Some(2.0));
    live.save(&roots_scene(&[plain_entity(1, "P", "")], 2));
    assert_eq!(
        live.radius(1),
        None,
        "component removed from the file is removed"
    );
}

/// An in-memory edit that is refused leaves the scene `stale`: its prepared values still
/// describe the old document. A new instance spawned now gets each entity's own last good
/// values (looked up by id, not by position in the edited document).
#[test]
fn a_new_instance_after_a_refused_edit_gets_each_entity_its_own_values() {
    let text = roots_scene(
        &[
            plain_entity(1, "A", &orbit_of("forge_demo::Orbit", "1.0")),
            plain_entity(2, "B", &orbit_of("forge_demo::Orbit", "2.0")),
            plain_entity(3, "C", &orbit_of("forge_demo::Orbit", "3.0")),
        ],
        4,
    );
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    let refused = edit_in_memory(&mut live.h, id, |doc| {
        doc.delete_subtree(1).unwrap();
        // An invalid custom component: the edit is refused.
        doc.add_component(
            3,
            ComponentData::Custom(CustomComponent {
                type_path: "forge_demo::Brain".into(),
                fields: vec![CustomField {
                    name: "hp".into(),
                    expr: "1.5".into(),
                }],
                value: None,
            }),
        )
        .unwrap();
    })
    .unwrap_err();
    assert!(
        refused.iter().any(|d| d.code == "forge::custom::expr"),
        "{refused:?}"
    );
    for _ in 0..5 {
        live.h.app.update();
    }
    // The old instance is untouched (last good scene).
    assert_eq!(live.radius(2), Some(2.0));
    // A second instance of the same scene.
    let (_, inst) = live.h.spawn_scene("level.forge.ron");
    let world = live.h.world();
    let b = inst.entity(2).unwrap();
    let c = inst.entity(3).unwrap();
    let got = (
        world.get::<Name>(b).unwrap().as_str().to_owned(),
        world.get::<common::Orbit>(b).map(|o| o.radius),
        world.get::<Name>(c).unwrap().as_str().to_owned(),
        world.get::<common::Orbit>(c).map(|o| o.radius),
    );
    assert_eq!(
        got,
        ("B".to_owned(), Some(2.0), "C".to_owned(), Some(3.0)),
        "entity B/C of the new instance get their own values"
    );
}

/// Same mismatch without a refusal: an edit made between frames, then a new root spawned before
/// the `Modified` event is handled (the event goes out in PostUpdate, spawning is in PreUpdate).
#[test]
fn a_new_instance_in_the_frame_of_an_edit_gets_each_entity_its_own_values() {
    let text = roots_scene(
        &[
            plain_entity(1, "A", &orbit_of("forge_demo::Orbit", "1.0")),
            plain_entity(2, "B", &orbit_of("forge_demo::Orbit", "2.0")),
        ],
        3,
    );
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    let handle = live.h.load("level.forge.ron");
    edit_in_memory(&mut live.h, id, |doc| {
        doc.delete_subtree(1).unwrap();
    })
    .unwrap();
    let second = live.h.spawn_root(&handle);
    live.h
        .run_until(|w| w.get::<ForgeSceneInstance>(second).is_some());
    for _ in 0..5 {
        live.h.app.update();
    }
    let world = live.h.world();
    let inst = world.get::<ForgeSceneInstance>(second).unwrap();
    let b = inst.entity(2).unwrap();
    assert_eq!(world.get::<common::Orbit>(b).map(|o| o.radius), Some(2.0));
}

/// Hot reload of a large (streamed) scene, into a broken file and back.
#[test]
fn a_large_scene_reloads_into_a_broken_file_and_back() {
    let big = |r: &str, n: u64| {
        let mut es = Vec::new();
        for id in 1..=n {
            let radius = if id == n / 2 {
                r.to_owned()
            } else {
                "2.5".to_owned()
            };
            es.push(plain_entity(
                id,
                &format!("Zoë {id} ✓"),
                &orbit_of("forge_demo::Orbit", &radius),
            ));
        }
        let t = roots_scene(&es, n + 1);
        assert!(t.len() > 1 << 20);
        t
    };
    let n = 5_000;
    let mut live = Live::start(&big("1.0", n));
    assert_eq!(live.radius(n / 2), Some(1.0));
    live.save(&big("4.0", n));
    assert_eq!(live.radius(n / 2), Some(4.0));
    // Broken at the very end: last good stays.
    let broken = big("5.0", n);
    let broken = broken.trim_end_matches(')').to_owned();
    live.save(&broken);
    assert_eq!(live.log().failed.len(), 1);
    let d = &live.log().failed[0].diagnostics[0];
    let expected = SceneDoc::from_str(&broken).unwrap_err();
    assert_eq!(d.position, Some(expected.position()));
    assert_eq!(live.radius(n / 2), Some(4.0));
    // Custom error in a large file: position inside the expression.
    live.save(&big("true", n));
    assert_eq!(live.log().failed.len(), 2);
    assert_eq!(live.radius(n / 2), Some(4.0));
    live.save(&big("6.0", n));
    assert_eq!(live.radius(n / 2), Some(6.0));
    assert_eq!(live.log().reloaded.len(), 2);
}

/// Valid in-memory edits of custom components: changed, added, removed.
#[test]
fn in_memory_custom_edits_apply_and_a_later_save_diffs_against_them() {
    let text = roots_scene(
        &[
            plain_entity(1, "A", &orbit_of("forge_demo::Orbit", "1.0")),
            plain_entity(2, "B", ""),
            plain_entity(3, "C", &orbit_of("forge_demo::Orbit", "3.0")),
        ],
        4,
    );
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    let edit = |live: &mut Live, f: &dyn Fn(&mut SceneDoc)| {
        let before = live.log().reloaded.len();
        edit_in_memory(&mut live.h, id, |doc| f(doc)).unwrap();
        live.h
            .run_until(|w| w.resource::<Log>().reloaded.len() > before);
    };
    let orbit_c = |r: &str| {
        ComponentData::Custom(CustomComponent {
            type_path: "forge_demo::Orbit".into(),
            fields: vec![
                CustomField {
                    name: "radius".into(),
                    expr: r.into(),
                },
                CustomField {
                    name: "speed".into(),
                    expr: "1.0".into(),
                },
            ],
            value: None,
        })
    };
    edit(&mut live, &|d| {
        d.remove_component(1, "custom:forge_demo::Orbit").unwrap();
        d.add_component(1, orbit_c("7.0")).unwrap();
    });
    assert_eq!(live.radius(1), Some(7.0));
    edit(&mut live, &|d| d.add_component(2, orbit_c("8.0")).unwrap());
    assert_eq!(live.radius(2), Some(8.0));
    edit(&mut live, &|d| {
        d.remove_component(3, "custom:forge_demo::Orbit").unwrap();
    });
    assert_eq!(live.radius(3), None);
    assert_eq!(live.radius(1), Some(7.0));
    assert_eq!(live.radius(2), Some(8.0));
    // Then the file is saved with other values: diffed against the edited document.
    live.save(&roots_scene(
        &[
            plain_entity(1, "A", &orbit_of("forge_demo::Orbit", "1.0")),
            plain_entity(2, "B", ""),
            plain_entity(3, "C", &orbit_of("forge_demo::Orbit", "3.0")),
        ],
        4,
    ));
    assert_eq!(live.radius(1), Some(1.0));
    assert_eq!(live.radius(2), None);
    assert_eq!(live.radius(3), Some(3.0));
}

/// A scene loaded but not spawned yet, edited in memory, then spawned: it spawns as edited (an
/// edit in memory gives a scene prepared whole, whether or not an instance is live).
#[test]
fn an_edit_before_the_first_spawn_is_prepared_before_spawning() {
    let mut h = Harness::new();
    let text = roots_scene(
        &[
            plain_entity(1, "A", &orbit_of("forge_demo::Orbit", "1.0")),
            plain_entity(2, "B", &orbit_of("forge_demo::Orbit", "2.0")),
        ],
        3,
    );
    h.add("level.forge.ron", &text);
    let handle = h.load("level.forge.ron");
    let id = handle.id();
    h.run_until(|w| w.resource::<Assets<ForgeScene>>().contains(id));
    edit_in_memory(&mut h, id, |doc| {
        doc.delete_subtree(1).unwrap();
    })
    .unwrap();
    for _ in 0..5 {
        h.app.update();
    }
    let root = h.spawn_root(&handle);
    h.run_until(|w| w.get::<ForgeSceneInstance>(root).is_some());
    let world = h.world();
    let inst = world.get::<ForgeSceneInstance>(root).unwrap();
    let b = inst.entity(2).unwrap();
    assert_eq!(world.get::<Name>(b).unwrap().as_str(), "B");
    assert_eq!(world.get::<common::Orbit>(b).map(|o| o.radius), Some(2.0));
}

/// An entity added in memory, and a new instance spawned in the same frame (before hot reload
/// runs): the new instance has the entity once, and the old instance gets it from hot reload.
#[test]
fn an_entity_added_in_the_frame_of_a_new_instance_is_spawned_once() {
    let text = roots_scene(
        &[plain_entity(1, "A", &orbit_of("forge_demo::Orbit", "1.0"))],
        2,
    );
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    let handle = live.h.load("level.forge.ron");
    let mut added = 0;
    edit_in_memory(&mut live.h, id, |doc| {
        added = doc.add_entity("Added", None).unwrap();
    })
    .unwrap();
    let second = live.h.spawn_root(&handle);
    live.h
        .run_until(|w| !w.resource::<Log>().reloaded.is_empty());
    for _ in 0..3 {
        live.h.app.update();
    }
    let world = live.h.app.world_mut();
    let named: Vec<Entity> = world
        .query::<(Entity, &Name)>()
        .iter(world)
        .filter(|(_, n)| n.as_str() == "Added")
        .map(|(e, _)| e)
        .collect();
    assert_eq!(named.len(), 2, "once per instance: {named:?}");
    for root in [live.root, second] {
        let instance = world.get::<ForgeSceneInstance>(root).unwrap();
        let e = instance.entity(added).unwrap();
        assert!(named.contains(&e));
    }
}

fn has_visibility(live: &Live, id: u64) -> bool {
    live.h
        .world()
        .get::<bevy_camera::visibility::Visibility>(live.e(id))
        .is_some()
}

/// Rendered entities and their scene ancestors get `Visibility` (so hiding an ancestor hides
/// them); entities with nothing rendered at or below them get none. Hot reload keeps this when
/// it adds a rendered component or moves a rendered entity under a plain one.
#[test]
fn visibility_links_rendered_entities_to_their_ancestors_only() {
    // 1 [2 [3]], 4, 5 [6 (sprite)]
    let text = |three: &str, six_parent: u64| {
        let (five_children, four_children): (&[u64], &[u64]) = if six_parent == 5 {
            (&[6], &[])
        } else {
            (&[], &[6])
        };
        scene(
            &[
                entity(1, "A", None, &[2], 0.0, ""),
                entity(2, "B", Some(1), &[3], 0.0, ""),
                entity(3, "C", Some(2), &[], 0.0, three),
                entity(4, "D", None, four_children, 0.0, ""),
                entity(5, "E", None, five_children, 0.0, ""),
                entity(6, "F", Some(six_parent), &[], 0.0, SPRITE),
            ],
            &[1, 4, 5],
            7,
        )
    };
    let mut live = Live::start(&text("", 5));
    let with: Vec<u64> = (1..=6).filter(|id| has_visibility(&live, *id)).collect();
    assert_eq!(with, vec![5, 6], "only the sprite and its parent");
    let root_visibility = live
        .h
        .world()
        .get::<bevy_camera::visibility::Visibility>(live.root);
    assert!(root_visibility.is_some(), "the scene root requires it");

    // A light added deep in the plain subtree, and the sprite moved under the plain root.
    live.save(&text(LIGHT, 4));
    assert_eq!(live.log().reloaded.len(), 1);
    let with: Vec<u64> = (1..=6).filter(|id| has_visibility(&live, *id)).collect();
    assert_eq!(with, vec![1, 2, 3, 4, 5, 6]);
    let world = live.h.world();
    assert_eq!(world.get::<ChildOf>(live.e(6)).unwrap().parent(), live.e(4));
}

// Visibility computed by Bevy's `VisibilityPlugin`: hiding the scene root must hide everything
// drawn in the scene, whoever drew it and whenever.

use bevy_camera::visibility::{InheritedVisibility, Visibility, VisibilityPlugin};

/// A live scene in an app that computes `InheritedVisibility`.
fn live_with_visibility(text: &str) -> Live {
    let mut live = Live::start_with(text, |app| {
        app.add_plugins(VisibilityPlugin);
        bevy_asset::AssetApp::init_asset::<bevy_mesh::skinning::SkinnedMeshInverseBindposes>(app);
    });
    live.h.app.update();
    live
}

impl Live {
    /// Hides the scene root, runs a frame, and says whether `entity` is still visible.
    fn visible_with_root_hidden(&mut self, entity: Entity) -> bool {
        let world = self.h.app.world_mut();
        world.entity_mut(self.root).insert(Visibility::Hidden);
        self.h.app.update();
        let visible = self
            .h
            .world()
            .get::<InheritedVisibility>(entity)
            .unwrap()
            .get();
        let world = self.h.app.world_mut();
        world.entity_mut(self.root).insert(Visibility::Inherited);
        self.h.app.update();
        visible
    }
}

/// 1 [2 [3 [4]]], all plain unless `four` gives 4 components.
fn plain_chain(four: &str) -> String {
    scene(
        &[
            entity(1, "A", None, &[2], 0.0, ""),
            entity(2, "B", Some(1), &[3], 0.0, ""),
            entity(3, "C", Some(2), &[4], 0.0, ""),
            entity(4, "D", Some(3), &[], 0.0, four),
        ],
        &[1],
        5,
    )
}

#[test]
fn what_the_scene_draws_hides_with_the_root_at_spawn_and_after_reload() {
    let mut live = live_with_visibility(&plain_chain(SPRITE));
    let four = live.e(4);
    assert!(!live.visible_with_root_hidden(four));
    let mut live = live_with_visibility(&plain_chain(""));
    live.save(&plain_chain(SPRITE));
    assert!(!live.visible_with_root_hidden(live.e(4)));
}

#[test]
fn what_the_game_draws_under_plain_scene_entities_hides_with_the_root() {
    let mut live = live_with_visibility(&plain_chain(""));
    let (three, four) = (live.e(3), live.e(4));
    let world = live.h.app.world_mut();
    world
        .entity_mut(four)
        .insert(bevy_sprite::Sprite::default());
    let child = world
        .spawn((bevy_sprite::Sprite::default(), ChildOf(three)))
        .id();
    live.h.app.update();
    assert!(
        !live.visible_with_root_hidden(four),
        "sprite on a plain entity"
    );
    assert!(
        !live.visible_with_root_hidden(child),
        "sprite under a plain entity"
    );
}

#[test]
fn a_scene_spawned_under_a_plain_scene_entity_hides_with_the_outer_root() {
    let mut live = live_with_visibility(&plain_chain(""));
    live.h.add(
        "inner.forge.ron",
        &scene(&[entity(1, "S", None, &[], 0.0, SPRITE)], &[1], 2),
    );
    let handle = live.h.load("inner.forge.ron");
    let three = live.e(3);
    let inner = live
        .h
        .app
        .world_mut()
        .spawn((ForgeSceneRoot(handle), ChildOf(three)))
        .id();
    live.h
        .run_until(|w| w.get::<ForgeSceneInstance>(inner).is_some());
    let sprite = live
        .h
        .world()
        .get::<ForgeSceneInstance>(inner)
        .unwrap()
        .entity(1)
        .unwrap();
    live.h.app.update();
    assert!(!live.visible_with_root_hidden(sprite));
}

/// The game shows and hides a plain group itself; a reload then draws something below it.
#[test]
fn visibility_the_game_gives_a_plain_group_keeps_the_chain_to_the_root() {
    let mut live = live_with_visibility(&plain_chain(""));
    let two = live.e(2);
    let world = live.h.app.world_mut();
    world.entity_mut(two).insert(Visibility::Hidden);
    live.h.app.update();
    let world = live.h.app.world_mut();
    world.entity_mut(two).insert(Visibility::Inherited);
    live.save(&plain_chain(SPRITE));
    assert!(!live.visible_with_root_hidden(live.e(4)));
}

/// A game observer that despawns an entity as one of its components arrives (a placeholder the
/// game replaces): spawning and hot reload go on with the other entities, without a panic.
#[test]
fn an_entity_despawned_by_a_game_observer_mid_spawn_or_reload_is_skipped() {
    let orbit = orbit_of("forge_demo::Orbit", "2.0");
    let text = |one: &str, two: &str| {
        roots_scene(
            &[
                plain_entity(1, "A", one),
                plain_entity(2, "B", two),
                plain_entity(3, "C", ""),
            ],
            4,
        )
    };
    let despawn_on_orbit = |app: &mut bevy_app::App| {
        app.add_observer(
            |e: On<bevy_ecs::lifecycle::Add<common::Orbit>>, mut commands: Commands| {
                commands.entity(e.event_target()).despawn();
            },
        );
    };
    // At spawn: with a built-in before the custom component, and with the custom one alone.
    let mut h = Harness::with_setup(despawn_on_orbit);
    h.add(
        "level.forge.ron",
        &text(&format!("{SPRITE}, {orbit}"), &orbit),
    );
    let (_, instance) = h.spawn_scene("level.forge.ron");
    let world = h.world();
    assert!(world.get_entity(instance.entity(1).unwrap()).is_err());
    assert!(world.get_entity(instance.entity(2).unwrap()).is_err());
    assert!(world.get_entity(instance.entity(3).unwrap()).is_ok());

    // On reload: the component added to a live entity, before another change of it.
    let mut live = Live::start_with(&text("", ""), despawn_on_orbit);
    let (one, three) = (live.e(1), live.e(3));
    live.save(&text(&format!("{orbit}, {SPRITE}"), ""));
    assert_eq!(live.log().reloaded.len(), 1);
    assert!(live.h.world().get_entity(one).is_err());
    assert!(live.h.world().get_entity(three).is_ok());
}

// ---- spot lights ----

const SPOT: &str = "(type: spot_light, data: (color: (r: 1, g: 0.5, b: 0.25, a: 1), intensity: 4000, range: 25, radius: 0.1, inner_angle: 15, outer_angle: 30, shadows: true))";

/// Bevy's `SpotLight` of a file's `spot_light`: the angles turned to radians, the rest as
/// written; omitted angles and radius take the format's defaults.
#[test]
fn a_spot_light_spawns_bevys_spot_light_and_reloads_field_by_field() {
    let omitted = "(type: spot_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800, range: 10, shadows: false))";
    let text = |spot: &str| {
        scene(
            &[
                entity(1, "Lamp", None, &[], 0.0, spot),
                entity(2, "Bare", None, &[], 1.0, omitted),
            ],
            &[1, 2],
            3,
        )
    };
    let mut live = Live::start(&text(SPOT));
    let light = |live: &Live, id: u64| {
        live.h
            .world()
            .get::<bevy_light::SpotLight>(live.e(id))
            .cloned()
    };
    let lamp = light(&live, 1).unwrap();
    assert_eq!(lamp.color, bevy_color::Color::srgba(1.0, 0.5, 0.25, 1.0));
    assert_eq!(lamp.intensity, 4000.0);
    assert_eq!(lamp.range, 25.0);
    assert_eq!(lamp.radius, 0.1);
    assert_eq!(lamp.inner_angle, 15f32.to_radians());
    assert_eq!(lamp.outer_angle, 30f32.to_radians());
    assert!(lamp.shadow_maps_enabled);
    let bare = light(&live, 2).unwrap();
    assert_eq!(
        (bare.radius, bare.inner_angle, bare.outer_angle),
        (0.0, 0.0, 45f32.to_radians())
    );
    assert!(!bare.shadow_maps_enabled);

    // One angle edited: that light changes, the other is untouched.
    let untouched = live.ticks::<bevy_light::SpotLight>(2);
    live.save(&text(&SPOT.replace("outer_angle: 30", "outer_angle: 60")));
    assert!(live.log().failed.is_empty());
    assert_eq!(light(&live, 1).unwrap().outer_angle, 60f32.to_radians());
    assert_eq!(light(&live, 1).unwrap().inner_angle, 15f32.to_radians());
    assert_eq!(
        live.ticks::<bevy_light::SpotLight>(2).changed,
        untouched.changed
    );

    // A cone that breaks its rule keeps the last good light.
    live.save(&text(&SPOT.replace("inner_angle: 15", "inner_angle: 80")));
    assert_eq!(live.log().failed.len(), 1);
    assert_eq!(light(&live, 1).unwrap().outer_angle, 60f32.to_radians());

    // Removed from the file: removed from the entity.
    live.save(&text(""));
    assert!(light(&live, 1).is_none());
    assert!(light(&live, 2).is_some());
}
