//! The canonical writer: a [`SceneDoc`] to the text the editor saves.
//!
//! Layout: two-space indentation, one struct field per line, vectors, colours and lists expanded
//! the same way, `\n` line ends, a final newline, `format_version: 1`. Floats use the shortest
//! text that reads back to the same bits (`1.0`, `0.1`, `1e-7`, `NaN`, `inf`). Reading canonical
//! text and writing it again gives the same bytes.

use super::builtin::ComponentData;
use super::builtin::{BuiltinTag, MeshSource, Payload, PrimitiveShape, ValueRef};
use super::component::EcoString;
use super::instance::{ComponentPatch, Instance, Override};
use super::layer::TileLayer;
use super::value::{ColorData, TransformData, Vec2Data, Vec3Data};
use super::{EntityNode, FORMAT_VERSION, SceneDoc};

const SPACES: &str = "                                                                ";

struct Writer {
    out: String,
    depth: usize,
    /// Whether override targets are written on one line (`target: [1, 2]`), as the edit layer
    /// writes a new override; canonical text lists them one id per line.
    one_line_targets: bool,
}

impl Writer {
    fn indent(&mut self) {
        let n = (self.depth * 2).min(SPACES.len());
        self.out.push_str(&SPACES[..n]);
    }

    /// `name: (` and a newline; the caller closes with [`Writer::close`].
    fn open(&mut self, name: &str, bracket: char) {
        self.indent();
        self.out.push_str(name);
        self.out.push_str(": ");
        self.out.push(bracket);
        self.out.push('\n');
        self.depth += 1;
    }

    /// An unnamed `(` on its own line (a list element).
    fn open_item(&mut self) {
        self.indent();
        self.out.push_str("(\n");
        self.depth += 1;
    }

    fn close(&mut self, closing: &str) {
        self.depth -= 1;
        self.indent();
        self.out.push_str(closing);
        self.out.push_str(",\n");
    }

    /// `name: <raw>,` on one line.
    fn raw(&mut self, name: &str, raw: &str) {
        self.indent();
        self.out.push_str(name);
        self.out.push_str(": ");
        self.out.push_str(raw);
        self.out.push_str(",\n");
    }

    fn float(&mut self, name: &str, v: f32) {
        let mut buf = ryu::Buffer::new();
        self.raw(name, buf.format(v));
    }

    fn uint(&mut self, name: &str, v: u64) {
        let mut buf = itoa::Buffer::new();
        self.raw(name, buf.format(v));
    }

    fn bool(&mut self, name: &str, v: bool) {
        self.raw(name, if v { "true" } else { "false" });
    }

    fn string(&mut self, name: &str, v: &str) {
        self.indent();
        self.out.push_str(name);
        self.out.push_str(": ");
        push_string(&mut self.out, v);
        self.out.push_str(",\n");
    }

    fn vec2_body(&mut self, v: Vec2Data) {
        self.float("x", v.x);
        self.float("y", v.y);
    }

    fn vec3(&mut self, name: &str, v: Vec3Data) {
        self.open(name, '(');
        self.float("x", v.x);
        self.float("y", v.y);
        self.float("z", v.z);
        self.close(")");
    }

    fn color(&mut self, name: &str, c: ColorData) {
        self.open(name, '(');
        self.float("r", c.r);
        self.float("g", c.g);
        self.float("b", c.b);
        self.float("a", c.a);
        self.close(")");
    }

    fn ids(&mut self, name: &str, ids: &[u64]) {
        if ids.is_empty() {
            self.raw(name, "[]");
            return;
        }
        self.open(name, '[');
        let mut buf = itoa::Buffer::new();
        for id in ids {
            self.indent();
            self.out.push_str(buf.format(*id));
            self.out.push_str(",\n");
        }
        self.close("]");
    }

