//! Diagnostics: what validation (and reading) found, where, and how bad it is.

use std::fmt;

use crate::codes;
use crate::format::{Position, ReadError, ReadErrorKind};

/// `s` with every control character escaped (`\n`, `\u{1b}`): what human output shows of text
/// a file supplied (names, paths, expressions), so a scene cannot print lines that look like
/// other diagnostics, or drive the terminal. JSON output escapes on its own and is not passed
/// through this.
pub(crate) fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `n` and `noun`, in the plural unless `n` is 1: `1 error`, `2 errors`, `3 entities`,
/// `2 info` (uncountable). How every count in a message or summary is written.
pub(crate) fn count_of(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        _ if noun == "info" => format!("{n} info"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// How serious a [`Diagnostic`] is. Orders as `Error < Warning < Info`, so sorting puts errors
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The document breaks a rule of the format; it must not be exported or spawned as is.
    Error,
    /// Legal, but almost certainly not what the author meant.
    Warning,
    /// Worth knowing; nothing is wrong.
    Info,
}

impl Severity {
    /// The lower-case name: `error`, `warning` or `info`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One problem (or remark) about a scene document.
///
/// `Display` gives `severity[code]: message`, then ` (entity N, `path`, line L:C)` for the parts
/// that are known, then `; help: ...`.
///
/// A [`Diagnostic`] carries a [`Severity`], a stable code of the form `forge::<area>::<rule>`, a
/// lower-case message, the entity it concerns, the field path inside that entity
/// (`components[1].data.font_size`), the 1-based source position when the document was read from
/// text, and an optional help line. Codes never change meaning; tools and editors may match on
/// them.
///
/// # Codes
///
/// Each rule of the format page's "Validation" section (and "Asset paths") has one code. Rules
/// marked "(extra)" are checks this crate adds to the page's list, for values that code generation
/// would reject anyway.
///
/// | Code | Severity | Rule |
/// |---|---|---|
/// | `forge::structure::id_mismatch` | error | an entity's key differs from its `id` |
/// | `forge::structure::missing_parent` | error | `parent` names an entity that does not exist |
/// | `forge::structure::missing_child` | error | `children` lists an entity that does not exist |
/// | `forge::structure::missing_root` | error | `roots` lists an entity that does not exist |
/// | `forge::structure::not_listed_by_parent` | error | the parent does not list the entity as a child |
/// | `forge::structure::child_disagrees` | error | a listed child names another parent |
/// | `forge::structure::root_has_parent` | error | an entity in `roots` has a parent |
/// | `forge::structure::duplicate_reference` | error | an entity is listed in more than one place |
/// | `forge::structure::unplaced` | error | an entity is in neither `roots` nor any `children` |
/// | `forge::structure::self_parent` | error | an entity is its own parent |
/// | `forge::structure::cycle` | error | following `parent` links comes back to the start |
/// | `forge::structure::next_id` | error | `next_id` is not greater than every id |
/// | `forge::component::duplicate_key` | error | two components with the same `key()` on one entity |
/// | `forge::transform::non_finite` | error | a translation, rotation or scale value is `NaN` or infinite |
/// | `forge::light::non_finite` | error | a light colour, intensity, range or illuminance is not finite |
/// | `forge::light::intensity` | error | point light `intensity < 0` |
/// | `forge::light::range` | error | point light `range <= 0` |
/// | `forge::light::illuminance` | error | directional light `illuminance < 0` |
/// | `forge::light::radius` | error | spot or point light `radius < 0` |
/// | `forge::light::angle` | error | spot light `inner_angle` or `outer_angle` outside `0..=90` degrees, or `inner_angle > outer_angle` |
/// | `forge::material::non_finite` | error | a material colour, `metallic` or `perceptual_roughness` is not finite |
/// | `forge::mesh::non_finite` | error | a primitive shape size is not finite (extra) |
/// | `forge::sprite::custom_size` | error | sprite `custom_size` with a component that is not positive and finite |
/// | `forge::sprite::non_finite` | error | a sprite colour channel is not finite (extra) |
/// | `forge::text::font_size` | error | text `font_size <= 0` (or not finite) |
/// | `forge::text::non_finite` | error | a text colour channel is not finite (extra) |
/// | `forge::custom::type_path` | error | a custom component's type path is not a Rust path |
/// | `forge::custom::field_name` | error | a custom field name is neither a Rust identifier nor a tuple struct index (`0`, `1`) |
/// | `forge::custom::empty_expr` | error | a custom field expression is empty or whitespace |
/// | `forge::custom::duplicate_field` | error | two fields of one custom component have the same name |
/// | `forge::custom::unknown_type` | error | at load and with a schema file: no registered `ForgeComponent` has this type path (extra) |
/// | `forge::custom::not_allowed` | error | at load: the type path names a registered type that is not a `ForgeComponent`, such as an engine component or a resource (extra) |
/// | `forge::custom::unknown_field` | error | at load and with a schema file: the type has no such field, or it is `#[forge(skip)]` (extra) |
/// | `forge::custom::missing_required` | error | at load and with a schema file: a `#[forge(required)]` field is not listed (extra) |
/// | `forge::custom::range` | error | at load and with a schema file: a number outside the field's `#[forge(range)]` (extra) |
/// | `forge::custom::expr` | error | at load and with a schema file: a field expression that cannot be evaluated as the field's type (extra) |
/// | `forge::custom::renamed` | warning | at load and with a schema file: the type path is an old one of a type (`#[forge(renamed_from = "..")]`); read as the new one, which the message names; `forge migrate --schema` rewrites it (extra) |
/// | `forge::custom::renamed_field` | warning | at load and with a schema file: the field name is an old one (`#[forge(renamed_from = "..")]` on the field); read as the new one (extra) |
/// | `forge::custom::renamed_variant` | warning | at load and with a schema file: an enum component's `value` names an old variant (`#[forge(renamed_from = "..")]` on the variant); read as the new one, which `forge migrate --schema` writes (extra) |
/// | `forge::custom::value` | error | at load and with a schema file: an enum component written with `fields` (it is written whole, `value: ".."`), or a struct component with a `value` (extra) |
/// | `forge::custom::reference` | error | at load and in `forge validate`: an entity reference (`#7`, `#7/2`) that names no entity of the scene (the `format` module docs, "Entity references") |
/// | `forge::asset::empty` | error | an empty asset path (extra) |
/// | `forge::asset::absolute` | error | an absolute asset path (`/x`, `C:\x`) |
/// | `forge::asset::parent_dir` | error | an asset path with a `..` component |
/// | `forge::asset::backslash` | error | an asset path with a backslash |
/// | `forge::asset::missing` | error | with an asset index: the referenced file does not exist |
/// | `forge::asset::wrong_kind` | error | with an asset index: the file is not an image (sprite) or a mesh (mesh3d) |
/// | `forge::prefab::not_a_scene` | error | an instance's `scene` does not name a `.forge.ron` file |
/// | `forge::prefab::empty_target` | error | an override's `target` is empty |
/// | `forge::prefab::streaming` | error | a streamed instance's radii are not `0 < load_radius < unload_radius` (both finite) |
/// | `forge::prefab::remove_key` | error | an override removes something that is not a component key |
/// | `forge::prefab::add_existing` | error | with the prefab: an override adds a component the target already has |
/// | `forge::prefab::cycle` | error | with the prefabs: a chain of instances comes back to a file it passed |
/// | `forge::prefab::too_deep` | error | with the prefabs: prefabs nest deeper than `MAX_PREFAB_DEPTH` files |
/// | `forge::prefab::unreadable` | error | with the prefabs: a prefab file cannot be read |
/// | `forge::prefab::not_loaded` | error | an edit in memory places a prefab the scene was not loaded with |
/// | `forge::prefab::key_collision` | error | with the prefabs: two id paths hash to one key (renumber the instance) |
/// | `forge::prefab::too_large` | error | with the prefabs: expanding the instances would make more than `MAX_EXPANDED_ENTITIES` entities |
/// | `forge::prefab::unused_override` | warning | with the prefab: an override's target (or the component it sets or removes) is not in the prefab; kept, it applies again when the target returns |
/// | `forge::model::not_a_model` | error | an instance's `model` does not name a `.gltf` or `.glb` file and a `#SceneN` label |
/// | `forge::model::unreadable` | error | with a scanned asset index (feature `gltf`): the model file is not glTF JSON or a `.glb` this reads |
/// | `forge::model::missing_scene` | error | with a scanned asset index (feature `gltf`): the model file has no scene of that label |
/// | `forge::model::unknown_node` | warning | with a scanned asset index (feature `gltf`): an override's node path names a node the model lacks; kept, it applies again when the node returns |
/// | `forge::model::no_component` | warning | with a scanned asset index (feature `gltf`), and when the model is written at run time: an override's `set` or `remove` of a built-in finds it neither on the entity its node path names nor on that node's light entity; it does nothing |
/// | `forge::layer::id` | error | a tile layer's id is zero, an entity's, another layer's, or not below `next_id` |
/// | `forge::layer::parent` | error | a tile layer's parent is not an entity of the scene |
/// | `forge::layer::cell_size` | error | a tile layer's cell size is not two finite sizes above zero |
/// | `forge::layer::origin` | error | a tile layer's origin is not finite |
/// | `forge::layer::rows_and_cells` | error | a tile layer has both `rows` and `cells` |
/// | `forge::layer::too_large` | error | a tile layer spans more than `MAX_LAYER_CELLS` cells |
/// | `forge::layer::ragged` | error | a row of a tile layer has another length than the first (at the row) |
/// | `forge::layer::unknown_key` | error | a cell's key is not in the palette (at its character, once per key) |
/// | `forge::layer::duplicate_cell` | error | a sparse cell is given twice |
/// | `forge::layer::override_target` | error | a layer override's target is shorter than `[i, j, id]` |
/// | `forge::layer::override_children` | error | a layer override places entities (`children`) |
/// | `forge::name::duplicate` | warning | two or more entities share a (non-blank) name |
/// | `forge::name::empty` | warning | an entity name that is empty or whitespace only |
/// | `forge::scene::empty_name` | warning | the scene name is empty or whitespace only |
/// | `forge::format::version_zero` | warning | the file says `format_version: 0` (read as 1) |
/// | `forge::sprite::invisible` | warning | a sprite with neither image nor custom size renders nothing |
/// | `forge::transform::zero_scale` | warning | a scale component is zero |
/// | `forge::material::metallic` | warning | `metallic` outside `0..=1` |
/// | `forge::material::roughness` | warning | `perceptual_roughness` outside `0..=1` |
/// | `forge::text::empty` | warning | a `text2d` with empty text |
/// | `forge::camera::mixed` | warning | both 2D and 3D cameras in one scene |
/// | `forge::camera::none` | info | no camera in the scene |
/// | `forge::camera::multiple` | info | more than one camera |
/// | `forge::light::none` | info | meshes but no light |
/// | `forge::entity::transform_only` | info | an entity with no components (only a transform) and no instance |
/// | `forge::prefab::empty_override` | info | an override that changes nothing |
/// | `forge::read::syntax` | error | the document cannot be read: a token other than the one the grammar needs here |
/// | `forge::read::unexpected_end` | error | the document cannot be read: the text ends in the middle of the document |
/// | `forge::read::unknown_field` | error | the document cannot be read: a field name the struct does not have (with the closest known one) |
/// | `forge::read::duplicate_field` | error | the document cannot be read: a field given twice in one struct |
/// | `forge::read::missing_field` | error | the document cannot be read: a required field is absent |
/// | `forge::read::instance_places` | error | the document cannot be read: an instance writes both `scene` and `model`, or neither |
/// | `forge::read::duplicate_entity_key` | error | the document cannot be read: two entries of `entities` share a key |
/// | `forge::read::tag_as_string` | error | the document cannot be read: a tag written as a string (`type: "sprite"`) |
/// | `forge::read::unknown_variant` | error | the document cannot be read: a name that is not one of the allowed variants (component tag, shape, mesh source, visibility) |
/// | `forge::read::unsupported_version` | error | the document cannot be read: a `format_version` this build cannot read |
/// | `forge::read::unexpected_data` | error | the document cannot be read: a unit component (`camera2d`, `camera3d`) with a payload other than `()` |
/// | `forge::read::nothing_to_set` | error | the document cannot be read: an override `set`s a component without fields |
/// | `forge::read::integer_out_of_range` | error | the document cannot be read: an integer that does not fit the field's type |
/// | `forge::read::invalid_number` | error | the document cannot be read: a malformed number literal |
/// | `forge::read::invalid_escape` | error | the document cannot be read: a malformed escape sequence in a string |
/// | `forge::read::unterminated_string` | error | the document cannot be read: a string without its closing quote |
/// | `forge::read::unterminated_comment` | error | the document cannot be read: a block comment without its closing `*/` |
/// | `forge::read::trailing_characters` | error | the document cannot be read: text after the document's closing `)` |
/// | `forge::read::invalid_utf8` | error | the document cannot be read: the bytes are not UTF-8 |
/// | `forge::read::too_large` | error | the document cannot be read: the text is larger than the reader's limit of 4 GiB |
/// | `forge::read::io` | error | the document cannot be read: the file could not be read |
/// | `forge::read::git_conflict` | error | the document cannot be read: it holds git's conflict markers (`<<<<<<<` lines); `forge merge` merges scenes by id |
/// | `forge::merge::conflict` | error | a merge conflict marker `forge merge` left (`/* forge-merge: theirs = .. */`): both branches changed the value before it; keep one and delete the marker |
/// | `forge::cook::not_cooked` | error | a cooked file cannot be used: the bytes do not start with the cooked magic |
/// | `forge::cook::magic` | error | a cooked file cannot be used: the first byte is damaged but the next seven are the magic's |
/// | `forge::cook::truncated` | error | a cooked file cannot be used: the file ends inside the header, or fewer bytes follow it than it says |
/// | `forge::cook::version` | error | a cooked file cannot be used: a cooked layout version this build does not read |
/// | `forge::cook::reserved` | error | a cooked file cannot be used: the reserved header bytes are not zero |
/// | `forge::cook::trailing` | error | a cooked file cannot be used: more bytes follow the body than the header says |
/// | `forge::cook::checksum` | error | a cooked file cannot be used: the body's CRC-32 does not match the header's |
/// | `forge::cook::body` | error | a cooked file cannot be used: the body does not decode as a cooked scene |
/// | `forge::cook::document` | error | a cooked file cannot be used: a cooked document the text reader would refuse |
/// | `forge::cook::duplicate_id` | error | a cooked file cannot be used: two entities of one cooked document have the same id |
/// | `forge::cook::duplicate_prefab` | error | a cooked file cannot be used: a prefab is bundled twice |
/// | `forge::cook::not_text` | error | a cooked file cannot be used: a `forge` command that needs text was given a cooked file |
/// | `forge::schema_file::unreadable` | error | `forge`: the `--schema` file cannot be read |
/// | `forge::schema_file::invalid` | error | `forge`: the `--schema` file does not read as a schema file |
///
/// The `forge::prefab::*` codes marked "with the prefab" need the prefab files: the scene loader
/// and `forge validate` (which follows instances) report them, `validate_parsed` does not. The
/// values overrides change are checked with the codes above, at the override's line.
///
/// The `forge::custom::*` codes marked "at load" need the game's types: the scene loader reports
/// them (failing the load), `validate_parsed` does not.
///
/// Documents that cannot be read at all report one error with a `forge::read::<kind>` code (see
/// [`Diagnostic::from_read_error`]); cooked files that are not usable ([`crate::cook`]), one
/// with a `forge::cook::<kind>` code ([`CookError::code`](crate::cook::CookError::code)). A
/// cooked file that decodes is validated with the codes above, without positions.
///
/// Each code is also a constant of [`crate::codes`] (`codes::prefab::UNUSED_OVERRIDE`), which
/// is what the crate emits; a test keeps the table and the constants one list.
///
/// This module has no Bevy dependency.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// Stable code, `forge::<area>::<rule>`; see [`Diagnostic`] for the table.
    pub code: &'static str,
    /// What is wrong, lower-case, values in backticks.
    pub message: String,
    /// The entity concerned (its key in `entities`), or `None` for scene-wide issues.
    pub entity: Option<u64>,
    /// Where inside the entity (or the document, when `entity` is `None`): `name`,
    /// `transform.scale.x`, `components[1].data.font_size`, `components[0].data.fields[2].name`.
    pub path: Option<String>,
    /// 1-based line and column of the offending value, when the document was read from text and
    /// the value was written in it.
    pub position: Option<Position>,
    /// How to fix it, when there is something useful to say.
    pub help: Option<String>,
    /// The file the position is in, when it is not the file being checked (a prefab's problem
    /// reported while loading the scene that places it): an asset path or a file path.
    pub file: Option<String>,
    /// Other places that explain the problem (each link of a prefab cycle), in order.
    pub related: Vec<Related>,
    /// Where inside a custom field's expression the problem is (a byte offset of the
    /// expression): when a prefab's value is reported at the override that set it, the
    /// position is moved inside the override's expression by this much.
    pub(crate) expr_at: Option<usize>,
}

/// Another place a [`Diagnostic`] points at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Related {
    /// The file, when it is not the diagnostic's own.
    pub file: Option<String>,
    /// Where in it, when known.
    pub position: Option<Position>,
    /// What is there (`instances \`prefabs/goblin.forge.ron\``).
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic with no entity, path, position or help.
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            severity,
            code,
            message: message.into(),
            entity: None,
            path: None,
            position: None,
            help: None,
            file: None,
            related: Vec::new(),
            expr_at: None,
        }
    }

    /// Sets the file the position is in.
    pub fn with_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Sets the entity.
    pub fn with_entity(mut self, entity: u64) -> Self {
        self.entity = Some(entity);
        self
    }

    /// Sets the field path.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The replacements a "did you mean" of the message or help offers, best first: `children`
    /// for a field written `childen`, `sprite` for the tag `sprit`, `game::Health` for an
    /// unknown custom type, `radius` for an unknown custom field, `#8/2` for a reference that
    /// names nothing. Empty when there is none. Each replaces the value at
    /// [`position`](Self::position) (the word, string or reference that starts there); editors
    /// offer them as quick fixes.
    pub fn suggestions(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for text in std::iter::once(self.message.as_str()).chain(self.help.as_deref()) {
            let Some((_, rest)) = text.split_once("did you mean ") else {
                continue;
            };
            // `a`, or `a` (\"Name\") or `b` (\"Other\"), up to the question mark.
            let rest = rest.split('?').next().unwrap_or_default();
            let mut parts = rest.split('`');
            parts.next();
            while let Some(candidate) = parts.next() {
                if !candidate.is_empty() && !out.contains(&candidate) {
                    out.push(candidate);
                }
                let between = parts.next().unwrap_or_default();
                if !between.contains(" or ") && !between.trim().is_empty() {
                    // A name in quotes after the id (`#8/2` ("Post")) ends with its ` or `.
                    if !between.trim_start().starts_with('(') {
                        break;
                    }
                }
            }
        }
        out
    }

    /// The 1-based line, if known.
    pub fn line(&self) -> Option<u32> {
        self.position.map(|p| p.line)
    }

    /// The 1-based column (in characters), if known.
    pub fn column(&self) -> Option<u32> {
        self.position.map(|p| p.column)
    }

    /// The error of a document that could not be read, as a diagnostic: severity
    /// [`Error`](Severity::Error), code `forge::read::<kind>` (`syntax`, `unexpected_end`,
    /// `unknown_field`, `duplicate_field`, `missing_field`, `instance_places`, `duplicate_entity_key`,
    /// `tag_as_string`, `unknown_variant`, `unsupported_version`, `unexpected_data`, `nothing_to_set`,
    /// `integer_out_of_range`, `invalid_number`, `invalid_escape`, `unterminated_string`,
    /// `unterminated_comment`, `trailing_characters`, `invalid_utf8`, `too_large`, `io`), with its
    /// position (none for `io`), entity and field.
    pub fn from_read_error(error: &ReadError) -> Self {
        let code = match error.kind() {
            ReadErrorKind::Unexpected { .. } => codes::read::SYNTAX,
            ReadErrorKind::UnexpectedEnd { .. } => codes::read::UNEXPECTED_END,
            ReadErrorKind::UnknownField { .. } => codes::read::UNKNOWN_FIELD,
            ReadErrorKind::DuplicateField { .. } => codes::read::DUPLICATE_FIELD,
            ReadErrorKind::MissingField { .. } => codes::read::MISSING_FIELD,
            ReadErrorKind::InstancePlaces { .. } => codes::read::INSTANCE_PLACES,
            ReadErrorKind::DuplicateEntityKey { .. } => codes::read::DUPLICATE_ENTITY_KEY,
            ReadErrorKind::TagAsString { .. } => codes::read::TAG_AS_STRING,
            ReadErrorKind::UnknownVariant { .. } => codes::read::UNKNOWN_VARIANT,
            ReadErrorKind::UnsupportedFormatVersion { .. } => codes::read::UNSUPPORTED_VERSION,
            ReadErrorKind::UnexpectedData { .. } => codes::read::UNEXPECTED_DATA,
            ReadErrorKind::NothingToSet { .. } => codes::read::NOTHING_TO_SET,
            ReadErrorKind::IntegerOutOfRange { .. } => codes::read::INTEGER_OUT_OF_RANGE,
            ReadErrorKind::InvalidNumber { .. } => codes::read::INVALID_NUMBER,
            ReadErrorKind::InvalidEscape { .. } => codes::read::INVALID_ESCAPE,
            ReadErrorKind::UnterminatedString => codes::read::UNTERMINATED_STRING,
            ReadErrorKind::UnterminatedComment => codes::read::UNTERMINATED_COMMENT,
            ReadErrorKind::TrailingCharacters { .. } => codes::read::TRAILING_CHARACTERS,
            ReadErrorKind::InvalidUtf8 => codes::read::INVALID_UTF8,
            ReadErrorKind::TooLarge { .. } => codes::read::TOO_LARGE,
            ReadErrorKind::Io(_) => codes::read::IO,
            ReadErrorKind::GitConflictMarkers => codes::read::GIT_CONFLICT,
        };
        let position = match error.kind() {
            ReadErrorKind::Io(_) => None,
            _ => Some(error.position()),
        };
        Self {
            severity: Severity::Error,
            code,
            message: error.kind().to_string(),
            entity: error.entity(),
            path: error.field().map(str::to_owned),
            position,
            help: None,
            file: None,
            related: Vec::new(),
            expr_at: None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}]: {}",
            self.severity,
            self.code,
            printable(&self.message)
        )?;
        let mut parts = Vec::new();
        if let Some(id) = self.entity {
            parts.push(format!("entity {id}"));
        }
        if let Some(path) = &self.path {
            parts.push(format!("`{}`", printable(path)));
        }
        if let Some(p) = self.position {
            parts.push(format!("line {}:{}", p.line, p.column));
        }
        if !parts.is_empty() {
            write!(f, " ({})", parts.join(", "))?;
        }
        if let Some(help) = &self.help {
            write!(f, "; help: {}", printable(help))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::count_of;

    #[test]
    fn control_characters_are_escaped_for_people() {
        use super::printable;
        assert_eq!(printable("plain `a::b` größe"), "plain `a::b` größe");
        assert_eq!(
            printable("a\n  --> fake.rs:1:1\u{1b}[31m\t"),
            "a\\n  --> fake.rs:1:1\\u{1b}[31m\\t"
        );
    }

    #[test]
    fn counts_are_singular_only_for_one() {
        assert_eq!(count_of(1, "error"), "1 error");
        assert_eq!(count_of(0, "error"), "0 errors");
        assert_eq!(count_of(6, "error"), "6 errors");
        assert_eq!(count_of(1, "entity"), "1 entity");
        assert_eq!(count_of(1024, "entity"), "1024 entities");
        assert_eq!(count_of(2, "info"), "2 info");
    }
}
