//! Three-way merges of scene files (`forge merge`): `cargo bench --bench merge`.
//!
//! A generated scene of 100,000 entities (the `support` generator: groups of a root and nine
//! children, each entity with a transform and two custom components) and two branches of it
//! with 100 changes each, spread over the file: this branch renames 50 entities, moves 40 and
//! adds 10; the other sets 50 custom fields, renames 40 others and adds 10 (under the same new
//! ids, so they are renumbered). Timed: `merge` from the three texts to the merged text (each
//! text read, the ids renumbered, the documents merged, the text made in place and read back).
//! Target: under 1 s.
//!
//! `merge/read` is one whole read of the same base text, in the same run: the yardstick a
//! loaded host's figures are read against (a merge reads its three texts and the merged one).

mod support;

use bevy_forge_scene::format::{CustomField, SceneDoc, Vec3Data};
use bevy_forge_scene::merge::merge;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// The base text and two branches of it, 100 changes each.
fn branches(n: usize) -> (String, String, String) {
    let base = support::generate(n, 11);
    let ids: Vec<u64> = base.entities.keys().copied().collect();
    let step = n / 100;
    let at = |k: usize, offset: usize| ids[(k * step + offset) % ids.len()];
    let mut ours = base.clone();
    let mut theirs = base.clone();
    for k in 0..50 {
        let _ = ours.rename(at(k, 1), format!("ours {k}"));
        if let Some(e) = theirs.entity_mut(at(k, 2))
            && let Some(bevy_forge_scene::format::ComponentData::Custom(c)) =
                e.components.first_mut()
        {
            c.fields[0] = CustomField::new("value", "1");
        }
    }
    for k in 50..90 {
        if let Some(e) = ours.entity_mut(at(k, 3)) {
            e.transform.translation = Vec3Data::new(1.0, 2.0, 3.0);
        }
        let _ = theirs.rename(at(k, 4), format!("theirs {k}"));
    }
    for k in 0..10 {
        let _ = ours.add_entity(format!("new ours {k}"), Some(at(k, 0)));
        let _ = theirs.add_entity(format!("new theirs {k}"), Some(at(k + 10, 0)));
    }
    (
        base.to_canonical_string(),
        ours.to_canonical_string(),
        theirs.to_canonical_string(),
    )
}

fn merge_100k(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge");
    let n = 100_000;
    let (base, ours, theirs) = branches(n);
    // What is timed merges clean, renumbers the ten ids both branches added, and keeps every
    // change of both.
    let merged = merge(&base, &ours, &theirs).unwrap_or_else(|e| panic!("{e}"));
    assert!(merged.is_clean(), "{}", merged.report("bench"));
    assert_eq!(merged.renumbered.len(), 10);
    let doc = SceneDoc::from_str(&merged.text)
        .map(|p| p.doc)
        .unwrap_or_default();
    assert_eq!(doc.entities.len(), n + 20);
    assert_eq!(
        doc.find_by_name("ours 7").count() + doc.find_by_name("theirs 77").count(),
        2
    );
    group.throughput(Throughput::Elements(n as u64));
    group.bench_with_input(BenchmarkId::new("read", n), &base, |b, text| {
        b.iter(|| SceneDoc::from_str(text).map(|p| p.doc.entities.len()))
    });
    group.bench_with_input(
        BenchmarkId::new("100_changes_each_side", n),
        &(base, ours, theirs),
        |b, (base, ours, theirs)| b.iter(|| merge(base, ours, theirs).map(|m| m.text.len())),
    );
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(10));
    targets = merge_100k
}
criterion_main!(benches);
