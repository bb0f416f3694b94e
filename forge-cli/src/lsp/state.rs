//! What the server keeps: the open documents (text, the latest read, the latest check), where
//! their prefabs, assets and schemas come from, and the client's position encoding.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use bevy_forge_scene::format::{ParsedScene, ReadError, SceneDoc, TextChange};
use bevy_forge_scene::pipeline::{self, PrefabFiles};
use bevy_forge_scene::project::AssetIndex;
use bevy_forge_scene::schema::{SCHEMA_EXTENSION, SchemaFile};

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
    /// The text read, as far as it reads ([`SceneDoc::from_str_recovering`]): the document and
    /// where each part is; `None` until the text is read again after a change.
    pub parsed: Option<ParsedScene>,
    /// Why the text does not read as a scene: empty when it does.
    pub read_errors: Vec<ReadError>,
    /// The latest check of `parsed` (prefabs expanded, every diagnostic).
    pub checked: Option<Checked>,
    /// Whether the text changed since the latest check.
    pub dirty: bool,
    /// The schema file its custom components are checked against, when there is one (read at
    /// its check, and before each request about it).
    pub schema: Option<PathBuf>,
    /// The assets directory of its project, when it is in one.
    pub assets: Option<PathBuf>,
    /// What the latest check kept for the next one (when the text read without errors).
    pub last_check: Option<pipeline::LastCheck>,
    /// The edit of the text since the latest check (`None`: the next check is whole).
    pub since_check: Option<TextChange>,
}

/// What the latest check of a document gave, beside its read.
pub struct Checked {
    /// The expansion of its instances (when it places any).
    pub expanded: Option<bevy_forge_scene::prefab::ExpandedScene>,
    /// Every diagnostic, the prefabs' naming their file: the read errors when the text does
    /// not read (the rules are not run on a scene that is not one: no cascade of their
    /// problems), else every rule's.
    pub diagnostics: Vec<bevy_forge_scene::validate::Diagnostic>,
    /// Where its prefabs were read from.
    pub root: PathBuf,
    /// The prefab files it placed (asset paths), directly or through others.
    pub prefabs: Vec<String>,
}

impl Document {
    /// A document opened with `text`, read.
    pub fn new(path: Option<PathBuf>, version: i32, text: String) -> Self {
        let mut doc = Self {
            path,
            version,
            text: Text::new(text),
            parsed: None,
            read_errors: Vec::new(),
            checked: None,
            dirty: true,
            schema: None,
            assets: None,
            last_check: None,
            since_check: None,
        };
        doc.read();
        doc
    }

    /// Reads the text whole, as far as it reads.
    pub fn read(&mut self) {
        let read = SceneDoc::from_str_recovering(self.body());
        self.parsed = Some(read.parsed);
        self.read_errors = read.errors;
    }

    /// The byte-order-mark-free text the library's offsets count in.
    pub fn body(&self) -> &str {
        &self.text.as_str()[self.text.bom()..]
    }

    /// The document as far as it reads.
    pub fn doc(&self) -> Option<&SceneDoc> {
        self.parsed.as_ref().map(|p| &p.doc)
    }
}

/// The texts of files other than the document, read once each for one answer (the places of
/// a prefab's problems, a definition in a prefab file).
pub struct Texts<'s> {
    state: &'s State,
    texts: HashMap<PathBuf, Option<Text>>,
}

impl<'s> Texts<'s> {
    pub fn new(state: &'s State) -> Self {
        Self {
            state,
            texts: HashMap::new(),
        }
    }

    /// The text of the file at `path` (the open document's, else the file's on disk), `None`
    /// when it cannot be read.
    pub fn get(&mut self, path: &Path) -> Option<&Text> {
        let state = self.state;
        self.texts
            .entry(path.to_owned())
            .or_insert_with(|| {
                let bytes = state.file_text(path).ok()?;
                Some(Text::new(String::from_utf8_lossy(&bytes).into_owned()))
            })
            .as_ref()
    }
}

