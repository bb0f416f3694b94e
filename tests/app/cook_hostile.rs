//! The cooked binary twin (`.forge.bin`) under hostile input: bodies with valid checksums that
//! lie about lengths or hold what text cannot, bundles of prefabs with cycles or holes, loads
//! through the asset server and the twin reader, and the `forge cook` command line.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use crate::common;

use std::path::Path;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::Dir;
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Handle, LoadState};
use bevy_forge_scene::ForgeSceneLoadError;
use bevy_forge_scene::cook::{COOKED_HEADER_LEN, CookedScene};
use bevy_forge_scene::format::{ComponentData, ComponentPatch, Instance, Override, SceneDoc};
use bevy_forge_scene::prelude::*;
use common::cooked::{
    LIGHT, SPRITE, cooked, doc_text, scene_doc, sprite_body, status_kb, twin_app, wrap,
};
use common::harness::Harness;
use common::write;

/// How the load of `path` ended.
fn load_state(app: &mut App, path: &str) -> LoadState {
    common::cooked::load_state(app, path).0
}

// ---- memory, from /proc (the crate forbids `unsafe`, so no counting allocator) ----
// Process-wide figures: each memory check runs alone in a child process (`memory_checks`).

/// Runs each ignored memory check of this binary alone in a child process, so no other test
/// moves the process's peaks.
#[test]
fn memory_checks() {
    for name in [
        "huge_declared_lengths_fail_cleanly_and_cheaply",
        "an_announced_entity_count_does_not_reserve_far_more_than_the_file",
        "a_huge_twin_is_not_read_whole",
        "an_announced_component_count_does_not_reserve_far_more_than_the_file",
    ] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                &common::test_name(module_path!(), name),
                "--test-threads=1",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "{name}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Peak resident bytes above the start while running `f` (pages touched).
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let _ = std::fs::write("/proc/self/clear_refs", "5"); // resets VmHWM
    let start = status_kb("VmRSS:");
    let out = f();
    let peak = status_kb("VmHWM:");
    (out, peak.saturating_sub(start) * 1024)
}

/// How far the peak virtual size rose while running `f` (address space reserved, touched or
/// not): 0 when it stayed under the process's earlier peak.
fn virtual_rise<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let before = status_kb("VmPeak:");
    let size = status_kb("VmSize:");
    let out = f();
    let after = status_kb("VmPeak:");
    (
        out,
        after.saturating_sub(before) * 1024,
        before.saturating_sub(size) * 1024,
    )
}

// ---- a mirror of the private wire types (src/cook/wire/), to write any body ----

mod wire {
    use bevy_forge_scene::format::*;

    #[derive(Clone)]
    pub struct Body {
        pub source: String,
        pub doc: Doc,
        pub prefabs: Vec<(String, Doc)>,
    }

    #[derive(Clone)]
    pub struct Doc {
        pub format_version: u32,
        pub name: String,
        pub entities: Vec<(u64, Entity)>,
        pub roots: Vec<u64>,
        pub next_id: u64,
    }

    #[derive(Clone)]
    pub struct Entity {
        pub id: u64,
        pub name: String,
        pub parent: Option<u64>,
        pub children: Vec<u64>,
        pub transform: TransformData,
        pub components: Vec<ComponentData>,
        pub locked: bool,
        pub instance: Option<Instance>,
    }

    /// The body as the module docs of `bevy_forge_scene::cook` lay it out (layout version 3),
    /// written independently of the crate's writer.
    impl Body {
        pub fn encode(&self) -> Vec<u8> {
            let mut pool: Vec<String> = Vec::new();
            let scene = self.doc.encode(&mut pool);
            let prefabs: Vec<Vec<u8>> = self
                .prefabs
                .iter()
                .map(|(_, d)| d.encode(&mut pool))
                .collect();
            let mut out = Vec::new();
            string(&mut out, &self.source);
            super::varint(pool.len() as u64, &mut out);
            for p in &pool {
                string(&mut out, p);
            }
            out.extend(scene);
            super::varint(self.prefabs.len() as u64, &mut out);
            for ((path, _), bytes) in self.prefabs.iter().zip(prefabs) {
                string(&mut out, path);
                out.extend(bytes);
            }
            out
        }
    }

    fn string(out: &mut Vec<u8>, s: &str) {
        super::varint(s.len() as u64, out);
        out.extend_from_slice(s.as_bytes());
    }

