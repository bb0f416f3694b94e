//! `forge lsp` in process: the real server loop over `lsp_server::Connection::memory()`, driven
//! as an editor drives it, with the answers compared to expected JSON.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

/// A client talking to a server thread.
pub struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), String>>>,
    next: i32,
    /// Notifications received while waiting for something else.
    pub notes: Vec<Notification>,
    /// The requests the server sent, answered with `null`.
    pub asked: Vec<Request>,
}

impl Client {
    /// Starts a server and shakes hands, the client offering `encodings` and passing
    /// `options` as `initializationOptions`.
    pub fn start(root: &Path, encodings: &[&str], options: Value) -> Client {
        let (server, client) = Connection::memory();
        let thread = std::thread::spawn(move || {
            bevy_forge_scene_cli::lsp::serve(server).map_err(|e| e.to_string())
        });
        let mut c = Client {
            conn: client,
            server: Some(thread),
            next: 0,
            notes: Vec::new(),
            asked: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": {
                    "general": { "positionEncodings": encodings },
                    "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } },
                },
                "initializationOptions": options,
            }),
        );
        assert!(init.get("capabilities").is_some(), "{init}");
        c.notify("initialized", json!({}));
        c
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.to_owned(),
                params,
            )))
            .unwrap();
    }

    /// Sends a request; its result, or `{"error": {code, message}}`.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_owned(),
                params,
            )))
            .unwrap();
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(Duration::from_secs(60))
                .unwrap()
            {
                Message::Response(r) if r.id == id => {
                    return match r.response_result {
                        Err(e) => json!({ "error": { "code": e.code, "message": e.message } }),
                        Ok(v) => v,
                    };
                }
                Message::Notification(n) => self.notes.push(n),
                Message::Request(r) => self.answer(r),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// Answers a request of the server (`client/registerCapability`) with `null`, keeping it.
    fn answer(&mut self, r: Request) {
        let response = lsp_server::Response::new_ok(r.id.clone(), Value::Null);
        self.conn.sender.send(Message::Response(response)).unwrap();
        self.asked.push(r);
    }

    /// The next diagnostics published for `uri` (those already received first).
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let matches = |n: &Notification| {
            n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri
        };
        if let Some(i) = self.notes.iter().position(matches) {
            let n = self.notes.remove(i);
            return n.params["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
        }
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(Duration::from_secs(60))
                .unwrap()
            {
                Message::Notification(n) if matches(&n) => {
                    return n.params["diagnostics"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                }
                Message::Notification(n) => self.notes.push(n),
                Message::Request(r) => self.answer(r),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    pub fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "forge-ron", "version": 1, "text": text } }),
        );
    }

    /// Replaces `(line, character)..(line, character)` with `text`.
    pub fn change(&self, uri: &str, version: i32, range: [u32; 4], text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "range": range_json(range), "text": text }],
            }),
        );
    }

    /// A request at a position of a document.
    pub fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        let mut params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": character },
        });
        if method == "textDocument/references" {
            params["context"] = json!({ "includeDeclaration": true });
        }
        self.request(method, params)
    }

    /// `shutdown` and `exit`; the server's thread ends with `Ok`.
    pub fn stop(mut self) {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let thread = self.server.take().unwrap();
        assert_eq!(thread.join().unwrap(), Ok(()));
    }
}

pub fn range_json([sl, sc, el, ec]: [u32; 4]) -> Value {
    json!({ "start": { "line": sl, "character": sc }, "end": { "line": el, "character": ec } })
}

pub fn uri(path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    let mut out = String::from("file://");
    for b in path.to_str().unwrap().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A project: `scenes/` and `assets/` with these files (paths under the project).
pub fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenes")).unwrap();
    std::fs::create_dir_all(dir.path().join("assets")).unwrap();
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

const T: &str = "transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))";

/// An entity of [`scene`]: id, name, parent, children, components.
pub type Entity<'a> = (u64, &'a str, Option<u64>, &'a [u64], &'a str);

/// A scene of entities written one per line: `(id, name, parent, children, components)`.
pub fn scene(entities: &[Entity<'_>], roots: &[u64], next_id: u64) -> String {
    let mut out = String::from("(\n  format_version: 1,\n  name: \"Test\",\n  entities: {\n");
    for (id, name, parent, children, components) in entities {
        let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
        out.push_str(&format!(
            "    {id}: (id: {id}, name: \"{name}\", parent: {parent}, children: {children:?}, {T}, components: [{components}]),\n"
        ));
    }
    out.push_str(&format!(
        "  }},\n  roots: {roots:?},\n  next_id: {next_id},\n)\n"
    ));
    out
}

fn line_of(text: &str, needle: &str) -> u32 {
    text.lines().position(|l| l.contains(needle)).unwrap() as u32
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect()
}

/// The errors and warnings (not the information: no camera, an entity without components).
fn problems(diagnostics: Vec<Value>) -> Vec<Value> {
    diagnostics
        .into_iter()
        .filter(|d| d["severity"].as_u64() < Some(3))
        .collect()
}

/// A scene whose second line of entities names a missing child after a name with characters
/// outside the BMP, so columns differ between UTF-16, UTF-8 and characters.
fn wide_scene() -> String {
    scene(
        &[(1, "Sun", None, &[], ""), (2, "🌲 Zoë", None, &[9], "")],
        &[1, 2],
        10,
    )
}

#[test]
fn diagnostics_on_open_are_at_the_utf16_column_and_go_when_fixed() {
    let dir = project(&[]);
    let path = dir.path().join("scenes/wide.forge.ron");
    let text = wide_scene();
    std::fs::write(&path, &text).unwrap();
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&path);
    c.open(&u, &text);
    let d = problems(c.diagnostics(&u));
    let line = line_of(&text, "Zoë");
    let byte = text
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("[9]")
        .unwrap();
    let utf16 = text.lines().nth(line as usize).unwrap()[..byte]
        .encode_utf16()
        .count() as u32;
    assert_eq!(
        utf16 as usize,
        byte - 3,
        "🌲 is 4 bytes, 2 units; ë 2 bytes, 1 unit"
    );
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "forge::structure::missing_child");
    assert_eq!(d[0]["source"], "forge");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["range"], range_json([line, utf16, line, utf16 + 3]));
    // Fixing it (`9` to nothing) takes the diagnostic away.
    c.change(&u, 2, [line, utf16 + 1, line, utf16 + 2], "");
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    c.stop();
}

#[test]
fn a_client_offering_utf8_gets_byte_columns() {
    let dir = project(&[]);
    let path = dir.path().join("scenes/wide.forge.ron");
    let text = wide_scene();
    std::fs::write(&path, &text).unwrap();
    let mut c = Client::start(dir.path(), &["utf-8", "utf-16"], Value::Null);
    let u = uri(&path);
    c.open(&u, &text);
    let d = problems(c.diagnostics(&u));
    let line = line_of(&text, "Zoë");
    let byte = text
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("[9]")
        .unwrap() as u32;
    assert_eq!(d[0]["range"], range_json([line, byte, line, byte + 3]));
    c.stop();
}

#[test]
fn a_syntax_error_is_one_diagnostic_and_the_next_edit_reads_again() {
    let dir = project(&[]);
    let path = dir.path().join("scenes/a.forge.ron");
    let text = scene(&[(1, "A", None, &[], "")], &[1], 2);
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&path);
    c.open(&u, &text);
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    let line = line_of(&text, "name: \"A\"");
    // `name: "A"` to `name: "A` and an unterminated string.
    let col = text
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("A\"")
        .unwrap() as u32
        + 1;
    c.change(&u, 2, [line, col, line, col + 1], "");
    let d = problems(c.diagnostics(&u));
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0]["code"].as_str().unwrap().starts_with("forge::read::"),
        "{d:?}"
    );
    c.change(&u, 3, [line, col, line, col], "\"");
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    c.stop();
}

