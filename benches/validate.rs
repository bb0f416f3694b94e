//! Validating generated scenes: `cargo bench --bench validate`.
//!
//! Measures `validate_scene` (no asset index) and `validate_parsed` (positions from the source
//! map) on seeded scenes of 1k, 10k and 100k entities, in entities per second; equal throughput
//! across sizes means linear time. `check_integrity` alone is measured beside them for scale.

mod support;

use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::validate::{validate_parsed, validate_scene};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn validate(c: &mut Criterion) {
    let mut group = c.benchmark_group("validate");
    for n in [1_000usize, 10_000, 100_000] {
        let doc = support::generate(n, 7);
        let parsed = SceneDoc::from_str(&doc.to_canonical_string());
        assert!(parsed.is_ok(), "generated scenes read back");
        let Ok(parsed) = parsed else { return };
        // The generated scene is valid: no camera is the only remark, so no error path is timed.
        assert!(!validate_scene(&doc, None).has_errors());
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("validate_scene", n), &doc, |b, doc| {
            b.iter(|| {
                let report = validate_scene(doc, None);
                assert!(!report.has_errors());
                report
            })
        });
        // The forest rules alone, which validation includes, for scale.
        group.bench_with_input(BenchmarkId::new("check_integrity", n), &doc, |b, doc| {
            b.iter(|| {
                let problems = doc.check_integrity();
                assert!(problems.is_empty());
                problems
            })
        });
        group.bench_with_input(
            BenchmarkId::new("validate_parsed", n),
            &parsed,
            |b, parsed| {
                b.iter(|| {
                    let report = validate_parsed(parsed, None);
                    assert!(!report.has_errors());
                    report
                })
            },
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(3));
    targets = validate
}
criterion_main!(benches);
