//! The rules of one entity: its transform, and each component's values, ranges and asset paths.

use bevy_platform::collections::{HashMap, HashSet};

use super::names::{check_type_path, is_field_name, raw_hint};
use super::scene::{SceneFacts, ValidNames};
use super::structure::blank;
use super::{Collector, Diagnostic, Loc, Severity};
use crate::format::{
    ColorData, ComponentData, CustomComponent, EntityNode, MeshSource, PrimitiveShape, Vec3Data,
};
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
                "forge::name::empty",
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
        super::instance::instance(c, id, instance);
    } else if node.components.is_empty() {
        c.push(
            Diagnostic::new(
                Severity::Info,
                "forge::entity::transform_only",
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
                        "forge::transform::non_finite",
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
                        "forge::transform::zero_scale",
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
                    "forge::component::duplicate_key",
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
        let mut at = At { c, id, index: i };
        match component {
            ComponentData::Sprite(s) => {
                at.color(&s.color, "color", "sprite", "forge::sprite::non_finite");
                if let Some(image) = &s.image {
                    at.asset(image, "image", "sprite image", AssetKind::Image, assets);
                }
                if let Some(size) = s.custom_size {
                    for (axis, v) in [("x", size.x), ("y", size.y)] {
                        if !(v.is_finite() && v > 0.0) {
                            at.error(
                                "forge::sprite::custom_size",
                                "custom_size",
                                &format!("custom_size.{axis}"),
                                format!("sprite custom_size.{axis} must be positive, found {v}"),
                                Some("use `custom_size: None` for the image's own size"),
                            );
                        }
                    }
                }
                if s.image.is_none() && s.custom_size.is_none() {
                    at.c.push(
                        Diagnostic::new(
                            Severity::Warning,
                            "forge::sprite::invisible",
                            "sprite has neither an image nor a custom size, so it renders nothing",
                        )
                        .with_entity(id)
                        .with_path(format!("components[{i}]"))
                        .with_help("set `image` or `custom_size`"),
                        Loc::Component(i),
                    );
                }
            }
            ComponentData::Text2d(t) => {
                if !(t.font_size.is_finite() && t.font_size > 0.0) {
                    at.error(
                        "forge::text::font_size",
                        "font_size",
                        "font_size",
                        format!("text font_size must be positive, found {}", t.font_size),
                        Some("font_size is in pixels, for example `24.0`"),
                    );
                }
                at.color(&t.color, "color", "text", "forge::text::non_finite");
                if t.text.is_empty() {
                    at.c.push(
                        Diagnostic::new(
                            Severity::Warning,
                            "forge::text::empty",
                            "text2d text is empty, so it renders nothing",
                        )
                        .with_entity(id)
                        .with_path(format!("components[{i}].data.text")),
                        Loc::ComponentField(i, "text"),
                    );
                }
            }
            ComponentData::Camera2d => {
                scene.cameras += 1;
                scene.first_2d.get_or_insert(id);
                scene.camera_entities.push(id);
            }
            ComponentData::Camera3d => {
                scene.cameras += 1;
                scene.first_3d.get_or_insert(id);
                scene.camera_entities.push(id);
            }
            ComponentData::PointLight(l) => {
                scene.lights += 1;
                at.color(&l.color, "color", "point light", "forge::light::non_finite");
                if !l.intensity.is_finite() {
                    at.non_finite(
                        "forge::light::non_finite",
                        "intensity",
                        "point light",
                        l.intensity,
                    );
                } else if l.intensity < 0.0 {
                    at.error(
                        "forge::light::intensity",
                        "intensity",
                        "intensity",
                        format!(
                            "point light intensity must be non-negative, found {}",
                            l.intensity
                        ),
                        Some("intensity is luminous power in lumens; `0.0` turns the light off"),
                    );
                }
                if !l.range.is_finite() {
                    at.non_finite("forge::light::non_finite", "range", "point light", l.range);
                } else if l.range <= 0.0 {
                    at.error(
                        "forge::light::range",
                        "range",
                        "range",
                        format!("point light range must be positive, found {}", l.range),
                        Some("range is the cut-off distance in world units, for example `20.0`"),
                    );
                }
            }
            ComponentData::DirectionalLight(l) => {
                scene.lights += 1;
                at.color(
                    &l.color,
                    "color",
                    "directional light",
                    "forge::light::non_finite",
                );
                if !l.illuminance.is_finite() {
                    at.non_finite(
                        "forge::light::non_finite",
                        "illuminance",
                        "directional light",
                        l.illuminance,
                    );
                } else if l.illuminance < 0.0 {
                    at.error(
                        "forge::light::illuminance",
                        "illuminance",
                        "illuminance",
                        format!(
                            "directional light illuminance must be non-negative, found {}",
                            l.illuminance
                        ),
                        Some("illuminance is in lux; `0.0` turns the light off"),
                    );
                }
            }
            ComponentData::Mesh3d(m) => {
                scene.meshes += 1;
                match &m.mesh {
                    MeshSource::Primitive(shape) => at.shape(shape),
                    MeshSource::Asset(path) => {
                        at.asset(path, "mesh.value", "mesh", AssetKind::Mesh, assets);
                    }
                }
                let mat = &m.material;
                at.color(
                    &mat.base_color,
                    "material.base_color",
                    "material",
                    "forge::material::non_finite",
                );
                for (field, code, value) in [
                    (
                        "material.metallic",
                        "forge::material::metallic",
                        mat.metallic,
                    ),
                    (
                        "material.perceptual_roughness",
                        "forge::material::roughness",
                        mat.perceptual_roughness,
                    ),
                ] {
                    if !value.is_finite() {
                        at.non_finite("forge::material::non_finite", field, "material", value);
                    } else if !(0.0..=1.0).contains(&value) {
                        at.c.push(
                            Diagnostic::new(
                                Severity::Warning,
                                code,
                                format!("{field} should be within 0..=1, found {value}"),
                            )
                            .with_entity(id)
                            .with_path(format!("components[{i}].data.{field}"))
                            .with_help("0 and 1 are the physical extremes; values outside are clamped by the renderer"),
                            Loc::ComponentField(i, field),
                        );
                    }
                }
            }
            ComponentData::Visibility(_) => {}
            ComponentData::Custom(custom) => at.custom(custom, &mut scene.valid_names),
        }
    }
}

/// Reports about component `index` of entity `id`.
pub(super) struct At<'c> {
    c: &'c mut Collector,
    id: u64,
    index: usize,
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
    }

    fn non_finite(&mut self, code: &'static str, field: &'static str, what: &str, value: f32) {
        self.error(
            code,
            field,
            field,
            format!("{what} {field} must be finite, found {value}"),
            None,
        );
    }

    fn color(&mut self, color: &ColorData, field: &'static str, what: &str, code: &'static str) {
        for (channel, v) in [
            ("r", color.r),
            ("g", color.g),
            ("b", color.b),
            ("a", color.a),
        ] {
            if !v.is_finite() {
                self.error(
                    code,
                    field,
                    &format!("{field}.{channel}"),
                    format!("{what} {field}.{channel} must be finite, found {v}"),
                    Some("colour channels are sRGB values in 0.0..=1.0"),
                );
            }
        }
    }

    fn shape(&mut self, shape: &PrimitiveShape) {
        let mut values: Vec<(&str, f32)> = Vec::new();
        let v3 = |v: Vec3Data| [("size.x", v.x), ("size.y", v.y), ("size.z", v.z)];
        match shape {
            PrimitiveShape::Cuboid { size } => values.extend(v3(*size)),
            PrimitiveShape::Sphere { radius } => values.push(("radius", *radius)),
            PrimitiveShape::Plane { size } => {
                values.extend([("size.x", size.x), ("size.y", size.y)]);
            }
            PrimitiveShape::Cylinder { radius, height } => {
                values.extend([("radius", *radius), ("height", *height)]);
            }
            PrimitiveShape::Capsule { radius, length } => {
                values.extend([("radius", *radius), ("length", *length)]);
            }
        }
        for (name, v) in values {
            if !v.is_finite() {
                self.error(
                    "forge::mesh::non_finite",
                    "mesh.value",
                    &format!("mesh.value.{name}"),
                    format!("{} {name} must be finite, found {v}", shape.name()),
                    None,
                );
            }
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
                "forge::asset::empty",
                format!("{what} path is empty"),
                "write a path relative to the assets directory, like `textures/player.png`"
                    .to_owned(),
            ),
            Err(AssetPathError::Absolute(_)) => (
                "forge::asset::absolute",
                format!("{what} path `{path}` is absolute"),
                "asset paths are relative to the assets directory, like `textures/player.png`"
                    .to_owned(),
            ),
            Err(AssetPathError::ParentComponent(_)) => (
                "forge::asset::parent_dir",
                format!("{what} path `{path}` contains a `..` component"),
                "asset paths may not leave the assets directory".to_owned(),
            ),
            Err(AssetPathError::Backslash(_)) => (
                "forge::asset::backslash",
                format!("{what} path `{path}` contains a backslash"),
                format!("use `/` as the separator: `{}`", path.replace('\\', "/")),
            ),
            Ok(()) => {
                let Some(index) = assets else { return };
                match index.get(path) {
                    None => (
                        "forge::asset::missing",
                        format!("{what} `{path}` does not exist in the assets directory"),
                        "paths are relative to the assets directory and case-sensitive".to_owned(),
                    ),
                    Some(kind) if kind != want => (
                        "forge::asset::wrong_kind",
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
                        "forge::custom::type_path",
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
                        "forge::custom::field_name",
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
                        "forge::custom::duplicate_field",
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
                        "forge::custom::empty_expr",
                        format!("custom field `{}` has an empty expression", field.name),
                    )
                    .with_entity(self.id)
                    .with_path(format!("{}.expr", base()))
                    .with_help("write a Rust expression, like `100` or `Vec3::Y`, or remove the field to use its default"),
                    Loc::CustomExpr(self.index, j),
                );
            }
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