    fn floats(out: &mut Vec<u8>, values: &[f32]) {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    fn color(out: &mut Vec<u8>, c: ColorData) {
        floats(out, &[c.r, c.g, c.b, c.a]);
    }

    fn ids(out: &mut Vec<u8>, ids: &[u64]) {
        super::varint(ids.len() as u64, out);
        for id in ids {
            super::varint(*id, out);
        }
    }

    fn transform(out: &mut Vec<u8>, t: &TransformData) {
        for v in [t.translation, t.rotation, t.scale] {
            floats(out, &[v.x, v.y, v.z]);
        }
    }

    fn pooled(pool: &mut Vec<String>, s: &str) -> u64 {
        match pool.iter().position(|p| p == s) {
            Some(i) => i as u64,
            None => {
                pool.push(s.to_owned());
                pool.len() as u64 - 1
            }
        }
    }

    /// A component: tag `0` and a pooled custom component, or tag `1`, the built-in's kind (its
    /// place in the format page's table) and its fields in order, by kind.
    fn component(c: &ComponentData, pool: &mut Vec<String>, out: &mut Vec<u8>) {
        let v = super::varint;
        if let ComponentData::Custom(custom) = c {
            out.push(0);
            v(pooled(pool, &custom.type_path), out);
            v(custom.fields.len() as u64, out);
            for f in &custom.fields {
                v(pooled(pool, &f.name), out);
                string(out, &f.expr);
            }
            return;
        }
        out.push(1);
        let kinds = [
            "sprite",
            "text2d",
            "camera2d",
            "camera3d",
            "point_light",
            "directional_light",
            "mesh3d",
            "visibility",
            "spot_light",
        ];
        v(
            kinds.iter().position(|k| *k == c.tag()).unwrap() as u64,
            out,
        );
        match c {
            ComponentData::Sprite(s) => {
                match &s.image {
                    None => out.push(0),
                    Some(image) => {
                        out.push(1);
                        string(out, image);
                    }
                }
                color(out, s.color);
                match s.custom_size {
                    None => out.push(0),
                    Some(size) => {
                        out.push(1);
                        floats(out, &[size.x, size.y]);
                    }
                }
                out.extend([u8::from(s.flip_x), u8::from(s.flip_y)]);
            }
            ComponentData::Text2d(t) => {
                string(out, &t.text);
                floats(out, &[t.font_size]);
                color(out, t.color);
            }
            ComponentData::PointLight(l) => {
                color(out, l.color);
                floats(out, &[l.intensity, l.range]);
                out.push(u8::from(l.shadows));
            }
            ComponentData::DirectionalLight(l) => {
                color(out, l.color);
                floats(out, &[l.illuminance]);
                out.push(u8::from(l.shadows));
            }
            ComponentData::SpotLight(l) => {
                color(out, l.color);
                floats(
                    out,
                    &[l.intensity, l.range, l.radius, l.inner_angle, l.outer_angle],
                );
                out.push(u8::from(l.shadows));
            }
            ComponentData::Mesh3d(m) => {
                match &m.mesh {
                    MeshSource::Asset(path) => {
                        out.push(1);
                        string(out, path);
                    }
                    MeshSource::Primitive(shape) => {
                        out.push(0);
                        let (kind, sizes): (u8, Vec<f32>) = match *shape {
                            PrimitiveShape::Cuboid { size } => (0, vec![size.x, size.y, size.z]),
                            PrimitiveShape::Sphere { radius } => (1, vec![radius]),
                            PrimitiveShape::Plane { size } => (2, vec![size.x, size.y]),
                            PrimitiveShape::Cylinder { radius, height } => {
                                (3, vec![radius, height])
                            }
                            PrimitiveShape::Capsule { radius, length } => (4, vec![radius, length]),
                        };
                        out.push(kind);
                        floats(out, &sizes);
                    }
                }
                let mat = &m.material;
                color(out, mat.base_color);
                floats(out, &[mat.metallic, mat.perceptual_roughness]);
                out.push(u8::from(mat.unlit));
            }
            ComponentData::Visibility(mode) => out.push(match mode {
                VisibilityMode::Inherited => 0,
                VisibilityMode::Visible => 1,
                _ => 2,
            }),
            _ => {}
        }
    }

    /// An instance: its scene, then its overrides field by field.
    fn instance(i: &Instance, pool: &mut Vec<String>, out: &mut Vec<u8>) {
        let v = super::varint;
        string(out, &i.scene);
        v(i.overrides.len() as u64, out);
        for o in &i.overrides {
            ids(out, &o.target);
            match &o.name {
                None => out.push(0),
                Some(name) => {
                    out.push(1);
                    string(out, name);
                }
            }
            match &o.transform {
                None => out.push(0),
                Some(t) => {
                    out.push(1);
                    transform(out, t);
                }
            }
            v(o.set.len() as u64, out);
            for patch in &o.set {
                component(&patch.component, pool, out);
                let settable = ComponentPatch::fields_of(patch.component.tag());
                v(patch.fields.len() as u64, out);
                for f in &patch.fields {
                    v(settable.iter().position(|s| s == f).unwrap() as u64, out);
                }
            }
            v(o.add.len() as u64, out);
            for c in &o.add {
                component(c, pool, out);
            }
            v(o.remove.len() as u64, out);
            for key in &o.remove {
                string(out, key);
            }
            ids(out, &o.children);
        }
    }

    impl Doc {
        fn encode(&self, pool: &mut Vec<String>) -> Vec<u8> {
            let v = super::varint;
            let mut out = Vec::new();
            v(u64::from(self.format_version), &mut out);
            string(&mut out, &self.name);
            v(self.next_id, &mut out);
            v(self.roots.len() as u64, &mut out);
            for r in &self.roots {
                v(*r, &mut out);
            }
            v(self.entities.len() as u64, &mut out);
            let chunks: Vec<(usize, Vec<u8>)> = self
                .entities
                .chunks(1024)
                .map(|c| {
                    let mut bytes = Vec::new();
                    for (key, e) in c {
                        e.encode(*key, pool, &mut bytes);
                    }
                    (c.len(), bytes)
                })
                .collect();
            v(chunks.len() as u64, &mut out);
            for (n, bytes) in &chunks {
                v(*n as u64, &mut out);
                v(bytes.len() as u64, &mut out);
            }
            for (_, bytes) in chunks {
                out.extend(bytes);
            }
            out
        }
    }

    impl Entity {
        fn encode(&self, key: u64, pool: &mut Vec<String>, out: &mut Vec<u8>) {
            let v = super::varint;
            let flags = u8::from(self.id != key)
                | u8::from(self.parent.is_some()) << 1
                | u8::from(!self.children.is_empty()) << 2
                | u8::from(!self.components.is_empty()) << 3
                | u8::from(self.locked) << 4
                | u8::from(self.instance.is_some()) << 5;
            v(key, out);
            out.push(flags);
            if self.id != key {
                v(self.id, out);
            }
            if let Some(p) = self.parent {
                v(p, out);
            }
            string(out, &self.name);
            if !self.children.is_empty() {
                ids(out, &self.children);
            }
            transform(out, &self.transform);
            if !self.components.is_empty() {
                v(self.components.len() as u64, out);
                for c in &self.components {
                    component(c, pool, out);
                }
            }
            if let Some(i) = &self.instance {
                instance(i, pool, out);
            }
        }
    }

    pub fn doc(d: &SceneDoc) -> Doc {
        Doc {
            format_version: d.format_version,
            name: d.name.to_string(),
            entities: d
                .entities
                .iter()
                .map(|(k, n)| {
                    (
                        *k,
                        Entity {
                            id: n.id,
                            name: n.name.to_string(),
                            parent: n.parent,
                            children: n.children.clone(),
                            transform: n.transform,
                            components: n.components.clone(),
                            locked: n.locked,
                            instance: n.instance.as_deref().cloned(),
                        },
                    )
                })
                .collect(),
            roots: d.roots.clone(),
            next_id: d.next_id,
        }
    }
}

fn encode_body(body: &wire::Body) -> Vec<u8> {
    wrap(&body.encode())
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn prefab_doc(places: &[&str]) -> SceneDoc {
    SceneDoc::from_str(&doc_text("Prefab", LIGHT, places))
        .unwrap()
        .doc
}

/// How a load of `path` ends: `Ok` or the scene error's codes and message.
fn outcome(h: &mut Harness, path: &str) -> Result<Handle<ForgeScene>, String> {
    let handle: Handle<ForgeScene> = h.load(path);
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| {
        matches!(
            server.load_state(&handle),
            LoadState::Failed(_) | LoadState::Loaded
        )
    });
    match server.load_state(&handle) {
        LoadState::Loaded => Ok(handle),
        LoadState::Failed(error) => Err(match ForgeSceneLoadError::from_asset_error(&error) {
            Some(e) => {
                let codes: Vec<_> = e.diagnostics().iter().map(|d| d.code).collect();
                format!("{codes:?} {e}")
            }
            None => format!("[not a scene error] {error}"),
        }),
        _ => unreachable!(),
    }
}

fn scene_of<'a>(h: &'a Harness, handle: &Handle<ForgeScene>) -> &'a ForgeScene {
    h.world()
        .resource::<bevy_asset::Assets<ForgeScene>>()
        .get(handle)
        .unwrap()
}

// ---- the mirror is right ----

#[test]
fn the_mirror_writes_what_the_crate_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let scene = CookedScene {
        source: "scenes/goblin_camp.forge.ron".into(),
        doc: SceneDoc::from_str(&read("scenes/goblin_camp.forge.ron"))
            .unwrap()
            .doc,
        prefabs: ["prefabs/goblin.forge.ron", "prefabs/hat.forge.ron"]
            .iter()
            .map(|p| (p.to_string(), SceneDoc::from_str(&read(p)).unwrap().doc))
            .collect(),
    };
    let body = wire::Body {
        source: scene.source.clone(),
        doc: wire::doc(&scene.doc),
        prefabs: scene
            .prefabs
            .iter()
            .map(|(p, d)| (p.clone(), wire::doc(d)))
            .collect(),
    };
    assert_eq!(encode_body(&body), scene.encode());
}

// ---- hostile bodies with valid checksums ----

/// source "", an empty pool, format_version 1, name "", next_id 1, then `rest`.
fn body_prefix() -> Vec<u8> {
    vec![0x00, 0x00, 0x01, 0x00, 0x01]
}

#[test]
#[ignore = "a memory check: run alone by `memory_checks`"]
fn huge_declared_lengths_fail_cleanly_and_cheaply() {
    for len in [1u64 << 60, u64::MAX, u32::MAX as u64, 1 << 33] {
        // A string length.
        let mut b = Vec::new();
        varint(len, &mut b);
        b.extend_from_slice(b"abc");
        let (r, peak, _) = virtual_rise(|| CookedScene::decode(&wrap(&b)));
        let e = r.unwrap_err();
        assert_eq!(e.code(), "forge::cook::body", "{e}");
        assert!(peak < 1 << 24, "string len {len}: peak {peak}");
        // An entity count.
        let mut b = body_prefix();
        b.push(0); // no roots
        varint(len, &mut b);
        b.extend_from_slice(&[0u8; 64]);
        let (r, peak, _) = virtual_rise(|| CookedScene::decode(&wrap(&b)));
        assert_eq!(r.unwrap_err().code(), "forge::cook::body");
        assert!(peak < 1 << 24, "entity count {len}: peak {peak}");
        // A roots count.
        let mut b = body_prefix();
        varint(len, &mut b);
        b.extend_from_slice(&[0u8; 64]);
        let (r, peak, _) = virtual_rise(|| CookedScene::decode(&wrap(&b)));
        assert_eq!(r.unwrap_err().code(), "forge::cook::body");
        assert!(peak < 1 << 24, "roots count {len}: peak {peak}");
        // A chunk count, and one chunk's entity count and length.
        for at in 0..3 {
            let mut b = body_prefix();
            b.extend_from_slice(&[0, 1]); // no roots, one entity
            for i in 0..3 {
                varint(if i == at { len } else { 1 }, &mut b);
            }
            b.extend_from_slice(&[0u8; 64]);
            let (r, peak, _) = virtual_rise(|| CookedScene::decode(&wrap(&b)));
            assert_eq!(r.unwrap_err().code(), "forge::cook::body");
            assert!(peak < 1 << 24, "chunk field {at} = {len}: peak {peak}");
        }
    }
}

