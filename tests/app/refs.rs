//! Entity references (`#7`, `#7/2`) in custom component fields, through the real
//! `AssetServer`: every field shape gets the live entity, hooks see final ids, bad references
//! fail at their line and column, references reach into prefab instances, hot reload
//! re-resolves them, and offline checks report what the loader reports.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use bevy_asset::{AssetServer, Assets};
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_ecs::world::DeferredWorld;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::prelude::*;
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;
use common::harness::Harness;
use common::scenes::*;

/// A leg of a route: a struct nested in a component.
#[derive(Reflect, Debug, Clone, PartialEq)]
#[reflect(Default)]
struct Leg {
    to: Entity,
    wait: f32,
}

impl Default for Leg {
    fn default() -> Self {
        Self {
            to: Entity::PLACEHOLDER,
            wait: 0.0,
        }
    }
}

/// What a guard does: references in enum payloads.
#[derive(Reflect, Default, Debug, Clone, PartialEq)]
#[reflect(Default)]
enum Order {
    #[default]
    Idle,
    Follow(Entity),
    Guard {
        post: Entity,
        radius: f32,
    },
}

/// Every shape a reference can take.
#[derive(Component, Reflect, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "refs_test::Links")]
struct Links {
    target: Entity,
    maybe: Option<Entity>,
    route: Vec<Entity>,
    pair: [Entity; 2],
    tagged: (String, Entity),
    leg: Leg,
    order: Order,
    hp: u32,
}

impl Default for Links {
    fn default() -> Self {
        Self {
            target: Entity::PLACEHOLDER,
            maybe: None,
            route: Vec::new(),
            pair: [Entity::PLACEHOLDER; 2],
            tagged: (String::new(), Entity::PLACEHOLDER),
            leg: Leg::default(),
            order: Order::Idle,
            hp: 0,
        }
    }
}

/// What the `Watch` hook saw: the entity, its parent, the watched entity and its name.
#[derive(Resource, Default, Debug)]
struct Seen(Vec<(Entity, Option<Entity>, Entity, Option<String>)>);

/// A component whose `on_insert` hook reads the entity it names.
#[derive(Component, Reflect, Debug, ForgeComponent)]
#[reflect(Component, Default)]
#[component(on_insert = watch_inserted)]
#[forge(type_path = "refs_test::Watch")]
struct Watch {
    watched: Entity,
}

impl Default for Watch {
    fn default() -> Self {
        Self {
            watched: Entity::PLACEHOLDER,
        }
    }
}

fn watch_inserted(mut world: DeferredWorld, ctx: HookContext) {
    let watched = world.get::<Watch>(ctx.entity).unwrap().watched;
    let parent = world.get::<ChildOf>(ctx.entity).map(ChildOf::parent);
    let name = world.get::<Name>(watched).map(|n| n.as_str().to_owned());
    if let Some(mut seen) = world.get_resource_mut::<Seen>() {
        seen.0.push((ctx.entity, parent, watched, name));
    }
}

fn harness() -> Harness {
    Harness::with_setup(|app| {
        log_reloads(app);
        app.init_resource::<Seen>();
    })
}

/// Door 1 (with `links`), lever 2, guard 3 under the door, post 4.
fn level(links: &[(&str, &str)]) -> String {
    scene(
        &[
            entity(1, "Door", None, &[3], &custom("refs_test::Links", links)),
            entity(2, "Lever", None, &[], ""),
            entity(3, "Guard", Some(1), &[], ""),
            entity(4, "Post", None, &[], ""),
        ],
        &[1, 2, 4],
    )
}

const EVERY_SHAPE: &[(&str, &str)] = &[
    ("target", "#2"),
    ("maybe", "Some(#3)"),
    ("route", "vec![#4, #2, #4]"),
    ("pair", "[#1, #3]"),
    ("tagged", "(\"lever\", #2)"),
    ("leg", "Leg { to: #4, wait: 2.5 }"),
    ("order", "Order::Guard { post: #4, radius: 3.0 }"),
    ("hp", "7"),
];