#[test]
fn a_prefabs_own_error_shows_where_the_scene_places_it_and_follows_its_edits() {
    let prefab = scene(&[(1, "Goblin", None, &[4], "")], &[1], 2);
    let level = scene(&[(1, "Camp", None, &[], "")], &[1], 2).replace(
        "components: [])",
        "components: [], instance: Some((scene: \"prefabs/goblin.forge.ron\")))",
    );
    let dir = project(&[
        ("assets/prefabs/goblin.forge.ron", &prefab),
        ("assets/scenes/camp.forge.ron", &level),
    ]);
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let scene_uri = uri(&dir.path().join("assets/scenes/camp.forge.ron"));
    let prefab_uri = uri(&dir.path().join("assets/prefabs/goblin.forge.ron"));
    c.open(&scene_uri, &level);
    let d = problems(c.diagnostics(&scene_uri));
    assert_eq!(codes(&d), ["forge::structure::missing_child"], "{d:?}");
    let line = line_of(&level, "prefabs/goblin");
    let col = level
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("\"prefabs")
        .unwrap() as u32;
    let len = "\"prefabs/goblin.forge.ron\"".len() as u32;
    assert_eq!(d[0]["range"], range_json([line, col, line, col + len]));
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("in prefab `prefabs/goblin.forge.ron`: ")
    );
    let related = &d[0]["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], prefab_uri.as_str());
    let pline = line_of(&prefab, "Goblin");
    let pcol = prefab
        .lines()
        .nth(pline as usize)
        .unwrap()
        .find("[4]")
        .unwrap() as u32;
    assert_eq!(related["range"], range_json([pline, pcol, pline, pcol + 3]));
    // The prefab opened and fixed in the editor: the scene is checked again with it.
    c.open(&prefab_uri, &prefab);
    assert_eq!(
        codes(&problems(c.diagnostics(&prefab_uri))),
        ["forge::structure::missing_child"]
    );
    assert_eq!(
        codes(&problems(c.diagnostics(&scene_uri))),
        ["forge::structure::missing_child"]
    );
    c.change(&prefab_uri, 2, [pline, pcol + 1, pline, pcol + 2], "");
    assert_eq!(problems(c.diagnostics(&prefab_uri)), Vec::<Value>::new());
    assert_eq!(problems(c.diagnostics(&scene_uri)), Vec::<Value>::new());
    c.stop();
}

#[test]
fn requests_that_cannot_be_answered_are_errors_and_the_server_stays_up() {
    let dir = project(&[]);
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let missing = c.at("textDocument/hover", "file:///nowhere.forge.ron", 0, 0);
    assert_eq!(missing["error"]["code"], -32803, "{missing}");
    let unknown = c.request("forge/unknown", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let bad = c.request("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(bad["error"]["code"], -32602);
    // Still serving.
    let path = dir.path().join("scenes/a.forge.ron");
    let u = uri(&path);
    c.open(&u, &scene(&[(1, "A", None, &[], "")], &[1], 2));
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    c.stop();
}

fn repo() -> PathBuf {
    PathBuf::from(super::ROOT)
}

/// The (line, UTF-16 column) of byte `delta` after the `nth` (0-based) `needle` of `text`.
pub fn pos(text: &str, needle: &str, nth: usize, delta: usize) -> (u32, u32) {
    let at = text.match_indices(needle).nth(nth).unwrap().0 + delta;
    let line = text[..at].matches('\n').count() as u32;
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line, text[start..at].encode_utf16().count() as u32)
}

const SCHEMA: &str = r#"(
    format: 1,
    components: [
        (
            type_path: "forge_demo::Follow",
            type_name: "Follow",
            docs: "Moves towards another entity.",
            fields: [
                (name: "target", type_name: "Entity", kind: Entity, required: true, docs: "Whom to follow."),
                (name: "speed", type_name: "f32", kind: Float(bits: 32), default: Some("1.0"),
                 range: Some((min: 0.0, max: 10.0, inclusive: true)), docs: "Metres per second."),
            ],
        ),
        (
            type_path: "forge_demo::Health",
            type_name: "Health",
            fields: [(name: "hp", type_name: "i32", kind: Integer(signed: true, bits: 32), required: true, docs: "Hit points.")],
        ),
    ],
)"#;

/// The repository's goblin camp with its prefabs, its camera following `#3/2` (the torch of
/// the second goblin), and a schema file, in a project of its own.
fn camp() -> (tempfile::TempDir, String) {
    let root = repo().join("assets");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let scene = read("scenes/goblin_camp.forge.ron").replace(
        "components: [(type: camera2d)],",
        "components: [(type: camera2d), (type: custom, data: (type_path: \"forge_demo::Follow\", fields: [(name: \"target\", expr: \"#3/2\")]))],",
    );
    let dir = project(&[
        ("assets/scenes/camp.forge.ron", &scene),
        (
            "assets/prefabs/goblin.forge.ron",
            &read("prefabs/goblin.forge.ron"),
        ),
        (
            "assets/prefabs/hat.forge.ron",
            &read("prefabs/hat.forge.ron"),
        ),
        ("assets/game.forge-schema.ron", SCHEMA),
        ("assets/textures/leaf.png", ""),
    ]);
    (dir, scene)
}

fn open_camp() -> (tempfile::TempDir, String, Client, String) {
    let (dir, text) = camp();
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&dir.path().join("assets/scenes/camp.forge.ron"));
    c.open(&u, &text);
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    (dir, text, c, u)
}

fn hover_text(c: &mut Client, u: &str, (line, col): (u32, u32)) -> String {
    let h = c.at("textDocument/hover", u, line, col);
    h["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{h}"))
        .to_owned()
}

#[test]
fn hover_tells_fields_entities_references_targets_and_prefabs() {
    let (_dir, text, mut c, u) = open_camp();
    // A built-in field: its type, unit, range and default.
    let h = hover_text(&mut c, &u, pos(&text, "custom_size", 0, 2));
    assert!(h.starts_with("`sprite.custom_size`: "), "{h}");
    assert!(
        h.contains("unit: pixels") && h.contains("range: > 0") && h.contains("default: `None`"),
        "{h}"
    );
    // A field an override sets.
    let h = hover_text(&mut c, &u, pos(&text, "intensity: 1200.0", 0, 3));
    assert!(h.starts_with("`point_light.intensity`: f32"), "{h}");
    assert!(h.contains("unit: lumens"), "{h}");
    // A reference into an instance: the placed entity, its path and components.
    let h = hover_text(&mut c, &u, pos(&text, "#3/2", 0, 3));
    assert!(h.starts_with("**Torch** `#3/2`"), "{h}");
    assert!(h.contains("Goblin B / Goblin Boss / Torch"), "{h}");
    assert!(h.contains("`point_light`"), "{h}");
    // A custom field: its schema kind and doc comment.
    let h = hover_text(&mut c, &u, pos(&text, "\"target\"", 0, 2));
    assert!(h.starts_with("`Follow::target`: `Entity`"), "{h}");
    assert!(h.contains("Whom to follow."), "{h}");
    // An override target: the prefab entity it reaches, through the nested instance.
    let h = hover_text(&mut c, &u, pos(&text, "target: [3, 1]", 0, 12));
    assert!(h.contains("`#3/3/1`"), "{h}");
    // An instance's scene: the prefab's name and roots.
    let h = hover_text(&mut c, &u, pos(&text, "\"prefabs/goblin", 0, 3));
    assert!(
        h.starts_with("prefab **Goblin** (`prefabs/goblin.forge.ron`)"),
        "{h}"
    );
    assert!(h.contains("roots: `#1` Goblin"), "{h}");
    // An id in `parent`: the entity.
    let h = hover_text(&mut c, &u, pos(&text, "parent: Some(3)", 0, 13));
    assert!(h.starts_with("**Goblin B** `#3`"), "{h}");
    // Nothing under the cursor: no hover.
    assert_eq!(c.at("textDocument/hover", &u, 0, 0), Value::Null);
    c.stop();
}