/// The entity-count hint is trusted up to 2^20 entries whenever that many bytes follow: a file
/// of ~1 MiB of garbage that announces 2^20 entities reserves the map for 2^20 entities before
/// the first one fails to decode.
#[test]
#[ignore = "a memory check: run alone by `memory_checks`"]
fn an_announced_entity_count_does_not_reserve_far_more_than_the_file() {
    let mut b = body_prefix();
    b.push(0); // no roots
    varint(1 << 20, &mut b);
    b.extend(std::iter::repeat_n(0xFFu8, (1 << 20) + 16)); // the chunk count overflows
    let bytes = wrap(&b);
    let (r, peak, headroom) = virtual_rise(|| CookedScene::decode(&bytes));
    assert_eq!(r.unwrap_err().code(), "forge::cook::body");
    eprintln!(
        "file {} bytes, peak virtual size rose {} bytes above an earlier peak {} bytes above the current size; size_of EntityNode = {}",
        bytes.len(),
        peak,
        headroom,
        std::mem::size_of::<bevy_forge_scene::format::EntityNode>()
    );
    assert!(
        peak < 16 * bytes.len(),
        "a {}-byte file that decodes nothing reserved {peak} bytes",
        bytes.len()
    );
}

#[test]
fn malformed_values_are_body_errors() {
    let base = wire::doc(&scene_doc(&[]));
    let good = wire::Body {
        source: "s".into(),
        doc: base.clone(),
        prefabs: vec![],
    }
    .encode();
    assert!(CookedScene::decode(&wrap(&good)).is_ok());
    // Invalid UTF-8 in the source string (first byte after its length).
    let mut bad = good.clone();
    bad[1] = 0xFF;
    let e = CookedScene::decode(&wrap(&bad)).unwrap_err();
    assert_eq!(e.code(), "forge::cook::body", "{e}");
    eprintln!("invalid utf-8: {e}");
    // Every byte replaced by every value: never a panic.
    for i in 0..good.len() {
        for v in [0u8, 1, 2, 8, 9, 0x7F, 0x80, 0xFF] {
            let mut b = good.clone();
            b[i] = v;
            let _ = CookedScene::decode(&wrap(&b));
        }
    }
    // An empty body.
    let e = CookedScene::decode(&wrap(&[])).unwrap_err();
    assert_eq!(e.code(), "forge::cook::body", "{e}");
    // A valid body followed by bytes inside the declared length.
    let mut longer = good.clone();
    longer.extend_from_slice(b"junk");
    let e = CookedScene::decode(&wrap(&longer)).unwrap_err();
    assert_eq!(e.code(), "forge::cook::body", "{e}");
    assert!(e.to_string().contains("4 bytes are left"), "{e}");
    // A declared length of 4 GiB on a short file.
    let mut huge = wrap(&good);
    huge[12..20].copy_from_slice(&(1u64 << 32).to_le_bytes());
    assert_eq!(
        CookedScene::decode(&huge).unwrap_err().code(),
        "forge::cook::truncated"
    );
    huge[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(
        CookedScene::decode(&huge).unwrap_err().code(),
        "forge::cook::truncated"
    );
}

#[test]
fn invalid_tags_variants_and_flags_are_body_errors() {
    let mut w = wire::doc(&scene_doc(&[]));
    w.entities[0].1.components = vec![ComponentData::Camera3d];
    let good = w_body(w);
    assert!(CookedScene::decode(&wrap(&good)).is_ok());
    // The one component is the entity's last bytes, then the roots and prefab counts are
    // elsewhere: ... count 1, tag 1 (built-in), kind 3 (camera3d), prefabs 0.
    let pos = good.windows(4).rposition(|w| w == [1, 1, 3, 0]).unwrap() + 1;
    for (at, values) in [(0, [2u8, 9, 0x7F]), (1, [9, 10, 0x7F])] {
        for v in values {
            let mut b = good.clone();
            b[pos + at] = v;
            let e = CookedScene::decode(&wrap(&b)).unwrap_err();
            assert_eq!(e.code(), "forge::cook::body", "{e}");
            eprintln!("byte {at} = {v}: {e}");
        }
    }
    // The flags byte follows the key (1) of the only entity, whose name is "First". `0x40` (a
    // streamed instance) and `0x80` (a model) are known, but only with an instance (`0x20`).
    let name = good.windows(6).position(|w| w == b"\x05First").unwrap();
    let flags = name - 1;
    assert_eq!(good[flags - 1], 1, "the key");
    for bit in [0x40, 0x80] {
        let mut b = good.clone();
        b[flags] |= bit;
        let e = CookedScene::decode(&wrap(&b)).unwrap_err();
        assert_eq!(e.code(), "forge::cook::body", "{e}");
        assert!(
            e.to_string().contains(&format!(
                "at byte {} of the file, in entity 1 of the scene: flags {:#04x}: a streamed or model entity without a prefab instance",
                flags + COOKED_HEADER_LEN,
                b[flags]
            )),
            "{e}"
        );
    }
}

#[test]
fn a_broken_built_in_names_its_byte_entity_kind_and_fault() {
    let (body, kind) = sprite_body(false);
    let broken = |at: usize, v: u8| {
        let mut b = body.clone();
        b[at] = v;
        let e = CookedScene::decode(&wrap(&b)).unwrap_err();
        assert_eq!(e.code(), "forge::cook::body", "{e}");
        e.to_string()
    };
    // The start of the message for a problem at `at` in the body, in entity 1 of `document`.
    let place = |at: usize, document: &str| {
        format!(
            "at byte {} of the file, in entity 1 of {document}: ",
            at + COOKED_HEADER_LEN
        )
    };
    // An option tag of 2 (the image's): the byte itself.
    let e = broken(kind + 1, 2);
    let expected = place(kind + 1, "the scene")
        + "a `sprite` component does not decode: an option tag is neither 0 nor 1";
    assert!(e.contains(&expected), "{e}");
    // A kind past the format's last one.
    let e = broken(kind, 9);
    let expected =
        place(kind, "the scene") + "a built-in component's kind names none of the format's";
    assert!(e.contains(&expected), "{e}");
    // A string that is not UTF-8: where it was read.
    let e = broken(kind + 3, 0xFF);
    assert!(
        e.contains("a `sprite` component does not decode: a string is not UTF-8"),
        "{e}"
    );
    let at: usize = e
        .split("at byte ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap()
        - COOKED_HEADER_LEN;
    assert!(
        (kind + 3..kind + 6).contains(&at),
        "{at} for the string at {}: {e}",
        kind + 3
    );
    // A flipped bool (`flip_x`, after the colour's four floats and `custom_size`'s tag).
    let e = broken(kind + 6 + 16 + 1, 7);
    assert!(
        e.contains("a `sprite` component does not decode: a bool is neither 0 nor 1"),
        "{e}"
    );
    // A string length past the bytes left: the length is named, at its byte.
    let e = broken(kind + 2, 0x7F);
    let expected = place(kind + 2, "the scene")
        + "a `sprite` component does not decode: a length asks for more than the";
    assert!(e.contains(&expected), "{e}");
    // Inside a bundled prefab, the prefab is named.
    let (body, kind) = sprite_body(true);
    let mut b = body.clone();
    b[kind + 1] = 2;
    let e = CookedScene::decode(&wrap(&b)).unwrap_err().to_string();
    let expected = place(kind + 1, "prefab `p.forge.ron`") + "a `sprite` component";
    assert!(e.contains(&expected), "{e}");
    // A prefab path with a line break and a terminal escape is shown escaped.
    let sprite = SceneDoc::from_str(&doc_text("S", SPRITE, &[])).unwrap().doc;
    let odd = "p\n  --> fake.forge.ron:1:1\u{1b}[31m.forge.ron";
    let body =
        cooked(scene_doc(&[odd]), vec![(odd, sprite)]).encode()[COOKED_HEADER_LEN..].to_vec();
    let kind = body
        .windows(7)
        .position(|w| w == b"\x01\x00\x01\x03IMG")
        .unwrap()
        + 1;
    let mut b = body.clone();
    b[kind + 1] = 2;
    let e = CookedScene::decode(&wrap(&b)).unwrap_err().to_string();
    assert!(
        e.contains("of prefab `p\\n  --> fake.forge.ron:1:1\\u{1b}[31m.forge.ron`"),
        "{e}"
    );
    assert!(!e.contains('\n') && !e.contains('\u{1b}'), "{e}");
}

fn w_body(doc: wire::Doc) -> Vec<u8> {
    wire::Body {
        source: String::new(),
        doc,
        prefabs: vec![],
    }
    .encode()
}

#[test]
fn duplicate_ids_and_prefabs_are_named() {
    let mut w = wire::doc(&scene_doc(&[]));
    let dup = w.entities[0].clone();
    w.entities.push(dup);
    let e = CookedScene::decode(&encode_body(&wire::Body {
        source: String::new(),
        doc: w,
        prefabs: vec![],
    }))
    .unwrap_err();
    assert_eq!(e.code(), "forge::cook::duplicate_id", "{e}");
    common::task_pools();
    // In a scene large enough to decode on two threads: keys given twice in chunks far apart,
    // the first repeat in file order named, every time; in a bundled prefab, the prefab named.
    let mut w = wire::doc(&scene_doc(&[]));
    let first = w.entities[0].clone();
    for k in 2..20_000u64 {
        let mut e = first.clone();
        e.1.id = k;
        e.0 = k;
        w.entities.push(e);
    }
    w.entities[15_000].0 = 1_234; // repeats key 1,234 (chunk 1) in chunk 14
    w.entities[19_000].0 = 7; // and key 7 (chunk 0) in chunk 18
    let bytes = encode_body(&wire::Body {
        source: String::new(),
        doc: w.clone(),
        prefabs: vec![],
    });
    for _ in 0..5 {
        let e = CookedScene::decode(&bytes).unwrap_err();
        assert_eq!(e.code(), "forge::cook::duplicate_id", "{e}");
        assert!(
            e.to_string()
                .contains("entity 1234 appears twice in the scene"),
            "{e}"
        );
    }
    let e = CookedScene::decode(&encode_body(&wire::Body {
        source: String::new(),
        doc: wire::doc(&scene_doc(&["p.forge.ron"])),
        prefabs: vec![("p.forge.ron".into(), w)],
    }))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("entity 1234 appears twice in prefab `p.forge.ron`"),
        "{e}"
    );
    let p = wire::doc(&prefab_doc(&[]));
    let e = CookedScene::decode(&encode_body(&wire::Body {
        source: String::new(),
        doc: wire::doc(&scene_doc(&["p.forge.ron"])),
        prefabs: vec![("p.forge.ron".into(), p.clone()), ("p.forge.ron".into(), p)],
    }))
    .unwrap_err();
    assert_eq!(e.code(), "forge::cook::duplicate_prefab", "{e}");
}

#[test]
fn encoding_is_deterministic_and_prefab_order_matters() {
    let s = cooked(
        scene_doc(&["a.forge.ron", "b.forge.ron"]),
        vec![
            ("a.forge.ron", prefab_doc(&[])),
            ("b.forge.ron", prefab_doc(&[])),
        ],
    );
    assert_eq!(s.encode(), s.clone().encode());
    let other = CookedScene {
        source: "elsewhere/level.forge.ron".into(),
        ..s.clone()
    };
    assert_ne!(
        s.encode(),
        other.encode(),
        "the source is part of the bytes"
    );
    // Prefabs given out of order: written sorted, as decoding gives them.
    let mut unsorted = s.clone();
    unsorted.prefabs.reverse();
    assert_eq!(
        unsorted.encode(),
        s.encode(),
        "the same scene, the same bytes"
    );
    assert_eq!(CookedScene::decode(&unsorted.encode()).unwrap(), s);
}

// ---- documents that only a cooked file can hold ----

#[test]
fn a_cooked_format_version_the_text_reader_refuses_is_refused() {
    let mut h = Harness::new();
    for v in [2u32, 99, u32::MAX] {
        let mut doc = scene_doc(&[]);
        doc.format_version = v;
        // Text that says so does not read.
        let text_error = SceneDoc::from_str(
            &doc_text("S", "(type: camera3d)", &[])
                .replace("format_version: 1", &format!("format_version: {v}")),
        )
        .unwrap_err();
        assert!(text_error.to_string().contains("newer"), "{text_error}");
        let path = format!("v{v}.forge.bin");
        h.add_bytes(&path, &cooked(doc, vec![]).encode());
        let r = outcome(&mut h, &path);
        if let Ok(handle) = &r {
            eprintln!(
                "format_version {v} loaded; in memory: {}",
                scene_of(&h, handle).doc().format_version
            );
        }
        assert!(
            r.is_err(),
            "format_version {v} loaded from cooked bytes (the text reader refuses it: {text_error})"
        );
    }
}

#[test]
fn a_cooked_format_version_zero_is_refused() {
    // The cook writes the document as held in memory, always version 1; a 0 was not written by
    // it.
    let mut h = Harness::new();
    let mut doc = scene_doc(&[]);
    doc.format_version = 0;
    h.add_bytes("v0.forge.bin", &cooked(doc, vec![]).encode());
    let error = outcome(&mut h, "v0.forge.bin").unwrap_err();
    assert!(error.contains("forge::cook::document"), "{error}");
    assert!(error.contains("format_version 0"), "{error}");
}

/// `set` of a component with no fields (`camera2d`): the text reader refuses it
/// (`NothingToSet`); validation does not look.
#[test]
fn a_patch_the_text_reader_refuses_is_refused() {
    let mut h = Harness::new();
    let mut doc = scene_doc(&["p.forge.ron"]);
    let mut prefab = prefab_doc(&[]);
    prefab
        .entity_mut(1)
        .unwrap()
        .components
        .push(ComponentData::Camera2d);
    doc.entity_mut(2).unwrap().instance = Some(Box::new(Instance {
        model: None,
        scene: "p.forge.ron".into(),
        overrides: vec![Override {
            target: vec![1],
            set: vec![ComponentPatch {
                component: ComponentData::Camera2d,
                fields: vec![],
            }],
            ..Default::default()
        }],
        streaming: None,
    }));
    let text = doc.to_canonical_string();
    let text_error = SceneDoc::from_str(&text).unwrap_err();
    h.add_bytes(
        "set_camera.forge.bin",
        &cooked(doc, vec![("p.forge.ron", prefab)]).encode(),
    );
    let r = outcome(&mut h, "set_camera.forge.bin");
    assert!(r.is_err(), "loaded; its text does not read: {text_error}");
}

/// A patch whose field list names no field: the text reader only ever writes known fields.
#[test]
fn a_patch_of_unknown_fields_is_reported() {
    let mut h = Harness::new();
    let mut doc = scene_doc(&["p.forge.ron"]);
    let prefab = prefab_doc(&[]);
    let ComponentData::PointLight(mut light) = prefab.entity(1).unwrap().components[0].clone()
    else {
        unreachable!()
    };
    light.intensity = 5.0;
    doc.entity_mut(2).unwrap().instance = Some(Box::new(Instance {
        model: None,
        scene: "p.forge.ron".into(),
        overrides: vec![Override {
            target: vec![1],
            set: vec![ComponentPatch {
                component: ComponentData::PointLight(light),
                fields: vec!["intensty".into(), "".into(), "intensity ".into()],
            }],
            ..Default::default()
        }],
        streaming: None,
    }));
    let back = SceneDoc::from_str(&doc.to_canonical_string());
    eprintln!(
        "text of it reads back: {:?}",
        back.as_ref().map(|p| p.doc == doc)
    );
    h.add_bytes(
        "bogus_fields.forge.bin",
        &cooked(doc, vec![("p.forge.ron", prefab)]).encode(),
    );
    let r = outcome(&mut h, "bogus_fields.forge.bin");
    assert!(
        r.is_err(),
        "an override setting fields `intensty`, ``, `intensity ` loaded as a silent no-op"
    );
}

#[test]
fn key_id_mismatch_nan_and_forest_breaks_get_text_codes() {
    let mut h = Harness::new();
    // Key 1 holding id 7.
    let mut w = wire::doc(&scene_doc(&[]));
    w.entities[0].1.id = 7;
    h.add_bytes(
        "mismatch.forge.bin",
        &encode_body(&wire::Body {
            source: "m.forge.ron".into(),
            doc: w,
            prefabs: vec![],
        }),
    );
    let e = outcome(&mut h, "mismatch.forge.bin").unwrap_err();
    assert!(e.contains("mismatch.forge.bin"), "{e}");
    eprintln!("key/id: {e}");
    // NaN and inf.
    let mut doc = scene_doc(&[]);
    doc.entity_mut(1).unwrap().transform.translation.x = f32::NAN;
    doc.entity_mut(1).unwrap().transform.scale.y = f32::INFINITY;
    h.add_bytes("nan.forge.bin", &cooked(doc, vec![]).encode());
    let e = outcome(&mut h, "nan.forge.bin").unwrap_err();
    eprintln!("nan: {e}");
    // An entity its own parent and child.
    let mut doc = scene_doc(&[]);
    doc.entity_mut(1).unwrap().parent = Some(1);
    doc.entity_mut(1).unwrap().children = vec![1];
    h.add_bytes("self.forge.bin", &cooked(doc, vec![]).encode());
    let e = outcome(&mut h, "self.forge.bin").unwrap_err();
    eprintln!("self parent: {e}");
    // An instance path with `..` and an absolute one, bundled under those names.
    for (i, bad) in ["../secret.forge.ron", "/etc/x.forge.ron", "a\\b.forge.ron"]
        .into_iter()
        .enumerate()
    {
        let mut doc = scene_doc(&["p.forge.ron"]);
        doc.entity_mut(2).unwrap().instance.as_mut().unwrap().scene = bad.into();
        let path = format!("escape{i}.forge.bin");
        h.add_bytes(&path, &cooked(doc, vec![(bad, prefab_doc(&[]))]).encode());
        let e = outcome(&mut h, &path).unwrap_err();
        assert!(e.contains("forge::asset::"), "{bad}: {e}");
    }
}

// ---- bundled prefabs ----

#[test]
fn prefab_cycles_inside_the_bundle_are_refused() {
    let mut h = Harness::new();
    let s = cooked(
        scene_doc(&["a.forge.ron"]),
        vec![
            ("a.forge.ron", prefab_doc(&["b.forge.ron"])),
            ("b.forge.ron", prefab_doc(&["a.forge.ron"])),
        ],
    );
    h.add_bytes("cycle.forge.bin", &s.encode());
    let e = outcome(&mut h, "cycle.forge.bin").unwrap_err();
    assert!(e.contains("forge::prefab::cycle"), "{e}");
    // A prefab placing itself, and the scene placing itself through the bundle.
    let s = cooked(
        scene_doc(&["self.forge.ron", "level.forge.ron"]),
        vec![
            ("self.forge.ron", prefab_doc(&["self.forge.ron"])),
            ("level.forge.ron", scene_doc(&["level.forge.ron"])),
        ],
    );
    h.add_bytes("level.forge.bin", &s.encode());
    let e = outcome(&mut h, "level.forge.bin").unwrap_err();
    assert!(e.contains("forge::prefab::cycle"), "{e}");
}

#[test]
fn a_missing_or_invalid_bundled_prefab_is_named() {
    let mut h = Harness::new();
    // Placed but not bundled (even though the file exists in the source: a cooked scene reads
    // no prefab files).
    h.add("p.forge.ron", &doc_text("P", LIGHT, &[]));
    h.add_bytes(
        "missing.forge.bin",
        &cooked(scene_doc(&["p.forge.ron"]), vec![]).encode(),
    );
    let e = outcome(&mut h, "missing.forge.bin").unwrap_err();
    assert!(
        e.contains("p.forge.ron") && e.contains("not bundled"),
        "{e}"
    );
    // Bundled but broken: its problem names the prefab.
    let mut bad = prefab_doc(&[]);
    bad.entity_mut(1).unwrap().children = vec![99];
    h.add_bytes(
        "invalid.forge.bin",
        &cooked(scene_doc(&["q.forge.ron"]), vec![("q.forge.ron", bad)]).encode(),
    );
    let e = outcome(&mut h, "invalid.forge.bin").unwrap_err();
    assert!(e.contains("q.forge.ron"), "{e}");
    eprintln!("invalid bundled prefab: {e}");
}

#[test]
fn deep_and_exponential_bundles_end_quickly() {
    let mut h = Harness::new();
    // A chain 40 files deep.
    let names: Vec<String> = (0..40).map(|i| format!("p{i:02}.forge.ron")).collect();
    let mut prefabs = Vec::new();
    for i in 0..40 {
        let places: Vec<&str> = names
            .get(i + 1)
            .map(|n| vec![n.as_str()])
            .unwrap_or_default();
        prefabs.push((names[i].as_str(), prefab_doc(&places)));
    }
    h.add_bytes(
        "deep.forge.bin",
        &cooked(scene_doc(&[names[0].as_str()]), prefabs).encode(),
    );
    let started = std::time::Instant::now();
    let e = outcome(&mut h, "deep.forge.bin").unwrap_err();
    assert!(e.contains("forge::prefab::too_deep"), "{e}");
    assert!(started.elapsed().as_secs() < 120);
    // Each prefab places the next one twice, 24 levels: 2^24 entities if expanded.
    let names: Vec<String> = (0..24).map(|i| format!("x{i:02}.forge.ron")).collect();
    let mut prefabs = Vec::new();
    for i in 0..24 {
        let places: Vec<&str> = names
            .get(i + 1)
            .map(|n| vec![n.as_str(), n.as_str()])
            .unwrap_or_default();
        prefabs.push((names[i].as_str(), prefab_doc(&places)));
    }
    let bytes = cooked(scene_doc(&[names[0].as_str()]), prefabs).encode();
    eprintln!("exponential bundle: {} bytes", bytes.len());
    h.add_bytes("wide.forge.bin", &bytes);
    let started = std::time::Instant::now();
    let e = outcome(&mut h, "wide.forge.bin").unwrap_err();
    eprintln!(
        "exponential: {:?} {}",
        started.elapsed(),
        &e[..e.len().min(300)]
    );
    assert!(e.contains("too_large"), "{e}");
    assert!(started.elapsed().as_secs() < 120);
}

#[test]
fn a_prefab_chain_three_deep_spawns_from_the_bundle() {
    let mut h = Harness::new();
    let s = cooked(
        scene_doc(&["a.forge.ron"]),
        vec![
            ("a.forge.ron", prefab_doc(&["b.forge.ron"])),
            ("b.forge.ron", prefab_doc(&["c.forge.ron"])),
            ("c.forge.ron", prefab_doc(&[])),
            ("unused/../../x.forge.ron", prefab_doc(&[])),
        ],
    );
    h.add_bytes("chain.forge.bin", &s.encode());
    let (_, inst) = h.spawn_scene("chain.forge.bin");
    assert!(inst.entity_path(&[2, 2, 2, 1]).is_some());
}

// ---- forms and paths ----

#[test]
fn each_form_loads_under_the_others_extension() {
    let mut h = Harness::new();
    let text = doc_text("S", "(type: camera3d)", &[]);
    h.add("text_in.forge.bin", &text);
    outcome(&mut h, "text_in.forge.bin").unwrap();
    h.add_bytes(
        "bytes_in.forge.ron",
        &cooked(scene_doc(&[]), vec![]).encode(),
    );
    outcome(&mut h, "bytes_in.forge.ron").unwrap();
    // A text transfer that rewrote \r\n: the magic no longer matches.
    let mut bytes = cooked(scene_doc(&[]), vec![]).encode();
    bytes.remove(6);
    h.add_bytes("crlf.forge.bin", &bytes);
    let e = outcome(&mut h, "crlf.forge.bin").unwrap_err();
    eprintln!("lf-rewritten magic: {e}");
    assert!(e.contains("crlf.forge.bin"), "{e}");
}

/// A cooked file of more than 1 MiB goes through the streaming text reader first.
#[test]
fn a_large_cooked_file_loads() {
    let mut h = Harness::new();
    let mut doc = scene_doc(&[]);
    let mut e1 = doc.entity(1).unwrap().clone();
    e1.components.clear();
    e1.name = "x".repeat(2 << 20).into();
    doc.entities.insert(1, e1.into());
    let bytes = cooked(doc, vec![]).encode();
    assert!(bytes.len() > 2 << 20);
    h.add_bytes("big.forge.bin", &bytes);
    outcome(&mut h, "big.forge.bin").unwrap();
}

#[test]
fn hot_reload_swaps_text_and_bytes_on_one_path() {
    let mut h = Harness::new();
    let text = |name: &str| {
        doc_text(name, "(type: camera3d)", &[]).replace("\"First\"", &format!("\"{name}\""))
    };
    h.add("level.forge.ron", &text("A"));
    let (root, inst) = h.spawn_scene("level.forge.ron");
    let e = inst.entity(1).unwrap();
    let name = |h: &Harness| {
        h.world()
            .get::<bevy_ecs::name::Name>(e)
            .unwrap()
            .as_str()
            .to_owned()
    };
    assert_eq!(name(&h), "A");
    let mut doc = scene_doc(&[]);
    doc.entity_mut(1).unwrap().name = "B".into();
    h.modify_bytes("level.forge.ron", &cooked(doc, vec![]).encode());
    h.run_until(|w| {
        w.get::<bevy_ecs::name::Name>(e)
            .is_some_and(|n| n.as_str() == "B")
    });
    h.modify("level.forge.ron", &text("C"));
    h.run_until(|w| {
        w.get::<bevy_ecs::name::Name>(e)
            .is_some_and(|n| n.as_str() == "C")
    });
    // A damaged cooked save keeps the last good scene.
    let mut bad = cooked(scene_doc(&[]), vec![]).encode();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    h.modify_bytes("level.forge.ron", &bad);
    for _ in 0..50 {
        h.app.update();
    }
    assert_eq!(name(&h), "C");
    assert!(h.world().get::<ForgeSceneInstance>(root).is_some());
}

/// Through the twin reader, a damaged twin's error should name the file that is damaged.
#[test]
fn a_damaged_twin_read_for_its_text_path_names_the_cooked_file() {
    let dir = Dir::default();
    let mut bytes = cooked(scene_doc(&[]), vec![]).encode();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    dir.insert_asset(Path::new("lvl/one.forge.bin"), bytes);
    let mut app = twin_app(&dir);
    let LoadState::Failed(error) = load_state(&mut app, "lvl/one.forge.ron") else {
        panic!("loaded")
    };
    let msg = ForgeSceneLoadError::from_asset_error(&error)
        .map(|e| e.to_string())
        .unwrap_or_else(|| error.to_string());
    eprintln!("damaged twin: {msg}");
    assert!(
        msg.contains("one.forge.bin"),
        "the message names only the text path, whose file does not exist: {msg}"
    );
}

#[test]
fn the_twin_reader_prefers_text_and_falls_back() {
    let dir = Dir::default();
    // Text present but invalid, twin valid: the text wins (and fails).
    dir.insert_asset_text(Path::new("both/l.forge.ron"), "(not a scene");
    dir.insert_asset(
        Path::new("both/l.forge.bin"),
        cooked(scene_doc(&[]), vec![]).encode(),
    );
    // Only text.
    dir.insert_asset_text(
        Path::new("text/l.forge.ron"),
        &doc_text("S", "(type: camera3d)", &[]),
    );
    // A text scene placing a prefab that ships only as its twin.
    dir.insert_asset_text(
        Path::new("mixed/l.forge.ron"),
        &doc_text("S", "(type: camera3d)", &["mixed/p.forge.ron"]),
    );
    dir.insert_asset(
        Path::new("mixed/p.forge.bin"),
        cooked(prefab_doc(&[]), vec![]).encode(),
    );
    let mut app = twin_app(&dir);
    assert!(matches!(
        load_state(&mut app, "both/l.forge.ron"),
        LoadState::Failed(_)
    ));
    assert!(matches!(
        load_state(&mut app, "text/l.forge.ron"),
        LoadState::Loaded
    ));
    assert!(matches!(
        load_state(&mut app, "mixed/l.forge.ron"),
        LoadState::Loaded
    ));
    // Asking for the twin path by name of something that is not a scene.
    assert!(matches!(
        load_state(&mut app, "none/l.forge.bin"),
        LoadState::Failed(_)
    ));
}

/// A twin of 4 GiB or more read for its text path: the twin reader reads it whole before the
/// loader's size limit (4 GiB, refused before anything is read) can see it. Needs >4 GiB free
/// memory; run with `--ignored`.
#[test]
#[ignore = "a memory check: run alone by `memory_checks`"]
fn a_huge_twin_is_not_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let f = std::fs::File::create(dir.path().join("huge.forge.bin")).unwrap();
    f.set_len((4u64 << 30) + 16).unwrap(); // sparse
    drop(f);
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        bevy_forge_scene::with_cooked_twins(AssetSourceBuilder::platform_default(
            &dir.path().to_string_lossy(),
            None,
        )),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: dir.path().to_string_lossy().into_owned(),
            watch_for_changes_override: Some(false),
            use_asset_processor_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    let rss = || {
        std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find(|l| l.starts_with("VmHWM"))
            .unwrap()
            .to_owned()
    };
    let before = rss();
    let started = std::time::Instant::now();
    let direct = load_state(&mut app, "huge.forge.bin");
    let after_direct = rss();
    let twin = load_state(&mut app, "huge.forge.ron");
    let after_twin = rss();
    eprintln!(
        "before {before}; direct {direct:?} -> {after_direct}; twin {twin:?} -> {after_twin}; {:?}",
        started.elapsed()
    );
    let kb = |s: &str| s.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap();
    assert!(
        kb(&after_twin) < 1 << 20,
        "peak RSS {after_twin} after loading a 4 GiB twin by its text path"
    );
}

