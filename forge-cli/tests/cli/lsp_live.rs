//! `forge lsp` with `initializationOptions.remote`: a game on Bevy's remote protocol, here a
//! stand-in HTTP server on loopback answering `forge.*` as `ForgeRemotePlugin` does (the
//! package's own tests check those answers against a real game). Hover shows the live value,
//! inlay hints mark it, a code action writes it, the commands reach the game; without a game
//! everything answers as before.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::lsp::{Client, apply_edits, pos, project, scene, uri};

/// The requests the stand-in game was sent: method and params.
type Log = Arc<Mutex<Vec<(String, Value)>>>;

/// A stand-in game on an ephemeral loopback port, answering each method with `answer`.
fn game(answer: impl Fn(&str, &Value) -> Value + Send + 'static) -> (u16, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log: Log = Arc::default();
    let seen = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let method = request["method"].as_str().unwrap_or_default().to_owned();
            let params = request["params"].clone();
            let result = answer(&method, &params);
            seen.lock().unwrap().push((method, params));
            let reply =
                json!({ "jsonrpc": "2.0", "id": request["id"], "result": result }).to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (port, log)
}

const ORBIT: &str = r#"(type: custom, data: (type_path: "forge_demo::Orbit", fields: [(name: "radius", expr: "2.0")]))"#;

/// A project with `assets/levels/level.forge.ron`; its URI and text.
fn level() -> (tempfile::TempDir, String, String) {
    let text = scene(
        &[(1, "Lamp", None, &[], ORBIT), (2, "Door", None, &[], "")],
        &[1, 2],
        3,
    );
    let dir = project(&[("assets/levels/level.forge.ron", &text)]);
    let u = uri(&dir.path().join("assets/levels/level.forge.ron"));
    (dir, u, text)
}

/// What the stand-in game answers for a level whose lamp moved and orbits wider in play.
fn answers(file: String) -> impl Fn(&str, &Value) -> Value + Send + 'static {
    move |method, _| match method {
        "forge.scenes" => {
            json!([{ "root": 42, "scene": "levels/level.forge.ron", "file": file, "entities": 2, "state": "spawned" }])
        }
        "forge.diff" => json!({ "differences": [
            { "id_path": [1], "component": "transform", "field": "translation",
              "file": "(x: 0.0, y: 0.0, z: 0.0)", "live": "(x: 4.5, y: 0.0, z: 0.0)" },
            { "id_path": [1], "component": "forge_demo::Orbit", "field": "radius",
              "file": "2.0", "live": "3.5" },
        ] }),
        "forge.entity" => json!({ "entity": 77 }),
        "forge.select" => json!({ "entity": 77 }),
        "forge.locate" => {
            json!({ "root": 42, "scene": "levels/level.forge.ron", "id_path": [2], "places": [
            { "asset": "levels/level.forge.ron", "file": file, "kind": "entity", "entity": 2, "target": [],
              "entry": { "start": { "line": 6, "column": 5 }, "end": { "line": 6, "column": 40 } }, "parts": [] }
        ] })
        }
        _ => Value::Null,
    }
}