/// The repository's dungeon with a floor key outside the BMP (`🌲`, two UTF-16 units) before a
/// coin in the second row, and a sparse layer of loot after the rooms.
fn dungeon() -> (tempfile::TempDir, String) {
    let root = repo().join("assets");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let loot = "    (\n      id: 3,\n      name: \"Loot\",\n      parent: None,\n      plane: xy,\n      cell_size: (x: 16.0, y: 16.0),\n      origin: (x: 0.0, y: 0.0, z: 1.0),\n      palette: {\"c\": \"prefabs/coin.forge.ron\"},\n      cells: [(i: 1, j: 2, key: \"c\"), (i: 2, j: 7, key: \"c\")],\n    ),\n  ],\n)";
    let text = read("scenes/dungeon.forge.ron")
        .replace(
            "\"_\": \"prefabs/floor.forge.ron\",",
            "\"_\": \"prefabs/floor.forge.ron\",\n        \"🌲\": \"prefabs/floor.forge.ron\",",
        )
        .replace("\"#__c___#\"", "\"#🌲_c___#\"")
        .replace("next_id: 3", "next_id: 4");
    let end = text.rfind("  ],\n)").unwrap();
    let scene = format!("{}{loot}\n", &text[..end]);
    let mut files = vec![("assets/scenes/dungeon.forge.ron".to_owned(), scene.clone())];
    for prefab in ["wall", "floor", "coin"] {
        let path = format!("prefabs/{prefab}.forge.ron");
        files.push((format!("assets/{path}"), read(&path)));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    (project(&files), scene)
}

#[test]
fn hover_on_a_cell_tells_its_key_prefab_and_id_path() {
    let (dir, text) = dungeon();
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&dir.path().join("assets/scenes/dungeon.forge.ron"));
    c.open(&u, &text);
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    // The coin after the wide key: row 1 of 6 is j = 4, the fourth character i = 3; the
    // column is in UTF-16 units (the tree counts two).
    let (line, col) = pos(&text, "\"#🌲_c", 0, 7);
    let quote = text
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("\"#")
        .unwrap() as u32;
    assert_eq!(col, quote + 5);
    let h = c.at("textDocument/hover", &u, line, col);
    let value = h["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{h}"));
    assert!(
        value.starts_with("cell (3, 4) of layer **Rooms** `#2`"),
        "{value}"
    );
    assert!(
        value.contains("key `c` → `prefabs/coin.forge.ron`"),
        "{value}"
    );
    assert!(value.contains("id path `[2, 3, 4]`"), "{value}");
    assert!(value.contains("prefab **Coin**"), "{value}");
    assert!(value.contains("roots: `#2/3/4/1` Floor"), "{value}");
    // The hover covers that one character.
    assert_eq!(h["range"], range_json([line, col, line, col + 1]));
    // The wide key itself: one character of two UTF-16 units.
    let h = c.at("textDocument/hover", &u, line, col - 3);
    let value = h["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{h}"));
    assert!(
        value.starts_with("cell (1, 4) of layer **Rooms**"),
        "{value}"
    );
    assert!(
        value.contains("key `🌲` → `prefabs/floor.forge.ron`"),
        "{value}"
    );
    assert_eq!(h["range"], range_json([line, col - 3, line, col - 1]));
    // The coin the layer's override renames.
    let h = hover_text(&mut c, &u, pos(&text, "\"#c____c#\"", 0, 7));
    assert!(h.starts_with("cell (6, 1) of layer **Rooms**"), "{h}");
    assert!(h.contains("1 override of this cell"), "{h}");
    // An empty cell.
    let h = hover_text(&mut c, &u, pos(&text, "\"###._###\"", 0, 4));
    assert!(h.starts_with("cell (3, 2) of layer **Rooms**"), "{h}");
    assert!(h.contains("empty: `.` places nothing"), "{h}");
    // A sparse cell entry: the whole entry.
    let h = hover_text(&mut c, &u, pos(&text, "(i: 2, j: 7", 0, 3));
    assert!(h.starts_with("cell (2, 7) of layer **Loot** `#3`"), "{h}");
    assert!(h.contains("id path `[3, 2, 7]`"), "{h}");
    assert!(h.contains("roots: `#3/2/7/1` Floor"), "{h}");
    // Definition on a cell opens its prefab.
    let d = c.at("textDocument/definition", &u, line, col);
    assert!(
        d["uri"]
            .as_str()
            .unwrap()
            .ends_with("prefabs/coin.forge.ron"),
        "{d}"
    );
    c.stop();
}

#[test]
fn definition_follows_ids_references_and_targets_into_prefab_files() {
    let (dir, text, mut c, u) = open_camp();
    let goblin = uri(&dir.path().join("assets/prefabs/goblin.forge.ron"));
    let hat = uri(&dir.path().join("assets/prefabs/hat.forge.ron"));
    let goblin_text =
        std::fs::read_to_string(dir.path().join("assets/prefabs/goblin.forge.ron")).unwrap();
    let hat_text =
        std::fs::read_to_string(dir.path().join("assets/prefabs/hat.forge.ron")).unwrap();
    let (l, ch) = pos(&text, "parent: Some(3)", 0, 13);
    assert_eq!(
        c.at("textDocument/definition", &u, l, ch),
        json!({ "uri": u, "range": key_range(&text, 3) })
    );
    let (l, ch) = pos(&text, "#3/2", 0, 2);
    assert_eq!(
        c.at("textDocument/definition", &u, l, ch),
        json!({ "uri": goblin, "range": key_range(&goblin_text, 2) })
    );
    let (l, ch) = pos(&text, "target: [3, 1]", 0, 12);
    assert_eq!(
        c.at("textDocument/definition", &u, l, ch),
        json!({ "uri": hat, "range": key_range(&hat_text, 1) })
    );
    let (l, ch) = pos(&text, "\"prefabs/hat", 0, 2);
    assert_eq!(
        c.at("textDocument/definition", &u, l, ch)["uri"],
        hat.as_str()
    );
    c.stop();
}

/// The range of entity `id`'s key in a file written as the repository's (`    3: (`).
fn key_range(text: &str, id: u64) -> Value {
    let (line, _) = pos(text, &format!("\n    {id}: ("), 0, 1);
    let len = id.to_string().len() as u32;
    range_json([line, 4, line, 4 + len])
}

#[test]
fn references_symbols_and_inlay_hints_name_the_entities() {
    let (_dir, text, mut c, u) = open_camp();
    // Entity 3: its key, its id, `roots`, the crown's parent.
    let (l, ch) = pos(&text, "\n    3: (", 0, 5);
    let refs = c.at("textDocument/references", &u, l, ch);
    let lines: Vec<u64> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = [
        pos(&text, "\n    3: (", 0, 1).0,
        pos(&text, "id: 3,", 0, 0).0,
        pos(&text, "parent: Some(3)", 0, 0).0,
        pos(&text, "roots: [1, 2, 3, 4]", 0, 0).0,
    ]
    .into_iter()
    .map(u64::from)
    .collect();
    let mut sorted = lines.clone();
    sorted.sort();
    let mut want = expected.clone();
    want.sort();
    assert_eq!(sorted, want, "{refs}");
    // The tree: roots, and the crown under the second goblin.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": u } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Camera", "Goblin A", "Goblin B", "Spare Hat"]);
    assert_eq!(symbols[2]["children"][0]["name"], "Crown");
    assert_eq!(symbols[2]["detail"], "#3 places prefabs/goblin.forge.ron");
    // Names after ids and references.
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": u }, "range": range_json([0, 0, 500, 0]) }),
    );
    let labels: Vec<(u64, String)> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["position"]["line"].as_u64().unwrap(),
                h["label"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        labels.contains(&(
            u64::from(pos(&text, "#3/2", 0, 0).0),
            "\"Torch\"".to_owned()
        )),
        "{labels:?}"
    );
    assert!(
        labels.contains(&(
            u64::from(pos(&text, "parent: Some(3)", 0, 0).0),
            "\"Goblin B\"".to_owned()
        )),
        "{labels:?}"
    );
    assert!(
        labels.contains(&(
            u64::from(pos(&text, "target: [3, 1]", 0, 0).0),
            "\"Hat\"".to_owned()
        )) || labels
            .iter()
            .any(|(l, _)| *l == u64::from(pos(&text, "target: [3, 1]", 0, 0).0)),
        "{labels:?}"
    );
    c.stop();
}

