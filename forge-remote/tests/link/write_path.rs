//! The one write path, as a client sees it over HTTP: a kept or set value changes only its own
//! bytes wherever it is written (an entity's entry, an override that already sets it, an
//! override the instance did not have yet, a prefab's entry), every comment of a file written
//! by hand stays, and the game's values read back from the file. A write through a symbolic
//! link out of the asset root is refused and touches nothing outside.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::*;
use bevy_light::PointLight;
use bevy_transform::components::Transform;
use serde_json::{Value, json};

const CAMP: &str = "camp/camp.forge.ron";
const GOBLIN: &str = "camp/goblin.forge.ron";

fn camp() -> Game {
    Game::with(&[CAMP, GOBLIN], CAMP, &[6, 1])
}

/// Every comment of `text`, in order.
fn comments(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.find("//").map(|at| l[at..].trim_end()))
        .collect()
}

/// `before` with `from` replaced by `to` once (checked to be there): the whole file a write
/// of exactly those bytes gives.
fn replaced(before: &str, from: &str, to: &str) -> String {
    assert_eq!(
        before.matches(from).count(),
        1,
        "`{from}` is not once in the text"
    );
    before.replacen(from, to, 1)
}

/// The differences the game reports now, by id path and component.
fn differences(game: &mut Game) -> Value {
    let root = game.root.to_bits();
    result(game.call("forge.diff", json!({ "root": root })))["differences"].clone()
}

fn keep(
    game: &mut Game,
    id_path: &[u64],
    component: &str,
    field: Option<&str>,
    into: &str,
) -> Value {
    let root = game.root.to_bits();
    let reloads = game.reloads();
    let kept = result(game.call(
        "forge.keep",
        json!({ "root": root, "into": into, "changes": [{ "id_path": id_path, "component": component, "field": field }] }),
    ));
    assert_eq!(kept["written"], true, "{kept}");
    game.until_written();
    game.until_reloaded(reloads);
    kept
}

fn set_hp(game: &mut Game, path: &[u64], hp: i32) {
    let e = game.entity(path);
    game.app.world_mut().get_mut::<Health>(e).unwrap().hp = hp;
}

