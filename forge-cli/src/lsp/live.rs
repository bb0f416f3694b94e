//! The running game, when `initializationOptions.remote` names it (`"http://127.0.0.1:15702"`,
//! a game with `ForgeRemotePlugin`): the live values of a document's fields that differ from
//! the text (hover shows them beside the authored one, inlay hints mark them, a code action
//! writes one into the text), and the commands that select a document's entity in the game or
//! open the line of a live entity.
//!
//! The game is asked over Bevy's remote protocol (JSON-RPC over HTTP: `forge.scenes`,
//! `forge.diff`, `forge.entity`, `forge.select`, `forge.locate`), with a short timeout. A game
//! that does not answer is left alone for a few seconds, and the server answers as without
//! one: nothing waits on it, nothing fails because of it.

use std::ops::Range;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bevy_forge_scene::format::{ComponentData, CustomPart};
use serde_json::{Value, json};

use super::state::Document;

/// How long one request to the game may take.
const TIMEOUT: Duration = Duration::from_millis(400);
/// How long a game that did not answer is left alone.
const QUIET: Duration = Duration::from_secs(3);

/// The game's remote protocol endpoint.
pub struct Remote {
    url: String,
    agent: ureq::Agent,
    /// When the game last failed to answer.
    failed: Mutex<Option<Instant>>,
}

/// A field of a document whose live value differs from its text.
#[derive(Debug, Clone, PartialEq)]
pub struct LivePart {
    /// The written value, in bytes of the text after a byte-order mark (for a field the text
    /// does not write, its component's entry).
    pub range: Range<usize>,
    /// The entity's id in the document.
    pub id: u64,
    /// `name`, `transform`, a built-in's tag or a custom component's type path.
    pub component: String,
    /// The field, when the difference is of one.
    pub field: Option<String>,
    /// The value the text gives, as the format writes it; `None` when the text does not write
    /// it.
    pub file: Option<String>,
    /// The live value, as the format writes it.
    pub live: String,
    /// The text that writes the live value in place of `range`, when the text writes the
    /// field (the "keep the live value" edit).
    pub replacement: Option<String>,
}

impl Remote {
    /// The game at `url` (`http://127.0.0.1:15702`).
    pub fn new(url: &str) -> Self {
        Self {
            url: url.trim_end_matches('/').to_owned(),
            agent: ureq::AgentBuilder::new()
                .timeout_connect(TIMEOUT)
                .timeout(TIMEOUT)
                .build(),
            failed: Mutex::new(None),
        }
    }

    /// Calls `method` with `params`: its result, or why not (the game is not running, an
    /// error it answered).
    pub fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        {
            let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            if failed.is_some_and(|at| at.elapsed() < QUIET) {
                return Err(format!("the game at {} did not answer just now", self.url));
            }
        }
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = match self
            .agent
            .post(&format!("{}/", self.url))
            .set("content-type", "application/json")
            .send_string(&body.to_string())
        {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => {
                *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                return Err(format!("the game at {} does not answer: {e}", self.url));
            }
        };
        let answer: Value = response
            .into_json()
            .map_err(|e| format!("the game's answer to `{method}` is not JSON: {e}"))?;
        if let Some(error) = answer.get("error") {
            return Err(format!(
                "the game answered `{method}` with an error: {}",
                error["message"].as_str().unwrap_or("(no message)")
            ));
        }
        Ok(answer["result"].clone())
    }

    /// The root entity of the first spawned root of scene `asset`.
    fn root_of(&self, asset: &str) -> Option<u64> {
        let scenes = self.call("forge.scenes", Value::Null).ok()?;
        scenes
            .as_array()?
            .iter()
            .find(|s| s["scene"].as_str() == Some(asset) && s["state"] != "failed")
            .and_then(|s| s["root"].as_u64())
    }

    /// The fields of `doc` (scene `asset` in the game) whose live values differ from its text.
    pub fn live_parts(&self, doc: &Document, asset: &str) -> Vec<LivePart> {
        let Some(root) = self.root_of(asset) else {
            return Vec::new();
        };
        let Ok(diff) = self.call("forge.diff", json!({ "root": root })) else {
            return Vec::new();
        };
        let Some(parsed) = &doc.parsed else {
            return Vec::new();
        };
        let differences = diff["differences"].as_array().cloned().unwrap_or_default();
        differences
            .iter()
            .filter_map(|d| place(parsed, d))
            .collect()
    }
}

