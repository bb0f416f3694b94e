//! What the server keeps: the open documents (text, the latest read, the latest check), where
//! their prefabs, assets and schemas come from, and the client's position encoding.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use bevy_forge_scene::format::{ParsedScene, ReadError, SceneDoc};
use bevy_forge_scene::pipeline::{self, PrefabFiles};
use bevy_forge_scene::project::AssetIndex;
use bevy_forge_scene::schema::{SCHEMA_EXTENSION, SchemaFile};
use lsp_types::Uri;

use super::text::{Encoding, Text};
use crate::files::{asset_path_of, prefab_root, project_of};

/// One open document.
pub struct Document {
    /// Where it is on disk (a `file:` URI), when it is.
    pub path: Option<PathBuf>,
    /// The client's version of the text.
    pub version: i32,
    /// The text as the client has it.
    pub text: Text,
    /// The text read: the document and where each part is (`None` when it does not read).
    pub parsed: Option<ParsedScene>,
    /// Why the text does not read, when it does not.
    pub read_error: Option<ReadError>,
    /// The last document that read, while the text does not (for completion).
    pub last_good: Option<SceneDoc>,
    /// The latest check of `parsed` (prefabs expanded, every diagnostic).
    pub checked: Option<Checked>,
    /// Whether the text changed since the latest check.
    pub dirty: bool,
}

/// What the latest check of a document gave, beside its read.
pub struct Checked {
    /// The expansion of its instances (when it places any).
    pub expanded: Option<bevy_forge_scene::prefab::ExpandedScene>,
    /// Every diagnostic, the prefabs' naming their file.
    pub diagnostics: Vec<bevy_forge_scene::validate::Diagnostic>,
    /// Where its prefabs were read from.
    pub root: PathBuf,
    /// The prefab files it placed (asset paths), directly or through others.
    pub prefabs: Vec<String>,
}

impl Document {
    /// A document opened with `text`.
    pub fn new(path: Option<PathBuf>, version: i32, text: String) -> Self {
        let text = Text::new(text);
        let (parsed, read_error) = split(read(&text));
        Self {
            path,
            version,
            text,
            parsed,
            read_error,
            last_good: None,
            checked: None,
            dirty: true,
        }
    }

    /// The byte-order-mark-free text the library's offsets count in.
    pub fn body(&self) -> &str {
        &self.text.as_str()[self.text.bom()..]
    }

    /// The latest document that read: the current one, else the last good one.
    pub fn doc(&self) -> Option<&SceneDoc> {
        match &self.parsed {
            Some(p) => Some(&p.doc),
            None => self.last_good.as_ref(),
        }
    }
}

/// A read as the document keeps it.
pub fn split(read: Result<ParsedScene, ReadError>) -> (Option<ParsedScene>, Option<ReadError>) {
    match read {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e)),
    }
}

/// Reads `text` whole.
pub fn read(text: &Text) -> Result<ParsedScene, ReadError> {
    SceneDoc::from_str(&text.as_str()[text.bom()..])
}

/// The server's state besides the protocol.
pub struct State {
    /// How the client counts columns.
    pub encoding: Encoding,
    /// The open documents.
    pub documents: HashMap<String, Document>,
    /// The workspace folders, first first.
    pub workspace: Vec<PathBuf>,
    /// `initializationOptions.schemaPath`, resolved against the first workspace folder.
    pub schema_setting: Option<PathBuf>,
    /// Schema files read, by path, with their modification time when read.
    pub schemas: HashMap<PathBuf, (Option<SystemTime>, Option<SchemaFile>)>,
    /// Asset indexes by assets directory.
    pub assets: HashMap<PathBuf, AssetIndex>,
    /// Whether the "no schema file" message was shown.
    pub told_no_schema: bool,
    /// Messages to show the client (`window/showMessage`), taken by the server loop.
    pub messages: Vec<(lsp_types::MessageType, String)>,
}

impl State {
    /// A state for a client counting columns with `encoding`.
    pub fn new(encoding: Encoding, workspace: Vec<PathBuf>, schema: Option<PathBuf>) -> Self {
        let schema_setting = schema.map(|p| match (p.is_absolute(), workspace.first()) {
            (false, Some(root)) => root.join(p),
            _ => p,
        });
        Self {
            encoding,
            documents: HashMap::new(),
            workspace,
            schema_setting,
            schemas: HashMap::new(),
            assets: HashMap::new(),
            told_no_schema: false,
            messages: Vec::new(),
        }
    }

