//! The first stage: a scene's bytes read, as text or as its cooked twin.

use crate::cook::{CookError, CookedScene};
use crate::format::{ParsedScene, ReadError, SceneDoc};
use crate::validate::{Diagnostic, Severity};

/// A scene read from its bytes: the document with where each part was written (a text's
/// [`SourceMap`](crate::format::SourceMap); a cooked scene has none), and for a cooked scene the
/// prefabs it bundles.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file as diagnostics name it: an asset path, or a path as a tool was given it.
    pub name: String,
    /// The document, where its parts were written, and what the reader noticed.
    pub parsed: ParsedScene,
    /// For a cooked scene: the text it was cooked from and the prefab documents it bundles.
    pub cooked: Option<Cooked>,
}

/// What a cooked scene carries besides its document.
#[derive(Debug, Clone, PartialEq)]
pub struct Cooked {
    /// The text file it was cooked from, as the cook named it.
    pub source: String,
    /// Every prefab it places, directly or through others: asset path and document.
    pub prefabs: Vec<(String, SceneDoc)>,
    /// What cooking proved (layout version 4); `None` for a file without a stamp.
    pub stamp: Option<crate::cook::CookStamp>,
}

/// Why bytes are not a scene.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The text does not read (syntax, unknown field, not UTF-8, ...). The message names the
    /// file, line and column.
    #[error("{0}")]
    Read(ReadError),
    /// The bytes start as a cooked scene (or a damaged one) but are not a usable one.
    #[error("`{path}` is not a usable cooked scene: {error}")]
    Cooked {
        /// The file.
        path: String,
        /// What is wrong.
        error: CookError,
    },
}

impl SourceError {
    /// The problem as a [`Diagnostic`]: the read error's code (`forge::read::<kind>`) at its
    /// line and column, or the cooked error's (`forge::cook::<kind>`) naming its entity.
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            SourceError::Read(e) => Diagnostic::from_read_error(e),
            SourceError::Cooked { error, .. } => {
                let mut d = Diagnostic::new(Severity::Error, error.code(), self.to_string());
                d.entity = error.entity();
                d
            }
        }
    }
}

impl Source {
    /// Reads `bytes`, the file `name`: a cooked scene when they start with the cooked magic,
    /// else `.forge.ron` text.
    ///
    /// # Errors
    /// [`SourceError::Read`] for text that does not read; [`SourceError::Cooked`] for cooked
    /// bytes that do not decode, and for bytes whose first byte alone differs from the cooked
    /// magic (`forge::cook::magic`: a damaged cooked scene, not text that is not UTF-8).
    pub fn read(name: impl Into<String>, bytes: &[u8]) -> Result<Source, SourceError> {
        let name = name.into();
        let cooked = |error| SourceError::Cooked {
            path: name.clone(),
            error,
        };
        if crate::cook::looks_damaged(bytes) {
            return Err(cooked(CookError::DamagedMagic { found: bytes[0] }));
        }
        if crate::cook::is_cooked(bytes) {
            let read = CookedScene::decode_stamped(bytes).map_err(cooked)?;
            let mut source = Source::from_cooked(name, read.scene);
            if let Some(c) = &mut source.cooked {
                c.stamp = read.stamp;
            }
            return Ok(source);
        }
        let parsed = match std::str::from_utf8(bytes) {
            Ok(text) => SceneDoc::from_str(text),
            // The reader reports where the bytes stop being UTF-8.
            Err(_) => SceneDoc::from_slice(bytes),
        }
        .map_err(|e| SourceError::Read(e.with_path(&name)))?;
        Ok(Source::from_parsed(name, parsed))
    }

    /// A text scene already read (a large file read in pieces).
    pub fn from_parsed(name: impl Into<String>, parsed: ParsedScene) -> Source {
        Source {
            name: name.into(),
            parsed,
            cooked: None,
        }
    }

    /// A decoded cooked scene.
    pub fn from_cooked(name: impl Into<String>, scene: CookedScene) -> Source {
        let source = scene.source.clone();
        let (parsed, prefabs) = scene.into_parts();
        Source {
            name: name.into(),
            parsed,
            cooked: Some(Cooked {
                source,
                prefabs,
                stamp: None,
            }),
        }
    }

    /// The document.
    pub fn doc(&self) -> &SceneDoc {
        &self.parsed.doc
    }

    /// How messages name the file: its name, and for a cooked scene the text it was cooked from
    /// (`one.forge.bin (cooked from levels/one.forge.ron)`).
    pub fn shown_name(&self) -> String {
        match &self.cooked {
            // The source name comes from the file: control characters are shown escaped.
            Some(c) => format!("{} (cooked from {})", self.name, c.source.escape_debug()),
            None => self.name.clone(),
        }
    }
}
