//! The main loop: the handshake, then each message in turn, documents checked when no message is
//! waiting or a request needs them.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionProviderCapability, CompletionOptions, HoverProviderCapability,
    InitializeParams, OneOf, PositionEncodingKind, PublishDiagnosticsParams, SaveOptions,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};

use super::proto::{self, Failure, uri_path};
use super::state::{Document, Level, State, Texts};
use super::text::Encoding;
use super::{actions, completion, diagnostics, game, hover, live, locate, navigation};
use bevy_forge_scene::format::TextChange;

/// An error that ends the server: the connection failed.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Serves `connection` until the client sends `exit` or goes away: `Ok` after `shutdown` and
/// `exit`, as the protocol ends a session.
///
/// # Errors
/// When the handshake fails, the connection breaks, the client goes away without `shutdown`,
/// or sends `exit` before it (the protocol's exit status 1).
pub fn serve(connection: Connection) -> Result<(), Error> {
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params)?;
    let encoding = encoding_of(&params);
    let result = serde_json::json!({
        "capabilities": capabilities(encoding),
        "serverInfo": ServerInfo {
            name: "forge lsp".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        },
    });
    connection.initialize_finish(id, result)?;
    let workspace = workspace_of(&params);
    let schema = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("schemaPath"))
        .and_then(|p| p.as_str())
        .map(PathBuf::from);
    let remote = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("remote"))
        .and_then(|r| r.as_str())
        .filter(|r| !r.trim().is_empty())
        .map(game::Remote::new);
    if watches_files(&params) {
        register_watchers(&connection)?;
    }
    let mut state = State::new(encoding, workspace, schema);
    state.remote = remote;
    let mut server = Server {
        connection: &connection,
        state,
    };
    server.run()
}

/// Whether the client lets the server ask it to watch files.
fn watches_files(params: &InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|w| w.dynamic_registration)
        .unwrap_or(false)
}

/// Asks the client to report changes of scenes and prefabs (`*.forge.ron`), schema files
/// (`*.forge-schema.ron`) and asset files on disk: the scenes are checked again.
fn register_watchers(connection: &Connection) -> Result<(), Error> {
    let watchers = ["**/*.forge.ron", "**/*.forge-schema.ron", "**/assets/**"]
        .iter()
        .map(|glob| lsp_types::FileSystemWatcher {
            glob_pattern: lsp_types::GlobPattern::String((*glob).to_owned()),
            kind: None,
        })
        .collect();
    let options = lsp_types::DidChangeWatchedFilesRegistrationOptions { watchers };
    let params = lsp_types::RegistrationParams {
        registrations: vec![lsp_types::Registration {
            id: "forge-watch".to_owned(),
            method: note::DidChangeWatchedFiles::METHOD.to_owned(),
            register_options: Some(serde_json::to_value(options)?),
        }],
    };
    connection.sender.send(Message::Request(Request::new(
        RequestId::from("forge-watch".to_owned()),
        req::RegisterCapability::METHOD.to_owned(),
        params,
    )))?;
    Ok(())
}

/// UTF-8 when the client offers it, else the protocol's UTF-16.
fn encoding_of(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

#[allow(deprecated)] // `root_uri`, for clients without workspace folders.
fn workspace_of(params: &InitializeParams) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| uri_path(&f.uri))
        .collect();
    if out.is_empty()
        && let Some(root) = params.root_uri.as_ref().and_then(uri_path)
    {
        out.push(root);
    }
    out
}

/// The command that selects the entity under the cursor in the running game.
const REVEAL: &str = "forge.revealEntity";
/// The command that opens the line of a live entity.
const OPEN: &str = "forge.openEntity";

