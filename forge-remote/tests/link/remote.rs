//! The live link as a client sees it: a headless game with `ForgeRemotePlugin` on an ephemeral
//! loopback port, driven over HTTP by a real client (`ureq`, JSON in and out, none of this
//! crate's types). Bevy's own `world.mutate_components` changes the game; `forge.diff` lists
//! exactly that; `forge.keep` writes exactly those lines; the reload keeps every `Entity` and
//! change tick. Hostile requests are each answered, and nothing is written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::*;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_reflect::TypePath;
use bevy_transform::components::Transform;
use serde_json::{Value, json};

fn transform_path() -> &'static str {
    Transform::type_path()
}

fn orbit_path() -> &'static str {
    Orbit::type_path()
}

#[test]
fn a_tweak_made_through_bevys_remote_protocol_is_kept_as_two_changed_lines() {
    let mut game = Game::new();
    let level = original(SCENE);
    let scenes = result(game.call("forge.scenes", Value::Null));
    let root = scenes[0]["root"].as_u64().unwrap();
    assert_eq!(root, game.root.to_bits());
    assert_eq!(scenes[0]["scene"], SCENE);
    assert_eq!(scenes[0]["state"], "spawned");

    let lamp = result(game.call("forge.entity", json!({ "path": SCENE, "id_path": [1] })));
    let lamp = lamp["entity"].as_u64().unwrap();
    let platform = result(game.call("forge.entity", json!({ "root": root, "id_path": [2] })));
    let platform = platform["entity"].as_u64().unwrap();
    assert_eq!(lamp, game.entity(&[1]).to_bits());

    // Where the lamp was written.
    let located = result(game.call("forge.locate", json!({ "entity": lamp })));
    assert_eq!(located["id_path"], json!([1]));
    let place = &located["places"][0];
    assert_eq!(place["asset"], SCENE);
    assert_eq!(place["entry"]["start"]["line"], line_of(&level, "1: ("));

    // Bevy's own method changes the game, as an inspector would.
    for (entity, component, path, value) in [
        (lamp, transform_path(), ".translation.x", json!(4.5)),
        (platform, orbit_path(), ".speed", json!(0.75)),
    ] {
        let done = result(game.call(
            "world.mutate_components",
            json!({ "entity": entity, "component": component, "path": path, "value": value }),
        ));
        assert_eq!(done, Value::Null);
    }
    let diff = result(game.call("forge.diff", json!({ "root": root })));
    assert_eq!(
        diff["differences"],
        json!([
            {
                "id_path": [1], "component": "transform", "field": "translation",
                "file": "(x: 1.0, y: 2.0, z: 3.0)", "live": "(x: 4.5, y: 2.0, z: 3.0)",
                "written": { "asset": SCENE, "kind": "entity", "entity": 1, "target": [] }
            },
            {
                "id_path": [2], "component": "forge_demo::Orbit", "field": "speed",
                "file": "0.5", "live": "0.75",
                "written": { "asset": SCENE, "kind": "entity", "entity": 2, "target": [] }
            }
        ])
    );

    let (lamp_e, platform_e) = (game.entity(&[1]), game.entity(&[2]));
    let before = (
        game.ticks::<Transform>(lamp_e),
        game.ticks::<Transform>(platform_e),
        game.ticks::<Orbit>(platform_e),
        game.ticks::<Name>(lamp_e),
    );
    let reloads = game.reloads();
    let kept = result(game.call("forge.keep", json!({ "root": root })));
    assert_eq!(kept["written"], true);
    assert_eq!(kept["files"][0]["asset"], SCENE);
    game.until_written();
    assert_eq!(
        changed_lines(&level, &game.text(SCENE)),
        vec![
            (
                line_of(&level, "translation: (x: 1.0"),
                "translation: (x: 4.5, y: 2.0, z: 3.0),".to_owned()
            ),
            (
                line_of(&level, "expr: \"0.5\""),
                "(name: \"speed\", expr: \"0.75\"),".to_owned()
            ),
        ]
    );
    game.until_reloaded(reloads);
    assert_eq!(game.entity(&[1]), lamp_e);
    assert_eq!(game.entity(&[2]), platform_e);
    let after = (
        game.ticks::<Transform>(lamp_e),
        game.ticks::<Transform>(platform_e),
        game.ticks::<Orbit>(platform_e),
        game.ticks::<Name>(lamp_e),
    );
    assert_eq!(format!("{before:?}"), format!("{after:?}"));
    let diff = result(game.call("forge.diff", json!({ "root": root })));
    assert_eq!(diff["differences"], json!([]));
}