    /// The schema file for the scene at `path` (the module docs give the rule), read again when
    /// it changed on disk; `None` when there is none or it does not read (said once).
    pub fn schema_for(&mut self, path: Option<&Path>) -> Option<SchemaFile> {
        let found = self
            .schema_setting
            .clone()
            .or_else(|| find_schema(path?, &self.workspace));
        let Some(found) = found else {
            if !self.told_no_schema {
                self.told_no_schema = true;
                self.messages.push((
                    lsp_types::MessageType::INFO,
                    format!(
                        "forge lsp: no `*.{SCHEMA_EXTENSION}` schema file found (set \
                         `schemaPath` in the initialization options, or write one with \
                         `ForgeSchemas::export`): custom components are checked for their shape \
                         and entity references only"
                    ),
                ));
            }
            return None;
        };
        let modified = std::fs::metadata(&found).and_then(|m| m.modified()).ok();
        if let Some((when, file)) = self.schemas.get(&found)
            && *when == modified
        {
            return file.clone();
        }
        let file = match SchemaFile::read(&found) {
            Ok(file) => Some(file),
            Err(e) => {
                self.messages.push((
                    lsp_types::MessageType::WARNING,
                    format!(
                        "forge lsp: schema file `{}`: {}",
                        found.display(),
                        e.message()
                    ),
                ));
                None
            }
        };
        self.schemas.insert(found, (modified, file.clone()));
        file
    }

    /// The asset index of the assets directory `dir` (scanned once; again by
    /// [`forget_assets`](Self::forget_assets)).
    pub fn index(&mut self, dir: &Path) -> Option<AssetIndex> {
        if let Some(index) = self.assets.get(dir) {
            return Some(index.clone());
        }
        let index = AssetIndex::scan(dir).ok()?;
        self.assets.insert(dir.to_owned(), index.clone());
        Some(index)
    }

    /// Forgets the asset indexes: files were created or deleted.
    pub fn forget_assets(&mut self) {
        self.assets.clear();
    }

    /// The text of the file at `path`: the open document's, else the file's on disk.
    pub fn file_text(&self, path: &Path) -> Result<Vec<u8>, String> {
        let canonical = path.canonicalize().ok();
        for doc in self.documents.values() {
            if let Some(p) = &doc.path
                && (p == path || p.canonicalize().ok() == canonical && canonical.is_some())
            {
                return Ok(doc.text.as_str().as_bytes().to_vec());
            }
        }
        std::fs::read(path).map_err(|e| format!("`{}`: {e}", path.display()))
    }

    /// Checks the document `key` through the library's pipeline, as `forge validate` does: its
    /// prefabs read from its project's assets directory (open documents as the editor has
    /// them), custom components against the schema file, asset paths against the assets.
    pub fn check(&mut self, key: &str) {
        let Some(doc) = self.documents.get(key) else {
            return;
        };
        let path = doc.path.clone();
        let root = match &path {
            Some(p) => prefab_root(p, None),
            None => PathBuf::from("."),
        };
        let schema = self.schema_for(path.as_deref());
        let index = path
            .as_deref()
            .and_then(project_of)
            .and_then(|project| self.index(&project.assets_dir()));
        // The other open documents below the root, as the editor has them (the scene itself is
        // not its own prefab).
        let canonical_root = root.canonicalize().ok();
        let overlay: Vec<(PathBuf, Vec<u8>)> = self
            .documents
            .iter()
            .filter(|(k, _)| k.as_str() != key)
            .filter_map(|(_, d)| Some((d.path.clone()?, d)))
            .filter(|(p, _)| {
                p.starts_with(&root) || canonical_root.as_ref().is_some_and(|r| p.starts_with(r))
            })
            .map(|(p, d)| (p, d.text.as_str().as_bytes().to_vec()))
            .collect();
        let read_root = root.clone();
        let read = move |asset: &str| -> Result<Vec<u8>, String> {
            let file = read_root.join(asset);
            if let Some((_, text)) = overlay.iter().find(|(p, _)| *p == file) {
                return Ok(text.clone());
            }
            std::fs::read(&file).map_err(|e| format!("`{}`: {e}", file.display()))
        };
        let mut files = PrefabFiles::new(read);
        if let Some(schema) = schema {
            files = files.with_schemas(schema);
        }
        if let Some(index) = index {
            files = files.with_assets(index);
        }
        let Some(doc) = self.documents.get_mut(key) else {
            return;
        };
        doc.dirty = false;
        let name = match &path {
            Some(p) => asset_path_of(p, &root),
            None => key.to_owned(),
        };
        let Some(parsed) = doc.parsed.take() else {
            let diagnostics = doc
                .read_error
                .iter()
                .map(bevy_forge_scene::validate::Diagnostic::from_read_error)
                .collect();
            doc.checked = Some(Checked {
                expanded: None,
                diagnostics,
                root,
                prefabs: Vec::new(),
            });
            return;
        };
        let checked = pipeline::check(pipeline::Source::from_parsed(name, parsed), &mut files);
        let prefabs = files.files().map(|(p, _)| p.to_owned()).collect();
        doc.parsed = Some(checked.source.parsed);
        doc.checked = Some(Checked {
            expanded: checked.expanded,
            diagnostics: checked.diagnostics,
            root,
            prefabs,
        });
    }
}

