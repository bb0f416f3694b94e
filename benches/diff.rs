//! Scene diffs for hot reload: `cargo bench --bench diff`.
//!
//! Measures `diff` between a generated scene and a copy with one entity's transform moved (the
//! common save while tuning a scene), and `SceneDiff::apply_to` of that diff, in entities per
//! second. `diff/node_eq_floor` compares every entity of the two documents pairwise with `==`
//! and nothing else: the memory-bound floor that any diff reading both documents pays.

mod support;

use bevy_forge_scene::diff::{SceneDiff, diff};
use bevy_forge_scene::format::{SceneDoc, Vec3Data};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// A scene of `n` entities and a copy with the transform of the middle entity moved.
fn one_transform_apart(n: usize) -> (SceneDoc, SceneDoc) {
    let old = support::generate(n, 7);
    let mut new = old.clone();
    let id = old.entities.keys().copied().nth(n / 2).unwrap_or_default();
    if let Some(node) = new.entity_mut(id) {
        node.transform.translation = Vec3Data::new(1.0, 2.0, 3.0);
    }
    (old, new)
}

fn diff_one_transform(c: &mut Criterion) {
    let mut group = c.benchmark_group("diff");
    for n in [10_000usize, 100_000] {
        let pair = one_transform_apart(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(
            BenchmarkId::new("one_transform", n),
            &pair,
            |b, (old, new)| {
                b.iter(|| {
                    let d = diff(old, new);
                    assert_eq!(d.changed_count(), 1);
                    d
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("node_eq_floor", n),
            &pair,
            |b, (old, new)| {
                b.iter(|| {
                    let differ = old
                        .entities
                        .values()
                        .zip(new.entities.values())
                        .filter(|(a, b)| a != b)
                        .count();
                    assert_eq!(differ, 1);
                    differ
                })
            },
        );
    }
    group.finish();
}

fn apply_one_transform(c: &mut Criterion) {
    let mut group = c.benchmark_group("apply_to");
    for n in [10_000usize, 100_000] {
        let (old, new) = one_transform_apart(n);
        let d: SceneDiff = diff(&old, &new);
        assert_eq!(d.changed_count(), 1);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("one_transform", n), &d, |b, d| {
            b.iter_batched_ref(|| old.clone(), |doc| d.apply_to(doc), BatchSize::LargeInput)
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = diff_one_transform, apply_one_transform
}
criterion_main!(benches);