fn labels(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("{items}"))
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn completion_offers_what_may_be_written_there() {
    let (_dir, text, mut c, u) = open_camp();
    // `type: ` of the crown's sprite: every tag.
    let (l, ch) = pos(&text, "(type: sprite, data: (\n", 0, 7);
    let items = c.at("textDocument/completion", &u, l, ch);
    let got = labels(&items);
    assert!(
        got.contains(&"point_light".to_owned()) && got.contains(&"custom".to_owned()),
        "{got:?}"
    );
    // `#` in an expression: the scene's ids and the placed entities' paths, with names.
    let (l, ch) = pos(&text, "#3/2", 0, 1);
    let items = c.at("textDocument/completion", &u, l, ch);
    let torch = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "#3/2")
        .unwrap_or_else(|| panic!("{items}"));
    assert_eq!(torch["detail"], "Torch");
    // An instance's scene: the prefab files.
    let (l, ch) = pos(&text, "\"prefabs/hat", 0, 1);
    assert!(
        labels(&c.at("textDocument/completion", &u, l, ch))
            .contains(&"prefabs/goblin.forge.ron".to_owned())
    );
    // Custom fields not yet set: `speed`, not `target`.
    let (l, ch) = pos(&text, "expr: \"#3/2\")", 0, 13);
    let got = labels(&c.at("textDocument/completion", &u, l, ch));
    assert_eq!(got, ["speed"]);
    // Custom type paths from the schema file.
    let (l, ch) = pos(&text, "\"forge_demo::Follow\"", 0, 1);
    let got = labels(&c.at("textDocument/completion", &u, l, ch));
    assert_eq!(got, ["forge_demo::Follow", "forge_demo::Health"]);
    // Payload fields not yet set, after `, ` typed in an override's `set`.
    let (l, ch) = pos(&text, "intensity: 1200.0", 0, 17);
    c.change(&u, 2, [l, ch, l, ch], ", ");
    let got = labels(&c.at("textDocument/completion", &u, l, ch + 2));
    assert_eq!(got, ["color", "range", "shadows"]);
    c.change(&u, 3, [l, ch, l, ch + 2], "");
    // A new entity between entries: the next free id.
    let (l, ch) = pos(&text, "\n    2: (", 0, 1);
    let got = labels(&c.at("textDocument/completion", &u, l, ch));
    assert_eq!(got, ["6: new entity"]);
    c.stop();
}

/// A schema file with an enum component: unit, tuple and struct variants, a default.
const ENUM_SCHEMA: &str = r#"(format: 1, components: [(
    type_path: "game::RigidBody", type_name: "RigidBody", docs: "How a body moves.",
    variants: [
        Unit(name: "Dynamic"),
        Unit(name: "Static"),
        Tuple(name: "Pushed", fields: [(type_name: "f32", kind: Float(bits: 32)), (type_name: "Vec3", kind: Vector(len: 3))]),
        Struct(name: "Driven", fields: [(name: "speed", type_name: "f32", kind: Float(bits: 32))]),
    ],
    default: Some("RigidBody::Dynamic"),
)])"#;

#[test]
fn completion_in_an_enum_value_offers_its_variants_with_their_fields() {
    let dir = project(&[("assets/game.forge-schema.ron", ENUM_SCHEMA)]);
    let path = dir.path().join("assets/scenes/a.forge.ron");
    let body =
        "(type: custom, data: (type_path: \"game::RigidBody\", value: \"RigidBody::Static\"))";
    let text = scene(&[(1, "Crate", None, &[], body)], &[1], 2);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &text).unwrap();
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&path);
    c.open(&u, &text);
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    // Inside the `value` string, after `RigidBody::St`.
    let (l, ch) = pos(&text, "RigidBody::Static", 0, 13);
    let items = c.at("textDocument/completion", &u, l, ch);
    assert_eq!(
        labels(&items),
        [
            "RigidBody::Dynamic",
            "RigidBody::Static",
            "RigidBody::Pushed",
            "RigidBody::Driven"
        ]
    );
    let item = |label: &str| {
        items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["label"] == label)
            .unwrap()
            .clone()
    };
    // Each replaces the string's text with the whole value, fields as placeholders.
    let (start, _) = pos(&text, "RigidBody::Static", 0, 0);
    let dynamic = item("RigidBody::Dynamic");
    assert_eq!(dynamic["detail"], "unit variant, the default");
    assert_eq!(dynamic["textEdit"]["newText"], "RigidBody::Dynamic");
    assert_eq!(dynamic["textEdit"]["range"]["start"]["line"], start);
    assert_eq!(item("RigidBody::Static")["detail"], "unit variant");
    assert_eq!(
        item("RigidBody::Pushed")["textEdit"]["newText"],
        "RigidBody::Pushed(${1:f32}, ${2:Vec3})"
    );
    let driven = item("RigidBody::Driven");
    assert_eq!(driven["detail"], "struct variant");
    assert_eq!(driven["insertTextFormat"], 2, "a snippet");
    assert_eq!(
        driven["textEdit"]["newText"],
        "RigidBody::Driven { speed: ${1:f32} \\}"
    );
    c.stop();
}

/// `text` with LSP `edits` (UTF-16 positions) made, last first.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let ch = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= ch || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_owned();
    for (s, e, t) in edits {
        out.replace_range(s..e, t);
    }
    out
}

#[test]
fn formatting_is_the_canonical_layout_with_the_comments() {
    let dir = project(&[]);
    let path = dir.path().join("scenes/a.forge.ron");
    let text = scene(&[(1, "Zoë 🌲", None, &[], "(type: camera2d)")], &[1], 2).replace(
        "  name: \"Test\",",
        "  name: \"Test\", // the title\n  // before the entities",
    );
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&path);
    c.open(&u, &text);
    c.diagnostics(&u);
    let edits = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    let formatted = apply_edits(&text, edits.as_array().unwrap());
    assert_eq!(
        formatted,
        bevy_forge_scene::edit::format_text(&text).unwrap()
    );
    assert!(formatted.contains("// the title") && formatted.contains("// before the entities"));
    assert_ne!(formatted, text);
    // Formatted text needs nothing more.
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": u, "version": 2 }, "contentChanges": [{ "text": formatted }] }));
    let again = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(again, json!([]));
    c.stop();
}

/// The quick fixes offered over the whole of `text` (opened as `name` in `dir`), by title,
/// with the text each gives.
fn fixes(dir: &Path, name: &str, text: &str) -> Vec<(String, String)> {
    let mut c = Client::start(dir, &[], Value::Null);
    let u = uri(&dir.join(name));
    c.open(&u, text);
    let d = c.diagnostics(&u);
    let actions = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": range_json([0, 0, 10_000, 0]), "context": { "diagnostics": d } }),
    );
    let out = actions
        .as_array()
        .unwrap_or_else(|| panic!("{actions}"))
        .iter()
        .map(|a| {
            let edits = a["edit"]["changes"][&u].as_array().unwrap().clone();
            (
                a["title"].as_str().unwrap().to_owned(),
                apply_edits(text, &edits),
            )
        })
        .collect();
    c.stop();
    out
}

