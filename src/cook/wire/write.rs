//! Writing a cooked body: the string pool, entities, components field by field, instances,
//! overrides and tile layers.

use super::*;

/// The strings written once and named by index: custom type paths and field names.
#[derive(Default)]
pub(super) struct Pool {
    pub(super) strings: Vec<EcoString>,
    index: std::collections::HashMap<EcoString, u64>,
}

impl Pool {
    pub(super) fn index_of(&mut self, s: &EcoString) -> u64 {
        if let Some(i) = self.index.get(s) {
            return *i;
        }
        let i = self.strings.len() as u64;
        self.strings.push(s.clone());
        self.index.insert(s.clone(), i);
        i
    }
}

pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

pub(super) fn write_doc(doc: &SceneDoc, pool: &mut Pool) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, u64::from(doc.format_version));
    put_str(&mut out, &doc.name);
    put_varint(&mut out, doc.next_id);
    put_varint(&mut out, doc.roots.len() as u64);
    for r in &doc.roots {
        put_varint(&mut out, *r);
    }
    let entities: Vec<(&u64, &EntityNode)> = doc.entities.iter().map(|(k, n)| (k, &**n)).collect();
    let chunks: Vec<(usize, Vec<u8>)> = entities
        .chunks(CHUNK_ENTITIES)
        .map(|chunk| {
            let mut bytes = Vec::new();
            for (key, node) in chunk {
                write_entity(&mut bytes, **key, node, pool);
            }
            (chunk.len(), bytes)
        })
        .collect();
    put_varint(&mut out, entities.len() as u64);
    put_varint(&mut out, chunks.len() as u64);
    for (count, bytes) in &chunks {
        put_varint(&mut out, *count as u64);
        put_varint(&mut out, bytes.len() as u64);
    }
    for (_, bytes) in chunks {
        out.extend_from_slice(&bytes);
    }
    out
}

pub(super) fn write_entity(out: &mut Vec<u8>, key: u64, node: &EntityNode, pool: &mut Pool) {
    let mut flags = 0;
    for (set, flag) in [
        (node.id != key, ID_DIFFERS),
        (node.parent.is_some(), HAS_PARENT),
        (!node.children.is_empty(), HAS_CHILDREN),
        (!node.components.is_empty(), HAS_COMPONENTS),
        (node.locked, LOCKED),
        (node.instance.is_some(), HAS_INSTANCE),
        (
            node.instance
                .as_ref()
                .is_some_and(|i| i.streaming.is_some()),
            STREAMED,
        ),
        (node.instance.as_ref().is_some_and(|i| i.is_model()), MODEL),
    ] {
        if set {
            flags |= flag;
        }
    }
    put_varint(out, key);
    out.push(flags);
    if node.id != key {
        put_varint(out, node.id);
    }
    if let Some(parent) = node.parent {
        put_varint(out, parent);
    }
    put_str(out, &node.name);
    if !node.children.is_empty() {
        put_varint(out, node.children.len() as u64);
        for c in &node.children {
            put_varint(out, *c);
        }
    }
    put_transform(out, &node.transform);
    if !node.components.is_empty() {
        put_varint(out, node.components.len() as u64);
        for c in &node.components {
            put_component(out, c, pool);
        }
    }
    if let Some(instance) = &node.instance {
        put_instance(out, instance, pool);
        if let Some(streaming) = &instance.streaming {
            out.extend_from_slice(&streaming.load_radius.to_le_bytes());
            out.extend_from_slice(&streaming.unload_radius.to_le_bytes());
        }
    }
}

