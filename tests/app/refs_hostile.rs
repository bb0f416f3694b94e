//! Entity references (`#7`, `#7/2`) under hostile and tricky input: spellings glued to their
//! neighbours, escapes, deep and long paths, shrinking lists, references in every frame of
//! prefabs and overrides, reloads around despawned entities. Each test asserts what the docs
//! promise. (The costs of long lists and many dangling references are `benches/refs.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Instant;

use bevy_ecs::prelude::*;
use bevy_forge_scene::format::{ComponentData, SceneDoc};
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::validate::{Diagnostic, Severity};
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;
use common::harness::Harness;
use common::scenes::*;

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

#[derive(Component, Reflect, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "refs_hostile::Links")]
struct Links {
    target: Entity,
    maybe: Option<Entity>,
    route: Vec<Entity>,
    pair: [Entity; 2],
    tagged: (String, Entity),
    order: Order,
    quad: (char, char, String, Entity),
    hp: u32,
    speed: f32,
}

impl Default for Links {
    fn default() -> Self {
        Self {
            target: Entity::PLACEHOLDER,
            maybe: None,
            route: Vec::new(),
            pair: [Entity::PLACEHOLDER; 2],
            tagged: (String::new(), Entity::PLACEHOLDER),
            order: Order::Idle,
            quad: (' ', ' ', String::new(), Entity::PLACEHOLDER),
            hp: 0,
            speed: 0.0,
        }
    }
}

/// A component whose `Default` has non-empty lists.
#[derive(Component, Reflect, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "refs_hostile::Stocked")]
struct Stocked {
    route: Vec<Entity>,
    tags: Vec<u32>,
}

impl Default for Stocked {
    fn default() -> Self {
        Self {
            route: vec![Entity::PLACEHOLDER; 3],
            tags: vec![1, 2, 3],
        }
    }
}

fn harness() -> Harness {
    Harness::with_setup(|app| {
        log_reloads(app);
    })
}

/// Door 1 (with `links`), lever 2, guard 3 under the door, post 4.
fn level(links: &[(&str, &str)]) -> String {
    scene(
        &[
            entity(1, "Door", None, &[3], &custom("refs_hostile::Links", links)),
            entity(2, "Lever", None, &[], ""),
            entity(3, "Guard", Some(1), &[], ""),
            entity(4, "Post", None, &[], ""),
        ],
        &[1, 2, 4],
    )
}

fn links(h: &Harness, entity: Entity) -> &Links {
    h.world()
        .get::<Links>(entity)
        .expect("the entity has Links")
}

// ---------------------------------------------------------------------------------------------
// Lexing: what counts as a reference.

/// `#2_000`, `#2abc`, `#2u64`, `#2e5` are not references to entity 2 (the docs' spelling is `#`
/// and digits, `/` and digits); a user who wrote them made a mistake that should be reported.
#[test]
fn characters_glued_after_a_reference_are_not_ignored() {
    let mut h = harness();
    let mut accepted = Vec::new();
    for (i, expr) in ["#2_000", "#2abc", "#2u64", "#2e5", "#2/"]
        .iter()
        .enumerate()
    {
        let path = format!("glued{i}.forge.ron");
        if let Ok((_, instance)) = outcome(&mut h, &path, &level(&[("target", expr)])) {
            let target = links(&h, instance.entity(1).unwrap()).target;
            accepted.push(format!("{expr} -> {}", name_of(&h, target)));
        }
    }
    assert!(
        accepted.is_empty(),
        "loaded without error, naming: {accepted:?}"
    );
}