    fn transform(&mut self, t: &TransformData) {
        self.open("transform", '(');
        self.vec3("translation", t.translation);
        self.vec3("rotation", t.rotation);
        self.vec3("scale", t.scale);
        self.close(")");
    }

    fn entity(&mut self, node: &EntityNode, key: u64) {
        self.indent();
        let mut buf = itoa::Buffer::new();
        self.out.push_str(buf.format(key));
        self.out.push_str(": (\n");
        self.depth += 1;
        self.uint("id", node.id);
        self.string("name", &node.name);
        match node.parent {
            None => self.raw("parent", "None"),
            Some(p) => {
                self.indent();
                self.out.push_str("parent: Some(");
                self.out.push_str(buf.format(p));
                self.out.push_str("),\n");
            }
        }
        self.ids("children", &node.children);
        self.transform(&node.transform);
        if node.components.is_empty() {
            self.raw("components", "[]");
        } else {
            self.open("components", '[');
            for c in &node.components {
                self.component(c, None);
            }
            self.close("]");
        }
        self.bool("locked", node.locked);
        if let Some(instance) = &node.instance {
            self.instance(instance);
        }
        self.close(")");
    }

    /// `instance: Some((scene: .., overrides: [..], streaming: ..)),` (`model: ..` in place of
    /// `scene` for a model; written only for instance entities; `streaming` only for streamed ones).
    fn instance(&mut self, instance: &Instance) {
        self.indent();
        self.out.push_str("instance: Some((\n");
        self.depth += 1;
        match &instance.model {
            Some(model) => self.string("model", model),
            None => self.string("scene", &instance.scene),
        }
        if instance.overrides.is_empty() {
            self.raw("overrides", "[]");
        } else {
            self.open("overrides", '[');
            for o in &instance.overrides {
                self.override_entry(o);
            }
            self.close("]");
        }
        if instance.streaming.is_some() {
            self.raw("streaming", &fragment::streaming(instance));
        }
        self.close("))");
    }

    /// One tile layer: every field but `start` (when `(0, 0)`), `cells` and `overrides` (when
    /// empty), and `rows` when empty with `cells` given.
    fn layer(&mut self, l: &TileLayer) {
        self.open_item();
        self.uint("id", l.id);
        self.string("name", &l.name);
        match l.parent {
            Some(p) => {
                let mut buf = itoa::Buffer::new();
                self.raw("parent", &format!("Some({})", buf.format(p)));
            }
            None => self.raw("parent", "None"),
        }
        self.raw("plane", l.plane.name());
        self.open("cell_size", '(');
        self.vec2_body(l.cell_size);
        self.close(")");
        self.vec3("origin", l.origin);
        if l.start != (0, 0) {
            self.open("start", '(');
            self.uint("i", u64::from(l.start.0));
            self.uint("j", u64::from(l.start.1));
            self.close(")");
        }
        if l.palette.is_empty() {
            self.raw("palette", "{}");
        } else {
            self.open("palette", '{');
            let mut key = [0u8; 4];
            for (k, scene) in &l.palette {
                self.indent();
                push_string(&mut self.out, k.encode_utf8(&mut key));
                self.out.push_str(": ");
                push_string(&mut self.out, scene);
                self.out.push_str(",\n");
            }
            self.close("}");
        }
        if !l.rows.is_empty() {
            self.open("rows", '[');
            for row in &l.rows {
                self.indent();
                push_string(&mut self.out, row);
                self.out.push_str(",\n");
            }
            self.close("]");
        } else if l.cells.is_empty() {
            self.raw("rows", "[]");
        }
        if !l.cells.is_empty() {
            self.open("cells", '[');
            let mut key = [0u8; 4];
            for c in &l.cells {
                self.indent();
                let mut buf = itoa::Buffer::new();
                self.out.push_str("(i: ");
                self.out.push_str(buf.format(c.i));
                self.out.push_str(", j: ");
                self.out.push_str(buf.format(c.j));
                self.out.push_str(", key: ");
                push_string(&mut self.out, c.key.encode_utf8(&mut key));
                self.out.push_str("),\n");
            }
            self.close("]");
        }
        if !l.overrides.is_empty() {
            self.open("overrides", '[');
            for o in &l.overrides {
                self.override_entry(o);
            }
            self.close("]");
        }
        self.close(")");
    }