fn links(h: &Harness, entity: Entity) -> &Links {
    h.world()
        .get::<Links>(entity)
        .expect("the entity has Links")
}

#[test]
fn every_field_shape_gets_the_live_entity() {
    let mut h = harness();
    h.add("level.forge.ron", &level(EVERY_SHAPE));
    let (_, instance) = h.spawn_scene("level.forge.ron");
    let e = |id| instance.entity(id).unwrap();
    let door = links(&h, e(1));
    let expected = Links {
        target: e(2),
        maybe: Some(e(3)),
        route: vec![e(4), e(2), e(4)],
        pair: [e(1), e(3)],
        tagged: ("lever".into(), e(2)),
        leg: Leg {
            to: e(4),
            wait: 2.5,
        },
        order: Order::Guard {
            post: e(4),
            radius: 3.0,
        },
        hp: 7,
    };
    assert_eq!(door, &expected);
    // A tuple variant, and a reference to the entity itself.
    let text = level(&[("target", "#1"), ("order", "Order::Follow(#3)")]);
    h.add("self.forge.ron", &text);
    let (_, instance) = h.spawn_scene("self.forge.ron");
    let door = links(&h, instance.entity(1).unwrap());
    assert_eq!(door.target, instance.entity(1).unwrap());
    assert_eq!(door.order, Order::Follow(instance.entity(3).unwrap()));
}

#[test]
fn instances_of_one_scene_each_get_their_own_entities() {
    let mut h = harness();
    h.add("level.forge.ron", &level(EVERY_SHAPE));
    let (_, first) = h.spawn_scene("level.forge.ron");
    let (_, second) = h.spawn_scene("level.forge.ron");
    assert_ne!(first.entity(2), second.entity(2));
    assert_eq!(
        links(&h, first.entity(1).unwrap()).target,
        first.entity(2).unwrap()
    );
    assert_eq!(
        links(&h, second.entity(1).unwrap()).target,
        second.entity(2).unwrap()
    );
    // The inverse map of each instance.
    for (path, entity) in first.iter() {
        assert_eq!(first.id_of(entity), Some(path[0]));
        assert_eq!(first.path_of(entity).unwrap(), *path);
        assert_eq!(second.id_of(entity), None);
    }
}

#[test]
fn insert_hooks_see_final_ids_and_parents() {
    let mut h = harness();
    // The guard (3, a child of the door) watches the post (4), which spawns after it; the door
    // watches the guard, its child, which spawns after it too.
    let text = scene(
        &[
            entity(
                1,
                "Door",
                None,
                &[3],
                &custom("refs_test::Watch", &[("watched", "#3")]),
            ),
            entity(
                3,
                "Guard",
                Some(1),
                &[],
                &custom("refs_test::Watch", &[("watched", "#4")]),
            ),
            entity(4, "Post", None, &[], ""),
        ],
        &[1, 4],
    );
    h.add("hooks.forge.ron", &text);
    let (root, instance) = h.spawn_scene("hooks.forge.ron");
    let e = |id| instance.entity(id).unwrap();
    let mut seen = h.world().resource::<Seen>().0.clone();
    seen.sort_by_key(|s| s.0);
    let mut expected = vec![
        (e(1), Some(root), e(3), Some("Guard".to_owned())),
        (e(3), Some(e(1)), e(4), Some("Post".to_owned())),
    ];
    expected.sort_by_key(|s| s.0);
    assert_eq!(seen, expected);
}