#[test]
fn a_prefab_entity_is_kept_into_the_instance_then_into_the_prefab() {
    let mut game = Game::new();
    let root = game.root.to_bits();
    let (level, prefab) = (original(SCENE), original(PREFAB));
    let crate_entity = game.entity(&[3, 1]);
    let located = result(game.call("forge.locate", json!({ "entity": crate_entity.to_bits() })));
    let kinds: Vec<&str> = located["places"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["override", "entity"]);
    assert_eq!(located["places"][1]["asset"], PREFAB);

    let mutate = |path: &'static str, value: f64| json!({ "entity": crate_entity.to_bits(), "component": orbit_path(), "path": path, "value": value });
    result(game.call("world.mutate_components", mutate(".radius", 3.0)));
    let ticks = game.ticks::<Orbit>(crate_entity);
    let reloads = game.reloads();
    let change = |field: &str| json!([{ "id_path": [3, 1], "component": "forge_demo::Orbit", "field": field }]);
    let kept = result(game.call(
        "forge.keep",
        json!({ "root": root, "changes": change("radius"), "into": "instance" }),
    ));
    assert_eq!(kept["files"][0]["asset"], SCENE);
    game.until_written();
    assert_eq!(game.text(PREFAB), prefab, "the prefab is not touched");
    let now = game.text(SCENE);
    assert!(now.contains("expr: \"3.0\""), "{now}");
    assert!(now.contains("// The test level"));
    game.until_reloaded(reloads);
    assert_eq!(game.entity(&[3, 1]), crate_entity);
    assert_eq!(
        format!("{:?}", game.ticks::<Orbit>(crate_entity)),
        format!("{ticks:?}")
    );

    // Into the prefab: its one line changes, the scene stays as it is now.
    result(game.call("world.mutate_components", mutate(".speed", 2.0)));
    let level_now = game.text(SCENE);
    let kept = result(game.call(
        "forge.keep",
        json!({ "root": root, "changes": change("speed"), "into": "prefab" }),
    ));
    assert_eq!(kept["files"][0]["asset"], PREFAB);
    game.until_written();
    assert_eq!(game.text(SCENE), level_now);
    assert_ne!(level_now, level);
    assert_eq!(
        changed_lines(&prefab, &game.text(PREFAB)),
        vec![(
            line_of(&prefab, "\"speed\""),
            "(name: \"speed\", expr: \"2.0\"),".to_owned()
        )]
    );
}

#[test]
fn set_writes_an_inspectors_value_and_refuses_one_that_does_not_validate() {
    let mut game = Game::new();
    let level = original(SCENE);
    let set = |value: &str| json!({ "path": SCENE, "id_path": [2], "component": "forge_demo::Orbit", "field": "radius", "value": value });
    let refused = game.call("forge.set", set("500.0"));
    assert_eq!(error_code(&refused), -23601, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("radius"), "{message}");
    assert_eq!(game.text(SCENE), level);

    let reloads = game.reloads();
    let written = result(game.call("forge.set", set("7.5")));
    assert_eq!(written["written"], true);
    game.until_reloaded(reloads);
    let platform = game.entity(&[2]);
    assert_eq!(game.app.world().get::<Orbit>(platform).unwrap().radius, 7.5);
}

