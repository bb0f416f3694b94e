//! What the server knows of the built-in components, one descriptor per tag: the Bevy type,
//! a doc line, and each payload field's kind, unit, range and default, as the format page
//! (`bevy_forge_scene::format`, "Components") gives them.
//!
//! This is a small adapter in the shape of the library's table of built-in descriptors, which is
//! being written (`bevy_forge_scene::format::builtin`); hover and completion read only this
//! module, so switching to the library's table changes this file alone.

/// One built-in component tag.
#[derive(Debug)]
pub struct Builtin {
    /// The tag written as `type:` (`point_light`).
    pub tag: &'static str,
    /// What it spawns as (`PointLight`).
    pub bevy_type: &'static str,
    /// One line on what it is.
    pub doc: &'static str,
    /// The payload's fields, by their dotted paths in the source map (`material.metallic`); an
    /// enum payload (`visibility`) has none and lists its values in `values`.
    pub fields: &'static [Field],
    /// The identifiers `data` may be, for a payload that is one (`visibility`).
    pub values: &'static [&'static str],
}

/// One payload field of a built-in.
#[derive(Debug)]
pub struct Field {
    /// Its dotted path (`intensity`, `material.metallic`, `mesh.value`).
    pub name: &'static str,
    /// How it is written (`f32`, `colour`, `Option<asset path>`).
    pub kind: &'static str,
    /// Its unit, when it has one (`lumens`, `lux`, `pixels`, `world units`).
    pub unit: Option<&'static str>,
    /// The values allowed, when limited (`> 0`, `0..=1 (warns outside)`).
    pub range: Option<&'static str>,
    /// The value a file may leave out (`None`, `false`); `None` when the field is required.
    pub default: Option<&'static str>,
    /// One line on what it does.
    pub doc: &'static str,
    /// What a new entry writes for it (a snippet's value).
    pub example: &'static str,
}

const COLOUR: &str = "colour `(r, g, b, a)`, sRGB channels 0.0 to 1.0";
const WHITE: &str = "(r: 1.0, g: 1.0, b: 1.0, a: 1.0)";

const fn field(
    name: &'static str,
    kind: &'static str,
    unit: Option<&'static str>,
    range: Option<&'static str>,
    default: Option<&'static str>,
    doc: &'static str,
    example: &'static str,
) -> Field {
    Field {
        name,
        kind,
        unit,
        range,
        default,
        doc,
        example,
    }
}

/// Every built-in, in the order of the format page's table (`custom` last, described by the
/// game's schemas).
pub static BUILTINS: &[Builtin] = &[
    Builtin {
        tag: "sprite",
        bevy_type: "Sprite",
        doc: "A 2D sprite: an image (or a plain rectangle), tinted, sized and flipped.",
        fields: &[
            field("image", "Option<asset path>", None, Some("an image file: .png, .jpg, .jpeg, .webp, .bmp, .tga, .ktx2, .dds"), Some("None"), "The texture, relative to the assets directory; `None` for a plain coloured rectangle.", "None"),
            field("color", COLOUR, None, Some("0.0..=1.0 per channel"), Some(WHITE), "Tint; white leaves the image unchanged.", WHITE),
            field("custom_size", "Option<(x: f32, y: f32)>", Some("world units"), Some("> 0 on both axes"), Some("None"), "Explicit size; `None` takes the image's own size.", "None"),
            field("flip_x", "bool", None, None, Some("false"), "Mirror horizontally.", "false"),
            field("flip_y", "bool", None, None, Some("false"), "Mirror vertically.", "false"),
        ],
        values: &[],
    },
    Builtin {
        tag: "text2d",
        bevy_type: "Text2d, TextFont, TextColor",
        doc: "World-space 2D text.",
        fields: &[
            field("text", "string", None, Some("empty text warns"), None, "The text; may contain newlines.", "\"\""),
            field("font_size", "f32", Some("pixels"), Some("> 0"), None, "Font size.", "24.0"),
            field("color", COLOUR, None, Some("0.0..=1.0 per channel"), None, "Text colour.", WHITE),
        ],
        values: &[],
    },
    Builtin {
        tag: "camera2d",
        bevy_type: "Camera2d",
        doc: "A 2D camera; no payload: `(type: camera2d)`.",
        fields: &[],
        values: &[],
    },
    Builtin {
        tag: "camera3d",
        bevy_type: "Camera3d",
        doc: "A 3D camera; no payload: `(type: camera3d)`.",
        fields: &[],
        values: &[],
    },
    Builtin {
        tag: "point_light",
        bevy_type: "PointLight",
        doc: "A light shining in every direction from the entity.",
        fields: &[
            field("color", COLOUR, None, Some("0.0..=1.0 per channel"), None, "Light colour.", WHITE),
            field("intensity", "f32", Some("lumens"), Some(">= 0"), None, "Luminous power.", "800.0"),
            field("range", "f32", Some("world units"), Some("> 0"), None, "Cut-off distance.", "20.0"),
            field("shadows", "bool", None, None, None, "Whether the light casts shadows.", "false"),
        ],
        values: &[],
    },
    Builtin {
        tag: "directional_light",
        bevy_type: "DirectionalLight",
        doc: "Sunlight: parallel rays along the entity's rotation.",
        fields: &[
            field("color", COLOUR, None, Some("0.0..=1.0 per channel"), None, "Light colour.", WHITE),
            field("illuminance", "f32", Some("lux"), Some(">= 0"), None, "Illuminance.", "10000.0"),
            field("shadows", "bool", None, None, None, "Whether the light casts shadows.", "false"),
        ],
        values: &[],
    },
    Builtin {
        tag: "mesh3d",
        bevy_type: "Mesh3d, MeshMaterial3d<StandardMaterial>",
        doc: "A 3D mesh (a primitive shape or a mesh asset) with its material inline.",
        fields: &[
            field("mesh", "(source: primitive | asset, value: ..)", None, None, None, "Where the mesh comes from.", "(source: primitive, value: sphere(radius: 0.5))"),
            field("mesh.source", "`primitive` or `asset`", None, None, None, "A primitive shape, or a mesh file.", "primitive"),
            field("mesh.value", "a shape (`cuboid(size)`, `sphere(radius)`, `plane(size)`, `cylinder(radius, height)`, `capsule(radius, length)`) or an asset path (`models/robot.gltf#Mesh0/Primitive0`)", Some("world units"), Some("sizes finite; a mesh file: .gltf, .glb, .obj, .fbx"), None, "The shape, or the mesh's asset path.", "sphere(radius: 0.5)"),
            field("material", "(base_color, metallic, perceptual_roughness, unlit)", None, None, None, "The material, always inline.", "(base_color: (r: 1.0, g: 1.0, b: 1.0, a: 1.0), metallic: 0.0, perceptual_roughness: 0.5, unlit: false)"),
            field("material.base_color", COLOUR, None, Some("0.0..=1.0 per channel"), None, "Base colour.", WHITE),
            field("material.metallic", "f32", None, Some("0.0 (plastic) ..= 1.0 (metal); warns outside"), None, "How metallic the surface is.", "0.0"),
            field("material.perceptual_roughness", "f32", None, Some("0.0 (mirror) ..= 1.0 (matte); warns outside"), None, "How rough the surface looks.", "0.5"),
            field("material.unlit", "bool", None, None, None, "Ignore lights: the base colour as is.", "false"),
        ],
        values: &[],
    },
    Builtin {
        tag: "visibility",
        bevy_type: "Visibility",
        doc: "Whether the entity is drawn: `inherited` (no component means this), `visible` or `hidden`.",
        fields: &[],
        values: &["inherited", "visible", "hidden"],
    },
];

