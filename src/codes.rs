//! The diagnostic codes, one constant each: `forge::<area>::<rule>`, grouped by area.
//!
//! Each code is in the table of [`Diagnostic`](crate::validate::Diagnostic) with its severity
//! and rule; codes never change meaning, so tools and editors may match on them:
//!
//! ```
//! use bevy_forge_scene::codes;
//! # let d = bevy_forge_scene::validate::Diagnostic::new(
//! #     bevy_forge_scene::validate::Severity::Warning, codes::name::DUPLICATE, "two `Lamp`s");
//! if d.code == codes::name::DUPLICATE {
//!     // ...
//! }
//! ```
//!
//! Nothing else of the crate spells a code: a test keeps every code emitted here and in the
//! table.

/// `forge::structure::*`.
pub mod structure {
    /// An entity's key differs from its `id` (error).
    pub const ID_MISMATCH: &str = "forge::structure::id_mismatch";
    /// `parent` names an entity that does not exist (error).
    pub const MISSING_PARENT: &str = "forge::structure::missing_parent";
    /// `children` lists an entity that does not exist (error).
    pub const MISSING_CHILD: &str = "forge::structure::missing_child";
    /// `roots` lists an entity that does not exist (error).
    pub const MISSING_ROOT: &str = "forge::structure::missing_root";
    /// The parent does not list the entity as a child (error).
    pub const NOT_LISTED_BY_PARENT: &str = "forge::structure::not_listed_by_parent";
    /// A listed child names another parent (error).
    pub const CHILD_DISAGREES: &str = "forge::structure::child_disagrees";
    /// An entity in `roots` has a parent (error).
    pub const ROOT_HAS_PARENT: &str = "forge::structure::root_has_parent";
    /// An entity is listed in more than one place (error).
    pub const DUPLICATE_REFERENCE: &str = "forge::structure::duplicate_reference";
    /// An entity is in neither `roots` nor any `children` (error).
    pub const UNPLACED: &str = "forge::structure::unplaced";
    /// An entity is its own parent (error).
    pub const SELF_PARENT: &str = "forge::structure::self_parent";
    /// Following `parent` links comes back to the start (error).
    pub const CYCLE: &str = "forge::structure::cycle";
    /// `next_id` is not greater than every id (error).
    pub const NEXT_ID: &str = "forge::structure::next_id";
}

/// `forge::component::*`.
pub mod component {
    /// Two components with the same `key()` on one entity (error).
    pub const DUPLICATE_KEY: &str = "forge::component::duplicate_key";
}

/// `forge::transform::*`.
pub mod transform {
    /// A translation, rotation or scale value is `NaN` or infinite (error).
    pub const NON_FINITE: &str = "forge::transform::non_finite";
    /// A scale component is zero (warning).
    pub const ZERO_SCALE: &str = "forge::transform::zero_scale";
}

/// `forge::light::*`.
pub mod light {
    /// A light colour, intensity, range or illuminance is not finite (error).
    pub const NON_FINITE: &str = "forge::light::non_finite";
    /// Point light `intensity < 0` (error).
    pub const INTENSITY: &str = "forge::light::intensity";
    /// Point light `range <= 0` (error).
    pub const RANGE: &str = "forge::light::range";
    /// Directional light `illuminance < 0` (error).
    pub const ILLUMINANCE: &str = "forge::light::illuminance";
    /// Spot or point light `radius < 0` (error).
    pub const RADIUS: &str = "forge::light::radius";
    /// Spot light `inner_angle` or `outer_angle` outside `0..=90` degrees, or `inner_angle > outer_angle` (error).
    pub const ANGLE: &str = "forge::light::angle";
    /// Meshes but no light (info).
    pub const NONE: &str = "forge::light::none";
}

/// `forge::material::*`.
pub mod material {
    /// A material colour, `metallic` or `perceptual_roughness` is not finite (error).
    pub const NON_FINITE: &str = "forge::material::non_finite";
    /// `metallic` outside `0..=1` (warning).
    pub const METALLIC: &str = "forge::material::metallic";
    /// `perceptual_roughness` outside `0..=1` (warning).
    pub const ROUGHNESS: &str = "forge::material::roughness";
}