#[test]
fn a_dangling_reference_fails_the_load_at_its_column_with_nearby_ids() {
    let mut h = harness();
    let text = level(&[("target", "#2"), ("route", "vec![#4, #5]")]);
    h.add("bad.forge.ron", &text);
    let errors = load_errors(&mut h, "bad.forge.ron");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let d = &errors[0];
    assert_eq!(d.code, "forge::custom::reference");
    assert_eq!(d.entity, Some(1));
    let p = d.position.unwrap();
    assert_eq!((p.line, p.column), position_of(&text, "#5", 0));
    assert!(d.message.contains("`#5`"), "{}", d.message);
    assert!(d.message.contains("`route`"), "{}", d.message);
    // The nearest ids first, with their names.
    assert!(
        d.message.contains("did you mean `#4` (\"Post\")"),
        "{}",
        d.message
    );
    // A digit too many: the id one keystroke away comes first.
    h.add("typo.forge.ron", &level(&[("target", "#11")]));
    let errors = load_errors(&mut h, "typo.forge.ron");
    assert!(
        errors[0].message.contains("did you mean `#1` (\"Door\")"),
        "{}",
        errors[0].message
    );
}

#[test]
fn a_reference_where_no_entity_goes_is_a_type_error() {
    let mut h = harness();
    let text = level(&[("hp", "#2")]);
    h.add("bad.forge.ron", &text);
    let errors = load_errors(&mut h, "bad.forge.ron");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let d = &errors[0];
    assert_eq!(d.code, "forge::custom::expr");
    assert!(d.message.contains("entity reference `#2`"), "{}", d.message);
    let p = d.position.unwrap();
    assert_eq!((p.line, p.column), position_of(&text, "#2", 0));
    // And an entity field given something else.
    let text = level(&[("target", "2")]);
    h.add("bad2.forge.ron", &text);
    let errors = load_errors(&mut h, "bad2.forge.ron");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].message.contains("expected an entity reference"),
        "{}",
        errors[0].message
    );
    // A bare reference where an `Option<Entity>` goes says how to write it.
    h.add("bad3.forge.ron", &level(&[("maybe", "#3")]));
    let errors = load_errors(&mut h, "bad3.forge.ron");
    assert!(
        errors[0].message.contains("(write `Some(#3)`)"),
        "{}",
        errors[0].message
    );
}

/// A sentry prefab: 1 "Sentry" watching its post 2, under it.
fn sentry() -> String {
    scene(
        &[
            entity(
                1,
                "Sentry",
                None,
                &[2],
                &custom(
                    "refs_test::Links",
                    &[("target", "#2"), ("route", "vec![#1]")],
                ),
            ),
            entity(2, "Post", Some(1), &[], ""),
        ],
        &[1],
    )
}

#[test]
fn references_reach_into_prefab_instances_and_prefabs_keep_their_own() {
    let mut h = harness();
    h.add("sentry.forge.ron", &sentry());
    let text = scene(
        &[
            entity(
                1,
                "Captain",
                None,
                &[],
                &custom(
                    "refs_test::Links",
                    &[("target", "#5/2"), ("route", "vec![#5/1, #6/1]")],
                ),
            ),
            placing(5, "East", "sentry.forge.ron", ""),
            // The override is written in the scene's frame: `#1` is the captain.
            placing(
                6,
                "West",
                "sentry.forge.ron",
                "(target: [1], set: [(type: custom, data: (type_path: \"refs_test::Links\", fields: [(name: \"maybe\", expr: \"Some(#1)\")]))])",
            ),
        ],
        &[1, 5, 6],
    );
    h.add("level.forge.ron", &text);
    let (_, instance) = h.spawn_scene("level.forge.ron");
    let at = |path: &[u64]| instance.entity_path(path).unwrap();
    let captain = links(&h, instance.entity(1).unwrap());
    assert_eq!(captain.target, at(&[5, 2]));
    assert_eq!(captain.route, vec![at(&[5, 1]), at(&[6, 1])]);
    // Each placed sentry names its own post and itself.
    for tower in [5, 6] {
        let sentry = links(&h, at(&[tower, 1]));
        assert_eq!(sentry.target, at(&[tower, 2]));
        assert_eq!(sentry.route, vec![at(&[tower, 1])]);
    }
    assert_eq!(links(&h, at(&[5, 1])).maybe, None);
    assert_eq!(
        links(&h, at(&[6, 1])).maybe,
        Some(instance.entity(1).unwrap())
    );
    // The reverse map knows placed entities by path, and the scene's own by id too.
    assert_eq!(instance.path_of(at(&[6, 2])).unwrap(), [6, 2]);
    assert_eq!(instance.id_of(at(&[6, 2])), None);
    assert_eq!(instance.path_of(instance.entity(1).unwrap()).unwrap(), [1]);
    assert_eq!(instance.id_of(instance.entity(1).unwrap()), Some(1));
    // Every pair names its entity by the path the file says, never a hash.
    for (path, entity) in instance.iter() {
        assert_eq!(instance.entity_path(path), Some(entity));
        assert!(path.iter().all(|id| *id < 1 << 32), "{path:?}");
    }
}

