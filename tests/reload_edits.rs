//! Hot reload and in-memory edits: bare custom type names, new instances of a scene edited in
//! memory (before and after the edit is prepared, and when it is refused), and large scenes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bevy_asset::{AssetServer, Assets};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::format::{CustomComponent, CustomField};
use bevy_forge_scene::prelude::*;
use common::Orbit;
use common::harness::Harness;

fn entity(id: u64, name: &str, components: &str) -> String {
    format!(
        "{id}: (id: {id}, name: \"{name}\", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [{components}]),"
    )
}

fn scene(entities: &[String], next_id: u64) -> String {
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

fn orbit(path: &str, radius: &str) -> String {
    format!(
        "(type: custom, data: (type_path: \"{path}\", fields: [(name: \"radius\", expr: \"{radius}\"), (name: \"speed\", expr: \"1.0\")]))"
    )
}

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

    fn radius(&self, id: u64) -> Option<f32> {
        self.h.world().get::<Orbit>(self.e(id)).map(|o| o.radius)
    }
}

/// A file may name a custom type by its bare name (`Orbit`); it loads. A hot reload that changes
/// one of its fields must patch it, and removing it from the file must remove it.
#[test]
fn a_bare_type_name_is_patched_on_reload() {
    let text = |r: &str| scene(&[entity(1, "P", &orbit("Orbit", r))], 2);
    let mut live = Live::start(&text("2.0"));
    assert_eq!(live.radius(1), Some(2.0), "bare name loads");
    live.save(&text("3.5"));
    assert_eq!(live.log().reloaded.len(), 1);
    assert_eq!(live.radius(1), Some(3.5), "changed field applied on reload");
}

#[test]
fn a_bare_type_name_is_removed_on_reload() {
    let mut live = Live::start(&scene(&[entity(1, "P", &orbit("Orbit", "2.0"))], 2));
    assert_eq!(live.radius(1), Some(2.0));
    live.save(&scene(&[entity(1, "P", "")], 2));
    assert_eq!(
        live.radius(1),
        None,
        "component removed from the file is removed"
    );
}

/// An in-memory edit that is refused leaves the scene `stale`: its `prepared`/`custom` still
/// describe the old document, indexed by position. A new instance of the scene spawned now
/// mixes the edited document with the old prepared values.
#[test]
fn a_new_instance_after_a_refused_edit_gets_each_entity_its_own_values() {
    let text = scene(
        &[
            entity(1, "A", &orbit("forge_demo::Orbit", "1.0")),
            entity(2, "B", &orbit("forge_demo::Orbit", "2.0")),
            entity(3, "C", &orbit("forge_demo::Orbit", "3.0")),
        ],
        4,
    );
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    {
        let mut scenes = live.h.app.world_mut().resource_mut::<Assets<ForgeScene>>();
        let mut scene = scenes.get_mut(id).unwrap();
        let doc = scene.doc_mut();
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
            }),
        )
        .unwrap();
    }
    live.h.run_until(|w| !w.resource::<Log>().failed.is_empty());
    // The old instance is untouched (last good scene).
    assert_eq!(live.radius(2), Some(2.0));
    // A second instance of the same scene.
    let handle = live.h.load("level.forge.ron");
    let second = live.h.spawn_root(&handle);
    live.h
        .run_until(|w| w.get::<ForgeSceneInstance>(second).is_some());
    let world = live.h.world();
    let inst = world.get::<ForgeSceneInstance>(second).unwrap();
    let b = inst.entity(2).unwrap();
    let c = inst.entity(3).unwrap();
    let got = (
        world.get::<Name>(b).unwrap().as_str().to_owned(),
        world.get::<Orbit>(b).map(|o| o.radius),
        world.get::<Name>(c).unwrap().as_str().to_owned(),
        world.get::<Orbit>(c).map(|o| o.radius),
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
    let text = scene(
        &[
            entity(1, "A", &orbit("forge_demo::Orbit", "1.0")),
            entity(2, "B", &orbit("forge_demo::Orbit", "2.0")),
        ],
        3,
    );
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    let handle = live.h.load("level.forge.ron");
    {
        let mut scenes = live.h.app.world_mut().resource_mut::<Assets<ForgeScene>>();
        let mut scene = scenes.get_mut(id).unwrap();
        scene.doc_mut().delete_subtree(1).unwrap();
    }
    let second = live.h.spawn_root(&handle);
    live.h
        .run_until(|w| w.get::<ForgeSceneInstance>(second).is_some());
    for _ in 0..5 {
        live.h.app.update();
    }
    let world = live.h.world();
    let inst = world.get::<ForgeSceneInstance>(second).unwrap();
    let b = inst.entity(2).unwrap();
    assert_eq!(world.get::<Orbit>(b).map(|o| o.radius), Some(2.0));
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
            es.push(entity(
                id,
                &format!("Zoë {id} ✓"),
                &orbit("forge_demo::Orbit", &radius),
            ));
        }
        let t = scene(&es, n + 1);
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
    let text = scene(
        &[
            entity(1, "A", &orbit("forge_demo::Orbit", "1.0")),
            entity(2, "B", ""),
            entity(3, "C", &orbit("forge_demo::Orbit", "3.0")),
        ],
        4,
    );
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    let edit = |live: &mut Live, f: &dyn Fn(&mut SceneDoc)| {
        let before = live.log().reloaded.len();
        {
            let mut scenes = live.h.app.world_mut().resource_mut::<Assets<ForgeScene>>();
            let mut scene = scenes.get_mut(id).unwrap();
            f(scene.doc_mut());
        }
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
    live.save(&scene(
        &[
            entity(1, "A", &orbit("forge_demo::Orbit", "1.0")),
            entity(2, "B", ""),
            entity(3, "C", &orbit("forge_demo::Orbit", "3.0")),
        ],
        4,
    ));
    assert_eq!(live.radius(1), Some(1.0));
    assert_eq!(live.radius(2), None);
    assert_eq!(live.radius(3), Some(3.0));
}