/// `forge::mesh::*`.
pub mod mesh {
    /// A primitive shape size is not finite (error).
    pub const NON_FINITE: &str = "forge::mesh::non_finite";
}

/// `forge::sprite::*`.
pub mod sprite {
    /// Sprite `custom_size` with a component that is not positive and finite (error).
    pub const CUSTOM_SIZE: &str = "forge::sprite::custom_size";
    /// A sprite colour channel is not finite (error).
    pub const NON_FINITE: &str = "forge::sprite::non_finite";
    /// A sprite with neither image nor custom size renders nothing (warning).
    pub const INVISIBLE: &str = "forge::sprite::invisible";
}

/// `forge::text::*`.
pub mod text {
    /// Text `font_size <= 0` (or not finite) (error).
    pub const FONT_SIZE: &str = "forge::text::font_size";
    /// A text colour channel is not finite (error).
    pub const NON_FINITE: &str = "forge::text::non_finite";
    /// A `text2d` with empty text (warning).
    pub const EMPTY: &str = "forge::text::empty";
}

/// `forge::custom::*`.
pub mod custom {
    /// A custom component's type path is not a Rust path (error).
    pub const TYPE_PATH: &str = "forge::custom::type_path";
    /// A custom field name is neither a Rust identifier nor a tuple struct index (`0`, `1`) (error).
    pub const FIELD_NAME: &str = "forge::custom::field_name";
    /// A custom field expression is empty or whitespace (error).
    pub const EMPTY_EXPR: &str = "forge::custom::empty_expr";
    /// Two fields of one custom component have the same name (error).
    pub const DUPLICATE_FIELD: &str = "forge::custom::duplicate_field";
    /// At load and with a schema file: no registered `ForgeComponent` has this type path (error).
    pub const UNKNOWN_TYPE: &str = "forge::custom::unknown_type";
    /// At load: the type path names a registered type that is not a `ForgeComponent`, such as an engine component or a resource (error).
    pub const NOT_ALLOWED: &str = "forge::custom::not_allowed";
    /// At load and with a schema file: the type has no such field, or it is `#[forge(skip)]` (error).
    pub const UNKNOWN_FIELD: &str = "forge::custom::unknown_field";
    /// At load and with a schema file: a `#[forge(required)]` field is not listed (error).
    pub const MISSING_REQUIRED: &str = "forge::custom::missing_required";
    /// At load and with a schema file: a number outside the field's `#[forge(range)]` (error).
    pub const RANGE: &str = "forge::custom::range";
    /// At load and with a schema file: a field expression that cannot be evaluated as the field's type (error).
    pub const EXPR: &str = "forge::custom::expr";
    /// At load and with a schema file: the type path is an old one of a type (`#[forge(renamed_from = "..")]`); read as the new one, which the message names; `forge migrate --schema` rewrites it (warning).
    pub const RENAMED: &str = "forge::custom::renamed";
    /// At load and with a schema file: the field name is an old one (`#[forge(renamed_from = "..")]` on the field); read as the new one (warning).
    pub const RENAMED_FIELD: &str = "forge::custom::renamed_field";
    /// At load and with a schema file: an enum component's `value` names an old variant (`#[forge(renamed_from = "..")]` on the variant); read as the new one, which `forge migrate --schema` writes (warning).
    pub const RENAMED_VARIANT: &str = "forge::custom::renamed_variant";
    /// At load and with a schema file: an enum component written with `fields` (it is written whole, `value: ".."`), or a struct component with a `value` (error).
    pub const VALUE: &str = "forge::custom::value";
    /// At load and in `forge validate`: an entity reference (`#7`, `#7/2`) that names no entity of the scene (the `format` module docs, "Entity references") (error).
    pub const REFERENCE: &str = "forge::custom::reference";
}

