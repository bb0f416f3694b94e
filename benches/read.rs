//! Reading and writing `.forge.ron` text: `cargo bench --bench read`.
//!
//! Measures `SceneDoc::from_str` (text to document with its source map) and
//! `SceneDoc::to_canonical_string` on canonical text of generated scenes, in bytes per second.

mod support;

use bevy_forge_scene::format::SceneDoc;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn read(c: &mut Criterion) {
    let mut group = c.benchmark_group("read");
    for n in [1_000usize, 10_000] {
        let text = support::generate(n, 7).to_canonical_string();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("forge_from_str", n), &text, |b, text| {
            b.iter(|| {
                let parsed = SceneDoc::from_str(text);
                assert!(parsed.is_ok());
                parsed
            })
        });
        group.bench_with_input(BenchmarkId::new("ron_serde_oracle", n), &text, |b, text| {
            b.iter(|| {
                let parsed = ron::from_str::<SceneDoc>(text);
                assert!(parsed.is_ok());
                parsed
            })
        });
    }
    group.finish();
}

fn write(c: &mut Criterion) {
    let mut group = c.benchmark_group("write");
    for n in [1_000usize, 10_000] {
        let doc = support::generate(n, 7);
        let len = doc.to_canonical_string().len();
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(
            BenchmarkId::new("to_canonical_string", n),
            &doc,
            |b, doc| b.iter(|| doc.to_canonical_string()),
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = read, write
}
criterion_main!(benches);