/// What the server offers.
pub fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(
            lsp_types::CodeActionOptions {
                code_action_kinds: Some(vec![
                    CodeActionKind::QUICKFIX,
                    CodeActionKind::REFACTOR_REWRITE,
                ]),
                ..Default::default()
            },
        )),
        execute_command_provider: Some(lsp_types::ExecuteCommandOptions {
            commands: vec![REVEAL.to_owned(), OPEN.to_owned()],
            ..Default::default()
        }),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(
                ["#", "\"", ":", "/", "(", " "]
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
            ),
            ..Default::default()
        }),
        ..Default::default()
    }
}

struct Server<'c> {
    connection: &'c Connection,
    state: State,
}

impl Server<'_> {
    fn run(&mut self) -> Result<(), Error> {
        loop {
            let Ok(message) = self.connection.receiver.recv() else {
                return Err("the client went away without `shutdown`".into());
            };
            match message {
                Message::Request(request) => {
                    if self.connection.handle_shutdown(&request)? {
                        return Ok(());
                    }
                    // A request sees every change before it checked, and the schema file as
                    // it is on disk now; then it only reads the state.
                    if let Some(key) = request.params["textDocument"]["uri"].as_str() {
                        self.state.prepare(key);
                    }
                    self.flush()?;
                    let response = self.request(request);
                    self.connection.sender.send(Message::Response(response))?;
                }
                Message::Notification(n) => {
                    if n.method == note::Exit::METHOD {
                        return Err("`exit` before `shutdown`".into());
                    }
                    let method = n.method.clone();
                    if catch_unwind(AssertUnwindSafe(|| self.notification(n))).is_err() {
                        self.show(
                            lsp_types::MessageType::ERROR,
                            format!("forge lsp: handling `{method}` failed; the server goes on"),
                        )?;
                    }
                }
                Message::Response(_) => {}
            }
            // The debounce: changes that came while the last check ran are checked together.
            if self.connection.receiver.is_empty() {
                self.flush()?;
            }
        }
    }

    fn show(&self, typ: lsp_types::MessageType, message: String) -> Result<(), Error> {
        let params = lsp_types::ShowMessageParams { typ, message };
        self.connection
            .sender
            .send(Message::Notification(Notification::new(
                note::ShowMessage::METHOD.to_owned(),
                params,
            )))?;
        Ok(())
    }

    /// Reads and checks every document that changed, and publishes their diagnostics.
    fn flush(&mut self) -> Result<(), Error> {
        let mut dirty: Vec<String> = self
            .state
            .documents
            .iter()
            .filter(|(_, d)| d.dirty)
            .map(|(k, _)| k.clone())
            .collect();
        dirty.sort();
        for key in dirty {
            let state = &mut self.state;
            let checked = catch_unwind(AssertUnwindSafe(|| state.check(&key)));
            if checked.is_err()
                && let Some(doc) = self.state.documents.get_mut(&key)
            {
                doc.dirty = false;
                doc.checked = None;
            }
            self.publish(&key)?;
        }
        for (level, message) in std::mem::take(&mut self.state.messages) {
            let typ = match level {
                Level::Info => lsp_types::MessageType::INFO,
                Level::Warning => lsp_types::MessageType::WARNING,
            };
            self.show(typ, message)?;
        }
        Ok(())
    }

    fn publish(&self, key: &str) -> Result<(), Error> {
        let Some(doc) = self.state.documents.get(key) else {
            return Ok(());
        };
        let Ok(uri) = key.parse::<Uri>() else {
            return Ok(());
        };
        let diagnostics = catch_unwind(AssertUnwindSafe(|| {
            let mut texts = Texts::new(&self.state);
            let problems = diagnostics::problems(&mut texts, doc);
            proto::diagnostics(&self.state, &mut texts, &uri, doc, &problems)
        }))
        .unwrap_or_default();
        self.send_diagnostics(uri, diagnostics, Some(doc.version))
    }

    fn send_diagnostics(
        &self,
        uri: Uri,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) -> Result<(), Error> {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.connection
            .sender
            .send(Message::Notification(Notification::new(
                note::PublishDiagnostics::METHOD.to_owned(),
                params,
            )))?;
        Ok(())
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidOpenTextDocumentParams>(
                    note::DidOpenTextDocument::METHOD,
                ) else {
                    return;
                };
                let doc = Document::new(
                    uri_path(&p.text_document.uri),
                    p.text_document.version,
                    p.text_document.text,
                );
                let key = p.text_document.uri.as_str().to_owned();
                self.state.documents.insert(key.clone(), doc);
                self.dependents_changed(&key);
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidChangeTextDocumentParams>(
                    note::DidChangeTextDocument::METHOD,
                ) else {
                    return;
                };
                let key = p.text_document.uri.as_str().to_owned();
                let encoding = self.state.encoding;
                let Some(doc) = self.state.documents.get_mut(&key) else {
                    return;
                };
                doc.version = p.text_document.version;
                for change in p.content_changes {
                    apply(doc, change, encoding);
                }
                doc.dirty = true;
                self.dependents_changed(&key);
            }
            note::DidSaveTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidSaveTextDocumentParams>(
                    note::DidSaveTextDocument::METHOD,
                ) else {
                    return;
                };
                let key = p.text_document.uri.as_str().to_owned();
                // Files may have appeared beside it (assets); check it and what places it again.
                self.state.forget_assets();
                if let Some(doc) = self.state.documents.get_mut(&key) {
                    doc.dirty = true;
                }
                self.dependents_changed(&key);
            }
            note::DidCloseTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidCloseTextDocumentParams>(
                    note::DidCloseTextDocument::METHOD,
                ) else {
                    return;
                };
                let key = p.text_document.uri.as_str().to_owned();
                self.state.documents.remove(&key);
                let _ = self.send_diagnostics(p.text_document.uri, Vec::new(), None);
                self.dependents_changed(&key);
            }
            note::DidChangeWatchedFiles::METHOD => {
                // Prefab files, schema or assets changed on disk: check everything again.
                self.state.forget_assets();
                for doc in self.state.documents.values_mut() {
                    doc.dirty = true;
                }
            }
            _ => {}
        }
    }

    /// Marks for checking the open scenes that place the document `key` (a prefab).
    fn dependents_changed(&mut self, key: &str) {
        let path = key.parse::<Uri>().ok().as_ref().and_then(uri_path);
        let Some(path) = path else {
            return;
        };
        for doc in self.state.documents.values_mut() {
            if let Some(checked) = &doc.checked
                && checked.prefabs.iter().any(|p| checked.root.join(p) == path)
            {
                doc.dirty = true;
            }
        }
    }

    fn request(&self, request: Request) -> Response {
        let id = request.id.clone();
        let state = &self.state;
        match request.method.as_str() {
            req::HoverRequest::METHOD => handle::<req::HoverRequest>(request, |p| {
                let p = p.text_document_position_params;
                let doc = proto::document(state, &p.text_document.uri)?;
                let offset = proto::offset(state, doc, p.position);
                let mut shown = hover::hover(state, doc, offset);
                let live = live_parts(state, doc)
                    .into_iter()
                    .find(|l| l.range.start <= offset && offset <= l.range.end);
                if let Some(part) = live {
                    let text = live::markdown(&part);
                    shown = Some(match shown {
                        Some(mut h) => {
                            h.markdown = format!("{}\n\n---\n\n{text}", h.markdown);
                            h
                        }
                        None => hover::Hover {
                            markdown: text,
                            range: part.range,
                        },
                    });
                }
                Ok(shown.map(|h| proto::hover(state, doc, h)))
            }),
            req::GotoDefinition::METHOD => handle::<req::GotoDefinition>(request, |p| {
                let p = p.text_document_position_params;
                let uri = &p.text_document.uri;
                let doc = proto::document(state, uri)?;
                let offset = proto::offset(state, doc, p.position);
                let place = navigation::definition(state, doc, offset);
                let mut texts = Texts::new(state);
                Ok(place
                    .and_then(|place| proto::location(state, &mut texts, uri, doc, &place))
                    .map(lsp_types::GotoDefinitionResponse::Scalar))
            }),
            req::References::METHOD => handle::<req::References>(request, |p| {
                let declaration = p.context.include_declaration;
                let p = p.text_document_position;
                let uri = &p.text_document.uri;
                let doc = proto::document(state, uri)?;
                let offset = proto::offset(state, doc, p.position);
                let places = navigation::references(state, uri.as_str(), doc, offset, declaration);
                let mut texts = Texts::new(state);
                Ok(places.map(|places| {
                    places
                        .iter()
                        .filter_map(|place| proto::location(state, &mut texts, uri, doc, place))
                        .collect()
                }))
            }),
            req::DocumentSymbolRequest::METHOD => {
                handle::<req::DocumentSymbolRequest>(request, |p| {
                    let doc = proto::document(state, &p.text_document.uri)?;
                    Ok(navigation::symbols(doc).map(|symbols| {
                        lsp_types::DocumentSymbolResponse::Nested(
                            symbols
                                .into_iter()
                                .map(|s| proto::symbol(state, doc, s))
                                .collect(),
                        )
                    }))
                })
            }
            req::InlayHintRequest::METHOD => handle::<req::InlayHintRequest>(request, |p| {
                let doc = proto::document(state, &p.text_document.uri)?;
                let start = proto::offset(state, doc, p.range.start);
                let end = proto::offset(state, doc, p.range.end);
                let mut hints = navigation::inlay_hints(doc, start..end);
                hints.extend(
                    live_parts(state, doc)
                        .into_iter()
                        .filter(|l| l.range.end >= start && l.range.start <= end)
                        .map(|l| navigation::Hint {
                            at: l.range.end,
                            label: live::hint(&l),
                        }),
                );
                hints.sort_by_key(|h| h.at);
                Ok(Some(
                    hints
                        .into_iter()
                        .map(|h| proto::inlay_hint(state, doc, h))
                        .collect(),
                ))
            }),
            req::Completion::METHOD => handle::<req::Completion>(request, |p| {
                let p = p.text_document_position;
                let doc = proto::document(state, &p.text_document.uri)?;
                let offset = proto::offset(state, doc, p.position);
                let items = completion::completion(state, doc, offset)
                    .into_iter()
                    .map(|c| proto::completion(state, doc, c))
                    .collect();
                Ok(Some(lsp_types::CompletionResponse::Array(items)))
            }),
            req::Formatting::METHOD => handle::<req::Formatting>(request, |p| {
                let doc = proto::document(state, &p.text_document.uri)?;
                let edit = actions::format(doc)?;
                Ok(Some(
                    edit.into_iter()
                        .map(|e| proto::edit(state, doc, e))
                        .collect(),
                ))
            }),
            req::CodeActionRequest::METHOD => handle::<req::CodeActionRequest>(request, |p| {
                let uri = &p.text_document.uri;
                let doc = proto::document(state, uri)?;
                let start = proto::offset(state, doc, p.range.start);
                let end = proto::offset(state, doc, p.range.end);
                let mut texts = Texts::new(state);
                let (problems, fixes) = actions::code_actions(state, doc, &mut texts, start..end);
                let mut answer = proto::code_actions(state, &mut texts, uri, doc, &problems, fixes);
                for part in live_parts(state, doc) {
                    let Some(new_text) = part.replacement.clone() else {
                        continue;
                    };
                    let live = part.live().unwrap_or_default().to_owned();
                    if part.range.end < start || part.range.start > end {
                        continue;
                    }
                    let edit = proto::edit(
                        state,
                        doc,
                        actions::Edit {
                            range: part.range.clone(),
                            new_text,
                        },
                    );
                    answer.push(lsp_types::CodeActionOrCommand::CodeAction(
                        lsp_types::CodeAction {
                            title: format!("Keep the live value `{live}`"),
                            kind: Some(CodeActionKind::REFACTOR_REWRITE),
                            edit: Some(lsp_types::WorkspaceEdit {
                                changes: Some(std::collections::HashMap::from([(
                                    uri.clone(),
                                    vec![edit],
                                )])),
                                ..Default::default()
                            }),
                            ..Default::default()
                        },
                    ));
                }
                Ok(Some(answer))
            }),
            req::ExecuteCommand::METHOD => {
                let mut show = None;
                let response = handle::<req::ExecuteCommand>(request, |p| {
                    let (answer, document) = execute(state, &p.command, &p.arguments)?;
                    show = document;
                    Ok(Some(answer))
                });
                if let Some(params) = show {
                    let _ = self.connection.sender.send(Message::Request(Request::new(
                        RequestId::from(format!("forge-show-{}", params.uri.as_str())),
                        req::ShowDocument::METHOD.to_owned(),
                        params,
                    )));
                }
                response
            }
            _ => Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("forge lsp does not handle `{}`", request.method),
            ),
        }
    }
}