    /// One override: `target`, then only the parts it sets.
    fn override_entry(&mut self, o: &Override) {
        self.open_item();
        self.target(o);
        if let Some(name) = &o.name {
            self.indent();
            self.out.push_str("name: Some(");
            push_string(&mut self.out, name);
            self.out.push_str("),\n");
        }
        if let Some(t) = &o.transform {
            self.indent();
            self.out.push_str("transform: Some((\n");
            self.depth += 1;
            self.vec3("translation", t.translation);
            self.vec3("rotation", t.rotation);
            self.vec3("scale", t.scale);
            self.close("))");
        }
        if !o.set.is_empty() {
            self.open("set", '[');
            for patch in &o.set {
                self.component(&patch.component, Some(&patch.fields));
            }
            self.close("]");
        }
        if !o.add.is_empty() {
            self.open("add", '[');
            for c in &o.add {
                self.component(c, None);
            }
            self.close("]");
        }
        if !o.remove.is_empty() {
            self.strings("remove", &o.remove);
        }
        if !o.children.is_empty() {
            self.ids("children", &o.children);
        }
        self.close(")");
    }

    /// An override's `target`: its id path, or a model override's node path.
    fn target(&mut self, o: &Override) {
        if self.one_line_targets && o.node.is_empty() {
            self.indent();
            self.out.push_str("target: [");
            let mut buf = itoa::Buffer::new();
            for (i, id) in o.target.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(buf.format(*id));
            }
            self.out.push_str("],\n");
        } else if o.node.is_empty() {
            self.ids("target", &o.target);
        } else {
            self.strings("target", &o.node);
        }
    }

    /// `name: [\n  "a",\n],` (`name: []` when empty).
    fn strings(&mut self, name: &str, items: &[EcoString]) {
        if items.is_empty() {
            return self.raw(name, "[]");
        }
        self.open(name, '[');
        for item in items {
            self.indent();
            push_string(&mut self.out, item);
            self.out.push_str(",\n");
        }
        self.close("]");
    }

    /// One component entry. With `only` (a patch), only those payload fields are written.
    fn component(&mut self, c: &ComponentData, only: Option<&[EcoString]>) {
        let want = |field: &str| only.is_none_or(|f| f.iter().any(|x| x == field));
        self.open_item();
        self.raw("type", c.tag());
        match c.builtin() {
            Some(b) => self.payload(b, c, &want),
            None => {
                if let ComponentData::Custom(c) = c {
                    self.custom(c);
                }
            }
        }
        self.close(")");
    }
}

impl Writer {
    /// A custom component's `data`.
    fn custom(&mut self, c: &super::component::CustomComponent) {
        self.open("data", '(');
        self.string("type_path", &c.type_path);
        // An enum's whole value replaces `fields`: both are written only when both were read.
        if c.fields.is_empty() {
            if c.value.is_none() {
                self.raw("fields", "[]");
            }
        } else {
            self.open("fields", '[');
            for f in &c.fields {
                self.open_item();
                self.string("name", &f.name);
                self.string("expr", &f.expr);
                self.close(")");
            }
            self.close("]");
        }
        if let Some(value) = &c.value {
            self.string("value", value);
        }
        self.close(")");
    }

