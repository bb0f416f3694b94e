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
        };
        let init = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": { "general": { "positionEncodings": encodings } },
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
            .send(Message::Notification(Notification::new(method.to_owned(), params)))
            .unwrap();
    }

    /// Sends a request; its result, or `{"error": {code, message}}`.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(id.clone(), method.to_owned(), params)))
            .unwrap();
        loop {
            match self.conn.receiver.recv_timeout(Duration::from_secs(60)).unwrap() {
                Message::Response(r) if r.id == id => {
                    return match r.response_result {
                        Err(e) => json!({ "error": { "code": e.code, "message": e.message } }),
                        Ok(v) => v,
                    };
                }
                Message::Notification(n) => self.notes.push(n),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// The next diagnostics published for `uri` (those already received first).
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let matches = |n: &Notification| {
            n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri
        };
        if let Some(i) = self.notes.iter().position(matches) {
            let n = self.notes.remove(i);
            return n.params["diagnostics"].as_array().cloned().unwrap_or_default();
        }
        loop {
            match self.conn.receiver.recv_timeout(Duration::from_secs(60)).unwrap() {
                Message::Notification(n) if matches(&n) => {
                    return n.params["diagnostics"].as_array().cloned().unwrap_or_default();
                }
                Message::Notification(n) => self.notes.push(n),
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
        self.request(
            method,
            json!({
                "textDocument": { "uri": uri },
                "position": { "line": line, "character": character },
                "context": { "includeDeclaration": true },
            }),
        )
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

/// A scene of entities written one per line: `(id, name, parent, children, components)`.
pub fn scene(entities: &[(u64, &str, Option<u64>, &[u64], &str)], roots: &[u64], next_id: u64) -> String {
    let mut out = String::from("(\n  format_version: 1,\n  name: \"Test\",\n  entities: {\n");
    for (id, name, parent, children, components) in entities {
        let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
        out.push_str(&format!(
            "    {id}: (id: {id}, name: \"{name}\", parent: {parent}, children: {children:?}, {T}, components: [{components}]),\n"
        ));
    }
    out.push_str(&format!("  }},\n  roots: {roots:?},\n  next_id: {next_id},\n)\n"));
    out
}

fn line_of(text: &str, needle: &str) -> u32 {
    text.lines().position(|l| l.contains(needle)).unwrap() as u32
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics.iter().map(|d| d["code"].as_str().unwrap()).collect()
}

/// The errors and warnings (not the information: no camera, an entity without components).
fn problems(diagnostics: Vec<Value>) -> Vec<Value> {
    diagnostics.into_iter().filter(|d| d["severity"].as_u64() < Some(3)).collect()
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
    let byte = text.lines().nth(line as usize).unwrap().find("[9]").unwrap();
    let utf16 = text.lines().nth(line as usize).unwrap()[..byte].encode_utf16().count() as u32;
    assert_eq!(utf16 as usize, byte - 3, "🌲 is 4 bytes, 2 units; ë 2 bytes, 1 unit");
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
    let byte = text.lines().nth(line as usize).unwrap().find("[9]").unwrap() as u32;
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
    let col = text.lines().nth(line as usize).unwrap().find("A\"").unwrap() as u32 + 1;
    c.change(&u, 2, [line, col, line, col + 1], "");
    let d = problems(c.diagnostics(&u));
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0]["code"].as_str().unwrap().starts_with("forge::read::"), "{d:?}");
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
    let col = level.lines().nth(line as usize).unwrap().find("\"prefabs").unwrap() as u32;
    let len = "\"prefabs/goblin.forge.ron\"".len() as u32;
    assert_eq!(d[0]["range"], range_json([line, col, line, col + len]));
    assert!(d[0]["message"].as_str().unwrap().starts_with("in prefab `prefabs/goblin.forge.ron`: "));
    let related = &d[0]["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], prefab_uri.as_str());
    let pline = line_of(&prefab, "Goblin");
    let pcol = prefab.lines().nth(pline as usize).unwrap().find("[4]").unwrap() as u32;
    assert_eq!(related["range"], range_json([pline, pcol, pline, pcol + 3]));
    // The prefab opened and fixed in the editor: the scene is checked again with it.
    c.open(&prefab_uri, &prefab);
    assert_eq!(codes(&problems(c.diagnostics(&prefab_uri))), ["forge::structure::missing_child"]);
    assert_eq!(codes(&problems(c.diagnostics(&scene_uri))), ["forge::structure::missing_child"]);
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

#[allow(dead_code)]
fn repo() -> PathBuf {
    PathBuf::from(super::ROOT)
}