#[test]
fn hover_hints_and_a_code_action_show_the_live_values_of_a_running_game() {
    let (dir, u, text) = level();
    let file = dir.path().join("assets/levels/level.forge.ron");
    let (port, log) = game(answers(file.to_string_lossy().into_owned()));
    let mut c = Client::start(
        dir.path(),
        &[],
        json!({ "remote": format!("http://127.0.0.1:{port}") }),
    );
    c.open(&u, &text);
    let _ = c.diagnostics(&u);

    // Hover on the radius: the schema's words (none here) and the live value beside the file's.
    let (line, ch) = pos(&text, "\"2.0\"", 0, 1);
    let hover = c.at("textDocument/hover", &u, line, ch);
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        shown.contains("**Live**") && shown.contains("`3.5`") && shown.contains("`2.0`"),
        "{hover}"
    );

    // Inlay hints after each value that differs.
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": u }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 99, "character": 0 } } }),
    );
    let live: Vec<(u64, u64, String)> = hints
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["label"].as_str().is_some_and(|l| l.starts_with("live: ")))
        .map(|h| {
            (
                h["position"]["line"].as_u64().unwrap(),
                h["position"]["character"].as_u64().unwrap(),
                h["label"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let (tl, tc) = pos(
        &text,
        "(x: 0.0, y: 0.0, z: 0.0), rotation",
        0,
        "(x: 0.0, y: 0.0, z: 0.0)".len(),
    );
    let (rl, rc) = pos(&text, "\"2.0\"", 0, 5);
    assert_eq!(
        live,
        vec![
            (
                tl as u64,
                tc as u64,
                "live: (x: 4.5, y: 0.0, z: 0.0)".to_owned()
            ),
            (rl as u64, rc as u64, "live: 3.5".to_owned()),
        ]
    );

    // The code action writes the live value in place of the file's.
    let actions = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": { "start": { "line": line, "character": ch }, "end": { "line": line, "character": ch } }, "context": { "diagnostics": [] } }),
    );
    let keep = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Keep the live value `3.5`")
        .unwrap_or_else(|| panic!("{actions}"));
    let edits = keep["edit"]["changes"][&u].as_array().unwrap();
    let kept = apply_edits(&text, edits);
    assert_eq!(kept, text.replace("expr: \"2.0\"", "expr: \"3.5\""));
    assert!(
        log.lock()
            .unwrap()
            .iter()
            .any(|(m, p)| m == "forge.diff" && p["root"] == 42)
    );
    c.stop();
}

#[test]
fn the_commands_select_an_entity_in_the_game_and_open_a_live_entitys_line() {
    let (dir, u, text) = level();
    let file = dir.path().join("assets/levels/level.forge.ron");
    let (port, log) = game(answers(file.to_string_lossy().into_owned()));
    let mut c = Client::start(
        dir.path(),
        &[],
        json!({ "remote": format!("http://127.0.0.1:{port}") }),
    );
    c.open(&u, &text);
    let _ = c.diagnostics(&u);
    let (line, ch) = pos(&text, "\"Door\"", 0, 1);
    let answer = c.request(
        "workspace/executeCommand",
        json!({ "command": "forge.revealEntity", "arguments": [u, { "line": line, "character": ch }] }),
    );
    assert_eq!(answer, json!({ "entity": 77, "id_path": [2] }));
    let sent: Vec<(String, Value)> = log.lock().unwrap().clone();
    assert!(sent.contains(&(
        "forge.entity".to_owned(),
        json!({ "path": "levels/level.forge.ron", "id_path": [2] })
    )));
    assert!(sent.contains(&("forge.select".to_owned(), json!({ "entity": 77 }))));

    let located = c.request(
        "workspace/executeCommand",
        json!({ "command": "forge.openEntity", "arguments": [77] }),
    );
    assert_eq!(located["id_path"], json!([2]));
    // The server asks the client to show the line (answered by the next request's loop).
    let _ = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": u }, "position": { "line": 0, "character": 0 } }),
    );
    let show = c
        .asked
        .iter()
        .find(|r| r.method == "window/showDocument")
        .unwrap_or_else(|| panic!("no showDocument: {:?}", c.asked));
    assert_eq!(show.params["uri"], Value::String(uri(&file)));
    assert_eq!(
        show.params["selection"]["start"],
        json!({ "line": 5, "character": 4 })
    );
    c.stop();
}

#[test]
fn without_a_running_game_everything_answers_as_before() {
    let (dir, u, text) = level();
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut c = Client::start(
        dir.path(),
        &[],
        json!({ "remote": format!("http://127.0.0.1:{port}") }),
    );
    c.open(&u, &text);
    let diagnostics = c.diagnostics(&u);
    assert!(
        diagnostics.iter().all(|d| d["severity"] != 1),
        "{diagnostics:?}"
    );
    let (line, ch) = pos(&text, "\"2.0\"", 0, 1);
    let started = std::time::Instant::now();
    let hover = c.at("textDocument/hover", &u, line, ch);
    assert!(!hover.to_string().contains("Live"), "{hover}");
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": u }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 99, "character": 0 } } }),
    );
    assert!(!hints.to_string().contains("live: "), "{hints}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let failed = c.request(
        "workspace/executeCommand",
        json!({ "command": "forge.openEntity", "arguments": [77] }),
    );
    assert!(
        failed["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("does not answer") || m.contains("did not answer")),
        "{failed}"
    );
    c.stop();

    // And without the option, the commands say what to set.
    let mut c = Client::start(dir.path(), &[], Value::Null);
    c.open(&u, &text);
    let _ = c.diagnostics(&u);
    let failed = c.request(
        "workspace/executeCommand",
        json!({ "command": "forge.revealEntity", "arguments": [u, { "line": 0, "character": 0 }] }),
    );
    assert!(
        failed["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("remote")),
        "{failed}"
    );
    c.stop();
}

/// A camp placing a goblin twice (the boss's override sets its `hp`), and the goblin prefab.
const CAMP: &str = r#"(
  format_version: 1,
  name: "Camp",
  entities: {
    5: (id: 5, name: "Boss", parent: None, children: [], transform: (translation: (x: 4.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [],
      instance: Some((scene: "prefabs/goblin.forge.ron", overrides: [
        // tougher
        (target: [1], set: [(type: custom, data: (type_path: "game::Health", fields: [(name: "hp", expr: "50")]))]),
      ]))),
    6: (id: 6, name: "Grunt", parent: None, children: [], transform: (translation: (x: 8.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [],
      instance: Some((scene: "prefabs/goblin.forge.ron"))),
  },
  roots: [5, 6],
  next_id: 7,
)
"#;

const GOBLIN: &str = r#"(
  format_version: 1,
  name: "Goblin",
  entities: {
    1: (id: 1, name: "Goblin", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [
      (type: custom, data: (type_path: "game::Health", fields: [(name: "hp", expr: "20"), (name: "armour", expr: "1")])),
    ]),
  },
  roots: [1],
  next_id: 2,
)
"#;

/// The stand-in game of the camp: the boss's `hp` (written by its override) is 75 in play; the
/// grunt's `armour` (written by the prefab) is 4, and so is the boss's when `agree`, else 9.
fn camp_answers(agree: bool) -> impl Fn(&str, &Value) -> Value + Send + 'static {
    move |method, _| match method {
        "forge.scenes" => json!([
            { "root": 42, "scene": "levels/camp.forge.ron", "file": "", "entities": 4, "state": "spawned" },
            { "root": 43, "scene": "levels/other.forge.ron", "file": "", "entities": 2, "state": "failed" },
        ]),
        "forge.diff" => {
            let armour = |path: [u64; 2], live: &str| {
                json!({
                    "id_path": path, "component": "game::Health", "field": "armour", "file": "1", "live": live,
                    "written": { "asset": "prefabs/goblin.forge.ron", "kind": "entity", "entity": 1, "target": [] }
                })
            };
            json!({ "differences": [
                { "id_path": [5, 1], "component": "game::Health", "field": "hp", "file": "50", "live": "75",
                  "written": { "asset": "levels/camp.forge.ron", "kind": "override", "entity": 5, "target": [1] } },
                armour([5, 1], if agree { "4" } else { "9" }),
                armour([6, 1], "4"),
            ] })
        }
        _ => Value::Null,
    }
}

fn hover_text(c: &mut Client, u: &str, text: &str, needle: &str) -> String {
    let (line, ch) = pos(text, needle, 0, 1);
    let hover = c.at("textDocument/hover", u, line, ch);
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn actions_at(c: &mut Client, u: &str, text: &str, needle: &str) -> Vec<Value> {
    let (line, ch) = pos(text, needle, 0, 1);
    c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": { "start": { "line": line, "character": ch }, "end": { "line": line, "character": ch } }, "context": { "diagnostics": [] } }),
    )
    .as_array()
    .cloned()
    .unwrap_or_default()
}

#[test]
fn a_value_an_override_writes_shows_its_live_value_and_keeps_it_there() {
    let dir = project(&[
        ("assets/levels/camp.forge.ron", CAMP),
        ("assets/prefabs/goblin.forge.ron", GOBLIN),
    ]);
    let u = uri(&dir.path().join("assets/levels/camp.forge.ron"));
    let (port, _) = game(camp_answers(true));
    let mut c = Client::start(
        dir.path(),
        &[],
        json!({ "remote": format!("http://127.0.0.1:{port}") }),
    );
    c.open(&u, CAMP);
    let _ = c.diagnostics(&u);
    let shown = hover_text(&mut c, &u, CAMP, "\"50\"");
    assert!(
        shown.contains("**Live**") && shown.contains("`75`") && shown.contains("[5, 1]"),
        "{shown}"
    );
    let keep = actions_at(&mut c, &u, CAMP, "\"50\"")
        .into_iter()
        .find(|a| a["title"] == "Keep the live value `75`")
        .expect("a keep action on the override's value");
    let edits = keep["edit"]["changes"][&u].as_array().unwrap();
    assert_eq!(
        apply_edits(CAMP, edits),
        CAMP.replace(r#"expr: "50""#, r#"expr: "75""#)
    );
    // The prefab's own value is not the scene's to show.
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": u }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 99, "character": 0 } } }),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["label"].as_str())
        .filter(|l| l.starts_with("live: "))
        .collect();
    assert_eq!(labels, ["live: 75"]);
    c.stop();
}

#[test]
fn a_prefab_file_shows_the_live_values_of_its_instances() {
    for agree in [true, false] {
        let dir = project(&[
            ("assets/levels/camp.forge.ron", CAMP),
            ("assets/prefabs/goblin.forge.ron", GOBLIN),
        ]);
        let u = uri(&dir.path().join("assets/prefabs/goblin.forge.ron"));
        let (port, _) = game(camp_answers(agree));
        let mut c = Client::start(
            dir.path(),
            &[],
            json!({ "remote": format!("http://127.0.0.1:{port}") }),
        );
        c.open(&u, GOBLIN);
        let _ = c.diagnostics(&u);
        let shown = hover_text(&mut c, &u, GOBLIN, "\"1\"");
        let keep = actions_at(&mut c, &u, GOBLIN, "\"1\"")
            .into_iter()
            .find(|a| {
                a["title"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("Keep the live value"))
            });
        if agree {
            assert!(
                shown.contains("2 instances") && shown.contains("`4`") && shown.contains("[6, 1]"),
                "{shown}"
            );
            let keep = keep.expect("a keep action when the instances agree");
            let edits = keep["edit"]["changes"][&u].as_array().unwrap();
            assert_eq!(
                apply_edits(GOBLIN, edits),
                GOBLIN.replace(r#"expr: "1""#, r#"expr: "4""#)
            );
        } else {
            assert!(
                shown.contains("differ") && shown.contains("`9`") && shown.contains("`4`"),
                "{shown}"
            );
            assert!(keep.is_none(), "no single value to keep");
        }
        // The value the boss's override writes is the scene's, not the prefab's.
        assert!(!hover_text(&mut c, &u, GOBLIN, "\"20\"").contains("**Live"));
        c.stop();
    }
}