/// A text scene placing prefab `a` (shipped only as its twin, which bundles an older `b`) and
/// `b` itself (text): the scene's own `b` instance uses the text `b`, but `to_cooked` (what the
/// asset processor saves) bundles the older `b` from `a`'s twin, so the cooked scene spawns
/// the scene's own `b` instance differently from its text.
#[test]
fn to_cooked_bundles_the_prefab_the_scene_expanded_with() {
    let dir = Dir::default();
    let named =
        |name: &str| doc_text(name, LIGHT, &[]).replace("\"First\"", &format!("\"{name}\""));
    dir.insert_asset_text(
        Path::new("s.forge.ron"),
        &doc_text("S", "(type: camera3d)", &["a.forge.ron", "b.forge.ron"]),
    );
    dir.insert_asset_text(Path::new("b.forge.ron"), &named("B new"));
    let old_b = SceneDoc::from_str(&named("B old")).unwrap().doc;
    dir.insert_asset(
        Path::new("a.forge.bin"),
        cooked(prefab_doc(&["b.forge.ron"]), vec![("b.forge.ron", old_b)]).encode(),
    );
    let mut app = twin_app(&dir);
    let handle: Handle<ForgeScene> = app.world().resource::<AssetServer>().load("s.forge.ron");
    for _ in 0..4_000 {
        app.update();
        if app
            .world()
            .resource::<AssetServer>()
            .is_loaded_with_dependencies(&handle)
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let scenes = app.world().resource::<bevy_asset::Assets<ForgeScene>>();
    let scene = scenes.get(&handle).expect("loaded");
    let expanded = scene.expanded().unwrap();
    let own_b = expanded.key(&[3, 1]).unwrap();
    assert_eq!(expanded.doc.entity(own_b).unwrap().name, "B new");
    let c = scene.to_cooked("s.forge.ron");
    let b = &c
        .prefabs
        .iter()
        .find(|(p, _)| p == "b.forge.ron")
        .unwrap()
        .1;
    assert_eq!(
        b.entity(1).unwrap().name,
        "B new",
        "the cooked twin bundles the `b` of `a`'s twin, not the one the scene placed"
    );
}

/// Bevy's processor on a scene with a prefab chain three files deep.
#[test]
fn the_processor_bundles_a_three_deep_chain() {
    let source = tempfile::tempdir().unwrap();
    let processed = tempfile::tempdir().unwrap();
    write(
        source.path(),
        "scenes/l.forge.ron",
        &doc_text("L", "(type: camera3d)", &["prefabs/a.forge.ron"]),
    );
    write(
        source.path(),
        "prefabs/a.forge.ron",
        &doc_text("A", LIGHT, &["prefabs/b.forge.ron"]),
    );
    write(
        source.path(),
        "prefabs/b.forge.ron",
        &doc_text("B", LIGHT, &["prefabs/c.forge.ron"]),
    );
    write(
        source.path(),
        "prefabs/c.forge.ron",
        &doc_text("C", LIGHT, &[]),
    );
    let mut app = common::cooked::processed_app(source.path(), processed.path());
    let state = load_state(&mut app, "scenes/l.forge.ron");
    assert!(matches!(state, LoadState::Loaded), "{state:?}");
    let c =
        CookedScene::decode(&std::fs::read(processed.path().join("scenes/l.forge.ron")).unwrap())
            .unwrap();
    let paths: Vec<_> = c.prefabs.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "prefabs/a.forge.ron",
            "prefabs/b.forge.ron",
            "prefabs/c.forge.ron"
        ]
    );
}