#[test]
fn hostile_requests_are_answered_and_write_nothing() {
    let mut game = Game::new();
    let root = game.root.to_bits();
    let outside = game.dir.path().parent().unwrap().join("outside.forge.ron");
    let before: Vec<String> = [SCENE, PREFAB].iter().map(|p| game.text(p)).collect();
    let answers = game.client(move |port| {
        let huge = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"forge.set","params":{{"path":"{SCENE}","id_path":[2],"component":"forge_demo::Orbit","field":"radius","value":"{}"}}}}"#,
            "9".repeat(8 * 1024 * 1024)
        );
        let set_at = |path: &str| {
            json!({ "path": path, "id_path": [1], "component": "name", "value": "\"X\"" })
        };
        vec![
            ("bad json", post(port, "{\"jsonrpc\": \"2.0\", \"method\": ")),
            ("huge body", post(port, &huge)),
            ("unknown entity", rpc(port, "forge.locate", json!({ "entity": 4_294_967_295u64 }))),
            ("not an entity", rpc(port, "forge.locate", json!({ "entity": "lamp" }))),
            ("no params", rpc(port, "forge.diff", Value::Null)),
            ("unknown root", rpc(port, "forge.diff", json!({ "root": 12345 }))),
            ("outside the root", rpc(port, "forge.set", set_at("../outside.forge.ron"))),
            ("absolute path", rpc(port, "forge.set", set_at("/tmp/outside.forge.ron"))),
            ("a label", rpc(port, "forge.set", set_at("levels/level.forge.ron#x"))),
            ("unknown id", rpc(port, "forge.entity", json!({ "path": SCENE, "id_path": [99] }))),
            (
                "unknown id in set",
                rpc(port, "forge.set", json!({ "path": SCENE, "id_path": [99], "component": "name", "value": "\"X\"" })),
            ),
            (
                "a change that is not a difference",
                rpc(port, "forge.keep", json!({ "root": root, "changes": [{ "id_path": [1], "component": "name" }] })),
            ),
            ("wrong into", rpc(port, "forge.keep", json!({ "root": root, "into": "everywhere" }))),
            ("unknown method", rpc(port, "forge.explode", Value::Null)),
        ]
    });
    for (what, answer) in &answers {
        assert!(
            answer["error"]["code"].as_i64().is_some(),
            "{what}: not an error: {answer}"
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{what}: {answer}"
        );
    }
    let code = |what: &str| error_code(&answers.iter().find(|(w, _)| *w == what).unwrap().1);
    // Bevy's transport calls a body cut short an invalid request or a parse error.
    assert!([-32700, -32600].contains(&code("bad json")), "{answers:?}");
    assert_eq!(code("no params"), -32602);
    assert_eq!(code("unknown root"), -23401);
    assert_eq!(code("outside the root"), -32602);
    assert!(!outside.exists());
    assert!(!Path::new("/tmp/outside.forge.ron").exists());
    let after: Vec<String> = [SCENE, PREFAB].iter().map(|p| game.text(p)).collect();
    assert_eq!(before, after, "nothing written");
    // The game goes on.
    let scenes = result(game.call("forge.scenes", Value::Null));
    assert_eq!(scenes[0]["state"], "spawned");
}

#[test]
fn a_watching_client_hears_of_a_change_without_polling() {
    let mut game = Game::new();
    let root = game.root.to_bits();
    let port = game.port;
    let watcher = std::thread::spawn(move || {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "forge.changes+watch", "params": { "root": root } });
        let response = ureq::post(&format!("http://127.0.0.1:{port}/"))
            .timeout(Duration::from_secs(60))
            .send_string(&body.to_string())
            .unwrap();
        let mut reader = std::io::BufReader::new(response.into_reader());
        let mut line = String::new();
        loop {
            line.clear();
            if std::io::BufRead::read_line(&mut reader, &mut line).unwrap() == 0 {
                return String::new();
            }
            if let Some(data) = line.strip_prefix("data:") {
                return data.trim().to_owned();
            }
        }
    });
    // Let the watch start, then change the lamp in the game.
    for _ in 0..50 {
        game.app.update();
        std::thread::sleep(Duration::from_millis(2));
    }
    let lamp = game.entity(&[1]);
    game.app
        .world_mut()
        .get_mut::<Transform>(lamp)
        .unwrap()
        .translation
        .y = 8.0;
    let started = Instant::now();
    while !watcher.is_finished() {
        assert!(started.elapsed() < Duration::from_secs(60), "no event");
        game.app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    let event: Value = serde_json::from_str(&watcher.join().unwrap()).unwrap();
    assert_eq!(event["result"]["back"], json!([]));
    let changed = &event["result"]["changed"];
    assert_eq!(
        changed,
        &json!([{
            "id_path": [1], "component": "transform", "field": "translation",
            "file": "(x: 1.0, y: 2.0, z: 3.0)", "live": "(x: 1.0, y: 8.0, z: 3.0)",
            "written": { "asset": SCENE, "kind": "entity", "entity": 1, "target": [] }
        }]),
        "{event}"
    );
}

#[test]
fn select_marks_one_entity_at_a_time() {
    let mut game = Game::new();
    let (lamp, platform) = (game.entity(&[1]), game.entity(&[2]));
    let selected = |game: &mut Game| {
        let world = game.app.world_mut();
        let mut q = world.query_filtered::<Entity, With<bevy_forge_scene_remote::ForgeSelected>>();
        q.iter(world).collect::<Vec<_>>()
    };
    let answer = result(game.call("forge.select", json!({ "entity": lamp.to_bits() })));
    assert_eq!(answer["entity"], lamp.to_bits());
    assert_eq!(selected(&mut game), vec![lamp]);
    result(game.call("forge.select", json!({ "entity": platform.to_bits() })));
    assert_eq!(selected(&mut game), vec![platform]);
    result(game.call("forge.select", json!({ "entity": null })));
    assert!(selected(&mut game).is_empty());
    let gone = game.app.world_mut().spawn_empty().id();
    game.app.world_mut().despawn(gone);
    let gone = game.call("forge.select", json!({ "entity": gone.to_bits() }));
    assert_eq!(error_code(&gone), -23401, "{gone}");
}