/// How much a message to the client ([`State::messages`]) matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Something to know.
    Info,
    /// Something wrong outside the scene (a schema file that does not read).
    Warning,
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
    pub messages: Vec<(Level, String)>,
    /// The running game, when `initializationOptions.remote` names it.
    pub remote: Option<super::game::Remote>,
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
            remote: None,
        }
    }

    /// Where the schema file for the scene at `path` is (the module docs give the rule), read
    /// (again when it changed on disk since); `None` when there is none (said once).
    fn schema_path(&mut self, path: Option<&Path>) -> Option<PathBuf> {
        let found = self
            .schema_setting
            .clone()
            .or_else(|| find_schema(path?, &self.workspace));
        let Some(found) = found else {
            if !self.told_no_schema {
                self.told_no_schema = true;
                self.messages.push((
                    Level::Info,
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
        if self
            .schemas
            .get(&found)
            .is_some_and(|(when, _)| *when == modified)
        {
            return Some(found);
        }
        let file = match SchemaFile::read(&found) {
            Ok(file) => Some(file),
            Err(e) => {
                self.messages.push((
                    Level::Warning,
                    format!(
                        "forge lsp: schema file `{}`: {}",
                        found.display(),
                        e.message()
                    ),
                ));
                None
            }
        };
        self.schemas.insert(found.clone(), (modified, file));
        Some(found)
    }

    /// The schema file document `doc` was last checked against, as read then.
    pub fn schema_of(&self, doc: &Document) -> Option<&SchemaFile> {
        self.schemas.get(doc.schema.as_ref()?)?.1.as_ref()
    }

    /// The asset index of document `doc`'s project.
    pub fn assets_of(&self, doc: &Document) -> Option<&AssetIndex> {
        self.assets.get(doc.assets.as_ref()?)
    }

    /// The asset index of the assets directory `dir` (scanned once; again after
    /// [`forget_assets`](Self::forget_assets)).
    fn index(&mut self, dir: &Path) -> Option<AssetIndex> {
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

    /// Brings what a request about document `key` reads up to date: its schema file read again
    /// when it changed on disk (the document then checked again), its project's assets
    /// indexed. Requests themselves only read the state.
    pub fn prepare(&mut self, key: &str) {
        let Some(path) = self.documents.get(key).map(|d| d.path.clone()) else {
            return;
        };
        let before = self.documents.get(key).and_then(|d| d.schema.clone());
        let when =
            |s: &Self, p: &Option<PathBuf>| p.as_ref().and_then(|p| s.schemas.get(p)).map(|e| e.0);
        let was = when(self, &before);
        let schema = self.schema_path(path.as_deref());
        let assets = path
            .as_deref()
            .and_then(project_of)
            .map(|project| project.assets_dir());
        if let Some(dir) = &assets {
            self.index(dir);
        }
        let changed = schema != before || when(self, &schema) != was;
        if let Some(doc) = self.documents.get_mut(key) {
            doc.assets = assets;
            if changed {
                doc.dirty = true;
            }
        }
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

    /// The scene file at `path` (a prefab; as [`file_text`](Self::file_text) gives it): its text
    /// after the byte-order mark, and its read as far as it reads (a prefab being typed is
    /// reached as the open scene is).
    pub fn read_scene(&self, path: &Path) -> Option<(String, ParsedScene)> {
        let bytes = self.file_text(path).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
        let parsed = SceneDoc::from_str_recovering(&text).parsed;
        Some((text, parsed))
    }

    /// Checks the document `key` through the library's pipeline, as `forge validate` does: its
    /// prefabs read from its project's assets directory (open documents as the editor has
    /// them), custom components against the schema file, asset paths against the assets. A
    /// text that does not read is expanded as far as it reads (hover and definition reach
    /// into its prefabs), its diagnostics the read errors alone.
    pub fn check(&mut self, key: &str) {
        let Some(doc) = self.documents.get_mut(key) else {
            return;
        };
        if doc.parsed.is_none() {
            doc.read();
        }
        let path = doc.path.clone();
        let root = match &path {
            Some(p) => prefab_root(p, None),
            None => PathBuf::from("."),
        };
        let schema_path = self.schema_path(path.as_deref());
        let schema = schema_path
            .as_ref()
            .and_then(|p| self.schemas.get(p))
            .and_then(|(_, f)| f.clone());
        let assets = path
            .as_deref()
            .and_then(project_of)
            .map(|project| project.assets_dir());
        let index = assets.as_deref().and_then(|dir| self.index(dir));
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
        doc.schema = schema_path;
        doc.assets = assets;
        let name = match &path {
            Some(p) => asset_path_of(p, &root),
            None => key.to_owned(),
        };
        let Some(parsed) = doc.parsed.take() else {
            return;
        };
        // A text that reads is checked again only where it changed since the last check of
        // one that read (the library checks whole where it cannot bound the edit).
        let source = pipeline::Source::from_parsed(name, parsed);
        let last = doc.last_check.take();
        let (checked, kept) = match (last, doc.since_check.take()) {
            (Some(last), Some(change)) if doc.read_errors.is_empty() => {
                pipeline::check_again(source, &mut files, last, change)
            }
            _ => pipeline::check_keeping(source, &mut files),
        };
        if doc.read_errors.is_empty() {
            doc.last_check = kept;
            doc.since_check = Some(TextChange::NONE);
        }
        let prefabs = files.files().map(|(p, _)| p.to_owned()).collect();
        doc.parsed = Some(checked.source.parsed);
        let diagnostics = if doc.read_errors.is_empty() {
            checked.diagnostics
        } else {
            doc.read_errors
                .iter()
                .map(bevy_forge_scene::validate::Diagnostic::from_read_error)
                .collect()
        };
        doc.checked = Some(Checked {
            expanded: checked.expanded,
            diagnostics,
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