/// The cooked file's `source` reaches messages with its control characters escaped.
#[test]
fn a_hostile_source_name_is_escaped_in_messages() {
    let mut h = Harness::new();
    let mut doc = scene_doc(&[]);
    doc.entity_mut(1).unwrap().children = vec![42];
    let s = CookedScene {
        source:
            "x.forge.ron)\n  fake.forge.ron:1:1: error[forge::fake]: \u{1b}[31mall good\u{1b}[0m"
                .into(),
        doc,
        prefabs: vec![],
    };
    h.add_bytes("src.forge.bin", &s.encode());
    let e = outcome(&mut h, "src.forge.bin").unwrap_err();
    eprintln!("{e:?}");
    assert!(
        !e.contains('\u{1b}') && !e.contains("\n  fake"),
        "control characters from the file reach the message: {e:?}"
    );
}

// ---- the first problem in file order wins (raw bodies, written by hand) ----

/// A plain entity: key, flags 0, empty name, zero transform.
fn raw_entity(key: u64) -> Vec<u8> {
    let mut b = Vec::new();
    varint(key, &mut b);
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(&[0u8; 36]);
    b
}

/// A document: format_version 1, name "", next_id 2^40, no roots, the entities in the chunks
/// given.
fn raw_doc(chunks: &[Vec<Vec<u8>>]) -> Vec<u8> {
    let mut b = Vec::new();
    varint(1, &mut b);
    b.push(0);
    varint(1 << 40, &mut b);
    b.push(0);
    let total: usize = chunks.iter().map(Vec::len).sum();
    varint(total as u64, &mut b);
    varint(chunks.len() as u64, &mut b);
    for c in chunks {
        varint(c.len() as u64, &mut b);
        varint(c.iter().map(Vec::len).sum::<usize>() as u64, &mut b);
    }
    for e in chunks.iter().flatten() {
        b.extend_from_slice(e);
    }
    b
}