#[test]
fn a_path_that_does_not_resolve_names_what_is_there() {
    let mut h = harness();
    h.add("sentry.forge.ron", &sentry());
    let text = scene(
        &[
            entity(
                1,
                "Captain",
                None,
                &[],
                &custom(
                    "refs_test::Links",
                    &[("target", "#5/3"), ("maybe", "Some(#1/2)")],
                ),
            ),
            placing(5, "East", "sentry.forge.ron", ""),
        ],
        &[1, 5],
    );
    h.add("level.forge.ron", &text);
    let mut errors = load_errors(&mut h, "level.forge.ron");
    errors.sort_by_key(|d| d.position.map(|p| p.offset));
    assert_eq!(errors.len(), 2, "{errors:#?}");
    let p = errors[0].position.unwrap();
    assert_eq!((p.line, p.column), position_of(&text, "#5/3", 0));
    assert!(
        errors[0].message.contains("did you mean `#5/2` (\"Post\")"),
        "{}",
        errors[0].message
    );
    let p = errors[1].position.unwrap();
    assert_eq!((p.line, p.column), position_of(&text, "#1/2", 0));
    assert!(
        errors[1].message.contains("`#1` places no prefab"),
        "{}",
        errors[1].message
    );
}

#[test]
fn reload_re_resolves_references() {
    let mut h = harness();
    h.add("level.forge.ron", &level(EVERY_SHAPE));
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let door = instance.entity(1).unwrap();
    let before = links(&h, door).route.clone();

    // Only `hp` changes: the references keep their entities.
    let mut fields = EVERY_SHAPE.to_vec();
    fields[7] = ("hp", "8");
    edit(&mut h, "level.forge.ron", &level(&fields));
    assert_eq!(links(&h, door).hp, 8);
    assert_eq!(links(&h, door).route, before);
    assert_eq!(instance_of(&h, root).entity(1), Some(door));

    // A new entity 5, and the door pointing at it: it gets the new entity.
    fields[0] = ("target", "#5");
    let mut text = level(&fields);
    text = text.replace(
        "}, roots: [1, 2, 4]",
        &format!(
            "{}}}, roots: [1, 2, 4, 5]",
            entity(5, "Bell", None, &[], "")
        ),
    );
    edit(&mut h, "level.forge.ron", &text);
    let instance = instance_of(&h, root);
    let bell = instance.entity(5).expect("the bell spawned");
    assert_eq!(links(&h, door).target, bell);
    assert_eq!(instance.id_of(bell), Some(5));
    assert_eq!(h.world().get::<Name>(bell).unwrap().as_str(), "Bell");

    // Removing the bell while the door still names it is refused: the last good scene stays.
    let failed_before = h.world().resource::<Log>().failed.len();
    let without_bell = level(&fields);
    edit(&mut h, "level.forge.ron", &without_bell);
    let log = h.world().resource::<Log>();
    assert_eq!(log.failed.len(), failed_before + 1);
    let failure = log.failed.last().unwrap();
    let d = failure
        .diagnostics
        .iter()
        .find(|d| d.code == "forge::custom::reference")
        .expect("a reference error");
    let p = d.position.unwrap();
    assert_eq!((p.line, p.column), position_of(&without_bell, "#5", 0));
    assert!(h.world().get_entity(bell).is_ok(), "the bell stays");
    assert_eq!(links(&h, door).target, bell);
    assert_eq!(instance_of(&h, root).id_of(bell), Some(5));
}