/// The descriptor of built-in tag `tag`.
pub fn builtin(tag: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.tag == tag)
}

impl Builtin {
    /// The field at dotted path `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The fields written at the top of the payload (`mesh`, not `mesh.value`).
    pub fn top_fields(&self) -> impl Iterator<Item = &'static Field> {
        self.fields.iter().filter(|f| !f.name.contains('.'))
    }

    #[cfg(test)]
    /// A new entry of this component: `(type: tag, data: (..))` with every top field.
    pub fn entry(&self) -> String {
        if !self.values.is_empty() {
            return format!("(type: {}, data: {})", self.tag, self.values[0]);
        }
        if self.fields.is_empty() {
            return format!("(type: {})", self.tag);
        }
        let fields: Vec<String> = self
            .top_fields()
            .map(|f| format!("{}: {}", f.name, f.example))
            .collect();
        format!("(type: {}, data: ({}))", self.tag, fields.join(", "))
    }
}

/// The mesh primitive shapes with their parameters, as `value:` writes them.
pub static SHAPES: &[(&str, &str)] = &[
    ("cuboid", "cuboid(size: (x: 1.0, y: 1.0, z: 1.0))"),
    ("sphere", "sphere(radius: 0.5)"),
    ("plane", "plane(size: (x: 10.0, y: 10.0))"),
    ("cylinder", "cylinder(radius: 0.5, height: 1.0)"),
    ("capsule", "capsule(radius: 0.5, length: 1.0)"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_forge_scene::format::{COMPONENT_TAGS, PRIMITIVE_SHAPES, SceneDoc, VISIBILITY_MODES};

    /// The table follows the library's: every tag but `custom`, every shape and mode, and each
    /// new entry it writes reads as a component.
    #[test]
    fn the_table_is_the_formats() {
        let tags: Vec<&str> = BUILTINS.iter().map(|b| b.tag).collect();
        assert_eq!(tags, COMPONENT_TAGS[..COMPONENT_TAGS.len() - 1]);
        let shapes: Vec<&str> = SHAPES.iter().map(|s| s.0).collect();
        assert_eq!(shapes, PRIMITIVE_SHAPES);
        assert_eq!(builtin("visibility").map(|b| b.values), Some(VISIBILITY_MODES));
        for b in BUILTINS {
            let text = format!(
                "(format_version: 1, name: \"\", entities: {{1: (id: 1, name: \"\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [{}])}}, roots: [1], next_id: 2)",
                b.entry()
            );
            let parsed = SceneDoc::from_str(&text);
            assert!(parsed.is_ok(), "{}: {:?}", b.tag, parsed.err());
        }
    }
}