/// The asset path of `doc` in its project (relative to the assets folder its prefabs are read
/// from), as the game's asset server names it.
pub fn asset_of(doc: &Document) -> Option<String> {
    let path = doc.path.as_deref()?;
    let root: &Path = doc
        .checked
        .as_ref()
        .map(|c| c.root.as_path())
        .or(doc.assets.as_deref())?;
    let relative = path.strip_prefix(root).ok()?;
    Some(relative.to_string_lossy().replace('\\', "/"))
}

/// Where difference `d` (one of `forge.diff`'s) is written in `parsed`: only those of the
/// document's own entities (an id path of one id).
fn place(parsed: &bevy_forge_scene::format::ParsedScene, d: &Value) -> Option<LivePart> {
    let path = d["id_path"].as_array()?;
    let [id] = path.as_slice() else {
        return None;
    };
    let id = id.as_u64()?;
    let component = d["component"].as_str()?.to_owned();
    let field = d["field"].as_str().map(str::to_owned);
    let file = d["file"].as_str().map(str::to_owned);
    let live = d["live"].as_str()?.to_owned();
    let map = &parsed.source_map;
    let node = parsed.doc.entity(id)?;
    let quoted = |s: &str| format!("\"{}\"", s.escape_debug());
    let (span, replacement) = match (component.as_str(), field.as_deref()) {
        ("name", None) => (map.entity_field_span(id, "name")?, Some(live.clone())),
        ("transform", Some(part)) => (
            map.entity_field_span(id, &format!("transform.{part}"))?,
            Some(live.clone()),
        ),
        (component, field) => {
            let index = node.components.iter().position(|c| match c {
                ComponentData::Custom(c) => c.type_path == component,
                other => other.tag() == component,
            })?;
            match (&node.components[index], field) {
                (ComponentData::Custom(c), Some(field)) => {
                    match c.fields.iter().rposition(|f| f.name == field) {
                        Some(j) => (
                            map.custom_field_span(id, index, j, CustomPart::Expr)?,
                            Some(quoted(&live)),
                        ),
                        None => (map.component_span(id, index)?, None),
                    }
                }
                (ComponentData::Custom(_), None) => (
                    map.component_field_span(id, index, "data")
                        .or_else(|| map.component_span(id, index))?,
                    None,
                ),
                (_, Some(field)) => match map.component_field_span(id, index, field) {
                    Some(span) => (span, Some(live.clone())),
                    None => (map.component_span(id, index)?, None),
                },
                (_, None) => (map.component_span(id, index)?, None),
            }
        }
    };
    Some(LivePart {
        range: span.range()?,
        id,
        component,
        field,
        file,
        live,
        replacement,
    })
}

/// The entity of `doc` whose entry holds byte `offset`.
pub fn entity_at(doc: &Document, offset: usize) -> Option<u64> {
    let parsed = doc.parsed.as_ref()?;
    parsed
        .doc
        .entities
        .keys()
        .filter_map(|id| {
            let r = parsed.source_map.entity_span(*id)?.range()?;
            r.contains(&offset).then_some((r.len(), *id))
        })
        .min()
        .map(|(_, id)| id)
}

/// The markdown hover adds for a live part.
pub fn markdown(part: &LivePart) -> String {
    let file = part
        .file
        .as_deref()
        .map_or("not written (the type's default)".to_owned(), |f| {
            format!("`{f}`")
        });
    format!(
        "**Live** in the running game: `{}` (the file: {file})",
        part.live
    )
}