#[test]
fn quick_fixes_repair_what_the_diagnostics_name() {
    let dir = project(&[("assets/game.forge-schema.ron", SCHEMA)]);
    // next_id too low.
    let text = scene(
        &[
            (1, "A", None, &[], "(type: camera2d)"),
            (2, "B", None, &[], "(type: camera2d)"),
        ],
        &[1, 2],
        1,
    );
    let got = fixes(dir.path(), "assets/a.forge.ron", &text);
    assert_eq!(
        got,
        [(
            "Set `next_id` to the next free id".to_owned(),
            text.replace("next_id: 1,", "next_id: 3,")
        )]
    );
    // A misspelt field: did you mean.
    let typo = text
        .replace("next_id: 1", "next_id: 3")
        .replacen("children: []", "childen: []", 1);
    let got = fixes(dir.path(), "assets/a.forge.ron", &typo);
    assert_eq!(
        got[0],
        (
            "Replace with `children`".to_owned(),
            text.replace("next_id: 1", "next_id: 3")
        ),
        "{got:?}"
    );
    // A parent that does not list its child.
    let orphan = scene(
        &[
            (1, "A", None, &[], "(type: camera2d)"),
            (2, "B", Some(1), &[], "(type: camera2d)"),
        ],
        &[1],
        3,
    );
    let got = fixes(dir.path(), "assets/a.forge.ron", &orphan);
    let fixed = got
        .iter()
        .find(|(t, _)| t == "Add the entity to its parent's `children`")
        .unwrap_or_else(|| panic!("{got:?}"));
    assert!(fixed.1.contains("children: [2]"), "{}", fixed.1);
    // A required custom field left out: added with a value of its kind.
    let follow = scene(
        &[(
            1,
            "A",
            None,
            &[],
            "(type: custom, data: (type_path: \"forge_demo::Follow\", fields: [(name: \"speed\", expr: \"2.0\")]))",
        )],
        &[1],
        2,
    );
    let got = fixes(dir.path(), "assets/a.forge.ron", &follow);
    let fixed = got
        .iter()
        .find(|(t, _)| t == "Add the required field")
        .unwrap_or_else(|| panic!("{got:?}"));
    assert!(
        fixed.1.contains("(name: \"target\", expr: \"#1\")"),
        "{}",
        fixed.1
    );
    // An old format version: migrated.
    let old = text
        .replace("format_version: 1", "format_version: 0")
        .replace("next_id: 1", "next_id: 3");
    let got = fixes(dir.path(), "assets/a.forge.ron", &old);
    let fixed = got
        .iter()
        .find(|(t, _)| t.starts_with("Migrate"))
        .unwrap_or_else(|| panic!("{got:?}"));
    assert_eq!(fixed.1, text.replace("next_id: 1", "next_id: 3"));
}

/// A small generator of positions and edits, the same on every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Mutated scenes (the reader's mutations: bytes deleted, brackets, quotes, `#`, digits and
/// wide characters inserted), each sent as an edit, then every request at places of it: each
/// is answered (a result or an error), and the server keeps serving.
#[test]
fn mutated_scenes_never_take_the_server_down() {
    let (_dir, base, mut c, u) = open_camp();
    let mut rng = Lcg(7);
    let inserts = [
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "\"",
        "#",
        "#9/9/9",
        "\\",
        ":",
        ",",
        "é",
        "🌲",
        "\u{feff}",
        "99999999999999999999",
        "//",
        "/*",
        "\n",
        "r#\"",
    ];
    let methods = [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/completion",
        "textDocument/references",
    ];
    let mut text = base.clone();
    for round in 0..150 {
        if round % 25 == 0 {
            text = base.clone();
            c.notify("textDocument/didChange", json!({ "textDocument": { "uri": u, "version": round }, "contentChanges": [{ "text": text }] }));
        }
        let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
        let line = rng.next(lines.len());
        let len = lines[line].encode_utf16().count();
        let ch = rng.next(len + 3) as u32; // sometimes past the end of the line
        let del = if rng.next(3) == 0 {
            rng.next(4) as u32
        } else {
            0
        };
        let ins = inserts[rng.next(inserts.len())];
        let range = [line as u32, ch, line as u32, ch + del];
        c.change(&u, round + 1, range, ins);
        text = apply_edits(
            &text,
            &[json!({ "range": range_json(range), "newText": ins })],
        );
        for m in methods {
            let l = rng.next(lines.len()) as u32;
            let answer = c.at(m, &u, l, rng.next(80) as u32);
            assert!(
                answer.get("error").is_none_or(|e| e["code"] != -32603),
                "{m}: {answer}"
            );
        }
        let symbols = c.request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": u } }),
        );
        assert!(symbols.get("error").is_none(), "{symbols}");
        // Formatting works, or says in one message that the text does not read.
        let answer = c.request("textDocument/formatting", json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }));
        if let Some(e) = answer.get("error") {
            assert_eq!(e["code"], -32803, "{answer}");
            let message = e["message"].as_str().unwrap_or_default();
            assert!(
                message
                    .starts_with("forge lsp: the file is not formatted while it does not read: "),
                "{answer}"
            );
        }
        let answer = c.request("textDocument/codeAction", json!({ "textDocument": { "uri": u }, "range": range_json([0, 0, 999, 0]), "context": { "diagnostics": [] } }));
        assert!(answer.get("error").is_none(), "{answer}");
        let answer = c.request(
            "textDocument/inlayHint",
            json!({ "textDocument": { "uri": u }, "range": range_json([0, 0, 999, 0]) }),
        );
        assert!(answer.get("error").is_none(), "{answer}");
    }
    // The server's text is the client's: the last diagnostics are those of the text as edited.
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": u, "version": 999 }, "contentChanges": [{ "text": base }] }));
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": u } }),
    );
    assert_eq!(symbols.as_array().map(Vec::len), Some(4));
    c.stop();
}

/// The schema file named by `initializationOptions.schemaPath` is used, and read again when it
/// changes on disk; without any, the server says so once.
#[test]
fn the_schema_file_is_the_one_configured_and_is_read_again_when_it_changes() {
    let follow = scene(
        &[(
            1,
            "A",
            None,
            &[],
            "(type: camera2d), (type: custom, data: (type_path: \"forge_demo::Follow\", fields: [(name: \"target\", expr: \"#1\")]))",
        )],
        &[1],
        2,
    );
    let dir = project(&[
        ("assets/a.forge.ron", &follow),
        ("config/game.schema", SCHEMA),
    ]);
    let u = uri(&dir.path().join("assets/a.forge.ron"));
    let mut c = Client::start(
        dir.path(),
        &[],
        json!({ "schemaPath": "config/game.schema" }),
    );
    c.open(&u, &follow);
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    let at = pos(&follow, "\"target\"", 0, 2);
    assert!(hover_text(&mut c, &u, at).contains("Whom to follow."));
    std::fs::write(
        dir.path().join("config/game.schema"),
        SCHEMA.replace("Whom to follow.", "The leader."),
    )
    .unwrap();
    // A second later at most, so the file's modification time differs.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(
        dir.path().join("config/game.schema"),
        SCHEMA.replace("Whom to follow.", "The leader."),
    )
    .unwrap();
    assert!(hover_text(&mut c, &u, at).contains("The leader."));
    assert!(
        c.notes.iter().all(|n| n.method != "window/showMessage"),
        "{:?}",
        c.notes
    );
    c.stop();

    // No schema anywhere: one information message, however many checks.
    let bare = project(&[("assets/a.forge.ron", &follow)]);
    let u = uri(&bare.path().join("assets/a.forge.ron"));
    let mut c = Client::start(bare.path(), &[], Value::Null);
    c.open(&u, &follow);
    c.diagnostics(&u);
    c.change(&u, 2, [0, 0, 0, 0], " ");
    c.diagnostics(&u);
    let messages: Vec<&Notification> = c
        .notes
        .iter()
        .filter(|n| n.method == "window/showMessage")
        .collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].params["type"], 3);
    assert!(
        messages[0].params["message"]
            .as_str()
            .unwrap()
            .contains("no `*.forge-schema.ron` schema file found")
    );
    let h = hover_text(&mut c, &u, at);
    assert!(h.contains("no schema file"), "{h}");
    c.stop();
}

/// The binary speaks the protocol over stdio: the handshake, `shutdown` and `exit` end it with
/// status 0; a client that goes away without them ends it with 1.
#[test]
fn forge_lsp_over_stdio_exits_cleanly() {
    use std::io::{Read, Write};
    let frame = |v: Value| {
        let body = v.to_string();
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    };
    let run = |messages: &[Value]| {
        let mut child = std::process::Command::new(super::FORGE)
            .arg("lsp")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        for m in messages {
            stdin.write_all(frame(m.clone()).as_bytes()).unwrap();
        }
        drop(stdin);
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        (child.wait().unwrap().code(), out)
    };
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } });
    let (code, out) = run(&[
        init.clone(),
        json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" }),
        json!({ "jsonrpc": "2.0", "method": "exit" }),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("\"positionEncoding\":\"utf-16\"") && out.contains("\"hoverProvider\":true"),
        "{out}"
    );
    let (code, _) = run(&[init]);
    assert_eq!(code, Some(1));
}