/// The live parts of `doc`, when a game is named and `doc` is in a project's assets folder.
fn live_parts(state: &State, doc: &Document) -> Vec<live::LivePart> {
    match (&state.remote, asset_of(doc), &doc.parsed) {
        (Some(remote), Some(asset), Some(parsed)) => live::live_parts(remote, parsed, &asset),
        _ => Vec::new(),
    }
}

/// The asset path of `doc` in its project (relative to the assets folder its prefabs are read
/// from), as the game's asset server names it.
fn asset_of(doc: &Document) -> Option<String> {
    let root = doc
        .checked
        .as_ref()
        .map(|c| c.root.as_path())
        .or(doc.assets.as_deref());
    live::asset_of(doc.path.as_deref(), root)
}

/// Runs command `command`: its answer, and the document to show the client, if any.
fn execute(
    state: &State,
    command: &str,
    arguments: &[serde_json::Value],
) -> Result<(serde_json::Value, Option<lsp_types::ShowDocumentParams>), Failure> {
    let remote = state.remote.as_ref().ok_or_else(|| {
        "no running game: set `initializationOptions.remote` (\"http://127.0.0.1:15702\")"
            .to_owned()
    })?;
    match command {
        REVEAL => {
            let uri: Uri = arguments
                .first()
                .and_then(|u| u.as_str())
                .and_then(|u| u.parse().ok())
                .ok_or_else(|| format!("`{REVEAL}` takes a document URI and a position"))?;
            let position: lsp_types::Position = arguments
                .get(1)
                .and_then(|p| serde_json::from_value(p.clone()).ok())
                .ok_or_else(|| format!("`{REVEAL}` takes a document URI and a position"))?;
            let doc = proto::document(state, &uri)?;
            let offset = proto::offset(state, doc, position);
            let id = doc
                .parsed
                .as_ref()
                .and_then(|parsed| locate::entity_at(parsed, offset))
                .ok_or_else(|| "the cursor is not in an entity's entry".to_owned())?;
            let asset = asset_of(doc)
                .ok_or_else(|| "the document is not in a project's assets folder".to_owned())?;
            let found = remote.call(
                "forge.entity",
                serde_json::json!({ "path": asset, "id_path": [id] }),
            )?;
            let entity = found["entity"].clone();
            remote.call("forge.select", serde_json::json!({ "entity": entity }))?;
            Ok((
                serde_json::json!({ "entity": entity, "id_path": [id] }),
                None,
            ))
        }
        OPEN => {
            let entity = arguments
                .first()
                .and_then(|e| e.as_u64().or_else(|| e.as_str()?.trim().parse().ok()))
                .ok_or_else(|| format!("`{OPEN}` takes an entity (`Entity::to_bits`)"))?;
            let located = remote.call("forge.locate", serde_json::json!({ "entity": entity }))?;
            // The entity's own entry: the last place (overrides of it come first).
            let place = located["places"]
                .as_array()
                .and_then(|p| p.last())
                .ok_or_else(|| format!("the game knows no line of entity {entity}"))?;
            let file = place["file"].as_str().unwrap_or_default();
            let uri = proto::path_uri(std::path::Path::new(file))
                .ok_or_else(|| format!("`{file}` has no file URI"))?;
            let at = |p: &serde_json::Value| {
                lsp_types::Position::new(
                    p["line"].as_u64().unwrap_or(1).saturating_sub(1) as u32,
                    p["column"].as_u64().unwrap_or(1).saturating_sub(1) as u32,
                )
            };
            let start = at(&place["entry"]["start"]);
            let show = lsp_types::ShowDocumentParams {
                uri,
                external: Some(false),
                take_focus: Some(true),
                selection: Some(lsp_types::Range::new(start, start)),
            };
            Ok((located, Some(show)))
        }
        other => Err(format!("forge lsp has no command `{other}`")),
    }
}

