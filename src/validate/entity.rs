//! The rules of one entity: its transform, and each component's values, ranges and asset paths.

use bevy_platform::collections::{HashMap, HashSet};

use super::names::{check_type_path, is_field_name, raw_hint};
use super::scene::{SceneFacts, ValidNames};
use super::structure::blank;
use super::{Collector, Diagnostic, Loc, Severity};
use crate::codes;
use crate::format::builtin::{BuiltinField, BuiltinTag, FieldRange, Role, ValueRef};
use crate::format::{ComponentData, CustomComponent, EntityNode, MeshSource};
use crate::project::{AssetIndex, AssetKind, AssetPathError, check_asset_path};

pub(super) const TRANSFORM_PATHS: [(&str, [&str; 3]); 3] = [
    (
        "translation",
        [
            "transform.translation.x",
            "transform.translation.y",
            "transform.translation.z",
        ],
    ),
    (
        "rotation",
        [
            "transform.rotation.x",
            "transform.rotation.y",
            "transform.rotation.z",
        ],
    ),
    (
        "scale",
        [
            "transform.scale.x",
            "transform.scale.y",
            "transform.scale.z",
        ],
    ),
];

pub(super) const AXES: [&str; 3] = ["x", "y", "z"];

pub(super) fn entity(
    c: &mut Collector,
    id: u64,
    node: &EntityNode,
    assets: Option<&AssetIndex>,
    scene: &mut SceneFacts,
) {
    if blank(&node.name) {
        c.push(
            Diagnostic::new(
                Severity::Warning,
                codes::name::EMPTY,
                if node.name.is_empty() {
                    "entity name is empty".to_owned()
                } else {
                    "entity name is only whitespace".to_owned()
                },
            )
            .with_entity(id)
            .with_path("name")
            .with_help("name the entity so it can be found in the hierarchy"),
            Loc::EntityField("name"),
        );
    }
    transform(c, id, node);
    components(c, id, node, assets, scene);
    if let Some(instance) = &node.instance {
        super::instance::instance(c, id, instance, assets, scene);
    } else if node.components.is_empty() {
        c.push(
            Diagnostic::new(
                Severity::Info,
                codes::entity::TRANSFORM_ONLY,
                "entity has only a transform and no components",
            )
            .with_entity(id),
            Loc::Entity,
        );
    }
}

pub(super) fn transform(c: &mut Collector, id: u64, node: &EntityNode) {
    let t = &node.transform;
    for ((part, paths), v) in TRANSFORM_PATHS
        .iter()
        .zip([t.translation, t.rotation, t.scale])
    {
        for ((axis, path), value) in AXES.iter().zip(paths).zip(v.to_array()) {
            if !value.is_finite() {
                c.push(
                    Diagnostic::new(
                        Severity::Error,
                        codes::transform::NON_FINITE,
                        format!("transform {part}.{axis} must be finite, found {value}"),
                    )
                    .with_entity(id)
                    .with_path(*path),
                    Loc::EntityField(path),
                );
            } else if *part == "scale" && value == 0.0 {
                c.push(
                    Diagnostic::new(
                        Severity::Warning,
                        codes::transform::ZERO_SCALE,
                        format!("scale {axis} is zero, which flattens the entity and its children"),
                    )
                    .with_entity(id)
                    .with_path(*path)
                    .with_help("use a small non-zero scale, or hide the entity with a `visibility` component"),
                    Loc::EntityField(path),
                );
            }
        }
    }
}

/// A component's uniqueness key without allocating.
#[derive(PartialEq, Eq, Hash)]
pub(super) enum Key<'a> {
    Builtin(&'static str),
    Custom(&'a str),
}

pub(super) fn key_of(component: &ComponentData) -> Key<'_> {
    match component {
        ComponentData::Custom(custom) => Key::Custom(&custom.type_path),
        other => Key::Builtin(other.tag()),
    }
}