/// Source "", an empty pool, the scene, the prefabs in the order given.
fn raw_body(scene: &[u8], prefabs: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut b = vec![0, 0];
    b.extend_from_slice(scene);
    varint(prefabs.len() as u64, &mut b);
    for (p, d) in prefabs {
        varint(p.len() as u64, &mut b);
        b.extend_from_slice(p.as_bytes());
        b.extend_from_slice(d);
    }
    b
}

fn raw_error(body: &[u8]) -> bevy_forge_scene::cook::CookError {
    CookedScene::decode(&wrap(body)).unwrap_err()
}

/// An entity whose flags byte has a bit this build does not know.
fn raw_bad_entity(key: u64) -> Vec<u8> {
    let mut e = raw_entity(key);
    let flags = e.len() - 38;
    e[flags] = 0x40;
    e
}

#[test]
fn a_key_given_twice_comes_before_a_later_broken_entity() {
    // Same chunk, a later chunk.
    for chunks in [
        vec![vec![raw_entity(1), raw_entity(1), raw_bad_entity(3)]],
        vec![vec![raw_entity(1), raw_entity(1)], vec![raw_bad_entity(3)]],
    ] {
        let e = raw_error(&raw_body(&raw_doc(&chunks), &[]));
        assert_eq!(e.code(), "forge::cook::duplicate_id", "{e}");
    }
    // A broken entity before the repeat: the layout error.
    let e = raw_error(&raw_body(
        &raw_doc(&[vec![raw_bad_entity(1), raw_entity(1)]]),
        &[],
    ));
    assert_eq!(e.code(), "forge::cook::body", "{e}");
    common::task_pools();
    // On two threads: key 5 repeated in chunk 0, a broken entity in chunk 8.
    let mut chunks: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut k = 1u64;
    for c in 0..9 {
        let mut v: Vec<Vec<u8>> = (0..1000).map(|i| raw_entity(k + i)).collect();
        k += 1000;
        if c == 0 {
            v[10] = raw_entity(5);
        }
        if c == 8 {
            v[999] = raw_bad_entity(k);
        }
        chunks.push(v);
    }
    let bytes = wrap(&raw_body(&raw_doc(&chunks), &[]));
    for _ in 0..10 {
        let e = CookedScene::decode(&bytes).unwrap_err();
        assert_eq!(e.code(), "forge::cook::duplicate_id", "{e}");
        assert!(e.to_string().contains("entity 5 appears twice"), "{e}");
    }
}