/// A prefab cycle is one error at the instance that starts it, with each link of the chain as
/// related information in its own file.
#[test]
fn a_prefab_cycle_is_one_error_with_its_chain() {
    let places = |scene_path: &str| {
        scene(&[(1, "I", None, &[], "(type: camera2d)")], &[1], 2).replace(
            "components: [(type: camera2d)])",
            &format!("components: [(type: camera2d)], instance: Some((scene: \"{scene_path}\")))"),
        )
    };
    let a = places("prefabs/b.forge.ron");
    let b = places("prefabs/a.forge.ron");
    let dir = project(&[
        ("assets/prefabs/a.forge.ron", &a),
        ("assets/prefabs/b.forge.ron", &b),
    ]);
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&dir.path().join("assets/prefabs/a.forge.ron"));
    c.open(&u, &a);
    let d = problems(c.diagnostics(&u));
    assert_eq!(codes(&d), ["forge::prefab::cycle"], "{d:?}");
    let related = d[0]["relatedInformation"].as_array().unwrap();
    let files: Vec<&str> = related
        .iter()
        .map(|r| r["location"]["uri"].as_str().unwrap())
        .collect();
    let b_uri = uri(&dir.path().join("assets/prefabs/b.forge.ron"));
    assert!(
        files.contains(&u.as_str()) && files.contains(&b_uri.as_str()),
        "{related:?}"
    );
    c.stop();
}

/// References of a prefab's entity include the places of open scenes that name it through an
/// instance.
#[test]
fn references_of_a_prefab_entity_reach_the_scenes_placing_it() {
    let (dir, text, mut c, u) = open_camp();
    let goblin =
        std::fs::read_to_string(dir.path().join("assets/prefabs/goblin.forge.ron")).unwrap();
    let g = uri(&dir.path().join("assets/prefabs/goblin.forge.ron"));
    c.open(&g, &goblin);
    c.diagnostics(&g);
    let (l, ch) = pos(&goblin, "\n    2: (", 0, 5);
    let refs = c.at("textDocument/references", &g, l, ch);
    let in_scene: Vec<u64> = refs
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["uri"] == u.as_str())
        .map(|r| r["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    let want = [
        pos(&text, "#3/2", 0, 0).0,
        pos(&text, "target: [2]", 0, 0).0,
    ]
    .map(u64::from);
    assert_eq!(in_scene, want, "{refs}");
    c.stop();
}

/// The server asks the client to watch scenes, prefabs, schemas and assets; a prefab changed on
/// disk (not open in the editor) is read again, and the scene placing it checked again.
#[test]
fn a_prefab_changed_on_disk_is_checked_again() {
    let prefab = scene(&[(1, "Goblin", None, &[], "(type: camera2d)")], &[1], 2);
    let level = scene(&[(1, "Camp", None, &[], "(type: camera2d)")], &[1], 2).replace(
        "components: [(type: camera2d)])",
        "components: [(type: camera2d)], instance: Some((scene: \"prefabs/goblin.forge.ron\")))",
    );
    let dir = project(&[
        ("assets/prefabs/goblin.forge.ron", &prefab),
        ("assets/scenes/camp.forge.ron", &level),
    ]);
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&dir.path().join("assets/scenes/camp.forge.ron"));
    c.open(&u, &level);
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    let asked: Vec<&str> = c.asked.iter().map(|r| r.method.as_str()).collect();
    assert_eq!(asked, ["client/registerCapability"]);
    let watchers = &c.asked[0].params["registrations"][0]["registerOptions"]["watchers"];
    assert_eq!(watchers[0]["globPattern"], "**/*.forge.ron");
    let prefab_path = dir.path().join("assets/prefabs/goblin.forge.ron");
    std::fs::write(
        &prefab_path,
        prefab.replace("children: []", "children: [7]"),
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&prefab_path), "type": 2 }] }),
    );
    assert_eq!(
        codes(&problems(c.diagnostics(&u))),
        ["forge::structure::missing_child"]
    );
    c.stop();
}

/// A scene being typed, with three slips: an unknown field in a light, a missing comma, an
/// entry not closed. One diagnostic each, and every feature answers on what reads.
fn three_slips() -> String {
    format!(
        "(\n  format_version: 1,\n  name: \"Slips\",\n  entities: {{\n    \
         1: (id: 1, name: \"🌲 Lamp\", parent: None, children: [2], {T}, components: [(type: point_light, data: (color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), intensty: 800.0, range: 20.0, shadows: false))]),\n    \
         2: (id: 2, name: \"Crate\" parent: Some(1), children: [], {T}, components: []),\n    \
         3: (id: 3, name: \"Open 🌲\", parent: None, children: [], {T}, components: [],\n    \
         4: (id: 4, name: \"Camera\", parent: None, children: [], {T}, components: [(type: camera3d)]),\n  \
         }},\n  roots: [1, 3, 4],\n  next_id: 5,\n)\n"
    )
}

#[test]
fn a_scene_being_typed_answers_on_the_parts_that_read() {
    let dir = project(&[]);
    let path = dir.path().join("scenes/slips.forge.ron");
    let text = three_slips();
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&path);
    c.open(&u, &text);
    // One diagnostic per slip, the first at the UTF-16 column of the typo.
    let d = c.diagnostics(&u);
    assert_eq!(
        codes(&d),
        [
            "forge::read::unknown_field",
            "forge::read::syntax",
            "forge::read::syntax"
        ],
        "{d:#?}"
    );
    let (l, ch) = pos(&text, "intensty", 0, 0);
    assert_eq!(d[0]["range"], range_json([l, ch, l, ch + 8]));
    assert!(
        d[0]["message"].as_str().unwrap().contains("`intensity`"),
        "{d:#?}"
    );
    // The missing comma at the field after it, the entry not closed at the next entry's key.
    let (l, ch) = pos(&text, "parent: Some(1)", 0, 0);
    assert_eq!(d[1]["range"], range_json([l, ch, l, ch + 6]), "{d:#?}");
    let (l, ch) = pos(&text, "4: (id: 4", 0, 0);
    assert_eq!(d[2]["range"], range_json([l, ch, l, ch + 1]), "{d:#?}");
    // Hover: the lamp's field that read, the entity after the one not closed, an id.
    let h = hover_text(&mut c, &u, pos(&text, "range: 20.0", 0, 1));
    assert!(h.starts_with("`point_light.range`"), "{h}");
    let h = hover_text(&mut c, &u, pos(&text, "3: (id: 3", 0, 0));
    assert!(h.starts_with("**Open 🌲** `#3`"), "{h}");
    let h = hover_text(&mut c, &u, pos(&text, "4: (id: 4", 0, 0));
    assert!(h.starts_with("**Camera** `#4`"), "{h}");
    let h = hover_text(&mut c, &u, pos(&text, "Some(1)", 0, 5));
    assert!(h.starts_with("**🌲 Lamp** `#1`"), "{h}");
    // Definition: the crate's parent is the lamp's key.
    let (l, ch) = pos(&text, "Some(1)", 0, 5);
    let def = c.at("textDocument/definition", &u, l, ch);
    let (kl, kc) = pos(&text, "1: (id: 1", 0, 0);
    assert_eq!(def["range"], range_json([kl, kc, kl, kc + 1]), "{def}");
    // Symbols: the whole tree, the crate under the lamp.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": u } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap_or_else(|| panic!("{symbols}"))
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["🌲 Lamp", "Open 🌲", "Camera"], "{symbols}");
    assert_eq!(symbols[0]["children"][0]["name"], "Crate");
    // The entry not closed ends at its last field, not at the next entry.
    let end = &symbols[1]["range"]["end"];
    assert_eq!(end["line"], pos(&text, "3: (id: 3", 0, 0).0, "{symbols}");
    // Completion: the ids of every entity that read, with their names.
    let (l, ch) = pos(&text, "name: \"Camera\", parent: None, children: [", 0, 41);
    let items = c.at("textDocument/completion", &u, l, ch);
    let offered: Vec<(String, String)> = items
        .as_array()
        .unwrap_or_else(|| panic!("{items}"))
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap().to_owned(),
                i["detail"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    for (id, name) in [
        ("1", "🌲 Lamp"),
        ("2", "Crate"),
        ("3", "Open 🌲"),
        ("4", "Camera"),
    ] {
        assert!(
            offered.contains(&(id.to_owned(), name.to_owned())),
            "{offered:?}"
        );
    }
    // Formatting says why it does not, in one message.
    let formatting =
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } });
    let refused = c.request("textDocument/formatting", formatting.clone());
    let message = refused["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{refused}"));
    assert!(
        message.contains("does not read")
            && message.contains("5:")
            && message.contains("(and 2 more problems)"),
        "{message}"
    );
    // The slips fixed: no read error, and formatting works.
    let fixed = text
        .replace("intensty", "intensity")
        .replace("\"Crate\" parent", "\"Crate\", parent")
        .replace("components: [],\n    4:", "components: []),\n    4:");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": u, "version": 2 }, "contentChanges": [{ "text": fixed }] }),
    );
    let d = problems(c.diagnostics(&u));
    assert!(
        d.iter()
            .all(|d| !d["code"].as_str().unwrap().starts_with("forge::read::")),
        "{d:#?}"
    );
    let edits = c.request("textDocument/formatting", formatting);
    assert!(edits.as_array().is_some_and(|e| !e.is_empty()), "{edits}");
    c.stop();
}