/// A scene loaded but not spawned yet, edited in memory, then spawned: the edit is never
/// prepared (no live instance, so `reload_scene` returns before `prepare_again`).
#[test]
fn an_edit_before_the_first_spawn_is_prepared_before_spawning() {
    let mut h = Harness::new();
    let text = scene(
        &[
            entity(1, "A", &orbit("forge_demo::Orbit", "1.0")),
            entity(2, "B", &orbit("forge_demo::Orbit", "2.0")),
        ],
        3,
    );
    h.add("level.forge.ron", &text);
    let handle = h.load("level.forge.ron");
    let id = handle.id();
    h.run_until(|w| w.resource::<Assets<ForgeScene>>().contains(id));
    {
        let mut scenes = h.app.world_mut().resource_mut::<Assets<ForgeScene>>();
        let mut scene = scenes.get_mut(id).unwrap();
        scene.doc_mut().delete_subtree(1).unwrap();
    }
    for _ in 0..5 {
        h.app.update();
    }
    let root = h.spawn_root(&handle);
    h.run_until(|w| w.get::<ForgeSceneInstance>(root).is_some());
    let world = h.world();
    let inst = world.get::<ForgeSceneInstance>(root).unwrap();
    let b = inst.entity(2).unwrap();
    assert_eq!(world.get::<Name>(b).unwrap().as_str(), "B");
    assert_eq!(world.get::<Orbit>(b).map(|o| o.radius), Some(2.0));
}

/// An entity added in memory, and a new instance spawned in the same frame (before hot reload
/// runs): the new instance has the entity once, and the old instance gets it from hot reload.
#[test]
fn an_entity_added_in_the_frame_of_a_new_instance_is_spawned_once() {
    let text = scene(&[entity(1, "A", &orbit("forge_demo::Orbit", "1.0"))], 2);
    let mut live = Live::start(&text);
    let id = live.instance.scene();
    let handle = live.h.load("level.forge.ron");
    let added = {
        let mut scenes = live.h.app.world_mut().resource_mut::<Assets<ForgeScene>>();
        let mut scene = scenes.get_mut(id).unwrap();
        scene.doc_mut().add_entity("Added", None).unwrap()
    };
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