pub(super) fn components(
    c: &mut Collector,
    id: u64,
    node: &EntityNode,
    assets: Option<&AssetIndex>,
    scene: &mut SceneFacts,
) {
    // Component lists are short; a map is only built for long ones.
    let long = node.components.len() > 8;
    let mut first_at: HashMap<Key<'_>, usize> = HashMap::new();
    for (i, component) in node.components.iter().enumerate() {
        let first = if long {
            match first_at.entry(key_of(component)) {
                bevy_platform::collections::hash_map::Entry::Occupied(first) => Some(*first.get()),
                bevy_platform::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(i);
                    None
                }
            }
        } else {
            node.components[..i]
                .iter()
                .position(|other| other.same_key(component))
        };
        if let Some(first) = first {
            c.push(
                Diagnostic::new(
                    Severity::Error,
                    codes::component::DUPLICATE_KEY,
                    format!(
                        "component `{}` appears twice on this entity (first at components[{first}])",
                        component.key(),
                    ),
                )
                .with_entity(id)
                .with_path(format!("components[{i}]"))
                .with_help("an entity holds at most one component per key; merge or remove one"),
                Loc::Component(i),
            );
        }
        let mut at = At {
            c,
            id,
            index: i,
            errors: 0,
        };
        match component.builtin() {
            Some(b) => {
                match b.role {
                    Role::Camera2d => {
                        scene.cameras += 1;
                        scene.first_2d.get_or_insert(id);
                        scene.camera_entities.push(id);
                    }
                    Role::Camera3d => {
                        scene.cameras += 1;
                        scene.first_3d.get_or_insert(id);
                        scene.camera_entities.push(id);
                    }
                    Role::Light => scene.lights += 1,
                    Role::Mesh => scene.meshes += 1,
                    Role::Plain => {}
                }
                at.builtin(b, component, assets);
            }
            None => {
                if let ComponentData::Custom(custom) = component {
                    at.custom(custom, &mut scene.valid_names);
                }
            }
        }
    }
}

/// Reports about component `index` of entity `id`.
pub(super) struct At<'c> {
    c: &'c mut Collector,
    id: u64,
    index: usize,
    /// Errors reported at the component's own fields so far.
    errors: usize,
}