/// `forge::asset::*`.
pub mod asset {
    /// An empty asset path (error).
    pub const EMPTY: &str = "forge::asset::empty";
    /// An absolute asset path (`/x`, `C:\x`) (error).
    pub const ABSOLUTE: &str = "forge::asset::absolute";
    /// An asset path with a `..` component (error).
    pub const PARENT_DIR: &str = "forge::asset::parent_dir";
    /// An asset path with a backslash (error).
    pub const BACKSLASH: &str = "forge::asset::backslash";
    /// With an asset index: the referenced file does not exist (error).
    pub const MISSING: &str = "forge::asset::missing";
    /// With an asset index: the file is not an image (sprite) or a mesh (mesh3d) (error).
    pub const WRONG_KIND: &str = "forge::asset::wrong_kind";
}

/// `forge::model::*`: glTF models placed by instances (`instance: Some((model: ..))`).
pub mod model {
    /// An instance's `model` does not name a `.gltf` or `.glb` file and a `#SceneN` label (error).
    pub const NOT_A_MODEL: &str = "forge::model::not_a_model";
    /// With a scanned asset index (feature `gltf`): the model file is not glTF JSON or a `.glb` this reads (error).
    pub const UNREADABLE: &str = "forge::model::unreadable";
    /// With a scanned asset index (feature `gltf`): the model file has no scene of that label (error).
    pub const MISSING_SCENE: &str = "forge::model::missing_scene";
    /// With a scanned asset index (feature `gltf`): an override's node path names a node the model lacks; kept, it applies again when the node returns (warning).
    pub const UNKNOWN_NODE: &str = "forge::model::unknown_node";
    /// An override's `set` or `remove` of a built-in finds no such component where it reaches: the node itself, or the node's light entity (with a scanned asset index offline, and when the model is written at run time); it does nothing (warning).
    pub const NO_COMPONENT: &str = "forge::model::no_component";
}

/// `forge::prefab::*`.
pub mod prefab {
    /// An instance's `scene` does not name a `.forge.ron` file (error).
    pub const NOT_A_SCENE: &str = "forge::prefab::not_a_scene";
    /// An override's `target` is empty (error).
    pub const EMPTY_TARGET: &str = "forge::prefab::empty_target";
    /// A streamed instance's radii are not `0 < load_radius < unload_radius` (both finite) (error).
    pub const STREAMING: &str = "forge::prefab::streaming";
    /// An override removes something that is not a component key (error).
    pub const REMOVE_KEY: &str = "forge::prefab::remove_key";
    /// With the prefab: an override adds a component the target already has (error).
    pub const ADD_EXISTING: &str = "forge::prefab::add_existing";
    /// With the prefabs: a chain of instances comes back to a file it passed (error).
    pub const CYCLE: &str = "forge::prefab::cycle";
    /// With the prefabs: prefabs nest deeper than [`MAX_PREFAB_DEPTH`](crate::format::MAX_PREFAB_DEPTH) files (error).
    pub const TOO_DEEP: &str = "forge::prefab::too_deep";
    /// With the prefabs: a prefab file cannot be read (error).
    pub const UNREADABLE: &str = "forge::prefab::unreadable";
    /// An edit in memory places a prefab the scene was not loaded with (error).
    pub const NOT_LOADED: &str = "forge::prefab::not_loaded";
    /// With the prefabs: two id paths hash to one key (renumber the instance) (error).
    pub const KEY_COLLISION: &str = "forge::prefab::key_collision";
    /// With the prefabs: expanding the instances would make more than `MAX_EXPANDED_ENTITIES` entities (error).
    pub const TOO_LARGE: &str = "forge::prefab::too_large";
    /// With the prefab: an override's target (or the component it sets or removes) is not in the prefab; kept, it applies again when the target returns (warning).
    pub const UNUSED_OVERRIDE: &str = "forge::prefab::unused_override";
    /// An override that changes nothing (info).
    pub const EMPTY_OVERRIDE: &str = "forge::prefab::empty_override";
}