#[test]
fn bundled_prefabs_are_sorted_and_each_once_in_file_order() {
    let p = raw_doc(&[vec![raw_entity(1)]]);
    let s = raw_doc(&[vec![raw_entity(1)]]);
    // Out of order: refused where it happens.
    let e = raw_error(&raw_body(
        &s,
        &[("b", p.clone()), ("a", p.clone()), ("b", p.clone())],
    ));
    assert_eq!(e.code(), "forge::cook::body", "{e}");
    assert!(e.to_string().contains("prefab `a` follows `b`"), "{e}");
    // The same path twice, before anything wrong inside the second copy.
    let mut newer = p.clone();
    newer[0] = 2; // format_version 2
    let e = raw_error(&raw_body(&s, &[("a", p.clone()), ("a", newer)]));
    assert_eq!(e.code(), "forge::cook::duplicate_prefab", "{e}");
}

#[test]
fn a_document_rule_is_refused_before_later_bytes_are_read() {
    let mut s = raw_doc(&[vec![raw_entity(1)]]);
    s[0] = 7; // the scene's format_version
    let e = raw_error(&raw_body(&s, &[("p", vec![0xFF])]));
    assert_eq!(e.code(), "forge::cook::document", "{e}");
    assert!(e.to_string().contains("format_version 7"), "{e}");
}

