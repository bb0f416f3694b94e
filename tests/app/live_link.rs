//! The live link on a real app reading real files: where live entities were written
//! (`locate`), what differs from the files (`differences`), live values kept into the text
//! (`keep`: only those lines change, the reload moves nothing) and values set from outside
//! (`set`, refused when they do not validate).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer};
use bevy_ecs::change_detection::ComponentTicks;
use bevy_ecs::component::Component;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::live_link::{
    self, FieldRef, KeepInto, LinkError, LiveLink, SetValue, differences,
};
use bevy_forge_scene::prelude::*;
use bevy_transform::components::Transform;
use common::Orbit;

const LEVEL: &str = r#"// The test level: comments stay through every kept value.
(
  format_version: 1,
  name: "Level",
  entities: {
    1: (
      id: 1,
      name: "Lamp",
      parent: None,
      children: [],
      // Where the lamp hangs.
      transform: (
        translation: (x: 1.0, y: 2.0, z: 3.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [],
      locked: false,
    ),
    2: (
      id: 2,
      name: "Platform",
      parent: None,
      children: [],
      transform: (
        translation: (x: 0.0, y: 0.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [
        (
          type: custom,
          data: (
            type_path: "forge_demo::Orbit",
            fields: [
              (name: "radius", expr: "2.0"), // metres
              (name: "speed", expr: "0.5"),
            ],
          ),
        ),
      ],
      locked: false,
    ),
    3: (
      id: 3,
      name: "Crates",
      parent: None,
      children: [],
      transform: (
        translation: (x: 10.0, y: 0.0, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [],
      locked: false,
      instance: Some((
        scene: "prefabs/crate.forge.ron",
        overrides: [
          (target: [1], name: Some("Big Crate")),
        ],
      )),
    ),
  },
  roots: [1, 2, 3],
  next_id: 4,
)
"#;

const CRATE: &str = r#"(
  format_version: 1,
  name: "Crate",
  entities: {
    1: (
      id: 1,
      name: "Crate",
      parent: None,
      children: [],
      transform: (
        translation: (x: 0.0, y: 0.5, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 1.0, y: 1.0, z: 1.0),
      ),
      components: [
        (
          type: custom,
          data: (
            type_path: "forge_demo::Orbit",
            fields: [
              (name: "radius", expr: "1.0"),
              (name: "speed", expr: "1.0"),
            ],
          ),
        ),
      ],
      locked: false,
    ),
  },
  roots: [1],
  next_id: 2,
)
"#;

const SCENE: &str = "levels/level.forge.ron";
const PREFAB: &str = "prefabs/crate.forge.ron";

#[derive(Resource, Default, Clone)]
struct Reloads(Arc<Mutex<usize>>);

struct Game {
    app: App,
    dir: tempfile::TempDir,
    root: Entity,
}

impl Game {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [(SCENE, LEVEL), (PREFAB, CRATE)] {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let mut app = App::new();
        app.add_plugins((
            TaskPoolPlugin::default(),
            AssetPlugin {
                file_path: dir.path().to_string_lossy().into_owned(),
                watch_for_changes_override: Some(false),
                use_asset_processor_override: Some(false),
                ..Default::default()
            },
            ForgeScenePlugin,
        ));
        app.insert_resource(LiveLink::new(dir.path()));
        let reloads = Reloads::default();
        app.insert_resource(reloads.clone());
        app.add_observer(move |_: On<ForgeSceneReloaded>, r: Res<Reloads>| {
            *r.0.lock().unwrap() += 1;
        });
        app.finish();
        app.cleanup();
        let handle = app.world().resource::<AssetServer>().load(SCENE);
        let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
        let mut game = Game { app, dir, root };
        game.run_until(|w| {
            w.get::<ForgeSceneInstance>(root)
                .is_some_and(|i| i.entity_path(&[3, 1]).is_some())
        });
        game
    }

    fn run_until(&mut self, mut done: impl FnMut(&mut World) -> bool) {
        let started = std::time::Instant::now();
        while started.elapsed().as_secs() < 30 {
            self.app.update();
            if done(self.app.world_mut()) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("not reached in 30 s");
    }

    fn reloads(&self) -> usize {
        *self.app.world().resource::<Reloads>().0.lock().unwrap()
    }

    /// Updates until every file the live link wrote is in place on disk (writes run on the IO
    /// task pool, off the frame).
    fn until_written(&mut self) {
        self.run_until(|world| live_link::pending_writes(world) == 0);
    }

    /// Updates until one more reload has been applied.
    fn until_reloaded(&mut self) {
        let before = self.reloads();
        let reloads = self.app.world().resource::<Reloads>().clone();
        self.run_until(move |_| *reloads.0.lock().unwrap() > before);
        // A few more frames: nothing else may arrive.
        for _ in 0..5 {
            self.app.update();
        }
    }

    fn entity(&self, path: &[u64]) -> Entity {
        self.app
            .world()
            .get::<ForgeSceneInstance>(self.root)
            .unwrap()
            .entity_path(path)
            .unwrap()
    }

    fn text(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(path)).unwrap()
    }

    fn world(&mut self) -> &mut World {
        self.app.world_mut()
    }
}

/// The 1-based line of `text` that holds `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

fn ticks<T: Component>(world: &World, e: Entity) -> ComponentTicks {
    world.entity(e).get_change_ticks::<T>().unwrap()
}

/// The lines of `after` that are not the lines of `before` at the same place (the texts have
/// as many lines), with their 1-based numbers.
fn changed_lines(before: &str, after: &str) -> Vec<(usize, String)> {
    assert_eq!(before.lines().count(), after.lines().count(), "{after}");
    before
        .lines()
        .zip(after.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (_, b))| (i + 1, b.trim().to_owned()))
        .collect()
}

#[test]
fn locate_names_the_lines_of_an_entity_and_both_places_of_a_prefab_entity() {
    let mut game = Game::new();
    let lamp = game.entity(&[1]);
    let located = live_link::locate(game.world(), lamp).unwrap();
    assert_eq!(located.id_path, vec![1]);
    assert_eq!(located.scene, SCENE);
    assert_eq!(located.places.len(), 1);
    let place = &located.places[0];
    assert_eq!(place.kind, "entity");
    let line_of = |text: &str, needle: &str| line_of(text, needle) as u32;
    assert_eq!(place.entry.start.line, line_of(LEVEL, "1: ("));
    let translation = place
        .parts
        .iter()
        .find(|p| p.component == "transform" && p.field.as_deref() == Some("translation"))
        .unwrap();
    assert_eq!(
        translation.range.start.line,
        line_of(LEVEL, "translation: (x: 1.0")
    );

    let platform = game.entity(&[2]);
    let platform = live_link::locate(game.world(), platform).unwrap();
    let speed = platform.places[0]
        .parts
        .iter()
        .find(|p| p.component == "forge_demo::Orbit" && p.field.as_deref() == Some("speed"))
        .unwrap();
    assert_eq!(
        speed.range.start.line,
        line_of(LEVEL, "\"speed\", expr: \"0.5\"")
    );

    // The crate: the override in the level, then its entry in the prefab.
    let crate_entity = game.entity(&[3, 1]);
    let located = live_link::locate(game.world(), crate_entity).unwrap();
    assert_eq!(located.id_path, vec![3, 1]);
    let kinds: Vec<(&str, &str)> = located
        .places
        .iter()
        .map(|p| (p.kind, p.asset.as_str()))
        .collect();
    assert_eq!(kinds, vec![("override", SCENE), ("entity", PREFAB)]);
    assert_eq!(
        located.places[0].entry.start.line,
        line_of(LEVEL, "(target: [1]")
    );
    assert_eq!(located.places[1].entry.start.line, line_of(CRATE, "1: ("));

    // And back.
    let found = live_link::find(game.world(), None, Some(SCENE), &[3, 1]).unwrap();
    assert_eq!(found, crate_entity);
    assert!(matches!(
        live_link::find(game.world(), None, Some(SCENE), &[99]),
        Err(LinkError::NoEntity { .. })
    ));
    let root = game.root;
    assert!(matches!(
        live_link::locate(game.world(), root),
        Err(LinkError::NotInAScene(_))
    ));
}

#[test]
fn keep_writes_exactly_the_changed_lines_and_the_reload_moves_nothing() {
    let mut game = Game::new();
    let (lamp, platform) = (game.entity(&[1]), game.entity(&[2]));
    let root = game.root;
    assert!(differences(game.world(), root).unwrap().is_empty());
    game.world()
        .get_mut::<Transform>(lamp)
        .unwrap()
        .translation
        .x = 4.5;
    game.world().get_mut::<Orbit>(platform).unwrap().speed = 0.75;
    // Runtime state is not a difference: a component the scene does not name.
    game.world().entity_mut(lamp).insert(Orbit::default());

    let diffs = differences(game.world(), root).unwrap();
    let seen: Vec<_> = diffs
        .iter()
        .map(|d| {
            (
                d.id_path.clone(),
                d.component.as_str(),
                d.field.as_deref(),
                d.file.as_deref(),
                d.live.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (
                vec![1],
                "transform",
                Some("translation"),
                Some("(x: 1.0, y: 2.0, z: 3.0)"),
                "(x: 4.5, y: 2.0, z: 3.0)"
            ),
            (
                vec![2],
                "forge_demo::Orbit",
                Some("speed"),
                Some("0.5"),
                "0.75"
            ),
        ]
    );

    // A dry run writes nothing.
    let dry = live_link::keep(game.world(), root, None, KeepInto::Instance, true).unwrap();
    assert!(!dry.written);
    assert_eq!(dry.files.len(), 1);
    assert_eq!(game.text(SCENE), LEVEL);

    let world = game.world();
    let before_ticks = (
        ticks::<Transform>(world, lamp),
        ticks::<Name>(world, lamp),
        ticks::<Transform>(world, platform),
        ticks::<Orbit>(world, platform),
    );
    let kept = live_link::keep(game.world(), root, None, KeepInto::Instance, false).unwrap();
    assert!(kept.written);
    assert_eq!(kept.kept.len(), 2);
    game.until_written();
    let after = game.text(SCENE);
    let changed = changed_lines(LEVEL, &after);
    assert_eq!(
        changed,
        vec![
            (
                line_of(LEVEL, "translation: (x: 1.0"),
                "translation: (x: 4.5, y: 2.0, z: 3.0),".to_owned()
            ),
            (
                line_of(LEVEL, "expr: \"0.5\""),
                "(name: \"speed\", expr: \"0.75\"),".to_owned()
            ),
        ],
        "{after}"
    );
    assert!(after.contains("// Where the lamp hangs.") && after.contains("// metres"));

    game.until_reloaded();
    assert_eq!(game.entity(&[1]), lamp);
    assert_eq!(game.entity(&[2]), platform);
    let world = game.world();
    let after_ticks = (
        ticks::<Transform>(world, lamp),
        ticks::<Name>(world, lamp),
        ticks::<Transform>(world, platform),
        ticks::<Orbit>(world, platform),
    );
    assert_eq!(
        format!("{before_ticks:?}"),
        format!("{after_ticks:?}"),
        "the reload wrote into the world"
    );
    assert_eq!(world.get::<Orbit>(platform).unwrap().speed, 0.75);
    assert!(differences(game.world(), root).unwrap().is_empty());
}

#[test]
fn a_prefab_entity_is_kept_into_the_instance_or_into_the_prefab() {
    let mut game = Game::new();
    let root = game.root;
    let crate_entity = game.entity(&[3, 1]);
    game.world().get_mut::<Orbit>(crate_entity).unwrap().radius = 3.0;
    let change = FieldRef {
        id_path: vec![3, 1],
        component: "forge_demo::Orbit".to_owned(),
        field: Some("radius".to_owned()),
    };
    let ticks_before = ticks::<Orbit>(game.world(), crate_entity);
    let kept = live_link::keep(
        game.world(),
        root,
        Some(std::slice::from_ref(&change)),
        KeepInto::Instance,
        false,
    )
    .unwrap();
    assert_eq!(kept.files.len(), 1);
    assert_eq!(kept.files[0].asset, SCENE);
    game.until_written();
    assert_eq!(game.text(PREFAB), CRATE);
    let level = game.text(SCENE);
    let reread = bevy_forge_scene::format::SceneDoc::from_str(&level)
        .unwrap()
        .doc;
    let o = &reread
        .entity(3)
        .unwrap()
        .instance
        .as_ref()
        .unwrap()
        .overrides[0];
    assert_eq!(o.name.as_deref(), Some("Big Crate"));
    assert_eq!(o.set.len(), 1, "{level}");
    game.until_reloaded();
    assert_eq!(game.entity(&[3, 1]), crate_entity);
    assert_eq!(
        format!("{:?}", ticks::<Orbit>(game.world(), crate_entity)),
        format!("{ticks_before:?}")
    );
    assert!(differences(game.world(), root).unwrap().is_empty());

    // Into the prefab: the prefab's line changes, the scene does not.
    game.world().get_mut::<Orbit>(crate_entity).unwrap().speed = 2.0;
    let level = game.text(SCENE);
    let change = FieldRef {
        field: Some("speed".to_owned()),
        ..change
    };
    let kept = live_link::keep(
        game.world(),
        root,
        Some(std::slice::from_ref(&change)),
        KeepInto::Prefab,
        false,
    )
    .unwrap();
    assert_eq!(kept.files[0].asset, PREFAB);
    game.until_written();
    assert_eq!(game.text(SCENE), level);
    let changed = changed_lines(CRATE, &game.text(PREFAB));
    assert_eq!(
        changed,
        vec![(
            line_of(CRATE, "\"speed\""),
            "(name: \"speed\", expr: \"2.0\"),".to_owned()
        )]
    );

    // The name is overridden in the scene: keeping it into the prefab would hide nothing.
    game.world()
        .get_mut::<Name>(crate_entity)
        .unwrap()
        .set("Huge Crate");
    let name = FieldRef {
        id_path: vec![3, 1],
        component: "name".to_owned(),
        field: None,
    };
    let refused = live_link::keep(
        game.world(),
        root,
        Some(std::slice::from_ref(&name)),
        KeepInto::Prefab,
        false,
    );
    assert!(
        matches!(&refused, Err(LinkError::NoField(m)) if m.contains("override")),
        "{refused:?}"
    );
}

#[test]
fn set_writes_a_value_and_refuses_one_that_does_not_validate() {
    let mut game = Game::new();
    let platform = game.entity(&[2]);
    let value = |component: &str, field: Option<&str>, value: &str| SetValue {
        scene: SCENE.to_owned(),
        id_path: vec![2],
        component: component.to_owned(),
        field: field.map(str::to_owned),
        value: value.to_owned(),
    };
    for (bad, expect) in [
        (
            value("forge_demo::Orbit", Some("radius"), "\"far\""),
            "radius",
        ),
        (
            value("forge_demo::Orbit", Some("radius"), "500.0"),
            "radius",
        ),
        (
            value("transform", Some("translation"), "(x: 1.0)"),
            "vector",
        ),
        (value("sprite", Some("color"), "1.0"), "no component"),
    ] {
        let err = live_link::set(game.world(), &bad, false).unwrap_err();
        assert!(err.to_string().contains(expect), "{err}");
        assert_eq!(game.text(SCENE), LEVEL, "nothing written for {bad:?}");
    }
    let outside = SetValue {
        scene: "../level.forge.ron".to_owned(),
        ..value("name", None, "\"X\"")
    };
    assert!(matches!(
        live_link::set(game.world(), &outside, false),
        Err(LinkError::Path { .. })
    ));
    let unknown = SetValue {
        id_path: vec![77],
        ..value("name", None, "\"X\"")
    };
    assert!(matches!(
        live_link::set(game.world(), &unknown, false),
        Err(LinkError::NoEntity { .. })
    ));

    let set = live_link::set(
        game.world(),
        &value("forge_demo::Orbit", Some("radius"), "7.5"),
        false,
    )
    .unwrap();
    assert!(set.written);
    game.until_written();
    let changed = changed_lines(LEVEL, &game.text(SCENE));
    assert_eq!(
        changed,
        vec![(
            line_of(LEVEL, "\"radius\""),
            "(name: \"radius\", expr: \"7.5\"), // metres".to_owned()
        )]
    );
    game.until_reloaded();
    assert_eq!(game.world().get::<Orbit>(platform).unwrap().radius, 7.5);
}

#[test]
fn a_file_changed_on_disk_meanwhile_is_not_overwritten() {
    let mut game = Game::new();
    let root = game.root;
    let lamp = game.entity(&[1]);
    game.world()
        .get_mut::<Transform>(lamp)
        .unwrap()
        .translation
        .y = 9.0;
    // The link has read the file; someone edits it before the keep.
    live_link::locate(game.world(), lamp).unwrap();
    let file = game.dir.path().join(SCENE);
    let edited = LEVEL.replace("\"Lamp\"", "\"Lantern\"");
    std::fs::write(&file, &edited).unwrap();
    let kept = live_link::keep(game.world(), root, None, KeepInto::Instance, false);
    // Either the link saw the new text (and edits it) or it refuses; it never writes over it.
    let text = std::fs::read_to_string(Path::new(&file)).unwrap();
    assert!(text.contains("\"Lantern\""), "{kept:?}\n{text}");
}

#[test]
fn changed_since_names_only_what_changed_after_the_tick() {
    let mut game = Game::new();
    let root = game.root;
    let lamp = game.entity(&[1]);
    game.app.update();
    let since = game.world().increment_change_tick();
    assert!(
        live_link::changed_since(game.world(), root, since)
            .unwrap()
            .is_none()
    );
    game.world()
        .get_mut::<Transform>(lamp)
        .unwrap()
        .translation
        .z = -1.0;
    let live_link::LiveChanges {
        entities: paths,
        differences: changed,
    } = live_link::changed_since(game.world(), root, since)
        .unwrap()
        .unwrap();
    assert_eq!(paths, vec![vec![1]]);
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0].id_path, vec![1]);
    assert_eq!(changed[0].live, "(x: 1.0, y: 2.0, z: -1.0)");
    // Set back to the file's value: changed, and no longer a difference.
    let since = game.world().increment_change_tick();
    game.world()
        .get_mut::<Transform>(lamp)
        .unwrap()
        .translation
        .z = 3.0;
    let live_link::LiveChanges {
        entities: paths,
        differences: changed,
    } = live_link::changed_since(game.world(), root, since)
        .unwrap()
        .unwrap();
    assert_eq!(paths, vec![vec![1]]);
    assert!(changed.is_empty());
}

#[test]
fn differences_at_gives_the_differences_of_the_entities_asked_for_only() {
    let mut game = Game::new();
    let root = game.root;
    let lamp = game.entity(&[1]);
    let placed = game.entity(&[3, 1]);
    game.world()
        .get_mut::<Transform>(lamp)
        .unwrap()
        .translation
        .z = -1.0;
    game.world()
        .get_mut::<Transform>(placed)
        .unwrap()
        .translation
        .x = 9.0;
    let all = live_link::differences(game.world(), root).unwrap();
    assert_eq!(all.len(), 2);
    let lamp_only = live_link::differences_at(game.world(), root, &[vec![1]]).unwrap();
    assert_eq!(lamp_only, vec![all[0].clone()]);
    assert_eq!(lamp_only[0].id_path, vec![1]);
    let placed_only = live_link::differences_at(game.world(), root, &[vec![3, 1]]).unwrap();
    assert_eq!(placed_only.len(), 1);
    assert_eq!(placed_only[0].id_path, vec![3, 1]);
    // Both, and a path the scene does not have (nothing for it).
    let both =
        live_link::differences_at(game.world(), root, &[vec![3, 1], vec![1], vec![77]]).unwrap();
    assert_eq!(both.len(), 2);
    assert!(
        live_link::differences_at(game.world(), root, &[vec![77]])
            .unwrap()
            .is_empty()
    );
}
