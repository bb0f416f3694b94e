//! Entity references at scale: `cargo bench --bench refs`.
//!
//! `evaluate/<n>`: one field expression `vec![#2, #2, ..]` of n references evaluated as a
//! `Vec<Entity>`; `dangling/<n>`: `validate_references` on a scene of n entities, each naming an
//! entity that does not exist (every one a "did you mean" diagnostic). Throughput is per
//! reference, so equal throughput across sizes means linear time (a list of references once
//! took time quadratic in its length, and so did many dangling references).
#![allow(clippy::unwrap_used, missing_docs)]

use bevy_ecs::entity::Entity;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::schema::expr::{EntityRefs, evaluate_in};
use bevy_reflect::{PartialReflect, TypeRegistry, Typed};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Every reference names the same live entity.
struct Always;

impl EntityRefs for Always {
    fn resolve(&self, _: &[u64]) -> Result<Box<dyn PartialReflect>, String> {
        Ok(Box::new(Entity::PLACEHOLDER))
    }
}

fn scene(n: u64) -> String {
    let mut out = String::from("(format_version: 1, name: \"Refs\", entities: {\n");
    for id in 1..=n {
        out.push_str(&format!(
            "  {id}: (id: {id}, name: \"E{id}\", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: custom, data: (type_path: \"game::Door\", fields: [(name: \"opened_by\", expr: \"#{}\")]))]),\n",
            id + 10 * n
        ));
    }
    let roots: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    out.push_str(&format!(
        "}}, roots: [{}], next_id: {})",
        roots.join(", "),
        n + 1
    ));
    out
}

fn refs(c: &mut Criterion) {
    let mut group = c.benchmark_group("refs");
    group.sample_size(10);
    let registry = TypeRegistry::default();
    for n in [5_000usize, 40_000] {
        let expr = format!("vec![{}]", vec!["#2"; n].join(", "));
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("evaluate", n), &expr, |b, expr| {
            b.iter(|| {
                let value = evaluate_in(expr, <Vec<Entity>>::type_info(), &registry, &Always);
                assert!(value.is_ok());
                value
            })
        });
    }
    for n in [1_000u64, 8_000] {
        let text = scene(n);
        let parsed = SceneDoc::from_str(&text).unwrap();
        group.throughput(Throughput::Elements(n));
        group.bench_with_input(BenchmarkId::new("dangling", n), &parsed, |b, parsed| {
            b.iter(|| {
                let found = bevy_forge_scene::validate::validate_references(parsed);
                assert_eq!(found.len() as u64, n);
                found
            })
        });
    }
    group.finish();
}

criterion_group!(benches, refs);
criterion_main!(benches);