/// `forge::layer::*`.
pub mod layer {
    /// A tile layer's id is zero, an entity's, another layer's, or not below `next_id` (error).
    pub const ID: &str = "forge::layer::id";
    /// A tile layer's parent is not an entity of the scene (error).
    pub const PARENT: &str = "forge::layer::parent";
    /// A tile layer's cell size is not two finite sizes above zero (error).
    pub const CELL_SIZE: &str = "forge::layer::cell_size";
    /// A tile layer's origin is not finite (error).
    pub const ORIGIN: &str = "forge::layer::origin";
    /// A tile layer has both `rows` and `cells` (error).
    pub const ROWS_AND_CELLS: &str = "forge::layer::rows_and_cells";
    /// A tile layer spans more than `MAX_LAYER_CELLS` cells (error).
    pub const TOO_LARGE: &str = "forge::layer::too_large";
    /// A row of a tile layer has another length than the first (at the row) (error).
    pub const RAGGED: &str = "forge::layer::ragged";
    /// A cell's key is not in the palette (at its character, once per key) (error).
    pub const UNKNOWN_KEY: &str = "forge::layer::unknown_key";
    /// A sparse cell is given twice (error).
    pub const DUPLICATE_CELL: &str = "forge::layer::duplicate_cell";
    /// A layer override's target is shorter than `[i, j, id]` (error).
    pub const OVERRIDE_TARGET: &str = "forge::layer::override_target";
    /// A layer override places entities (`children`) (error).
    pub const OVERRIDE_CHILDREN: &str = "forge::layer::override_children";
}

/// `forge::name::*`.
pub mod name {
    /// Two or more entities share a (non-blank) name (warning).
    pub const DUPLICATE: &str = "forge::name::duplicate";
    /// An entity name that is empty or whitespace only (warning).
    pub const EMPTY: &str = "forge::name::empty";
}

/// `forge::scene::*`.
pub mod scene {
    /// The scene name is empty or whitespace only (warning).
    pub const EMPTY_NAME: &str = "forge::scene::empty_name";
}

/// `forge::format::*`.
pub mod format {
    /// The file says `format_version: 0` (read as 1) (warning).
    pub const VERSION_ZERO: &str = "forge::format::version_zero";
}

/// `forge::camera::*`.
pub mod camera {
    /// Both 2D and 3D cameras in one scene (warning).
    pub const MIXED: &str = "forge::camera::mixed";
    /// No camera in the scene (info).
    pub const NONE: &str = "forge::camera::none";
    /// More than one camera (info).
    pub const MULTIPLE: &str = "forge::camera::multiple";
}

/// `forge::entity::*`.
pub mod entity {
    /// An entity with no components (only a transform) and no instance (info).
    pub const TRANSFORM_ONLY: &str = "forge::entity::transform_only";
}

/// `forge::read::*`.
pub mod read {
    /// The document cannot be read: a token other than the one the grammar needs here (error).
    pub const SYNTAX: &str = "forge::read::syntax";
    /// The document cannot be read: the text ends in the middle of the document (error).
    pub const UNEXPECTED_END: &str = "forge::read::unexpected_end";
    /// The document cannot be read: a field name the struct does not have (with the closest known one) (error).
    pub const UNKNOWN_FIELD: &str = "forge::read::unknown_field";
    /// The document cannot be read: a field given twice in one struct (error).
    pub const DUPLICATE_FIELD: &str = "forge::read::duplicate_field";
    /// The document cannot be read: a required field is absent (error).
    pub const MISSING_FIELD: &str = "forge::read::missing_field";
    /// The document cannot be read: an instance writes both `scene` and `model`, or neither (error).
    pub const INSTANCE_PLACES: &str = "forge::read::instance_places";
    /// The document cannot be read: two entries of `entities` share a key (error).
    pub const DUPLICATE_ENTITY_KEY: &str = "forge::read::duplicate_entity_key";
    /// The document cannot be read: a tag written as a string (`type: "sprite"`) (error).
    pub const TAG_AS_STRING: &str = "forge::read::tag_as_string";
    /// The document cannot be read: a name that is not one of the allowed variants (component tag, shape, mesh source, visibility) (error).
    pub const UNKNOWN_VARIANT: &str = "forge::read::unknown_variant";
    /// The document cannot be read: a `format_version` this build cannot read (error).
    pub const UNSUPPORTED_VERSION: &str = "forge::read::unsupported_version";
    /// The document cannot be read: a unit component (`camera2d`, `camera3d`) with a payload other than `()` (error).
    pub const UNEXPECTED_DATA: &str = "forge::read::unexpected_data";
    /// The document cannot be read: an override `set`s a component without fields (error).
    pub const NOTHING_TO_SET: &str = "forge::read::nothing_to_set";
    /// The document cannot be read: an integer that does not fit the field's type (error).
    pub const INTEGER_OUT_OF_RANGE: &str = "forge::read::integer_out_of_range";
    /// The document cannot be read: a malformed number literal (error).
    pub const INVALID_NUMBER: &str = "forge::read::invalid_number";
    /// The document cannot be read: a malformed escape sequence in a string (error).
    pub const INVALID_ESCAPE: &str = "forge::read::invalid_escape";
    /// The document cannot be read: a string without its closing quote (error).
    pub const UNTERMINATED_STRING: &str = "forge::read::unterminated_string";
    /// The document cannot be read: a block comment without its closing `*/` (error).
    pub const UNTERMINATED_COMMENT: &str = "forge::read::unterminated_comment";
    /// The document cannot be read: text after the document's closing `)` (error).
    pub const TRAILING_CHARACTERS: &str = "forge::read::trailing_characters";
    /// The document cannot be read: the bytes are not UTF-8 (error).
    pub const INVALID_UTF8: &str = "forge::read::invalid_utf8";
    /// The document cannot be read: the text is larger than the reader's limit of 4 GiB (error).
    pub const TOO_LARGE: &str = "forge::read::too_large";
    /// The document cannot be read: the file could not be read (error).
    pub const IO: &str = "forge::read::io";
    /// The document cannot be read: it holds git's conflict markers (`<<<<<<<` lines); `forge merge` merges scenes by id (error).
    pub const GIT_CONFLICT: &str = "forge::read::git_conflict";
}