/// An id in a block comment of a list is no id: no hover, no inlay hint, not a reference.
#[test]
fn ids_in_block_comments_name_nothing() {
    let dir = project(&[]);
    let path = dir.path().join("scenes/c.forge.ron");
    let text = scene(
        &[
            (1, "Lamp", None, &[2], ""),
            (2, "Crate", Some(1), &[], ""),
            (3, "Shelf", None, &[], ""),
        ],
        &[1, 3],
        4,
    )
    .replace("children: [2]", "children: [2 /* , 3 */]");
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&path);
    c.open(&u, &text);
    assert_eq!(problems(c.diagnostics(&u)), Vec::<Value>::new());
    let (l, ch) = pos(&text, "/* , 3", 0, 5);
    assert_eq!(c.at("textDocument/hover", &u, l, ch), Value::Null);
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": u }, "range": range_json([l, 0, l + 1, 0]) }),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["\"Crate\""], "{hints}");
    let (l3, c3) = pos(&text, "\n    3: (", 0, 5);
    let refs = c.at("textDocument/references", &u, l3, c3);
    assert!(
        refs.as_array()
            .unwrap()
            .iter()
            .all(|r| r["range"]["start"]["line"] != l),
        "{refs}"
    );
    c.stop();
}

/// A scene placing the fixture house model (`assets/models/house.gltf`), with override
/// targets naming its nodes, opened in a server.
fn open_street(targets: &[&str]) -> (tempfile::TempDir, String, Client, String) {
    let overrides: Vec<String> = targets
        .iter()
        .map(|t| format!("            (target: {t}, name: Some(\"Changed\")),\n"))
        .collect();
    let text = format!(
        "(\n  format_version: 1,\n  name: \"Street\",\n  entities: {{\n    5: (id: 5, name: \"House\", parent: None, children: [], {T}, components: [],\n        instance: Some((\n          model: \"models/house.gltf#Scene0\",\n          overrides: [\n{}          ],\n        ))),\n  }},\n  roots: [5],\n  next_id: 6,\n)\n",
        overrides.concat()
    );
    let dir = project(&[("assets/scenes/street.forge.ron", &text)]);
    std::fs::create_dir_all(dir.path().join("assets/models")).unwrap();
    std::fs::copy(
        repo().join("tests/fixtures/models/house.gltf"),
        dir.path().join("assets/models/house.gltf"),
    )
    .unwrap();
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let u = uri(&dir.path().join("assets/scenes/street.forge.ron"));
    c.open(&u, &text);
    let _ = c.diagnostics(&u);
    (dir, text, c, u)
}