/// Applies one change to `doc`'s text, and to its read: the edited entity entry read again
/// alone when the edit is inside one of a text that read, else the read dropped to be done
/// whole at the next check.
fn apply(
    doc: &mut Document,
    change: lsp_types::TextDocumentContentChangeEvent,
    encoding: Encoding,
) {
    let bom_before = doc.text.bom();
    let edit = doc.text.apply(change, encoding);
    let bom = doc.text.bom();
    // The edit since the last check, for the next check to check again only there.
    doc.since_check = match (doc.since_check, bom == bom_before && edit.old.start >= bom) {
        (Some(since), true) => Some(since.then(&TextChange {
            start: edit.old.start - bom,
            old_end: edit.old.end - bom,
            new_len: edit.new_len,
        })),
        _ => None,
    };
    let reread = match &mut doc.parsed {
        Some(parsed)
            if doc.read_errors.is_empty() && bom == bom_before && edit.old.start >= bom =>
        {
            let body = &doc.text.as_str()[bom..];
            parsed.reread_edit(body, edit.old.start - bom..edit.old.end - bom, edit.new_len)
        }
        _ => false,
    };
    if !reread {
        doc.parsed = None;
        doc.read_errors.clear();
    }
}

/// Runs request handler `f` on `request`'s parameters: its result, or an error response when
/// the parameters do not fit, the handler fails or panics (the server goes on).
pub fn handle<R>(
    request: Request,
    f: impl FnOnce(R::Params) -> Result<R::Result, Failure>,
) -> Response
where
    R: req::Request,
{
    let id: RequestId = request.id.clone();
    let params = match request.extract::<R::Params>(R::METHOD) {
        Ok((_, params)) => params,
        Err(e) => {
            return Response::new_err(id, ErrorCode::InvalidParams as i32, format!("{e:?}"));
        }
    };
    match catch_unwind(AssertUnwindSafe(|| f(params))) {
        Ok(Ok(result)) => Response::new_ok(id, result),
        Ok(Err(message)) => Response::new_err(id, ErrorCode::RequestFailed as i32, message),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("forge lsp: `{}` failed: {what}", R::METHOD),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panics(_: lsp_types::HoverParams) -> Result<Option<lsp_types::Hover>, Failure> {
        panic!("boom")
    }

    /// A handler that panics is answered with an error.
    #[test]
    fn a_panicking_handler_answers_an_error() {
        let params = serde_json::json!({
            "textDocument": { "uri": "file:///x.forge.ron" },
            "position": { "line": 0, "character": 0 },
        });
        let request = Request::new(
            RequestId::from(1),
            req::HoverRequest::METHOD.to_owned(),
            params,
        );
        let response = handle::<req::HoverRequest>(request, panics);
        let error = response.response_result.err().map(|e| (e.code, e.message));
        assert_eq!(
            error,
            Some((
                ErrorCode::InternalError as i32,
                "forge lsp: `textDocument/hover` failed: boom".to_owned()
            ))
        );
    }
}