#[test]
fn a_reload_that_adds_a_referencing_entity_sees_every_entity() {
    let mut h = harness();
    h.add("level.forge.ron", &level(&[("target", "#2")]));
    let (root, _) = h.spawn_scene("level.forge.ron");
    // Entity 6 is added, naming entity 7, added in the same edit after it, and the lever.
    let text = level(&[("target", "#2")]).replace(
        "}, roots: [1, 2, 4]",
        &format!(
            "{}{}}}, roots: [1, 2, 4, 6, 7]",
            entity(
                6,
                "Scout",
                None,
                &[],
                &custom(
                    "refs_test::Links",
                    &[("target", "#7"), ("maybe", "Some(#2)")]
                )
            ),
            entity(7, "Flag", None, &[], "")
        ),
    );
    edit(&mut h, "level.forge.ron", &text);
    let instance = instance_of(&h, root);
    let scout = links(&h, instance.entity(6).unwrap());
    assert_eq!(scout.target, instance.entity(7).unwrap());
    assert_eq!(scout.maybe, instance.entity(2));
}

/// A large scene builds its custom components in runs of a few thousand entities, on every
/// core: a reference in any run to an entity in any other gets its live entity, a type first
/// met in a later run is built as in the first, and each hook sees the final entity.
#[test]
fn references_in_a_large_scene_resolve_across_its_runs() {
    let n: u64 = 13_000;
    // `Watch` only from entity 9,001 on: a type the first runs never meet.
    let watches = |id: u64| id > 9_000 && id.is_multiple_of(7);
    let entities: Vec<String> = (1..=n)
        .map(|id| {
            let mut components = custom(
                "refs_test::Links",
                &[
                    ("target", &format!("#{}", n + 1 - id)),
                    ("route", &format!("vec![#{}, #{id}]", id % n + 1)),
                    ("hp", &id.to_string()),
                ],
            );
            if watches(id) {
                components.push_str(", ");
                components.push_str(&custom(
                    "refs_test::Watch",
                    &[("watched", &format!("#{}", id / 7))],
                ));
            }
            entity(id, &format!("E{id}"), None, &[], &components)
        })
        .collect();
    let roots: Vec<u64> = (1..=n).collect();
    let mut h = harness();
    h.add("big.forge.ron", &scene(&entities, &roots));
    let (_, instance) = h.spawn_scene("big.forge.ron");
    let e = |id| instance.entity(id).unwrap();
    for id in 1..=n {
        let l = links(&h, e(id));
        assert_eq!(
            (l.target, l.route.clone(), l.hp),
            (e(n + 1 - id), vec![e(id % n + 1), e(id)], id as u32),
            "entity {id}"
        );
        let watched = h.world().get::<Watch>(e(id)).map(|w| w.watched);
        assert_eq!(watched, watches(id).then(|| e(id / 7)), "entity {id}");
    }
    let seen = &h.world().resource::<Seen>().0;
    assert_eq!(
        seen.len() as u64,
        (1..=n).filter(|id| watches(*id)).count() as u64
    );
    for (entity, _, watched, name) in seen {
        let id = instance.id_of(*entity).unwrap();
        assert_eq!(
            (*watched, name.clone()),
            (e(id / 7), Some(format!("E{}", id / 7)))
        );
    }
}

#[test]
fn scenes_spawn_with_references_without_an_app() {
    let mut h = harness();
    h.add("level.forge.ron", &level(EVERY_SHAPE));
    let handle = h.load("level.forge.ron");
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| server.is_loaded(&handle));
    let scenes = h.world().resource::<Assets<ForgeScene>>();
    let scene = scenes.get(&handle).unwrap();
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let instance = scene.spawn_into(handle.id(), &mut world, root);
    let door = world.get::<Links>(instance.entity(1).unwrap()).unwrap();
    assert_eq!(door.target, instance.entity(2).unwrap());
    assert_eq!(door.leg.to, instance.entity(4).unwrap());
}