impl At<'_> {
    /// An error at payload field `field` (a source-map field name), with `sub` the path below
    /// `data`.
    fn error(
        &mut self,
        code: &'static str,
        field: &'static str,
        sub: &str,
        message: String,
        help: Option<&str>,
    ) {
        let mut d = Diagnostic::new(Severity::Error, code, message)
            .with_entity(self.id)
            .with_path(format!("components[{}].data.{sub}", self.index));
        d.help = help.map(str::to_owned);
        self.c.push(d, Loc::ComponentField(self.index, field));
        self.errors += 1;
    }

    /// The rules of a built-in's fields, as its [`BuiltinTag`] states them (the format page,
    /// "Components"), then its rule over several fields.
    fn builtin(&mut self, b: &BuiltinTag, component: &ComponentData, assets: Option<&AssetIndex>) {
        for (k, f) in b.fields().iter().enumerate() {
            let Some(value) = (b.get)(component, k) else {
                continue;
            };
            match value {
                ValueRef::Image(Some(path)) => {
                    self.asset(path, f.path, f.noun, AssetKind::Image, assets);
                }
                ValueRef::Mesh(MeshSource::Asset(path)) => {
                    self.asset(path, "mesh.value", f.noun, AssetKind::Mesh, assets);
                }
                ValueRef::Mesh(MeshSource::Primitive(shape)) => {
                    for (name, v) in shape.named_sizes() {
                        if !v.is_finite() {
                            self.error(
                                f.finite.unwrap_or_default(),
                                "mesh.value",
                                &format!("mesh.value.{name}"),
                                format!("{} {name} must be finite, found {v}", shape.name()),
                                None,
                            );
                        }
                    }
                }
                ValueRef::Color(_) => {
                    for (channel, v) in value.numbers() {
                        if !v.is_finite() {
                            self.error(
                                f.finite.unwrap_or_default(),
                                f.path,
                                &format!("{}.{channel}", f.path),
                                format!(
                                    "{} {}.{channel} must be finite, found {v}",
                                    f.noun, f.path
                                ),
                                Some("colour channels are sRGB values in 0.0..=1.0"),
                            );
                        }
                    }
                }
                ValueRef::Size(Some(_)) => {
                    for (axis, v) in value.numbers() {
                        self.range(f, &format!("{}.{axis}", f.path), v);
                    }
                }
                ValueRef::Float(v) => self.range(f, f.path, v),
                ValueRef::Text(text) if f.range == FieldRange::NotEmpty && text.is_empty() => {
                    self.c.push(
                        Diagnostic::new(
                            Severity::Warning,
                            f.code,
                            format!("{} {} is empty, so it renders nothing", f.noun, f.path),
                        )
                        .with_entity(self.id)
                        .with_path(format!("components[{}].data.{}", self.index, f.path)),
                        Loc::ComponentField(self.index, f.path),
                    );
                }
                _ => {}
            }
        }
        // A rule over several fields judges values that are each valid: a field already in
        // error is one problem, reported once.
        if self.errors > 0 {
            return;
        }
        if let Some(problem) = b.cross.and_then(|rule| rule(component)) {
            let severity = if problem.error {
                Severity::Error
            } else {
                Severity::Warning
            };
            let (path, loc) = match problem.field {
                Some(field) => (
                    format!("components[{}].data.{field}", self.index),
                    Loc::ComponentField(self.index, field),
                ),
                None => (
                    format!("components[{}]", self.index),
                    Loc::Component(self.index),
                ),
            };
            let mut d = Diagnostic::new(severity, problem.code, problem.message)
                .with_entity(self.id)
                .with_path(path);
            d.help = problem.help.map(str::to_owned);
            self.c.push(d, loc);
        }
    }

    /// Number `v` of field `f` (at `sub` below `data`: `range`, `custom_size.x`) against the
    /// field's range. A number that is not finite is said to be so where the field has a code
    /// for it, else the range's message covers it.
    fn range(&mut self, f: &BuiltinField, sub: &str, v: f32) {
        if !v.is_finite()
            && let Some(code) = f.finite
        {
            self.error(
                code,
                f.path,
                sub,
                format!("{} {sub} must be finite, found {v}", f.noun),
                None,
            );
            return;
        }
        let (ok, wanted) = match f.range {
            FieldRange::NonNegative => (v >= 0.0, "be non-negative".to_owned()),
            FieldRange::Positive => (v > 0.0, "be positive".to_owned()),
            FieldRange::Within(min, max) => {
                ((min..=max).contains(&v), format!("be within {min}..={max}"))
            }
            FieldRange::Advised(min, max) => {
                if !(min..=max).contains(&v) {
                    self.c.push(
                        Diagnostic::new(
                            Severity::Warning,
                            f.code,
                            format!("{sub} should be within {min}..={max}, found {v}"),
                        )
                        .with_entity(self.id)
                        .with_path(format!("components[{}].data.{sub}", self.index))
                        .with_help(f.help.unwrap_or_default()),
                        Loc::ComponentField(self.index, f.path),
                    );
                }
                return;
            }
            _ => (true, String::new()),
        };
        if !ok {
            self.error(
                f.code,
                f.path,
                sub,
                format!("{} {sub} must {wanted}, found {v}", f.noun),
                f.help,
            );
        }
    }

    fn asset(
        &mut self,
        path: &str,
        field: &'static str,
        what: &str,
        want: AssetKind,
        assets: Option<&AssetIndex>,
    ) {
        let (code, message, help) = match check_asset_path(path) {
            Err(AssetPathError::Empty) => (
                codes::asset::EMPTY,
                format!("{what} path is empty"),
                "write a path relative to the assets directory, like `textures/player.png`"
                    .to_owned(),
            ),
            Err(AssetPathError::Absolute(_)) => (
                codes::asset::ABSOLUTE,
                format!("{what} path `{path}` is absolute"),
                "asset paths are relative to the assets directory, like `textures/player.png`"
                    .to_owned(),
            ),
            Err(AssetPathError::ParentComponent(_)) => (
                codes::asset::PARENT_DIR,
                format!("{what} path `{path}` contains a `..` component"),
                "asset paths may not leave the assets directory".to_owned(),
            ),
            Err(AssetPathError::Backslash(_)) => (
                codes::asset::BACKSLASH,
                format!("{what} path `{path}` contains a backslash"),
                format!("use `/` as the separator: `{}`", path.replace('\\', "/")),
            ),
            Ok(()) => {
                let Some(index) = assets else { return };
                match index.get(path) {
                    None => {
                        let d = missing_asset(what, path);
                        (d.code, d.message, d.help.unwrap_or_default())
                    }
                    Some(kind) if kind != want => (
                        codes::asset::WRONG_KIND,
                        format!(
                            "{what} `{path}` is {} file, not {}",
                            with_article(kind),
                            with_article(want)
                        ),
                        match want {
                            AssetKind::Mesh => "meshes are `.gltf`, `.glb`, `.obj` or `.fbx` files",
                            _ => {
                                "images are `.png`, `.jpg`, `.jpeg`, `.webp`, `.bmp`, `.tga`, `.ktx2` or `.dds` files"
                            }
                        }
                        .to_owned(),
                    ),
                    Some(_) => return,
                }
            }
        };
        self.error(code, field, field, message, Some(&help));
    }

    /// Checks a custom component; `valid` holds the type paths and field names found valid
    /// before (each is checked the first time it is seen, then looked up).
    fn custom(&mut self, custom: &CustomComponent, valid: &mut ValidNames) {
        if !valid.type_paths.contains(custom.type_path.as_str()) {
            match check_type_path(&custom.type_path) {
                Ok(()) => {
                    valid.type_paths.insert(custom.type_path.clone());
                }
                Err(problem) => {
                    let (message, help) = problem.describe(&custom.type_path);
                    self.error(
                        codes::custom::TYPE_PATH,
                        "type_path",
                        "type_path",
                        message,
                        Some(&help),
                    );
                }
            }
        }
        // Field lists are short; a set is only built for long ones.
        let mut names: HashSet<&str> = HashSet::new();
        let long = custom.fields.len() > 8;
        for (j, field) in custom.fields.iter().enumerate() {
            let base = || format!("components[{}].data.fields[{j}]", self.index);
            let repeated = if long {
                !names.insert(field.name.as_str())
            } else {
                custom.fields[..j].iter().any(|f| f.name == field.name)
            };
            let known = valid.field_names.contains(field.name.as_str());
            let name_ok = known || is_field_name(&field.name);
            if name_ok && !known {
                valid.field_names.insert(field.name.clone());
            }
            if !name_ok {
                self.c.push(
                    Diagnostic::new(
                        Severity::Error,
                        codes::custom::FIELD_NAME,
                        format!(
                            "custom field name `{}` is not a Rust identifier or tuple index",
                            field.name
                        ),
                    )
                    .with_entity(self.id)
                    .with_path(format!("{}.name", base()))
                    .with_help(raw_hint(&field.name).unwrap_or_else(|| {
                        "field names are Rust identifiers, like `max_health` or `r#type`, or tuple struct indices, like `0`".to_owned()
                    })),
                    Loc::CustomName(self.index, j),
                );
            } else if repeated {
                self.c.push(
                    Diagnostic::new(
                        Severity::Error,
                        codes::custom::DUPLICATE_FIELD,
                        format!(
                            "custom field `{}` of `{}` is set more than once",
                            field.name, custom.type_path
                        ),
                    )
                    .with_entity(self.id)
                    .with_path(format!("{}.name", base()))
                    .with_help("keep one initialiser per field"),
                    Loc::CustomName(self.index, j),
                );
            }
            if blank(&field.expr) {
                self.c.push(
                    Diagnostic::new(
                        Severity::Error,
                        codes::custom::EMPTY_EXPR,
                        format!("custom field `{}` has an empty expression", field.name),
                    )
                    .with_entity(self.id)
                    .with_path(format!("{}.expr", base()))
                    .with_help("write a Rust expression, like `100` or `Vec3::Y`, or remove the field to use its default"),
                    Loc::CustomExpr(self.index, j),
                );
            }
        }
        if custom.value.as_deref().is_some_and(blank) {
            self.error(
                codes::custom::EMPTY_EXPR,
                "value",
                "value",
                "the custom component's `value` is an empty expression".to_owned(),
                Some("write the whole value as a Rust expression, like `RigidBody::Dynamic`, or remove `value` to use the type's default"),
            );
        }
    }
}

pub(super) fn with_article(kind: AssetKind) -> String {
    match kind {
        AssetKind::Image => "an image".to_owned(),
        AssetKind::Audio => "an audio".to_owned(),
        AssetKind::Other => "an unknown kind of".to_owned(),
        other => format!("a {}", other.name()),
    }
}

/// The problem of an asset file that does not exist (`forge::asset::missing`), whoever looked
/// for it: `forge validate` in its asset index, the scene loader in its asset source. `what`
/// names the value (`sprite image`), `path` is the asset path as written (a label after `#`
/// is not part of the file).
pub(crate) fn missing_asset(what: &str, path: &str) -> Diagnostic {
    let file = path.split_once('#').map_or(path, |(f, _)| f);
    Diagnostic::new(
        Severity::Error,
        codes::asset::MISSING,
        format!("{what} asset `{file}` does not exist in the assets directory"),
    )
    .with_help("paths are relative to the assets directory and case-sensitive")
}