/// The schema file for the scene at `scene`: the first `*.forge-schema.ron` (by name) in the
/// scene's folder or its `assets/`, then in each folder above it up to its project's root or the
/// workspace folder holding it.
pub fn find_schema(scene: &Path, workspace: &[PathBuf]) -> Option<PathBuf> {
    let scene = scene.canonicalize().unwrap_or_else(|_| scene.to_owned());
    let stop = project_of(&scene)
        .map(|p| p.root().to_owned())
        .or_else(|| workspace.iter().find(|w| scene.starts_with(w)).cloned());
    for dir in scene.ancestors().skip(1) {
        for candidate in [dir.to_owned(), dir.join("assets")] {
            if let Some(found) = schema_in(&candidate) {
                return Some(found);
            }
        }
        if stop.as_deref().is_none_or(|s| s == dir) {
            break;
        }
    }
    None
}

fn schema_in(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&format!(".{SCHEMA_EXTENSION}")))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The path of a `file:` URI.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///c%3A/x` on Windows, `file:///home/x` elsewhere; a host other than empty or
    // `localhost` is not a local file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = percent_decode(rest)?;
    let text = String::from_utf8(bytes).ok()?;
    if cfg!(windows) {
        let trimmed = text.trim_start_matches('/');
        return Some(PathBuf::from(trimmed));
    }
    Some(PathBuf::from(text))
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The `file:` URI of `path` (made absolute).
pub fn path_uri(path: &Path) -> Option<Uri> {
    let path = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let text = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            b':' if cfg!(windows) => out.push(':'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.parse().ok()
}

/// The open document at `uri`, or the failure a request about another answers.
pub fn document<'s>(state: &'s State, uri: &Uri) -> Result<&'s Document, String> {
    state
        .documents
        .get(uri.as_str())
        .ok_or_else(|| format!("forge lsp: `{}` is not open", uri.as_str()))
}

impl Document {
    /// The byte offset after the byte-order mark of `position`, in the text the read counts.
    pub fn offset(&self, position: lsp_types::Position, encoding: Encoding) -> usize {
        self.text
            .offset(position, encoding)
            .saturating_sub(self.text.bom())
    }

    /// The protocol range of bytes `range` of the text after the byte-order mark.
    pub fn range(&self, range: std::ops::Range<usize>, encoding: Encoding) -> lsp_types::Range {
        let bom = self.text.bom();
        self.text
            .range(range.start + bom..range.end + bom, encoding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_paths_round_trip() {
        let path = PathBuf::from("/tmp/a b/zoë#1.forge.ron");
        let uri = path_uri(&path);
        assert_eq!(
            uri.as_ref().map(|u| u.as_str().to_owned()),
            Some("file:///tmp/a%20b/zo%C3%AB%231.forge.ron".to_owned())
        );
        assert_eq!(uri.as_ref().and_then(uri_path), Some(path));
        let other: Option<Uri> = "untitled:Untitled-1".parse().ok();
        assert_eq!(other.as_ref().and_then(uri_path), None);
    }
}
