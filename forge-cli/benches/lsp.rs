//! `forge lsp`: the time from a `didChange` to the `publishDiagnostics` it causes, for a
//! one-character edit inside one entity of generated scenes of 1k, 10k and 100k entities
//! (`cargo bench -p bevy_forge_scene_cli --bench lsp`), beside the library's whole check of the
//! same text in process (`whole_check`: read and every rule, what the server checks again only
//! where the edit is) and `forge validate` (the binary, as a user runs it) on the same files, in
//! the same run.
//!
//! The server is the real loop over `lsp_server::Connection::memory()` on its own thread: each
//! iteration sends the edit (a digit of a translation in the middle entity, toggled so the scene
//! stays the same size and valid) and waits for the diagnostics of that version.

#[path = "../../benches/support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

struct Server {
    conn: Connection,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let (server, conn) = Connection::memory();
        let thread = std::thread::spawn(move || {
            let _ = bevy_forge_scene_cli::lsp::serve(server);
        });
        let s = Server {
            conn,
            thread: Some(thread),
        };
        s.send_request(
            1,
            "initialize",
            json!({ "processId": null, "rootUri": uri(root), "capabilities": {} }),
        );
        s.wait(|m| matches!(m, Message::Response(r) if r.id == RequestId::from(1)));
        s.notify("initialized", json!({}));
        s
    }

    fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        let _ = self.conn.sender.send(Message::Notification(n));
    }

    fn send_request(&self, id: i32, method: &str, params: Value) {
        let r = Request::new(RequestId::from(id), method.to_owned(), params);
        let _ = self.conn.sender.send(Message::Request(r));
    }

    /// Waits for the first message `want` accepts (others are dropped).
    fn wait(&self, want: impl Fn(&Message) -> bool) -> Message {
        loop {
            match self.conn.receiver.recv_timeout(Duration::from_secs(600)) {
                Ok(m) if want(&m) => return m,
                Ok(_) => {}
                Err(e) => panic!("the server stopped answering: {e}"),
            }
        }
    }

    /// The diagnostics of version `version`, by code and message.
    fn diagnostics_of(&self, version: i32) -> Vec<String> {
        let m = self.wait(|m| {
            matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics"
                && n.params["version"] == version)
        });
        match m {
            Message::Notification(n) => n.params["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| format!("{}: {}", d["code"], d["message"]))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn stop(mut self) {
        self.send_request(2, "shutdown", Value::Null);
        self.wait(|m| matches!(m, Message::Response(r) if r.id == RequestId::from(2)));
        self.notify("exit", Value::Null);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn lsp(c: &mut Criterion) {
    let forge = env!("CARGO_BIN_EXE_forge");
    let mut group = c.benchmark_group("lsp");
    group.sample_size(10);
    for n in [1_000usize, 10_000, 100_000] {
        let Ok(dir) = tempfile::tempdir() else {
            return;
        };
        let root = dir.path().to_owned();
        let _ = std::fs::create_dir_all(root.join("scenes"));
        let text = support::generate(n, 7).to_canonical_string();
        let file = root.join("scenes/bench.forge.ron");
        let _ = std::fs::write(&file, &text);
        // The edit: the first digit of the translation `x` of the middle entity.
        let entry = text
            .find(&format!("\n    {}: (", n / 2 + 1))
            .unwrap_or_default();
        let x = entry + text[entry..].find("translation: (").unwrap_or_default();
        let x = x + text[x..].find("x: ").unwrap_or_default() + 3;
        let x = x + text[x..]
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or_default();
        let line = text[..x].matches('\n').count() as u32;
        let column = (x - text[..x].rfind('\n').map_or(0, |i| i + 1)) as u32;
        let digits = if text.as_bytes()[x] == b'1' {
            ["1", "2"]
        } else {
            [&text[x..x + 1], "1"]
        };

        let server = Server::start(&root);
        let u = uri(&file);
        server.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": u, "languageId": "forge-ron", "version": 0, "text": text } }),
        );
        let at_open = server.diagnostics_of(0);
        let mut version = 0;
        group.bench_function(BenchmarkId::new("did_change_to_diagnostics", n), |b| {
            b.iter(|| {
                version += 1;
                server.notify(
                    "textDocument/didChange",
                    json!({
                        "textDocument": { "uri": u, "version": version },
                        "contentChanges": [{
                            "range": {
                                "start": { "line": line, "character": column },
                                "end": { "line": line, "character": column + 1 },
                            },
                            "text": digits[(version % 2) as usize],
                        }],
                    }),
                );
                let now = server.diagnostics_of(version);
                // The edit changes a value, not what is wrong with the scene.
                assert_eq!(now, at_open);
                now.len()
            })
        });
        server.stop();

        group.bench_function(BenchmarkId::new("whole_check", n), |b| {
            use bevy_forge_scene::pipeline::{PrefabFiles, Source, check};
            b.iter(|| {
                let source = Source::read("scenes/bench.forge.ron", text.as_bytes());
                let mut files = PrefabFiles::new(|p: &str| Err(format!("no `{p}`")));
                let checked = check(
                    source
                        .map_err(|e| e.to_string())
                        .unwrap_or_else(|e| panic!("{e}")),
                    &mut files,
                );
                assert!(!checked.has_errors());
                checked.diagnostics.len()
            })
        });

        group.bench_function(BenchmarkId::new("forge_validate", n), |b| {
            b.iter(|| {
                let out = Command::new(forge).arg("validate").arg(&file).output();
                let out = out.map(|o| (o.status.success(), o.stdout.len()));
                assert!(matches!(out, Ok((true, _))), "{out:?}");
                out
            })
        });
    }
    group.finish();
}

criterion_group!(benches, lsp);
criterion_main!(benches);
