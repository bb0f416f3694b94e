//! The example CI runs from the README (`cargo run --example spawn_scene`), as a user runs it.

use std::path::{Path, PathBuf};

use bevy_forge_scene::format::SceneDoc;
use std::process::Command;

/// The example's binary, next to this test's (`target/debug/deps/main_job-..` ->
/// `target/debug/examples/spawn_scene`). `cargo test` builds it with the other targets; it is
/// built here too (a no-op when fresh), so running this test alone never runs a stale one.
fn example() -> PathBuf {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--example", "spawn_scene"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "could not build the example"
        );
    });
    let exe = std::env::current_exe().unwrap_or_default();
    let debug = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(PathBuf::from)
        .unwrap_or_default();
    debug
        .join("examples")
        .join(format!("spawn_scene{}", std::env::consts::EXE_SUFFIX))
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(example())
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        // As on a developer's machine with backtraces on: Bevy would append one to its own log.
        .env("RUST_BACKTRACE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("the example did not run: {e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A line of a Rust backtrace (`   3: core::ops::function::FnOnce::call_once`).
fn is_backtrace_frame(line: &str) -> bool {
    line.trim_start()
        .split_once(": ")
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn the_main_job_spawns_the_garden_and_prints_its_hierarchy() {
    let (code, stdout, stderr) = run(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with("spawned \"Garden\" from scenes/garden.forge.ron: 2 entities"),
        "{stdout}"
    );
    assert!(stdout.contains("ForgeEntityId"), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("spawned")).count(),
        1
    );
    // A clean run: nothing logged at warning level or above (the garden's mesh has no
    // material headless, which is no problem where nothing is drawn).
    assert!(
        !stderr.contains("WARN") && !stderr.contains("ERROR"),
        "{stderr}"
    );
}

#[test]
fn a_scene_with_errors_prints_each_diagnostic_once_rustc_style_without_a_backtrace() {
    let (code, stdout, stderr) = run(&["tests/fixtures/invalid/bad-values.forge.ron"]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let codes = [
        "error[forge::text::font_size]",
        "error[forge::light::intensity]",
        "error[forge::light::range]",
        "error[forge::light::illuminance]",
        "error[forge::sprite::custom_size]",
        "error[forge::asset::absolute]",
    ];
    for code in codes {
        assert_eq!(stderr.matches(code).count(), 1, "{code} once:\n{stderr}");
    }
    // Rustc-style: where, the source line, carets under the value, the help.
    assert!(
        stderr.contains("--> tests/fixtures/invalid/bad-values.forge.ron:6:284"),
        "{stderr}"
    );
    assert!(stderr.contains("intensity: -5.0, range: 0.0"), "{stderr}");
    assert!(
        stderr.contains("^^^ entity 2, `components[0].data.range`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("= help: range is the cut-off distance"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with(
            "error: `tests/fixtures/invalid/bad-values.forge.ron` did not load: 6 errors\n"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.lines().any(is_backtrace_frame),
        "no backtrace:\n{stderr}"
    );
    assert!(
        !stderr.contains("Failed to load asset"),
        "not twice:\n{stderr}"
    );
}

#[test]
fn a_file_that_does_not_read_points_at_the_syntax_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("broken.forge.ron");
    std::fs::write(
        &file,
        "(\n  format_version: 1,\n  name: \"x\",\n  entities: {,\n)\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, stderr) = run(&[&file.to_string_lossy()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.matches("error[forge::read::").count(), 1, "{stderr}");
    assert!(stderr.contains("broken.forge.ron:4:14"), "{stderr}");
    assert!(!stderr.lines().any(is_backtrace_frame), "{stderr}");
}

#[test]
fn a_path_that_is_not_a_scene_file_is_refused_before_bevy_starts() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let named = dir.path().join("folder.forge.ron");
    std::fs::create_dir(&named).unwrap_or_else(|e| panic!("{e}"));
    for arg in [
        named.to_string_lossy().into_owned(),
        String::new(),
        "nope.forge.ron".into(),
    ] {
        let (code, _, stderr) = run(&[&arg]);
        assert_eq!(code, Some(2), "{arg:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!("error: `{arg}` is")),
            "{stderr}"
        );
        assert!(!stderr.lines().any(is_backtrace_frame), "{stderr}");
    }
    let hash = dir.path().join("a#1.forge.ron");
    std::fs::write(&hash, "").unwrap_or_else(|e| panic!("{e}"));
    let (code, _, stderr) = run(&[&hash.to_string_lossy()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("as a label"), "{stderr}");
}

/// A file of 5 GiB (sparse: nothing is written) is refused from its size, before anything is
/// read or reserved for it.
#[test]
fn a_file_too_large_for_a_scene_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("huge.forge.ron");
    let f = std::fs::File::create(&file).unwrap_or_else(|e| panic!("{e}"));
    f.set_len(5 << 30).unwrap_or_else(|e| panic!("{e}"));
    drop(f);
    // Built before the clock starts: the first build of the example takes its own time.
    example();
    let started = std::time::Instant::now();
    let (code, _, stderr) = run(&[&file.to_string_lossy()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("error[forge::read::too_large]"), "{stderr}");
    assert!(stderr.contains("the limit is 4 GiB"), "{stderr}");
    assert!(!stderr.lines().any(is_backtrace_frame), "{stderr}");
    // Reading 5 GiB would take far longer than this on any machine.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(example())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    // Close the reading end before the example writes.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_prefabs_problem_is_named_like_the_scene_and_a_cooked_one_as_bundled() {
    // The example registers no game types: goblin_camp's prefab has one it does not know.
    let (code, _, stderr) = run(&["assets/scenes/goblin_camp.forge.ron"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("--> assets/prefabs/goblin.forge.ron:"),
        "{stderr}"
    );
    // Its cooked twin, in a project of its own: the prefab is the one bundled in it.
    let dir = tempfile::tempdir().unwrap();
    let scenes = dir.path().join("assets/scenes");
    std::fs::create_dir_all(&scenes).unwrap();
    let read = |p: &str| std::fs::read_to_string(Path::new("assets").join(p)).unwrap();
    let doc = |p: &str| SceneDoc::from_str(&read(p)).unwrap().doc;
    let cooked = bevy_forge_scene::cook::CookedScene {
        source: "scenes/goblin_camp.forge.ron".into(),
        doc: doc("scenes/goblin_camp.forge.ron"),
        prefabs: ["prefabs/goblin.forge.ron", "prefabs/hat.forge.ron"]
            .iter()
            .map(|p| (p.to_string(), doc(p)))
            .collect(),
    };
    let bin = scenes.join("camp.forge.bin");
    std::fs::write(&bin, cooked.encode()).unwrap();
    let (code, _, stderr) = run(&[bin.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("= in prefabs/goblin.forge.ron (bundled in `"),
        "{stderr}"
    );
}