#[test]
fn hover_on_a_model_override_target_tells_the_node_and_its_children() {
    let (_dir, text, mut c, u) = open_street(&[r#"["House", "Roof"]"#, r#"["House", "Rooff"]"#]);
    let h = hover_text(&mut c, &u, pos(&text, "\"Roof\"", 0, 2));
    assert_eq!(
        h,
        "model node `House/Roof` of `models/house.gltf#Scene0`\n\nchild nodes: `Chimney`\n\nmesh primitives (entities under the node, with `Mesh3d` and the file's material): `Tiles.Tiles`"
    );
    let h = hover_text(&mut c, &u, pos(&text, "\"House\"", 1, 2));
    assert_eq!(
        h,
        "model node `House` of `models/house.gltf#Scene0`\n\nchild nodes: `Roof`, `Door`, `GltfNode3`, `Lamp`"
    );
    let h = hover_text(&mut c, &u, pos(&text, "\"Rooff\"", 0, 2));
    assert_eq!(
        h,
        "no node `Rooff` in `models/house.gltf#Scene0` at `House/Rooff`; the nodes there: `Roof`, `Door`, `GltfNode3`, `Lamp`"
    );
    c.stop();
}

#[test]
fn hover_on_a_model_node_shows_its_mesh_primitives_and_its_light() {
    let (_dir, text, mut c, u) = open_street(&[
        r#"["House", "Lamp"]"#,
        r#"["House", "Door"]"#,
        r#"["Ground"]"#,
    ]);
    let h = hover_text(&mut c, &u, pos(&text, "\"Lamp\"", 0, 2));
    assert_eq!(
        h,
        "model node `House/Lamp` of `models/house.gltf#Scene0`\n\nno child nodes\n\nlight: point, colour (1, 0.9, 0.7), 800 cd in the file; Bevy's `PointLight`, intensity 10053 lm, range 20; on an unnamed entity under the node (node path ending in `\"\"`); a `set` of `point_light` on the node reaches it"
    );
    let h = hover_text(&mut c, &u, pos(&text, "\"Door\"", 0, 2));
    assert!(
        h.ends_with("mesh primitives (entities under the node, with `Mesh3d` and the file's material): `Planks.Wood`"),
        "{h}"
    );
    // A node with neither says nothing of them.
    let h = hover_text(&mut c, &u, pos(&text, "\"Ground\"", 0, 2));
    assert_eq!(
        h,
        "model node `Ground` of `models/house.gltf#Scene0`\n\nno child nodes"
    );
    c.stop();
}

#[test]
fn completion_in_a_model_override_target_offers_the_nodes_at_that_level() {
    let (_dir, text, mut c, u) = open_street(&[r#"["House", "Roof"]"#, r#"["House", "R"]"#]);
    // At the list's start: the scene's root nodes, written as strings.
    let (l, ch) = pos(&text, "[\"House\", \"Roof\"]", 0, 1);
    let items = c.at("textDocument/completion", &u, l, ch);
    assert_eq!(labels(&items), ["House", "Ground"], "{items}");
    let first = &items.as_array().unwrap()[0];
    let insert = first["textEdit"]["newText"]
        .as_str()
        .or(first["insertText"].as_str())
        .unwrap_or_else(|| panic!("{first}"));
    assert_eq!(insert, "\"House\"");
    // Inside a string after `"House", `: the house's children.
    let (l, ch) = pos(&text, "\"R\"]", 0, 1);
    let items = c.at("textDocument/completion", &u, l, ch);
    assert_eq!(
        labels(&items),
        ["Roof", "Door", "GltfNode3", "Lamp"],
        "{items}"
    );
    // After `"House", "Roof"`: one level further down, the roof's chimney.
    let (l, ch) = pos(&text, "\"Roof\"]", 0, 6);
    let items = c.at("textDocument/completion", &u, l, ch);
    assert_eq!(labels(&items), ["Chimney"], "{items}");
    c.stop();
}

/// The line and UTF-16 character of byte `at` of `text` (ASCII here: bytes are characters).
fn line_char(text: &str, at: usize) -> (u32, u32) {
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let char = before
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .encode_utf16()
        .count() as u32;
    (line, char)
}

/// What two reports of the same problem share: its code, its message (without the server's
/// `help:` line and prefab prefix) and, for a problem of the scene's own text, its line and
/// column (1-based).
type Said = (String, String, Option<(u64, u64)>);

fn said_by_server(d: &Value) -> Said {
    let message = d["message"].as_str().unwrap_or_default();
    let message = message.split("\nhelp: ").next().unwrap_or_default();
    let (message, own) = match message.strip_prefix("in prefab `") {
        Some(rest) => (rest.split_once("`: ").map_or(rest, |(_, m)| m), false),
        None => (message, true),
    };
    let at = own.then(|| {
        let start = &d["range"]["start"];
        (
            start["line"].as_u64().unwrap_or(0) + 1,
            start["character"].as_u64().unwrap_or(0) + 1,
        )
    });
    (
        d["code"].as_str().unwrap_or_default().to_owned(),
        message.to_owned(),
        at,
    )
}

fn said_by_validate(d: &Value, scene: &str) -> Said {
    let own = d["file"].as_str().is_some_and(|f| f.ends_with(scene));
    let at = match (own, d["line"].as_u64(), d["column"].as_u64()) {
        (true, Some(l), Some(c)) => Some((l, c)),
        // The server places a problem without a line at its entity or the file's start.
        _ => None,
    };
    (
        d["code"].as_str().unwrap_or_default().to_owned(),
        d["message"].as_str().unwrap_or_default().to_owned(),
        at,
    )
}

/// Reports sorted, a prefab that cannot be read named by its path alone: each front end names
/// its file as it reads files (the server from the project's root, `forge` from where it runs)
/// and places problems of other files its own way.
fn normal(v: Vec<Said>) -> Vec<Said> {
    let mut v: Vec<Said> = v
        .into_iter()
        .map(|(code, message, at)| match code.as_str() {
            "forge::prefab::unreadable" => {
                let path = message.split(" cannot be read").next().unwrap_or_default();
                (code, path.to_owned(), None)
            }
            _ => (code, message, at),
        })
        .collect();
    v.sort();
    v
}

/// The library's whole check of `text` as the camp's scene in the project at `root`: its
/// prefabs, schema file and assets.
fn whole_check(root: &Path, text: &str) -> Vec<bevy_forge_scene::validate::Diagnostic> {
    use bevy_forge_scene::pipeline::{self, PrefabFiles, Source};
    let assets = root.join("assets");
    let read = assets.clone();
    let mut files =
        PrefabFiles::new(move |p: &str| std::fs::read(read.join(p)).map_err(|e| e.to_string()))
            .with_schemas(
                bevy_forge_scene::schema::SchemaFile::read(assets.join("game.forge-schema.ron"))
                    .unwrap(),
            )
            .with_assets(bevy_forge_scene::project::AssetIndex::scan(&assets).unwrap());
    let source = Source::read("scenes/camp.forge.ron", text.as_bytes()).unwrap();
    pipeline::check(source, &mut files).diagnostics
}

/// [`Said`] of a library diagnostic of the scene's text (columns counted as the server counts
/// them: UTF-16, here ASCII).
fn said_by_library(d: &bevy_forge_scene::validate::Diagnostic, _text: &str) -> Said {
    let own = d.file.is_none();
    let at = d
        .position
        .filter(|_| own)
        .map(|p| (u64::from(p.line), u64::from(p.column)));
    (d.code.to_owned(), d.message.clone(), at)
}

/// A thousand random edits of the camp, each checked by the server in turn (values, names,
/// ids, references, whitespace, a break of the syntax and its repair): its diagnostics of the
/// final text are what `forge validate` says of it, problem for problem and place for place.
/// The server checks each version again only where it changed since the last; this is the
/// whole check it must agree with.
#[test]
fn diagnostics_after_a_thousand_random_edits_are_what_forge_validate_says() {
    let (dir, text) = camp();
    let mut c = Client::start(dir.path(), &[], Value::Null);
    let path = dir.path().join("assets/scenes/camp.forge.ron");
    let u = uri(&path);
    c.open(&u, &text);
    let _ = c.diagnostics(&u);
    let mut rng = Lcg(39);
    let mut text = text;
    // An edit after which the text does not read, waiting to be undone by the next: where,
    // how many bytes to take out, and what to put back.
    let mut broken: Option<(usize, usize, String)> = None;
    for version in 2..1002 {
        let (at, old_len, new) = if let Some(undo) = broken.take() {
            undo
        } else {
            match rng.next(8) {
                // A digit changed: a value, an id, a child, a target, a reference.
                0..=2 => {
                    // Not the header's `format_version`.
                    let body = text.find("entities").unwrap_or(0);
                    let digits: Vec<usize> = text
                        .match_indices(|c: char| c.is_ascii_digit())
                        .map(|(i, _)| i)
                        .filter(|i| *i > body)
                        .collect();
                    let at = digits[rng.next(digits.len())];
                    (at, 1, rng.next(10).to_string())
                }
                // A letter of a name changed.
                3 | 4 => {
                    let names: Vec<usize> =
                        text.match_indices("name: \"").map(|(i, _)| i + 7).collect();
                    let at = names[rng.next(names.len())];
                    let letter = (b'A' + rng.next(26) as u8) as char;
                    (at, 1, letter.to_string())
                }
                // Spaces after a comma: nothing changes but where things are.
                5 => {
                    let commas: Vec<usize> = text.match_indices(",").map(|(i, _)| i + 1).collect();
                    let at = commas[rng.next(commas.len())];
                    (at, 0, " ".repeat(1 + rng.next(3)))
                }
                // A reference turned to another entity (or none).
                6 => match text.find("#3/") {
                    Some(at) => (at + 3, 1, rng.next(4).to_string()),
                    None => (0, 0, String::new()),
                },
                // One character deleted.
                _ => (rng.next(text.len()), 1, String::new()),
            }
        };
        let old_len = old_len.min(text.len() - at);
        if !text.is_char_boundary(at) || !text.is_char_boundary(at + old_len) {
            continue;
        }
        let (sl, sc) = line_char(&text, at);
        let (el, ec) = line_char(&text, at + old_len);
        c.change(&u, version, [sl, sc, el, ec], &new);
        let was = text[at..at + old_len].to_owned();
        text.replace_range(at..at + old_len, &new);
        let reads = bevy_forge_scene::format::SceneDoc::from_str(&text).is_ok();
        if !reads {
            broken = Some((at, new.len(), was));
        }
        let server: Vec<Said> = c.diagnostics(&u).iter().map(said_by_server).collect();
        // Every version that reads, against the library's whole check of it.
        if reads {
            let whole: Vec<Said> = whole_check(dir.path(), &text)
                .iter()
                .map(|d| said_by_library(d, &text))
                .collect();
            assert_eq!(normal(server), normal(whole), "version {version}:\n{text}");
        }
    }
    assert!(broken.is_none(), "the last edit is undone by none");
    // The last version once more, by a new edit that changes nothing but is checked.
    c.change(&u, 2000, [0, 0, 0, 0], "");
    let server: Vec<Said> = c.diagnostics(&u).iter().map(said_by_server).collect();
    std::fs::write(&path, &text).unwrap();
    let o = crate::forge(
        dir.path(),
        &[
            "validate",
            "--format",
            "json",
            "--schema",
            "assets/game.forge-schema.ron",
            "--assets",
            "assets",
            "assets/scenes/camp.forge.ron",
        ],
    );
    let validate: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let validate: Vec<Said> = validate
        .iter()
        .map(|d| said_by_validate(d, "camp.forge.ron"))
        .collect();
    assert_eq!(normal(server), normal(validate), "the final text:\n{text}");
    c.stop();
}

#[test]
fn hover_on_the_path_of_a_light_entity_or_a_mesh_primitive_tells_what_it_is() {
    let (_dir, text, mut c, u) = open_street(&[
        r#"["House", "Lamp", ""]"#,
        r#"["House", "Door", "Planks.Wood"]"#,
    ]);
    let h = hover_text(&mut c, &u, pos(&text, "\"\"]", 0, 1));
    assert!(
        h.starts_with("the light entity of model node `House/Lamp` of `models/house.gltf#Scene0`\n\nlight: point,"),
        "{h}"
    );
    let h = hover_text(&mut c, &u, pos(&text, "\"Planks.Wood\"", 0, 2));
    assert_eq!(
        h,
        "mesh primitive `Planks.Wood` of model node `Door` of `models/house.gltf#Scene0`: an entity with `Mesh3d` and the file's material"
    );
    c.stop();
}