/// `forge::merge::*`.
pub mod merge {
    /// A merge conflict marker `forge merge` left (`/* forge-merge: theirs = .. */`): both branches changed the value before it; keep one and delete the marker (error).
    pub const CONFLICT: &str = "forge::merge::conflict";
}

/// `forge::cook::*`.
pub mod cook {
    /// A cooked file cannot be used: the bytes do not start with the cooked magic (error).
    pub const NOT_COOKED: &str = "forge::cook::not_cooked";
    /// A cooked file cannot be used: the first byte is damaged but the next seven are the magic's (error).
    pub const MAGIC: &str = "forge::cook::magic";
    /// A cooked file cannot be used: the file ends inside the header, or fewer bytes follow it than it says (error).
    pub const TRUNCATED: &str = "forge::cook::truncated";
    /// A cooked file cannot be used: a cooked layout version this build does not read (error).
    pub const VERSION: &str = "forge::cook::version";
    /// A cooked file cannot be used: the reserved header bytes are not zero (error).
    pub const RESERVED: &str = "forge::cook::reserved";
    /// A cooked file cannot be used: more bytes follow the body than the header says (error).
    pub const TRAILING: &str = "forge::cook::trailing";
    /// A cooked file cannot be used: the body's CRC-32 does not match the header's (error).
    pub const CHECKSUM: &str = "forge::cook::checksum";
    /// A cooked file cannot be used: the body does not decode as a cooked scene (error).
    pub const BODY: &str = "forge::cook::body";
    /// A cooked file cannot be used: a cooked document the text reader would refuse (error).
    pub const DOCUMENT: &str = "forge::cook::document";
    /// A cooked file cannot be used: two entities of one cooked document have the same id (error).
    pub const DUPLICATE_ID: &str = "forge::cook::duplicate_id";
    /// A cooked file cannot be used: a prefab is bundled twice (error).
    pub const DUPLICATE_PREFAB: &str = "forge::cook::duplicate_prefab";
    /// A cooked file cannot be used: a `forge` command that needs text was given a cooked file (error).
    pub const NOT_TEXT: &str = "forge::cook::not_text";
}

/// `forge::schema_file::*`.
pub mod schema_file {
    /// `forge`: the `--schema` file cannot be read (error).
    pub const UNREADABLE: &str = "forge::schema_file::unreadable";
    /// `forge`: the `--schema` file does not read as a schema file (error).
    pub const INVALID: &str = "forge::schema_file::invalid";
}