pub(super) fn put_transform(out: &mut Vec<u8>, t: &TransformData) {
    for v in [t.translation, t.rotation, t.scale] {
        for f in [v.x, v.y, v.z] {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
}

/// A component: a custom one in our pooled form, a built-in as its tag's fields lay it out.
pub(super) fn put_component(out: &mut Vec<u8>, c: &ComponentData, pool: &mut Pool) {
    let Some(b) = c.builtin() else {
        if let ComponentData::Custom(custom) = c {
            out.push(match custom.value {
                Some(_) => TAG_CUSTOM_VALUE,
                None => TAG_CUSTOM,
            });
            put_varint(out, pool.index_of(&custom.type_path));
            put_varint(out, custom.fields.len() as u64);
            for f in &custom.fields {
                put_varint(out, pool.index_of(&f.name));
                put_str(out, &f.expr);
            }
            if let Some(value) = &custom.value {
                put_str(out, value);
            }
        }
        return;
    };
    out.push(TAG_BUILTIN);
    put_varint(out, builtin_index(b) as u64);
    match b.payload {
        Payload::Unit => {}
        Payload::Mode(_) => {
            if let Some(ValueRef::Mode(i)) = (b.get)(c, 0) {
                out.push(i as u8);
            }
        }
        Payload::Fields(fields) => {
            for i in 0..fields.len() {
                if let Some(v) = (b.get)(c, i) {
                    put_value(out, v);
                }
            }
        }
    }
}

/// The index of `b` in [`BUILTINS`], the number the cooked form names it by.
pub(super) fn builtin_index(b: &BuiltinTag) -> usize {
    BUILTINS
        .iter()
        .position(|x| std::ptr::eq(*x, b))
        .unwrap_or_default()
}

pub(super) fn put_f32s(out: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// A built-in's field value, by its kind.
pub(super) fn put_value(out: &mut Vec<u8>, v: ValueRef<'_>) {
    match v {
        ValueRef::Float(v) => put_f32s(out, &[v]),
        ValueRef::Bool(v) => out.push(u8::from(v)),
        ValueRef::Text(v) => put_str(out, v),
        ValueRef::Color(c) => put_f32s(out, &[c.r, c.g, c.b, c.a]),
        ValueRef::Image(None) | ValueRef::Size(None) => out.push(0),
        ValueRef::Image(Some(path)) => {
            out.push(1);
            put_str(out, path);
        }
        ValueRef::Size(Some(v)) => {
            out.push(1);
            put_f32s(out, &[v.x, v.y]);
        }
        ValueRef::Mesh(MeshSource::Primitive(shape)) => {
            out.push(0);
            let kind = PRIMITIVE_SHAPES
                .iter()
                .position(|s| *s == shape.name())
                .unwrap_or_default();
            out.push(kind as u8);
            put_f32s(out, &shape.sizes());
        }
        ValueRef::Mesh(MeshSource::Asset(path)) => {
            out.push(1);
            put_str(out, path);
        }
        ValueRef::Mode(i) => out.push(i as u8),
    }
}

/// A prefab instance: its scene (or model), then its overrides.
pub(super) fn put_instance(out: &mut Vec<u8>, instance: &Instance, pool: &mut Pool) {
    put_str(out, instance.model.as_deref().unwrap_or(&instance.scene));
    put_overrides(out, &instance.overrides, instance.is_model(), pool);
}

/// A list of overrides, as an instance and a tile layer hold them.
/// `nodes`: a model instance's, whose overrides target node paths.
pub(super) fn put_overrides(
    out: &mut Vec<u8>,
    overrides: &[Override],
    nodes: bool,
    pool: &mut Pool,
) {
    put_varint(out, overrides.len() as u64);
    for o in overrides {
        if nodes {
            put_varint(out, o.node.len() as u64);
            for name in &o.node {
                put_str(out, name);
            }
        } else {
            put_ids(out, &o.target);
        }
        match &o.name {
            None => out.push(0),
            Some(name) => {
                out.push(1);
                put_str(out, name);
            }
        }
        match &o.transform {
            None => out.push(0),
            Some(t) => {
                out.push(1);
                put_transform(out, t);
            }
        }
        put_varint(out, o.set.len() as u64);
        for patch in &o.set {
            put_component(out, &patch.component, pool);
            let b = patch.component.builtin();
            put_varint(out, patch.fields.len() as u64);
            for f in &patch.fields {
                let i = b.and_then(|b| b.index_of(f)).unwrap_or(usize::MAX);
                put_varint(out, i as u64);
            }
        }
        put_varint(out, o.add.len() as u64);
        for c in &o.add {
            put_component(out, c, pool);
        }
        put_varint(out, o.remove.len() as u64);
        for key in &o.remove {
            put_str(out, key);
        }
        put_ids(out, &o.children);
    }
}

pub(super) fn put_ids(out: &mut Vec<u8>, ids: &[u64]) {
    put_varint(out, ids.len() as u64);
    for id in ids {
        put_varint(out, *id);
    }
}

// ---- reading ----

/// The tile layers of the scene and of each prefab (documents by index: 0 the scene, `k` the
/// `k`th prefab from 1), written after the prefabs and only when a document has layers: a body
/// without them is the body of layout version 3 as it was.
pub(super) fn put_layers(out: &mut Vec<u8>, docs: &[&SceneDoc], pool: &mut Pool) {
    let with: Vec<(usize, &SceneDoc)> = docs
        .iter()
        .enumerate()
        .filter(|(_, d)| !d.layers.is_empty())
        .map(|(i, d)| (i, *d))
        .collect();
    if with.is_empty() {
        return;
    }
    put_varint(out, with.len() as u64);
    for (index, doc) in with {
        put_varint(out, index as u64);
        put_varint(out, doc.layers.len() as u64);
        for l in &doc.layers {
            put_layer(out, l, pool);
        }
    }
}

/// A tile layer: id, name, parent (option), plane (`0` xy, `1` xz), cell size (two `f32`),
/// origin (three `f32`), start (two varints), palette (list of key and path strings), rows
/// (list of strings: each row's bytes), cells (list of `i`, `j`, key string), overrides.
pub(super) fn put_layer(out: &mut Vec<u8>, l: &TileLayer, pool: &mut Pool) {
    put_varint(out, l.id);
    put_str(out, &l.name);
    match l.parent {
        None => out.push(0),
        Some(p) => {
            out.push(1);
            put_varint(out, p);
        }
    }
    out.push(match l.plane {
        TilePlane::Xy => 0,
        TilePlane::Xz => 1,
    });
    put_f32s(out, &[l.cell_size.x, l.cell_size.y]);
    put_f32s(out, &[l.origin.x, l.origin.y, l.origin.z]);
    put_varint(out, u64::from(l.start.0));
    put_varint(out, u64::from(l.start.1));
    let mut buf = [0u8; 4];
    put_varint(out, l.palette.len() as u64);
    for (key, scene) in &l.palette {
        put_str(out, key.encode_utf8(&mut buf));
        put_str(out, scene);
    }
    put_varint(out, l.rows.len() as u64);
    for row in &l.rows {
        put_str(out, row);
    }
    put_varint(out, l.cells.len() as u64);
    for c in &l.cells {
        put_varint(out, u64::from(c.i));
        put_varint(out, u64::from(c.j));
        put_str(out, c.key.encode_utf8(&mut buf));
    }
    put_overrides(out, &l.overrides, false, pool);
}
