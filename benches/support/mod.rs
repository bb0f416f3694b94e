//! Seeded scene generator shared by the benches: groups of one root with nine children, every
//! entity with a name, a non-trivial transform and two custom components (`Health` and `Tag`).
#![allow(dead_code)]

use bevy_forge_scene::format::{
    ComponentData, CustomComponent, CustomField, SceneDoc, TransformData, Vec3Data,
};

/// A small deterministic generator (SplitMix64), so the benches need no RNG crate.
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A float in `-range..range` with two decimals.
    pub fn float(&mut self, range: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        ((unit * 2.0 - 1.0) * range * 100.0).round() / 100.0
    }
}

/// A scene of `n` entities (`n / 10` groups of a root with nine children), seeded.
pub fn generate(n: usize, seed: u64) -> SceneDoc {
    let mut rng = SplitMix::new(seed);
    let mut doc = SceneDoc::new(format!("bench {n}"));
    let mut parent = None;
    for i in 0..n {
        let is_root = i % 10 == 0;
        let id = doc
            .add_entity(format!("entity {i}"), if is_root { None } else { parent })
            .unwrap_or_default();
        if is_root {
            parent = Some(id);
        }
        let transform = TransformData {
            translation: Vec3Data::new(rng.float(100.0), rng.float(100.0), rng.float(100.0)),
            rotation: Vec3Data::new(rng.float(180.0), rng.float(180.0), rng.float(180.0)),
            scale: Vec3Data::new(1.0 + rng.float(0.5).abs(), 1.0, 1.0 + rng.float(0.5).abs()),
        };
        let _ = doc.set_transform(id, transform);
        let max = 50 + rng.next_u64() % 100;
        let health = CustomComponent {
            type_path: "bench::Health".into(),
            fields: vec![
                CustomField::new("value", (rng.next_u64() % max).to_string()),
                CustomField::new("max", max.to_string()),
            ],
            value: None,
        };
        let tag = CustomComponent {
            type_path: "bench::Tag".into(),
            fields: vec![CustomField::new(
                "label",
                format!("\"tag-{}\"", rng.next_u64() % 1000),
            )],
            value: None,
        };
        let _ = doc.add_component(id, ComponentData::Custom(health));
        let _ = doc.add_component(id, ComponentData::Custom(tag));
    }
    doc
}