#[test]
fn a_value_an_override_already_sets_changes_its_own_bytes_only() {
    let mut game = camp();
    let camp = original(CAMP);
    let boss = game.entity(&[5, 1]);
    set_hp(&mut game, &[5, 1], 75);
    keep(&mut game, &[5, 1], "game::Health", Some("hp"), "instance");
    assert_eq!(
        game.text(CAMP),
        replaced(&camp, r#"expr: "50""#, r#"expr: "75""#)
    );
    assert_eq!(
        game.text(GOBLIN),
        original(GOBLIN),
        "the prefab is not touched"
    );
    // The reload found nothing to change: the same entity, its value as kept.
    assert_eq!(game.entity(&[5, 1]), boss);
    assert_eq!(game.app.world().get::<Health>(boss).unwrap().hp, 75);
    assert_eq!(differences(&mut game), json!([]));

    // The built-in field the override sets: its number only.
    game.app
        .world_mut()
        .get_mut::<PointLight>(boss)
        .unwrap()
        .intensity = 900.0;
    let diff = differences(&mut game);
    let field = diff[0]["field"].as_str().unwrap().to_owned();
    assert_eq!(field, "intensity", "{diff}");
    let live = diff[0]["live"].as_str().unwrap().to_owned();
    let before = game.text(CAMP);
    keep(
        &mut game,
        &[5, 1],
        "point_light",
        Some("intensity"),
        "instance",
    );
    assert_eq!(
        game.text(CAMP),
        replaced(&before, "intensity: 1200.0", &format!("intensity: {live}"))
    );
    assert_eq!(differences(&mut game), json!([]));
}

#[test]
fn set_writes_inside_an_override_and_into_an_entry_the_same_way() {
    let mut game = camp();
    let camp = original(CAMP);
    let set = |id_path: &[u64], component: &str, field: Option<&str>, value: &str| json!({ "path": CAMP, "id_path": id_path, "component": component, "field": field, "value": value });
    let reloads = game.reloads();
    result(game.call("forge.set", set(&[5, 1], "game::Health", Some("hp"), "60")));
    game.until_written();
    game.until_reloaded(reloads);
    let after_override = replaced(&camp, r#"expr: "50""#, r#"expr: "60""#);
    assert_eq!(game.text(CAMP), after_override);
    let boss = game.entity(&[5, 1]);
    assert_eq!(game.app.world().get::<Health>(boss).unwrap().hp, 60);

    // The same kind of value in an entity's own entry.
    let reloads = game.reloads();
    result(game.call("forge.set", set(&[7], "game::Health", Some("hp"), "12")));
    game.until_written();
    game.until_reloaded(reloads);
    assert_eq!(
        game.text(CAMP),
        replaced(&after_override, r#"expr: "10""#, r#"expr: "12""#)
    );
    // A name and a transform part of a prefab's entity: the override gets them, its comment
    // and layout kept.
    let reloads = game.reloads();
    result(game.call("forge.set", set(&[5, 1], "name", None, "\"Goblin King\"")));
    game.until_written();
    game.until_reloaded(reloads);
    assert!(
        game.text(CAMP)
            .contains(r#"(target: [1], name: Some("Goblin King"), set: ["#)
    );
    for c in comments(&camp) {
        assert!(game.text(CAMP).contains(c), "lost {c}");
    }
}

#[test]
fn an_override_the_instance_lacks_is_added_and_nothing_else_moves() {
    let mut game = camp();
    let camp = original(CAMP);
    set_hp(&mut game, &[6, 1], 33);
    let grunt = game.entity(&[6, 1]);
    let t = {
        let mut t = game.app.world_mut().get_mut::<Transform>(grunt).unwrap();
        t.translation.y = 1.5;
        *t
    };
    keep(&mut game, &[6, 1], "game::Health", Some("hp"), "instance");
    keep(
        &mut game,
        &[6, 1],
        "transform",
        Some("translation"),
        "instance",
    );
    let now = game.text(CAMP);
    // Every line of the file is still there, in order; the new lines are the override's.
    let mut old = camp.lines().peekable();
    let mut added = Vec::new();
    // The line numbers (in the new text) of the added lines: one block, after the grunt's scene.
    let mut at = Vec::new();
    for (n, line) in now.lines().enumerate() {
        if old.peek() == Some(&line) {
            old.next();
        } else {
            added.push(line.trim());
            at.push(n);
        }
    }
    assert!(old.next().is_none(), "a line of the file went:\n{now}");
    assert_eq!(added[0], "overrides: [", "{now}");
    assert_eq!(
        at.last().unwrap() - at[0] + 1,
        at.len(),
        "one block:\n{now}"
    );
    let scene_line = now.lines().position(|l| l.contains("// plain")).unwrap();
    assert_eq!(at[0], scene_line + 1, "{now}");
    // New text is laid out as the writer lays it out: the values are there, in the override.
    let block = added.join(" ");
    for value in ["target: [1]", "y: 1.5", r#"name: "hp""#, r#"expr: "33""#] {
        assert!(
            block.contains(value),
            "`{value}` not in the new override:\n{now}"
        );
    }
    assert_eq!(game.entity(&[6, 1]), grunt);
    assert_eq!(*game.app.world().get::<Transform>(grunt).unwrap(), t);
    assert_eq!(differences(&mut game), json!([]));
}

#[test]
fn a_value_kept_into_the_prefab_changes_one_token_there() {
    let mut game = camp();
    let (camp, goblin) = (original(CAMP), original(GOBLIN));
    let grunt = game.entity(&[6, 1]);
    game.app
        .world_mut()
        .get_mut::<PointLight>(grunt)
        .unwrap()
        .range = 12.0;
    keep(&mut game, &[6, 1], "point_light", Some("range"), "prefab");
    assert_eq!(game.text(CAMP), camp);
    assert_eq!(
        game.text(GOBLIN),
        replaced(&goblin, "range: 10.0", "range: 12.0")
    );
    // Every goblin follows the prefab: the boss too, as its overrides do not set it.
    let boss = game.entity(&[5, 1]);
    assert_eq!(
        game.app.world().get::<PointLight>(boss).unwrap().range,
        12.0
    );
}

#[test]
fn entities_in_bevys_string_form_are_taken_and_answered_in_kind() {
    let mut game = camp();
    let fire = game.entity(&[7]);
    let located = result(game.call("forge.locate", json!({ "entity": fire.to_string() })));
    assert_eq!(located["id_path"], json!([7]));
    assert_eq!(located["root"], json!(game.root.to_string()));
    let located = result(game.call("forge.locate", json!({ "entity": fire.to_bits() })));
    assert_eq!(located["root"], json!(game.root.to_bits()));
    let found = result(game.call(
        "forge.entity",
        json!({ "root": game.root.to_string(), "id_path": [7] }),
    ));
    assert_eq!(found["entity"], json!(fire.to_string()));
    let diff = result(game.call("forge.diff", json!({ "root": game.root.to_string() })));
    assert_eq!(diff["differences"], json!([]));
    for bad in ["7", "7v", "v1", "x7v0", "4294967295v0"] {
        let answer = game.call("forge.locate", json!({ "entity": bad }));
        assert_eq!(error_code(&answer), -32602, "{bad}: {answer}");
    }
}

#[cfg(unix)]
#[test]
fn a_write_through_a_link_out_of_the_root_is_refused_and_touches_nothing() {
    let mut game = camp();
    // A folder outside the asset root, and a link to it inside.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.forge.ron");
    std::fs::write(&target, original(CAMP)).unwrap();
    std::os::unix::fs::symlink(outside.path(), game.dir.path().join("link")).unwrap();
    let before = std::fs::read(&target).unwrap();
    let answer = game.call(
        "forge.set",
        json!({ "path": "link/x.forge.ron", "id_path": [7], "component": "name", "value": "\"Out\"" }),
    );
    assert_eq!(error_code(&answer), -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("outside the asset directory"), "{message}");
    for _ in 0..10 {
        game.app.update();
    }
    assert_eq!(std::fs::read(&target).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
    // A link to a file inside the root is followed: the file it points to is written.
    std::os::unix::fs::symlink(
        game.dir.path().join(GOBLIN),
        game.dir.path().join("camp/alias.forge.ron"),
    )
    .unwrap();
    let answer = game.call(
        "forge.set",
        json!({ "path": "camp/alias.forge.ron", "id_path": [1], "component": "name", "value": "\"Gob\"" }),
    );
    assert!(answer.get("error").is_none(), "{answer}");
    game.until_written();
    assert!(game.text(GOBLIN).contains("name: \"Gob\""));
    assert!(
        std::fs::symlink_metadata(game.dir.path().join("camp/alias.forge.ron"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// One random step of a client: a live value changed and kept, or a value set.
#[derive(Debug, Clone)]
enum Step {
    KeepHp(usize, i32),
    KeepIntensity(usize, u16),
    KeepTranslation(usize, i16),
    SetHp(usize, i32),
    SetName(usize, u8),
}

/// The entities steps choose from.
const PATHS: [&[u64]; 3] = [&[5, 1], &[6, 1], &[7]];

/// A small deterministic generator (xorshift64): the cases are the same on every run, and a
/// failing one names its seed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn step(&mut self) -> Step {
        let e = self.below(3) as usize;
        match self.below(5) {
            0 => Step::KeepHp(e, self.below(1000) as i32),
            1 => Step::KeepIntensity(e, 1 + self.below(4999) as u16),
            2 => Step::KeepTranslation(e, self.below(100) as i16 - 50),
            3 => Step::SetHp(e, self.below(1000) as i32),
            _ => Step::SetName(e, self.below(256) as u8),
        }
    }
}

/// `before` with the patches of a `forge.keep` or `forge.set` answer made, each at its line
/// and column in `before` (columns in characters).
fn replay(before: &str, answer: &Value) -> String {
    let mut edits: Vec<(usize, String, String)> = Vec::new();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(before.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    for file in answer["files"].as_array().unwrap() {
        if file["asset"] != CAMP {
            continue;
        }
        for p in file["patches"].as_array().unwrap() {
            let line = p["line"].as_u64().unwrap() as usize;
            let column = p["column"].as_u64().unwrap() as usize;
            let start = starts[line - 1];
            let at = start
                + before[start..]
                    .char_indices()
                    .nth(column - 1)
                    .map_or(0, |(i, _)| i);
            edits.push((
                at,
                p["before"].as_str().unwrap().to_owned(),
                p["after"].as_str().unwrap().to_owned(),
            ));
        }
    }
    let mut text = before.to_owned();
    for (at, old, new) in edits.into_iter().rev() {
        assert_eq!(
            &text[at..at + old.len()],
            old,
            "a patch does not start where it says"
        );
        text.replace_range(at..at + old.len(), &new);
    }
    text
}

/// Random keeps and sets on a file written by hand: after each, the file is the one before
/// with exactly the answer's patches made (nothing else moved), every comment is there, and the
/// game's values are the file's (no difference left once it reloads).
#[test]
fn random_keeps_and_sets_change_only_the_values_written() {
    let camp_text = original(CAMP);
    for seed in 1..=8u64 {
        let mut random = Random(0x9E37_79B9_7F4A_7C15 ^ seed);
        let steps: Vec<Step> = (0..1 + random.below(6)).map(|_| random.step()).collect();
        let mut game = camp();
        let root = game.root.to_bits();
        for s in &steps {
            let before = game.text(CAMP);
            // Counted before the call: the game updates while the client waits, so the write
            // and its reload may be done by the time the answer comes.
            let reloads = game.reloads();
            let answer = match s {
                Step::KeepHp(e, v) => {
                    set_hp(&mut game, PATHS[*e], *v);
                    let change = json!([{ "id_path": PATHS[*e], "component": "game::Health", "field": "hp" }]);
                    game.call("forge.keep", json!({ "root": root, "changes": change }))
                }
                Step::KeepIntensity(e, v) => {
                    let entity = game.entity(PATHS[*e]);
                    game.app.world_mut().get_mut::<PointLight>(entity).unwrap().intensity = f32::from(*v);
                    let change = json!([{ "id_path": PATHS[*e], "component": "point_light", "field": "intensity" }]);
                    game.call("forge.keep", json!({ "root": root, "changes": change }))
                }
                Step::KeepTranslation(e, v) => {
                    let entity = game.entity(PATHS[*e]);
                    game.app.world_mut().get_mut::<Transform>(entity).unwrap().translation.x = f32::from(*v) / 2.0;
                    let change = json!([{ "id_path": PATHS[*e], "component": "transform", "field": "translation" }]);
                    game.call("forge.keep", json!({ "root": root, "changes": change }))
                }
                Step::SetHp(e, v) => game.call(
                    "forge.set",
                    json!({ "path": CAMP, "id_path": PATHS[*e], "component": "game::Health", "field": "hp", "value": v.to_string() }),
                ),
                Step::SetName(e, v) => game.call(
                    "forge.set",
                    json!({ "path": CAMP, "id_path": PATHS[*e], "component": "name", "value": format!("\"N{v}\"") }),
                ),
            };
            // A keep of a value equal to the file's is not a difference: refused, nothing
            // written.
            if answer.get("error").is_some() {
                assert_eq!(
                    game.text(CAMP),
                    before,
                    "seed {seed}: refused but written: {answer}"
                );
                continue;
            }
            game.until_written();
            let after = game.text(CAMP);
            assert_eq!(
                replay(&before, &answer["result"]),
                after,
                "seed {seed}, after {s:?}: {answer}"
            );
            for c in comments(&camp_text) {
                assert!(after.contains(c), "seed {seed}: lost {c} after {s:?}");
            }
            if after != before {
                game.until_reloaded(reloads);
            }
            assert_eq!(
                differences(&mut game),
                json!([]),
                "seed {seed}, after {s:?}"
            );
        }
    }
}