/// `1#2` in a `u32` field: the reference is rewritten to `_2`, which glues to the digit into the
/// integer literal `1_2`.
#[test]
fn a_reference_glued_to_a_number_is_not_a_digit_separator() {
    let mut h = harness();
    let mut accepted = Vec::new();
    for (i, (field, expr)) in [("hp", "1#2"), ("speed", "1e#2"), ("hp", "0x#4")]
        .iter()
        .enumerate()
    {
        let path = format!("number{i}.forge.ron");
        if let Ok((_, instance)) = outcome(&mut h, &path, &level(&[(field, expr)])) {
            let l = links(&h, instance.entity(1).unwrap());
            accepted.push(format!("{field}: {expr} -> hp {} speed {}", l.hp, l.speed));
        }
    }
    assert!(accepted.is_empty(), "loaded without error: {accepted:?}");
}

/// The same prefab text gives a different number in each placed copy: `1#2` becomes `1#5/2`
/// (152) under instance 5 and `1#7/2` (172) under instance 7, while the prefab alone reads 12.
#[test]
fn a_glued_reference_in_a_prefab_changes_with_the_instance_id() {
    let mut h = harness();
    let prefab = scene(
        &[
            entity(
                1,
                "Sentry",
                None,
                &[2],
                &custom("refs_hostile::Links", &[("hp", "1#2")]),
            ),
            entity(2, "Post", Some(1), &[], ""),
        ],
        &[1],
    );
    h.add("sentry.forge.ron", &prefab);
    let text = scene(
        &[
            placing(5, "East", "sentry.forge.ron", ""),
            placing(7, "West", "sentry.forge.ron", ""),
        ],
        &[5, 7],
    );
    let result = outcome(&mut h, "level.forge.ron", &text);
    let Ok((_, instance)) = result else {
        return; // refused: fine
    };
    let alone = outcome(&mut h, "sentry_alone.forge.ron", &prefab);
    let alone_hp = alone.ok().map(|(_, i)| links(&h, i.entity(1).unwrap()).hp);
    let east = links(&h, instance.entity_path(&[5, 1]).unwrap()).hp;
    let west = links(&h, instance.entity_path(&[7, 1]).unwrap()).hp;
    panic!(
        "`1#2` loaded: prefab alone hp {alone_hp:?}, placed at 5 hp {east}, placed at 7 hp {west}"
    );
}