    /// A built-in's `data`, as its [`BuiltinTag`] lays it out: the fields `want` keeps, a
    /// nested group (`material`) only when one of its fields is kept.
    fn payload(&mut self, b: &BuiltinTag, c: &ComponentData, want: &dyn Fn(&str) -> bool) {
        match b.payload {
            Payload::Unit => {}
            Payload::Mode(modes) => {
                if let Some(ValueRef::Mode(i)) = (b.get)(c, 0) {
                    self.raw("data", modes.get(i).copied().unwrap_or_default());
                }
            }
            Payload::Fields(fields) => {
                self.open("data", '(');
                let mut group = None;
                for (i, f) in fields.iter().enumerate() {
                    if !want(f.path) {
                        continue;
                    }
                    let (g, name) = f.split();
                    if g != group {
                        if group.is_some() {
                            self.close(")");
                        }
                        if let Some(g) = g {
                            self.open(g, '(');
                        }
                        group = g;
                    }
                    if let Some(v) = (b.get)(c, i) {
                        self.value(name, v);
                    }
                }
                if group.is_some() {
                    self.close(")");
                }
                self.close(")");
            }
        }
    }

    /// `name: <value>,` for a built-in field's value.
    fn value(&mut self, name: &str, v: ValueRef<'_>) {
        match v {
            ValueRef::Float(v) => self.float(name, v),
            ValueRef::Bool(v) => self.bool(name, v),
            ValueRef::Text(v) => self.string(name, v),
            ValueRef::Color(v) => self.color(name, v),
            ValueRef::Mode(_) => {}
            ValueRef::Image(None) | ValueRef::Size(None) => self.raw(name, "None"),
            ValueRef::Image(Some(path)) => {
                self.indent();
                self.out.push_str(name);
                self.out.push_str(": Some(");
                push_string(&mut self.out, path);
                self.out.push_str("),\n");
            }
            ValueRef::Size(Some(size)) => {
                self.indent();
                self.out.push_str(name);
                self.out.push_str(": Some((\n");
                self.depth += 1;
                self.vec2_body(size);
                self.close("))");
            }
            ValueRef::Mesh(mesh) => self.mesh(name, mesh),
        }
    }

    /// `mesh: (source: .., value: ..),`.
    fn mesh(&mut self, name: &str, mesh: &MeshSource) {
        self.open(name, '(');
        let source = match mesh {
            MeshSource::Asset(_) => "asset",
            MeshSource::Primitive(_) => "primitive",
        };
        self.raw("source", source);
        self.mesh_value(mesh);
        self.close(")");
    }

    /// `value: "path",` or `value: sphere(radius: ..),` of a mesh source.
    fn mesh_value(&mut self, mesh: &MeshSource) {
        let shape = match mesh {
            MeshSource::Asset(path) => return self.string("value", path),
            MeshSource::Primitive(shape) => shape,
        };
        self.indent();
        self.out.push_str("value: ");
        self.out.push_str(shape.name());
        self.out.push_str("(\n");
        self.depth += 1;
        match *shape {
            PrimitiveShape::Cuboid { size } => self.vec3("size", size),
            PrimitiveShape::Sphere { radius } => self.float("radius", radius),
            PrimitiveShape::Plane { size } => {
                self.open("size", '(');
                self.vec2_body(size);
                self.close(")");
            }
            PrimitiveShape::Cylinder { radius, height } => {
                self.float("radius", radius);
                self.float("height", height);
            }
            PrimitiveShape::Capsule { radius, length } => {
                self.float("radius", radius);
                self.float("length", length);
            }
        }
        self.close(")");
    }
}