#[test]
fn chunks_hold_one_to_1024_entities_and_numbers_are_written_short() {
    let one = raw_entity(1);
    // An empty chunk, then a chunk of 1,025.
    let plain = raw_doc(&[vec![one.clone()]]);
    let with_empty = raw_doc(&[vec![one.clone()], vec![]]);
    assert!(CookedScene::decode(&wrap(&raw_body(&plain, &[]))).is_ok());
    let e = raw_error(&raw_body(&with_empty, &[]));
    assert!(e.to_string().contains("a chunk holds 1 to 1024"), "{e}");
    let big: Vec<Vec<u8>> = (1..=1025).map(raw_entity).collect();
    let e = raw_error(&raw_body(&raw_doc(&[big]), &[]));
    assert!(e.to_string().contains("a chunk holds 1 to 1024"), "{e}");
    // next_id 2^40 is six bytes (`80 80 80 80 80 20`); seven, ending in zero, are refused.
    let at = 2; // after format_version and the empty name
    assert_eq!(&plain[at..at + 6], &[0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    let mut longer = plain[..at + 5].to_vec();
    longer.extend_from_slice(&[0xA0, 0x00]);
    longer.extend_from_slice(&plain[at + 6..]);
    let body = raw_body(&longer, &[]);
    let e = raw_error(&body);
    // Reported at the number's first byte, as every number is.
    let start = body
        .windows(7)
        .position(|w| w == [0x80, 0x80, 0x80, 0x80, 0x80, 0xA0, 0x00])
        .unwrap();
    assert!(
        e.to_string().contains(&format!(
            "at byte {} of the file, in the scene: next_id is written in more bytes than it needs",
            start + COOKED_HEADER_LEN
        )),
        "{e}"
    );
    // Eleven bytes cannot fit 64 bits: also at the first.
    let mut huge = plain[..at].to_vec();
    huge.extend_from_slice(&[0xFF; 10]);
    huge.push(0x01);
    huge.extend_from_slice(&plain[at + 6..]);
    let body = raw_body(&huge, &[]);
    let start = body.windows(10).position(|w| w == [0xFF; 10]).unwrap();
    let e = raw_error(&body);
    assert!(
        e.to_string().contains(&format!(
            "at byte {} of the file, in the scene: next_id does not fit 64 bits",
            start + COOKED_HEADER_LEN
        )),
        "{e}"
    );
}

#[test]
#[ignore = "a memory check: run alone by `memory_checks`"]
fn an_announced_component_count_does_not_reserve_far_more_than_the_file() {
    let n = 4 << 20;
    let mut e = Vec::new();
    varint(1, &mut e);
    e.push(8); // components follow
    e.push(0); // name ""
    e.extend_from_slice(&[0u8; 36]);
    varint(n as u64 / 2 - 8, &mut e); // as many as the bytes left could hold
    e.extend(std::iter::repeat_n(0x07u8, n)); // tag 7: refused at once
    let file = wrap(&raw_body(&raw_doc(&[vec![e]]), &[]));
    let (r, rise, _) = virtual_rise(|| CookedScene::decode(&file));
    let e = r.unwrap_err();
    assert_eq!(e.code(), "forge::cook::body", "{e}");
    assert!(
        rise < 16 * file.len(),
        "a {}-byte file reserved {rise} bytes",
        file.len()
    );
}

/// Radii a text scene is refused for (NaN, infinite, zero, negative, load not below unload)
/// are refused in a cooked twin too, by the same code: the twin loads as its text would.
#[test]
fn streaming_radii_the_text_refuses_are_refused_cooked() {
    let mut h = Harness::new();
    let bad = [
        (f32::NAN, 50.0),
        (1.0, f32::INFINITY),
        (0.0, 50.0),
        (-1.0, 50.0),
        (50.0, 50.0),
        (60.0, 50.0),
        (-0.0, f32::NEG_INFINITY),
    ];
    for (n, (load_radius, unload_radius)) in bad.into_iter().enumerate() {
        let mut doc = scene_doc(&["p.forge.ron"]);
        doc.entity_mut(2)
            .unwrap()
            .instance
            .as_mut()
            .unwrap()
            .streaming = Some(bevy_forge_scene::format::Streaming {
            load_radius,
            unload_radius,
        });
        let path = format!("radii{n}.forge.bin");
        h.add_bytes(
            &path,
            &cooked(doc, vec![("p.forge.ron", prefab_doc(&[]))]).encode(),
        );
        let e = outcome(&mut h, &path).unwrap_err();
        assert!(
            e.contains("forge::prefab::streaming"),
            "({load_radius}, {unload_radius}): {e}"
        );
    }
}

/// A palette key the text reader refuses (a control character such as a tab or a newline) is
/// refused in a cooked twin as well: the twin holds only what its text could.
#[test]
fn a_control_character_palette_key_is_refused_cooked() {
    use bevy_forge_scene::format::TileLayer;
    let mut h = Harness::new();
    for (n, key) in ['\t', '\n', '\u{7f}'].into_iter().enumerate() {
        let mut doc = scene_doc(&[]);
        let mut layer = TileLayer::new(3, "Ground");
        layer.palette.push((key, "p.forge.ron".into()));
        layer.rows = vec![format!("{key}{key}")];
        doc.layers.push(layer);
        doc.next_id = 4;
        let text_error = SceneDoc::from_str(&doc.to_canonical_string()).unwrap_err();
        let path = format!("key{n}.forge.bin");
        h.add_bytes(
            &path,
            &cooked(doc, vec![("p.forge.ron", prefab_doc(&[]))]).encode(),
        );
        let e = outcome(&mut h, &path).unwrap_err();
        assert!(
            e.contains("palette key"),
            "{key:?}: {e}\n(text: {text_error})"
        );
    }
}

/// Every byte of a cooked scene with a streamed instance (flag `0x40` and its radii) and a tile
/// layer, damaged behind a valid checksum, decodes or is refused with a diagnostic code; never
/// a panic, and what decodes validates without one.
#[test]
fn damaged_bytes_around_streaming_and_layers_never_panic() {
    use bevy_forge_scene::format::TileLayer;
    let mut doc = scene_doc(&["p.forge.ron"]);
    doc.entity_mut(2)
        .unwrap()
        .instance
        .as_mut()
        .unwrap()
        .streaming = Some(bevy_forge_scene::format::Streaming {
        load_radius: 40.0,
        unload_radius: 50.0,
    });
    let mut layer = TileLayer::new(3, "Ground");
    layer.parent = Some(2);
    layer.palette.push(('😀', "p.forge.ron".into()));
    layer.rows = vec!["😀.😀".into(), ".😀.".into()];
    doc.layers.push(layer);
    doc.next_id = 4;
    let good = cooked(doc, vec![("p.forge.ron", prefab_doc(&[]))]).encode();
    assert!(CookedScene::decode(&good).is_ok());
    let body = &good[COOKED_HEADER_LEN..];
    let (mut refused, mut decoded) = (0, 0);
    for at in 0..body.len() {
        for flip in [0x01u8, 0x20, 0x40, 0x80, 0xFF] {
            let mut b = body.to_vec();
            b[at] ^= flip;
            match CookedScene::decode(&wrap(&b)) {
                Err(e) => {
                    refused += 1;
                    assert!(
                        e.code().starts_with("forge::"),
                        "byte {at} ^ {flip:#x}: {e}"
                    );
                }
                Ok(scene) => {
                    decoded += 1;
                    let _ = bevy_forge_scene::validate::validate_scene(&scene.doc, None);
                }
            }
        }
    }
    assert!(
        refused > 0 && decoded > 0,
        "{refused} refused, {decoded} decoded"
    );
}