#[test]
fn the_schema_has_an_entity_kind_and_offline_checks_match_the_loader() {
    let mut h = harness();
    let schemas = exported(&h);
    let links_schema = schemas.get("refs_test::Links").unwrap();
    assert_eq!(
        links_schema.field("target").unwrap().kind,
        bevy_forge_scene::schema::FieldKind::Entity
    );
    let text = level(&[
        ("target", "#9"),
        ("maybe", "Some(#3)"),
        ("route", "vec![#4, #12]"),
        ("hp", "#2"),
        ("leg", "Leg { to: #0, wait: 1.0 }"),
    ]);
    h.add("bad.forge.ron", &text);
    let loader = load_errors(&mut h, "bad.forge.ron");
    let parsed = SceneDoc::from_str(&text).unwrap();
    let offline = bevy_forge_scene::validate::validate_parsed_with_schemas(&parsed, None, &schemas)
        .diagnostics;
    assert_eq!(lines(&loader).len(), 4, "{loader:#?}");
    assert_eq!(lines(&offline), lines(&loader));
    // Without schemas, the dangling references are found (not the mistyped one).
    let unchecked = bevy_forge_scene::validate::validate_references(&parsed);
    let dangling: Vec<_> = lines(&loader)
        .into_iter()
        .filter(|l| l.2 == "forge::custom::reference")
        .map(|l| (l.0, l.1))
        .collect();
    let found: Vec<_> = lines(&unchecked).into_iter().map(|l| (l.0, l.1)).collect();
    assert_eq!(found, dangling);
    assert_eq!(found.len(), 3);
}

#[test]
fn references_in_strings_and_comments_are_text() {
    let mut h = harness();
    let text = level(&[
        ("target", "/* #9 */ #2"),
        ("tagged", "(\"#9 is not an entity\", #4)"),
    ]);
    h.add("level.forge.ron", &text);
    let (_, instance) = h.spawn_scene("level.forge.ron");
    let door = links(&h, instance.entity(1).unwrap());
    assert_eq!(door.target, instance.entity(2).unwrap());
    assert_eq!(
        door.tagged,
        (
            "#9 is not an entity".to_owned(),
            instance.entity(4).unwrap()
        )
    );
}

/// An entity added to a loaded scene in memory (the scene prepared again by `edited`) spawns
/// with the others, which keep their custom components, references included. In a small scene
/// (its values in one run) and a large one (in several).
#[test]
fn an_entity_added_in_memory_spawns_with_the_others_keeping_their_values() {
    for n in [3u64, 9_000] {
        let entities: Vec<String> = (1..=n)
            .map(|id| {
                let links = custom(
                    "refs_test::Links",
                    &[
                        ("target", &format!("#{}", n + 1 - id)),
                        ("hp", &id.to_string()),
                    ],
                );
                entity(id, &format!("E{id}"), None, &[], &links)
            })
            .collect();
        let roots: Vec<u64> = (1..=n).collect();
        let mut h = harness();
        h.add("added.forge.ron", &scene(&entities, &roots));
        let handle = h.load("added.forge.ron");
        let id = handle.id();
        h.run_until(|w| w.resource::<Assets<ForgeScene>>().contains(id));
        let mut added = 0;
        common::scenes::edit_in_memory(&mut h, id, |doc| {
            added = doc.add_entity("New".to_owned(), None).unwrap();
        })
        .unwrap();
        let mut world = World::new();
        let root = world.spawn_empty().id();
        let scenes = h.world().resource::<Assets<ForgeScene>>();
        let instance = scenes.get(id).unwrap().spawn_into(id, &mut world, root);
        let new = instance.entity(added).expect("the added entity spawns");
        assert!(world.get::<Links>(new).is_none(), "{n}");
        let last = world.get::<Links>(instance.entity(n).unwrap()).unwrap();
        assert_eq!(
            (last.target, last.hp),
            (instance.entity(1).unwrap(), n as u32),
            "{n}"
        );
    }
}