/// Appends `s` as a RON string literal with the escapes the reader understands.
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    let plain = s
        .bytes()
        .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b != 0x7f);
    if plain {
        out.push_str(s);
    } else {
        for ch in s.chars() {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\0' => out.push_str("\\0"),
                c if c.is_control() => {
                    use std::fmt::Write;
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
    }
    out.push('"');
}

/// Writes `doc` as canonical text. See [`SceneDoc::to_canonical_string`].
pub(crate) fn write_canonical(doc: &SceneDoc) -> String {
    let mut w = Writer {
        out: String::with_capacity(256 + doc.entities.len() * 1100),
        depth: 0,
        one_line_targets: false,
    };
    w.out.push_str("(\n");
    w.depth = 1;
    w.uint("format_version", u64::from(FORMAT_VERSION));
    w.string("name", &doc.name);
    if doc.entities.is_empty() {
        w.raw("entities", "{}");
    } else {
        w.open("entities", '{');
        for (key, node) in &doc.entities {
            w.entity(node, *key);
        }
        w.close("}");
    }
    w.ids("roots", &doc.roots);
    w.uint("next_id", doc.next_id);
    if !doc.layers.is_empty() {
        w.open("layers", '[');
        for layer in &doc.layers {
            w.layer(layer);
        }
        w.close("]");
    }
    w.out.push_str(")\n");
    w.out
}

/// Canonical fragments for the edit layer (`crate::edit`): each written at depth 0 (nested
/// lines indented two spaces per level from the fragment's first line), without the first
/// line's indentation and without the trailing `,` and newline.
pub(crate) mod fragment {
    use super::*;

    fn written(f: impl FnOnce(&mut Writer)) -> String {
        // New overrides' targets on one line, as people write them.
        let mut w = Writer {
            out: String::new(),
            depth: 0,
            one_line_targets: true,
        };
        f(&mut w);
        let mut out = w.out;
        if out.ends_with(",\n") {
            out.truncate(out.len() - 2);
        }
        out
    }

    /// The value of a `name: value` field, without `name: `.
    fn value(name: &str, f: impl FnOnce(&mut Writer)) -> String {
        let text = written(f);
        text.strip_prefix(name)
            .and_then(|t| t.strip_prefix(": "))
            .map_or(text.clone(), str::to_owned)
    }

    /// A tile layer entry: `(\n  id: ..,\n  ..\n)`.
    pub(crate) fn layer(l: &TileLayer) -> String {
        written(|w| w.layer(l))
    }

    /// An entity entry: `key: (\n  id: ..,\n  ..\n)`.
    pub(crate) fn entity(node: &EntityNode, key: u64) -> String {
        written(|w| w.entity(node, key))
    }

    /// A component's `data` value, at depth 0 (nothing for a camera).
    pub(crate) fn data(c: &ComponentData) -> String {
        match c.builtin() {
            Some(b) => value("data", |w| w.payload(b, c, &|_| true)),
            None => value("data", |w| {
                if let ComponentData::Custom(c) = c {
                    w.custom(c);
                }
            }),
        }
    }

    /// The `value` of a mesh source: `"models/robot.glb"` or `sphere(\n  radius: 0.5,\n)`.
    pub(crate) fn mesh_value(m: &MeshSource) -> String {
        value("value", |w| w.mesh_value(m))
    }

    /// The value of a built-in's field, at depth 0 (`800.0`, `(\n  r: 1.0,\n  ..\n)`).
    pub(crate) fn builtin_value(v: ValueRef<'_>) -> String {
        value("v", |w| w.value("v", v))
    }

    /// A component entry: `(\n  type: ..,\n  ..\n)`.
    pub(crate) fn component(c: &ComponentData) -> String {
        written(|w| w.component(c, None))
    }

    /// An override entry: `(\n  target: [1, 2],\n  ..\n)`, its target on one line (as
    /// people write them).
    pub(crate) fn override_entry(o: &Override) -> String {
        written(|w| w.override_entry(o))
    }

    /// An override's `set` entry: the component with only the payload fields it sets.
    pub(crate) fn patch(p: &ComponentPatch) -> String {
        written(|w| w.component(&p.component, Some(&p.fields)))
    }

    /// An override's `set` entry's `data`: only the payload fields it sets.
    pub(crate) fn patch_data(p: &ComponentPatch) -> String {
        match p.component.builtin() {
            Some(b) => value("data", |w| {
                w.payload(b, &p.component, &|f| p.fields.iter().any(|x| x == f))
            }),
            None => data(&p.component),
        }
    }

    /// `name: value` of payload field `i` of built-in `c`, at depth 0 (for a field inside a
    /// group, `material.metallic`, only `metallic: ..`).
    pub(crate) fn payload_field(c: &ComponentData, i: usize) -> Option<String> {
        let b = c.builtin()?;
        let (_, name) = b.fields().get(i)?.split();
        let v = (b.get)(c, i)?;
        Some(written(|w| w.value(name, v)))
    }

    /// The value of field `field` (one of the format's override fields) of override `o`.
    pub(crate) fn override_field(o: &Override, field: &str) -> String {
        match field {
            "target" => value("target", |w| w.target(o)),
            "name" => match &o.name {
                Some(name) => format!("Some({})", string(name)),
                None => "None".to_owned(),
            },
            "transform" => match &o.transform {
                Some(t) => format!("Some({})", value("transform", |w| w.transform(t))),
                None => "None".to_owned(),
            },
            "set" if o.set.is_empty() => "[]".to_owned(),
            "set" => value("set", |w| {
                w.open("set", '[');
                for p in &o.set {
                    w.component(&p.component, Some(&p.fields));
                }
                w.close("]");
            }),
            "add" if o.add.is_empty() => "[]".to_owned(),
            "add" => value("add", |w| {
                w.open("add", '[');
                for c in &o.add {
                    w.component(c, None);
                }
                w.close("]");
            }),
            "remove" => value("remove", |w| w.strings("remove", &o.remove)),
            "children" => ids(&o.children),
            _ => String::new(),
        }
    }

    /// An instance's `overrides` list: `[]`, or one override per entry.
    pub(crate) fn overrides(overrides: &[Override]) -> String {
        if overrides.is_empty() {
            return "[]".to_owned();
        }
        value("overrides", |w| {
            w.open("overrides", '[');
            for o in overrides {
                w.override_entry(o);
            }
            w.close("]");
        })
    }

    /// An instance's `streaming` value: `None` or `Some((load_radius: .., unload_radius: ..))`.
    pub(crate) fn streaming(instance: &Instance) -> String {
        match &instance.streaming {
            None => "None".to_owned(),
            Some(s) => format!(
                "Some((load_radius: {}, unload_radius: {}))",
                float(s.load_radius),
                float(s.unload_radius)
            ),
        }
    }

    /// The value of entity field `field` (one of the format's entity fields) of `node`.
    pub(crate) fn entity_field(node: &EntityNode, field: &str) -> String {
        match field {
            "id" => value("id", |w| w.uint("id", node.id)),
            "name" => string(&node.name),
            "parent" => match node.parent {
                None => "None".to_owned(),
                Some(p) => format!("Some({p})"),
            },
            "children" => ids(&node.children),
            "transform" => value("transform", |w| w.transform(&node.transform)),
            "components" => {
                if node.components.is_empty() {
                    "[]".to_owned()
                } else {
                    value("components", |w| {
                        w.open("components", '[');
                        for c in &node.components {
                            w.component(c, None);
                        }
                        w.close("]");
                    })
                }
            }
            "locked" => node.locked.to_string(),
            "instance" => match &node.instance {
                None => "None".to_owned(),
                Some(instance) => value("instance", |w| w.instance(instance)),
            },
            _ => String::new(),
        }
    }

    /// A list of ids: `[]`, or one id per line.
    pub(crate) fn ids(ids: &[u64]) -> String {
        value("ids", |w| w.ids("ids", ids))
    }

    /// A `(x: .., y: .., z: ..)` vector.
    pub(crate) fn vec3(v: Vec3Data) -> String {
        value("v", |w| w.vec3("v", v))
    }

    /// A float that reads back to the same bits.
    pub(crate) fn float(v: f32) -> String {
        ryu::Buffer::new().format(v).to_owned()
    }

    /// A string literal with the reader's escapes.
    pub(crate) fn string(s: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, s);
        out
    }
}