/// A char literal `'\''` makes the reference scanner pair quotes wrongly (`quote_end` takes the
/// escaped quote for the closing one): a `#1` inside a later string is rewritten to `_1` (the
/// string value changes silently), and a real reference after it can be missed (a valid
/// expression is refused with "expected square brackets").
#[test]
fn an_escaped_quote_char_does_not_rewrite_strings() {
    let mut h = harness();
    let mut wrong = Vec::new();
    // Silent: the string `#1"` arrives as `_1"`.
    let expr = r##"('\'', '"', "#1\"", #2)"##;
    match outcome(&mut h, "quote.forge.ron", &level(&[("quad", expr)])) {
        Ok((_, instance)) => {
            let l = links(&h, instance.entity(1).unwrap());
            if l.quad.2 != "#1\"" || l.quad.3 != instance.entity(2).unwrap() {
                wrong.push(format!("{expr}: loaded as {:?}", l.quad));
            }
        }
        Err(d) => wrong.push(format!("{expr}: refused: {}", d[0].message)),
    }
    // Refused: the reference `#2` is taken for string text.
    let expr = r##"('\'', '"', "#1", #2)"##;
    match outcome(&mut h, "quote2.forge.ron", &level(&[("quad", expr)])) {
        Ok((_, instance)) => {
            let l = links(&h, instance.entity(1).unwrap());
            if l.quad.2 != "#1" || l.quad.3 != instance.entity(2).unwrap() {
                wrong.push(format!("{expr}: loaded as {:?}", l.quad));
            }
        }
        Err(d) => wrong.push(format!("{expr}: refused: {}", d[0].message)),
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// What the messages say for near-miss spellings (printed; asserts that the message quotes the
/// text the user wrote, never the internal `_7` rewrite).
#[test]
fn messages_quote_what_the_user_wrote() {
    let mut h = harness();
    let mut report = Vec::new();
    let mut leaked = Vec::new();
    for (i, expr) in [
        "x#2",
        "#[cfg(x)] #2",
        "_2",
        "# 2",
        "#/2",
        "#2//4",
        "#02",
        "#2.0",
        "Some(#2)",
        "vec![#2; 3]",
        "[#2; 3]",
        "-#2",
        "(#2)",
        "#99999999999999999999999",
        "#2/3",
        "é#2",
        "'#' #2",
    ]
    .iter()
    .enumerate()
    {
        let path = format!("msg{i}.forge.ron");
        let text = level(&[("target", expr)]);
        match outcome(&mut h, &path, &text) {
            Ok((_, instance)) => {
                let target = links(&h, instance.entity(1).unwrap()).target;
                report.push(format!("{expr:?}: LOADED -> {}", name_of(&h, target)));
            }
            Err(ds) => {
                for d in ds {
                    let p = d.position.map(|p| (p.line, p.column));
                    if d.message.contains("_2") && !expr.contains("_2") {
                        leaked.push(format!("{expr:?}: {}", d.message));
                    }
                    report.push(format!("{expr:?}: {} at {p:?}: {}", d.code, d.message));
                }
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(
        leaked.is_empty(),
        "messages show the rewritten text: {leaked:#?}"
    );
}

/// Error positions when the RON string has escapes before the reference, and when the
/// expression spans lines. (Inside a RON string with escapes, Site::expr_position documents that
/// it falls back to the string's start; in a raw RON string the position should be exact.)
#[test]
fn dangling_reference_positions_with_escapes_and_newlines() {
    let mut h = harness();
    let cases: [(&str, &str, &str); 3] = [
        ("tagged", "(\"a\\\"b\", #9)", "#9"),
        ("route", "vec![\n  #4,\n  #9,\n]", "#9"),
        ("target", "/* é ü */ #9", "#9"),
    ];
    let mut wrong = Vec::new();
    for (i, (field, expr, needle)) in cases.iter().enumerate() {
        let text = level(&[(field, expr)]);
        let path = format!("pos{i}.forge.ron");
        let raw = level(&[]).replace(
            "fields: []",
            &format!("fields: [(name: \"{field}\", expr: r#\"{expr}\"#)]"),
        );
        let raw_errors =
            outcome(&mut h, &format!("raw{i}.forge.ron"), &raw).expect_err("a dangling reference");
        let raw_d = raw_errors
            .iter()
            .find(|d| d.code == "forge::custom::reference")
            .unwrap();
        let p = raw_d.position.unwrap();
        let expected = position_of(&raw, needle, 0);
        if (p.line, p.column) != expected {
            wrong.push(format!(
                "raw {expr:?}: at {:?}, `#9` is at {expected:?}",
                (p.line, p.column)
            ));
        }
        let errors = outcome(&mut h, &path, &text).expect_err("a dangling reference");
        let d = errors
            .iter()
            .find(|d| d.code == "forge::custom::reference")
            .unwrap_or_else(|| panic!("{errors:#?}"));
        let p = d.position.unwrap();
        let expected = position_of(&text, needle, 0);
        if (p.line, p.column) != expected {
            wrong.push(format!(
                "{expr:?}: at {:?}, `#9` is at {expected:?}",
                (p.line, p.column)
            ));
        }
        // Offline check without schema, at the same place.
        let parsed = SceneDoc::from_str(&text).unwrap();
        let offline = bevy_forge_scene::validate::validate_references(&parsed);
        let o = offline.diagnostics_positions();
        if o != vec![expected] {
            wrong.push(format!(
                "{expr:?}: validate_references at {o:?}, expected {expected:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

trait Positions {
    fn diagnostics_positions(&self) -> Vec<(u32, u32)>;
}

impl Positions for Vec<Diagnostic> {
    fn diagnostics_positions(&self) -> Vec<(u32, u32)> {
        self.iter()
            .filter(|d| d.severity == Severity::Error)
            .filter_map(|d| d.position.map(|p| (p.line, p.column)))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Deep paths: a reference longer than any id path is refused in time linear in its length.

/// Runs the ignored test `name` of this binary in a child process (a stack overflow aborts the
/// whole process); its exit status and the tail of its output.
fn run_child(name: &str) -> (bool, String) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            &common::test_name(module_path!(), name),
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let tail: Vec<&str> = text.lines().rev().take(8).collect();
    (
        out.status.success(),
        tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
    )
}

/// `#1/1/1/.../1` with `n` ids (2 bytes each), entity 1 placing nothing.
fn deep_path(n: usize) -> String {
    let path: Vec<&str> = std::iter::repeat_n("1", n).collect();
    format!("#{}", path.join("/"))
}

/// The "did you mean" search (`Referable::find`) recurses once per id of a dangling path and
/// rebuilds the path's text at each level: quadratic time, and a stack frame per id. A path of
/// 4000 ids (an 8 KB expression, far below `MAX_LEN`) overflows a 2 MiB stack.
#[test]
fn a_deep_dangling_path_does_not_crash_the_schemaless_check() {
    let (ok, tail) = run_child("child_deep_path_validate_references");
    assert!(ok, "the check crashed:\n{tail}");
}

#[test]
#[ignore = "run by a_deep_dangling_path_does_not_crash_the_schemaless_check"]
fn child_deep_path_validate_references() {
    for n in [1_000usize, 2_000, 4_000, 8_000] {
        let text = level(&[("target", &deep_path(n))]);
        let parsed = SceneDoc::from_str(&text).unwrap();
        let started = Instant::now();
        let found = bevy_forge_scene::validate::validate_references(&parsed);
        println!("{n:>6} ids: {:?}", started.elapsed());
        assert_eq!(found.len(), 1);
    }
}

/// The same through the loader (the asset server's task threads).
#[test]
fn a_deep_dangling_path_does_not_crash_the_loader() {
    let (ok, tail) = run_child("child_deep_path_loader");
    assert!(ok, "the load crashed:\n{tail}");
}

#[test]
#[ignore = "run by a_deep_dangling_path_does_not_crash_the_loader"]
fn child_deep_path_loader() {
    let mut h = harness();
    for n in [1_000usize, 4_000, 16_000] {
        let started = Instant::now();
        let result = outcome(
            &mut h,
            &format!("deep{n}.forge.ron"),
            &level(&[("target", &deep_path(n))]),
        );
        println!("{n:>6} ids: {:?}", started.elapsed());
        assert!(result.is_err());
    }
}

// ---------------------------------------------------------------------------------------------
// Values.

/// A `Vec<Entity>` (or any list) whose `Default` is not empty: the spawned value keeps the
/// default's extra items (reflection's list apply does not truncate).
#[test]
fn a_shorter_list_than_the_default_is_spawned_as_written() {
    let mut h = harness();
    let text = scene(
        &[
            entity(
                1,
                "Door",
                None,
                &[],
                &custom(
                    "refs_hostile::Stocked",
                    &[("route", "vec![#2]"), ("tags", "vec![9]")],
                ),
            ),
            entity(2, "Lever", None, &[], ""),
        ],
        &[1, 2],
    );
    let (_, instance) = outcome(&mut h, "stocked.forge.ron", &text).unwrap();
    let s = h
        .world()
        .get::<Stocked>(instance.entity(1).unwrap())
        .unwrap();
    assert_eq!(
        (s.route.clone(), s.tags.clone()),
        (vec![instance.entity(2).unwrap()], vec![9])
    );
}

/// Hot reload that shortens a `Vec<Entity>` field: the live list keeps the old tail.
#[test]
fn reload_that_shortens_a_route_shortens_it() {
    let mut h = harness();
    let text = level(&[("route", "vec![#4, #2, #4]"), ("hp", "1")]);
    h.add("level.forge.ron", &text);
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let door = instance.entity(1).unwrap();
    edit(
        &mut h,
        "level.forge.ron",
        &level(&[("route", "vec![#2]"), ("hp", "1")]),
    );
    let instance = instance_of(&h, root);
    assert_eq!(links(&h, door).route, vec![instance.entity(2).unwrap()]);
}

/// Hot reload changing a reference from one entity to another, into a prefab instance and back.
#[test]
fn reload_retargets_references() {
    let mut h = harness();
    h.add("sentry.forge.ron", &sentry());
    let with = |target: &str| {
        scene(
            &[
                entity(
                    1,
                    "Captain",
                    None,
                    &[],
                    &custom("refs_hostile::Links", &[("target", target)]),
                ),
                entity(2, "Lever", None, &[], ""),
                placing(5, "East", "sentry.forge.ron", ""),
            ],
            &[1, 2, 5],
        )
    };
    h.add("level.forge.ron", &with("#2"));
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let captain = instance.entity(1).unwrap();
    assert_eq!(links(&h, captain).target, instance.entity(2).unwrap());
    edit(&mut h, "level.forge.ron", &with("#5/2"));
    let instance = instance_of(&h, root);
    assert_eq!(
        links(&h, captain).target,
        instance.entity_path(&[5, 2]).unwrap()
    );
    edit(&mut h, "level.forge.ron", &with("#1"));
    assert_eq!(links(&h, captain).target, captain);
}

/// A sentry prefab: 1 "Sentry" watching its post 2, under it.
fn sentry() -> String {
    sentry_with("#2", "vec![#1]")
}

fn sentry_with(target: &str, route: &str) -> String {
    scene(
        &[
            entity(
                1,
                "Sentry",
                None,
                &[2],
                &custom(
                    "refs_hostile::Links",
                    &[("target", target), ("route", route)],
                ),
            ),
            entity(2, "Post", Some(1), &[], ""),
        ],
        &[1],
    )
}

/// Editing the prefab re-resolves the references of every placed copy in its own copy.
#[test]
fn reload_of_a_prefab_re_resolves_its_references_per_copy() {
    let mut h = harness();
    h.add("sentry.forge.ron", &sentry());
    let text = scene(
        &[
            placing(5, "East", "sentry.forge.ron", ""),
            placing(7, "West", "sentry.forge.ron", ""),
        ],
        &[5, 7],
    );
    h.add("level.forge.ron", &text);
    let (root, _) = h.spawn_scene("level.forge.ron");
    // The sentry now targets itself and patrols to its post.
    let edited = sentry_with("#1", "vec![#2, #1]");
    assert_ne!(edited, sentry());
    edit(&mut h, "sentry.forge.ron", &edited);
    // The scene reloads when its prefab does.
    for _ in 0..50 {
        h.app.update();
    }
    let instance = instance_of(&h, root);
    for tower in [5, 7] {
        let at = |id| instance.entity_path(&[tower, id]).unwrap();
        let l = links(&h, at(1));
        assert_eq!(l.target, at(1), "tower {tower}");
        assert_eq!(l.route, vec![at(2), at(1)], "tower {tower}");
    }
}

/// A prefab that places a prefab and overrides a field of it with a reference in its own frame
/// (`#1`, the outer prefab's entity 1); placed in a scene at 5, then twice.
#[test]
fn nested_prefab_override_references_stay_in_their_frame() {
    let mut h = harness();
    h.add("sentry.forge.ron", &sentry());
    let outer = scene(
        &[
            entity(
                1,
                "Boss",
                None,
                &[],
                &custom("refs_hostile::Links", &[("route", "vec![#3/1, #3/2]")]),
            ),
            placing(
                3,
                "Tower",
                "sentry.forge.ron",
                "(target: [1], set: [(type: custom, data: (type_path: \"refs_hostile::Links\", fields: [(name: \"maybe\", expr: \"Some(#1)\")]))]), (target: [2], add: [(type: custom, data: (type_path: \"refs_hostile::Links\", fields: [(name: \"target\", expr: \"#3/1\")]))])",
            ),
        ],
        &[1, 3],
    );
    h.add("outer.forge.ron", &outer);
    let text = scene(
        &[
            entity(
                1,
                "Captain",
                None,
                &[],
                &custom("refs_hostile::Links", &[("route", "vec![#5/3/2, #6/1]")]),
            ),
            placing(5, "A", "outer.forge.ron", ""),
            placing(
                6,
                "B",
                "outer.forge.ron",
                "(target: [3, 1], set: [(type: custom, data: (type_path: \"refs_hostile::Links\", fields: [(name: \"maybe\", expr: \"Some(#1)\")]))])",
            ),
        ],
        &[1, 5, 6],
    );
    let (_, instance) = match outcome(&mut h, "level.forge.ron", &text) {
        Ok(x) => x,
        Err(d) => panic!("{d:#?}"),
    };
    let at = |p: &[u64]| instance.entity_path(p).unwrap();
    for i in [5, 6] {
        assert_eq!(
            links(&h, at(&[i, 1])).route,
            vec![at(&[i, 3, 1]), at(&[i, 3, 2])]
        );
        assert_eq!(links(&h, at(&[i, 3, 1])).target, at(&[i, 3, 2]));
        assert_eq!(links(&h, at(&[i, 3, 2])).target, at(&[i, 3, 1]));
    }
    assert_eq!(links(&h, at(&[5, 3, 1])).maybe, Some(at(&[5, 1])));
    assert_eq!(
        links(&h, at(&[6, 3, 1])).maybe,
        Some(instance.entity(1).unwrap())
    );
    assert_eq!(
        links(&h, instance.entity(1).unwrap()).route,
        vec![at(&[5, 3, 2]), at(&[6, 1])]
    );
}

/// The game despawns the lever; later reloads write a reference to it.
#[test]
fn a_reference_to_a_despawned_entity_is_the_same_whatever_else_changed() {
    let mut h = harness();
    let text = |target: &str, lever: &str| {
        scene(
            &[
                entity(
                    1,
                    "Door",
                    None,
                    &[],
                    &custom("refs_hostile::Links", &[("target", target)]),
                ),
                entity(2, lever, None, &[], ""),
                entity(4, "Post", None, &[], ""),
            ],
            &[1, 2, 4],
        )
    };
    h.add("level.forge.ron", &text("#4", "Lever"));
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let door = instance.entity(1).unwrap();
    let lever = instance.entity(2).unwrap();
    h.app.world_mut().entity_mut(lever).despawn();
    // The same edit renames the despawned lever: it leaves the instance map.
    edit(&mut h, "level.forge.ron", &text("#4", "Lever 2"));
    edit(&mut h, "level.forge.ron", &text("#2", "Lever 2"));
    // As the reload docs say: an entity that is not alive (the despawned lever, or the
    // placeholder once the lever left the instance map), never another live entity.
    let target = links(&h, door).target;
    assert!(
        target == lever || target == Entity::PLACEHOLDER,
        "the door names {target:?}"
    );
    assert!(h.world().get_entity(target).is_err());
    assert_eq!(
        instance_of(&h, root).entity(2),
        None,
        "the lever left the map"
    );
}

// ---------------------------------------------------------------------------------------------
// Offline checks match the loader.

#[test]
fn offline_checks_match_the_loader_for_every_shape() {
    let mut h = harness();
    let schemas = exported(&h);
    let text = level(&[
        ("pair", "[#1, #9]"),
        ("tagged", "(\"x\", #8)"),
        ("order", "Order::Guard { post: #7, radius: 1.0 }"),
        ("quad", "('a', 'b', \"#6\", #6)"),
        ("maybe", "#2"),
        ("route", "vec![Some(#2)]"),
    ]);
    let loader = outcome(&mut h, "bad.forge.ron", &text).expect_err("errors");
    let parsed = SceneDoc::from_str(&text).unwrap();
    let offline = bevy_forge_scene::validate::validate_parsed_with_schemas(&parsed, None, &schemas)
        .diagnostics;
    println!("{:#?}", lines(&loader));
    assert_eq!(lines(&offline), lines(&loader));
    assert_eq!(lines(&loader).len(), 6);
}

// ---------------------------------------------------------------------------------------------
// Files for CLI runs (`forge validate`, `forge tree`, `forge fmt`): written to
// $REFS_BREAK_DIR (default /tmp/brk/break_scenes).

// ---------------------------------------------------------------------------------------------
// Edits in memory and prefab edits.

fn set_target(doc: &mut SceneDoc, expr: &str) {
    let node = std::sync::Arc::make_mut(doc.entities.get_mut(&1).unwrap());
    for c in &mut node.components {
        if let ComponentData::Custom(custom) = c {
            for f in &mut custom.fields {
                if f.name.as_str() == "target" {
                    f.expr = expr.into();
                }
            }
        }
    }
}

/// An edit in memory that adds entity 9 and points the door at it: the live instance and a new
/// one both get their own entity 9.
#[test]
fn an_edit_in_memory_re_resolves_references() {
    let mut h = harness();
    h.add("level.forge.ron", &level(&[("target", "#2")]));
    let (root, _) = h.spawn_scene("level.forge.ron");
    let handle = h.load("level.forge.ron");
    common::scenes::edit_in_memory(&mut h, &handle, |doc| {
        let mut bell = bevy_forge_scene::format::EntityNode::clone(&doc.entities[&4]);
        bell.id = 9;
        bell.name = "Bell".into();
        doc.entities.insert(9, bell.into());
        doc.roots.push(9);
        doc.next_id = doc.next_id.max(10);
        set_target(doc, "#9");
    })
    .unwrap();
    let second = h.spawn_root(&handle);
    h.run_until(|w| w.get::<ForgeSceneInstance>(second).is_some());
    for _ in 0..20 {
        h.app.update();
    }
    for r in [root, second] {
        let instance = instance_of(&h, r);
        let bell = instance.entity(9).expect("the bell");
        assert_eq!(links(&h, instance.entity(1).unwrap()).target, bell);
    }
}

/// An edit in memory that removes the lever the door names is refused; an instance spawned
/// meanwhile: what does the door name?
/// A prefab edit that removes the entity a scene names inside its instance (`#5/3`): the
/// scene's reload fails at the scene's reference, and the live entity stays.
#[test]
fn a_prefab_edit_that_removes_a_named_entity_is_refused() {
    let mut h = harness();
    let prefab = |with_three: bool| {
        let mut entities = vec![
            entity(1, "Sentry", None, &[2], ""),
            entity(2, "Post", Some(1), &[], ""),
        ];
        if with_three {
            entities.push(entity(3, "Flag", None, &[], ""));
        }
        scene(&entities, if with_three { &[1, 3] } else { &[1] })
    };
    h.add("sentry.forge.ron", &prefab(true));
    let text = scene(
        &[
            entity(
                1,
                "Captain",
                None,
                &[],
                &custom("refs_hostile::Links", &[("target", "#5/3")]),
            ),
            placing(5, "East", "sentry.forge.ron", ""),
        ],
        &[1, 5],
    );
    h.add("level.forge.ron", &text);
    let (root, instance) = h.spawn_scene("level.forge.ron");
    let flag = instance.entity_path(&[5, 3]).unwrap();
    edit(&mut h, "sentry.forge.ron", &prefab(false));
    for _ in 0..50 {
        h.app.update();
    }
    let log = h.world().resource::<Log>();
    let failure = log.failed.last().expect("the reload failed");
    let d = failure
        .diagnostics
        .iter()
        .find(|d| d.code == "forge::custom::reference")
        .unwrap_or_else(|| panic!("{:#?}", failure.diagnostics));
    let p = d.position.unwrap();
    assert_eq!((p.line, p.column), position_of(&text, "#5/3", 0));
    assert!(h.world().get_entity(flag).is_ok());
    assert_eq!(
        links(&h, instance_of(&h, root).entity(1).unwrap()).target,
        flag
    );
}

/// Spellings that should work, each checked against the live entity it names.
#[test]
fn tricky_but_valid_spellings_load() {
    let mut h = harness();
    let cases: &[(&str, &str)] = &[
        ("target", "/* /* #9 */ #9 */ #2"),
        ("target", "// #9\n#2"),
        ("target", "((#2))"),
        ("target", "  #2  "),
        ("tagged", "(r#\"#9\"#, #2)"),
        ("tagged", "(r\"#9\", #2)"),
        ("tagged", "(\"\\\"#9\", #2)"),
        ("tagged", "(\"\\\\\", #2)"),
        ("quad", "('#', '\\\\', \"#9\", #2)"),
        ("quad", "('\\u{23}', 'é', \"é#9\", #2)"),
        ("route", "vec![#2,#2,]"),
        ("route", "[#2, #4]"),
        ("maybe", "Some(#2)"),
        ("order", "Order::Follow(#2)"),
        ("order", "Guard { post: #2, radius: 1.0 }"),
        ("pair", "[#2,#2]"),
    ];
    let mut wrong = Vec::new();
    for (i, (field, expr)) in cases.iter().enumerate() {
        match outcome(
            &mut h,
            &format!("ok{i}.forge.ron"),
            &level(&[(field, expr)]),
        ) {
            Ok((_, instance)) => {
                let lever = instance.entity(2).unwrap();
                let l = links(&h, instance.entity(1).unwrap());
                let ok = match *field {
                    "target" => l.target == lever,
                    "tagged" => l.tagged.1 == lever && !l.tagged.0.contains('_'),
                    "quad" => l.quad.3 == lever && !l.quad.2.contains('_'),
                    "route" => l.route.first() == Some(&lever),
                    "maybe" => l.maybe == Some(lever),
                    "order" => {
                        matches!(l.order, Order::Follow(e) | Order::Guard { post: e, .. } if e == lever)
                    }
                    "pair" => l.pair == [lever, lever],
                    _ => false,
                };
                if !ok {
                    wrong.push(format!("{expr:?}: wrong value {l:?}"));
                }
            }
            Err(d) => wrong.push(format!("{expr:?}: refused: {}", d[0].message)),
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[derive(Component, Reflect, Default, Debug, ForgeComponent)]
#[reflect(Component, Default)]
#[forge(type_path = "refs_hostile::Mapped")]
struct Mapped {
    by_name: std::collections::HashMap<String, Entity>,
    boxed: Vec<Vec<Option<Entity>>>,
}

/// A reference in a map-typed field: a sensible error (printed); nested lists of options work.
#[test]
fn references_in_maps_and_nested_lists() {
    let mut h = harness();
    let with = |fields: &[(&str, &str)]| {
        scene(
            &[
                entity(
                    1,
                    "Door",
                    None,
                    &[],
                    &custom("refs_hostile::Mapped", fields),
                ),
                entity(2, "Lever", None, &[], ""),
            ],
            &[1, 2],
        )
    };
    let errors = outcome(
        &mut h,
        "map.forge.ron",
        &with(&[("by_name", "[(\"a\", #2)]")]),
    )
    .expect_err("a map cannot be written");
    for d in &errors {
        println!(
            "{}: {} ({:?})",
            d.code,
            d.message,
            d.position.map(|p| (p.line, p.column))
        );
    }
    let (_, instance) = outcome(
        &mut h,
        "nested.forge.ron",
        &with(&[(
            "boxed",
            "vec![vec![Some(#2), None], vec![], vec![Some(#1)]]",
        )]),
    )
    .unwrap();
    let m = h
        .world()
        .get::<Mapped>(instance.entity(1).unwrap())
        .unwrap();
    let (door, lever) = (instance.entity(1).unwrap(), instance.entity(2).unwrap());
    assert_eq!(
        m.boxed,
        vec![vec![Some(lever), None], vec![], vec![Some(door)]]
    );
}
