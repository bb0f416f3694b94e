//! Pictures through Bevy's real renderer (Mesa's lavapipe in CI), by the `forge-render`
//! program as users run it: golden images, a review's difference image, blank captures
//! refused, the same scene giving the same picture.
//!
//! Tolerance (STYLE.md, point 21): a pixel differs when a channel is off by more than 4/255;
//! two pictures differ when more than 1% of pixels do ([`Tolerance::DEFAULT`]). The golden
//! PNGs are in `tests/golden/`; `UPDATE_GOLDEN=1` writes them anew (look at each before
//! committing it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use bevy_forge_scene::diff::diff;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene_render::compare::{Tolerance, compare};
use bevy_forge_scene_render::job::{
    CameraChoice, ChangeKind, PixelRect, RenderJob, Rendered, SceneFile,
};
use bevy_forge_scene_render::process::{ChildError, render_in_child};
use bevy_forge_scene_render::report::{Counts, verdict};
use bevy_forge_scene_render::review::{Review, Seen, review};
use image::RgbaImage;

const EXE: &str = env!("CARGO_BIN_EXE_forge-render");
const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets");
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
/// Small pictures: quick on a software rasteriser, small files in the repository.
const SIZE: (u32, u32) = (320, 180);

fn scene(name: &str) -> SceneFile {
    SceneFile {
        assets: PathBuf::from(ASSETS),
        file: Path::new(ASSETS)
            .join("scenes")
            .join(format!("{name}.forge.ron")),
    }
}

fn job(scenes: &[&str], out: &Path) -> RenderJob {
    let mut job = RenderJob::new(scenes.iter().map(|s| scene(s)).collect(), out);
    (job.width, job.height) = SIZE;
    job
}

fn render(job: &RenderJob) -> Rendered {
    match render_in_child(Path::new(EXE), job) {
        Ok(r) => r,
        Err(e) => panic!("render failed: {e}"),
    }
}

fn load(path: &Path) -> RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

/// Compares `image` with the golden PNG `name` (written anew with `UPDATE_GOLDEN=1`); on a
/// difference, keeps `image` in the temporary folder and says where.
fn check_golden(name: &str, image: &RgbaImage) -> Result<(), String> {
    let golden = Path::new(GOLDEN).join(format!("{name}.png"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(GOLDEN).unwrap();
        bevy_forge_scene_render::compare::save_png(image, &golden).unwrap();
    }
    let want = load(&golden);
    let kept = std::env::temp_dir().join(format!("forge-render-{name}.png"));
    let keep = || {
        bevy_forge_scene_render::compare::save_png(image, &kept).unwrap();
        kept.display().to_string()
    };
    match compare(&want, image, Tolerance::DEFAULT) {
        Ok(c) if c.within(Tolerance::DEFAULT) => Ok(()),
        Ok(c) => Err(format!(
            "{name}: {:.2}% of pixels differ (largest channel difference {}); the picture is at {}",
            c.share() * 100.0,
            c.max_channel_delta,
            keep()
        )),
        Err(e) => Err(format!("{name}: {e}; the picture is at {}", keep())),
    }
}

/// The review of two scenes rendered together through the auto camera, at `size`.
fn review_of(base: &str, head: &str, out: &Path, size: (u32, u32)) -> (Rendered, Review) {
    let mut job = job(&[base, head], out);
    (job.width, job.height) = size;
    job.frame_together = true;
    job.camera = CameraChoice::Auto;
    job.quick_captures = true;
    let rendered = render(&job);
    let review = review(&rendered, Tolerance::DEFAULT).unwrap();
    review.write_images(out).unwrap();
    (rendered, review)
}

/// No two labels of the composite overlap, and every one is inside it.
fn assert_labels_apart(review: &Review) {
    let labels = &review.composite.labels;
    let (w, h) = review.composite.image.dimensions();
    for (i, (n, a)) in labels.iter().enumerate() {
        assert!(a.x1 <= w && a.y1 <= h, "label {n} {a:?} outside {w}x{h}");
        for (m, b) in &labels[i + 1..] {
            assert!(
                a.intersection(*b).is_none(),
                "labels {n} {a:?} and {m} {b:?} overlap"
            );
        }
    }
    // Every change that shows and can be cropped to is labelled in both halves, no other.
    for e in &review.entries {
        let n = labels.iter().filter(|(n, _)| *n == e.number).count();
        match e.seen {
            Seen::Outlined => assert!(n >= 2, "{} labels of {:?}", n, e.change),
            _ => assert_eq!(n, 0, "{:?}", e.change),
        }
    }
}

/// The four golden scenes in one child process: each capture matches its PNG within the
/// tolerance, and the four differ from each other (a test that cannot pass on a blank or
/// repeated picture).
#[test]
fn golden_images_of_sprites_meshes_a_tile_layer_and_prefabs() {
    let out = tempfile::tempdir().unwrap();
    let names = ["sprites", "meshes", "tiles", "street"];
    let rendered = render(&job(&names, out.path()));
    assert!(!rendered.adapter.is_empty());
    eprintln!("adapter: {}", rendered.adapter);
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    let mut images = Vec::new();
    for (name, capture) in names.iter().zip(&rendered.captures) {
        let got = load(&capture.image);
        assert_eq!(got.dimensions(), SIZE);
        let golden = Path::new(GOLDEN).join(format!("{name}.png"));
        if update {
            std::fs::create_dir_all(GOLDEN).unwrap();
            std::fs::copy(&capture.image, &golden).unwrap();
        }
        let want = load(&golden);
        let c = compare(&want, &got, Tolerance::DEFAULT).unwrap();
        if !c.within(Tolerance::DEFAULT) {
            let kept = std::env::temp_dir().join(format!("forge-render-{name}.png"));
            std::fs::copy(&capture.image, &kept).unwrap();
            failures.push(format!(
                "{name}: {:.2}% of pixels differ (largest channel difference {}); the capture is at {}",
                c.share() * 100.0,
                c.max_channel_delta,
                kept.display()
            ));
        }
        images.push(got);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for i in 0..images.len() {
        for j in i + 1..images.len() {
            let c = compare(&images[i], &images[j], Tolerance::DEFAULT).unwrap();
            assert!(c.share() > 0.2, "{} and {} look alike", names[i], names[j]);
        }
    }
    // Which cameras drew: the scenes' own, or ours where a scene has none.
    let cameras: Vec<&str> = rendered
        .captures
        .iter()
        .map(|c| c.camera.as_str())
        .collect();
    assert_eq!(
        cameras,
        [
            "the scene's camera [1] \"Camera\"",
            "auto 3D camera",
            "auto 2D camera",
            "the scene's camera [1] \"Camera\""
        ]
    );
}

/// A scene rendered again, in another process and alone, gives the golden picture of the
/// four-scene job within the tolerance: time, warm-up and hidden scenes change nothing.
#[test]
fn the_same_scene_rendered_twice_is_the_same_picture() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = render(&job(&["meshes"], a.path()));
    let second = render(&job(&["meshes", "street"], b.path()));
    let (x, y) = (
        load(&first.captures[0].image),
        load(&second.captures[0].image),
    );
    let c = compare(&x, &y, Tolerance::DEFAULT).unwrap();
    eprintln!(
        "two renders of meshes: {} of {} pixels differ, largest channel difference {}",
        c.differing, c.pixels, c.max_channel_delta
    );
    assert!(
        c.within(Tolerance::DEFAULT),
        "{:.3}% of pixels differ between two renders",
        c.share() * 100.0
    );
    let golden = load(&Path::new(GOLDEN).join("meshes.png"));
    assert!(
        compare(&golden, &x, Tolerance::DEFAULT)
            .unwrap()
            .within(Tolerance::DEFAULT)
    );
}

/// The review of the yard: the lamp's colour changed, the crate moved, the ball removed. Each
/// change shows in the difference image inside that entity's outline, and the report names
/// each by id path in words.
#[test]
fn a_changed_light_a_moved_and_a_removed_entity_show_inside_their_outlines() {
    let out = tempfile::tempdir().unwrap();
    let (rendered, review) = review_of("yard_base", "yard_head", out.path(), SIZE);
    let entry = |path: &[u64]| {
        review
            .entries
            .iter()
            .find(|e| e.change.path == path)
            .unwrap_or_else(|| panic!("no change of {path:?} in {:#?}", review.entries))
    };
    let (lamp, crate_, ball) = (entry(&[4]), entry(&[2]), entry(&[3]));
    assert_eq!(review.entries.len(), 3, "{:#?}", review.entries);
    assert_eq!(
        (lamp.change.kind, crate_.change.kind, ball.change.kind),
        (ChangeKind::Edited, ChangeKind::Moved, ChangeKind::Removed)
    );
    assert_eq!(
        lamp.change.lines,
        [
            "point_light color.b 0.4 -> 0.1",
            "point_light color.g 1.0 -> 0.2",
            "point_light color.r 0.4 -> 1.0"
        ]
    );
    assert_eq!(
        crate_.change.lines,
        ["transform translation (-3, 0.5, 0) -> (-1.5, 0.5, 2)"]
    );
    assert_eq!(ball.change.lines, ["removed"]);
    assert!(ball.before.is_some() && ball.after.is_none());
    assert!(crate_.before.is_some() && crate_.after.is_some() && crate_.before != crate_.after);
    for (what, e) in [("lamp", lamp), ("crate", crate_), ("ball", ball)] {
        let area: u64 = [e.before, e.after]
            .into_iter()
            .flatten()
            .map(|r| u64::from(r.x1 - r.x0) * u64::from(r.y1 - r.y0))
            .sum();
        eprintln!(
            "{what}: {} differing pixels in outlines of {area} pixels",
            e.differing_inside
        );
        assert!(
            e.differing_inside * 20 > area,
            "{what}: {} differing pixels in an outline of {area}",
            e.differing_inside
        );
    }
    // The removed ball's outline in the difference image holds differing (magenta) pixels.
    let r = ball.before.unwrap();
    let magenta = (r.x0..r.x1)
        .flat_map(|x| (r.y0..r.y1).map(move |y| (x, y)))
        .filter(|(x, y)| review.difference.get_pixel(*x, *y).0 == [255, 0, 255, 255])
        .count();
    assert!(
        magenta > 20,
        "{magenta} magenta pixels in the ball's outline"
    );
    // The lamp's new colour shows where its light falls, not only where the crate and the
    // ball changed: magenta pixels in its outline outside theirs.
    let others: Vec<_> = [crate_.before, crate_.after, ball.before]
        .into_iter()
        .flatten()
        .collect();
    let r = lamp.before.unwrap();
    let light_only = (r.x0..r.x1)
        .flat_map(|x| (r.y0..r.y1).map(move |y| (x, y)))
        .filter(|(x, y)| !others.iter().any(|o| o.contains(*x, *y)))
        .filter(|(x, y)| review.difference.get_pixel(*x, *y).0 == [255, 0, 255, 255])
        .count();
    eprintln!(
        "lamp: {light_only} magenta pixels in its outline outside the crate's and the ball's"
    );
    assert!(
        light_only > 200,
        "{light_only} magenta pixels of the lamp's light alone"
    );
    // Nearly everything that differs is inside some outline.
    assert!(
        review.differing_outside * 10 < review.comparison.differing,
        "{} of {} differing pixels outside every outline",
        review.differing_outside,
        review.comparison.differing
    );
    let md = review.markdown("scenes/yard.forge.ron", ".", &rendered.adapter);
    assert!(
        md.contains("**3 entities changed: 1 moved, 1 edited, 1 removed; nothing added.**"),
        "{md}"
    );
    assert!(md.contains("| `[3]` | Ball | removed | removed |"), "{md}");
    assert!(
        md.contains(
            "| `[2]` | Crate | moved | transform translation (-3, 0.5, 0) → (-1.5, 0.5, 2) |"
        ),
        "{md}"
    );
    assert!(md.contains("<br>point_light color.r 0.4 → 1.0 |"), "{md}");
    assert!(!md.contains("tolerance"), "{md}");
    // The composite first, the full frames after it.
    let composite = md.find("](./composite.png)").unwrap();
    assert!(composite < md.find("](./difference.png)").unwrap(), "{md}");
    // The composite: one crop holding the three changes, each labelled in both halves where
    // it shows (the ball only before, as a dashed outline after), no two labels overlapping.
    assert_eq!(
        review.composite.crops.len(),
        1,
        "{:?}",
        review.composite.crops
    );
    assert_labels_apart(&review);
    assert_eq!(
        review.composite.labels.len(),
        6,
        "{:?}",
        review.composite.labels
    );
    check_golden("review-yard", &review.composite.image).unwrap();
}

/// The review of a 2D camp: a goblin and its hat moved next to a crown that was recoloured, a
/// barrel removed and a torch added far from them, a game component changed. The verdict
/// counts what the structural diff of the two files counts; the composite crops the far
/// changes apart, labels every change that shows and no two labels overlap; the game
/// component's change is listed as not visible.
#[test]
fn a_2d_review_counts_what_the_diff_counts_and_labels_close_changes_apart() {
    let out = tempfile::tempdir().unwrap();
    let (rendered, review) = review_of("camp_base", "camp_head", out.path(), (640, 360));
    let read = |name: &str| {
        SceneDoc::from_str(&std::fs::read_to_string(scene(name).file).unwrap())
            .unwrap()
            .doc
    };
    let d = diff(&read("camp_base"), &read("camp_head"));
    let added: Vec<u64> = d.added.iter().map(|a| a.id).collect();
    let moved =
        |c: &&bevy_forge_scene::diff::EntityChange| c.transform.is_some() || c.parent.is_some();
    let from_diff = Counts {
        added: d
            .added
            .iter()
            .filter(|a| !a.parent.is_some_and(|p| added.contains(&p)))
            .count(),
        removed: d.removed.len(),
        moved: d.changed.iter().filter(moved).count(),
        edited: d.changed.iter().filter(|c| !moved(c)).count(),
        not_visible: d
            .changed
            .iter()
            .filter(|c| !moved(c) && c.components.iter().all(|k| k.key().starts_with("custom:")))
            .count(),
        scene: d.name.is_some(),
    };
    assert_eq!(Counts::of(&review.entries), from_diff);
    assert_eq!(
        (
            from_diff.added,
            from_diff.removed,
            from_diff.moved,
            from_diff.edited
        ),
        (1, 1, 2, 2),
        "{:#?}",
        review.entries
    );
    assert_eq!(review.verdict(), verdict(&from_diff));
    assert_eq!(
        review.verdict(),
        "6 entities changed: 2 moved, 2 edited, 1 added, 1 removed; 1 not visible"
    );
    let seen = |path: &[u64]| {
        let e = review
            .entries
            .iter()
            .find(|e| e.change.path == path)
            .unwrap();
        e.seen
    };
    assert_eq!(seen(&[7]), Seen::NotVisible, "the spawner's game component");
    for path in [[2], [3], [4], [5], [6]] {
        assert_eq!(seen(&path), Seen::Outlined, "{path:?}");
    }
    let md = review.markdown("scenes/camp.forge.ron", ".", &rendered.adapter);
    assert!(
        md.contains("| `[7]` | Spawner | edited, not visible |"),
        "{md}"
    );
    assert!(
        md.contains("| `[6]` | Torch | added | added with 1 entity below it at (330, -180, 0) |"),
        "{md}"
    );
    // The barrel (top right) and the torch (bottom right) are far from the goblin, its hat
    // and the crown (bottom left), and from each other: three crops, top to bottom.
    let crops = &review.composite.crops;
    let holds = |crop: &PixelRect, path: &[u64]| {
        let e = review
            .entries
            .iter()
            .find(|e| e.change.path == path)
            .unwrap();
        [e.before, e.after]
            .into_iter()
            .flatten()
            .all(|r| crop.intersection(r) == Some(r))
    };
    assert_eq!(crops.len(), 3, "{crops:?}");
    assert!(holds(&crops[0], &[5]), "the barrel: {crops:?}");
    assert!(holds(&crops[1], &[2]) && holds(&crops[1], &[3]) && holds(&crops[1], &[4]));
    assert!(holds(&crops[2], &[6]), "the torch: {crops:?}");
    // Each change labelled in both halves: the barrel's after half and the torch's before
    // half show where it is not (a dashed outline).
    assert_labels_apart(&review);
    check_golden("review-camp", &review.composite.image).unwrap();
}

/// A review draws its two sides in one app, one after the other: the yard's head, whose lamp
/// is a point light, drawn first and again second in one job gives the same picture (the
/// second side starts from what the first left: its lights' clusters, its camera).
#[test]
fn the_second_side_of_a_review_is_the_picture_of_a_first_side() {
    let out = tempfile::tempdir().unwrap();
    let mut job = job(&["yard_head", "yard_head"], out.path());
    job.frame_together = true;
    job.camera = CameraChoice::Auto;
    let rendered = render(&job);
    let (first, second) = (
        load(&rendered.captures[0].image),
        load(&rendered.captures[1].image),
    );
    let c = compare(&first, &second, Tolerance::DEFAULT).unwrap();
    eprintln!(
        "the head first and second: {} of {} pixels differ, largest channel difference {}",
        c.differing, c.pixels, c.max_channel_delta
    );
    assert!(c.within(Tolerance::DEFAULT), "{:.3}%", c.share() * 100.0);
    // The lamp lights the ground around it: a reddish pool, not the grey of an unlit ground
    // (the crate, red itself, left out).
    let boxed = |path: &[u64]| {
        rendered.captures[1]
            .entities
            .iter()
            .find(|b| b.path == path)
            .and_then(|b| b.own)
            .unwrap()
    };
    let (lamp, crate_) = (boxed(&[4]), boxed(&[2]));
    let reddish = |image: &RgbaImage| {
        (lamp.x0..lamp.x1)
            .flat_map(|x| (lamp.y0..lamp.y1).map(move |y| (x, y)))
            .filter(|(x, y)| !crate_.contains(*x, *y))
            .filter(|(x, y)| {
                let p = image.get_pixel(*x, *y).0;
                p[0] > p[1] + 30
            })
            .count()
    };
    assert!(
        reddish(&second) > 100,
        "{} reddish pixels",
        reddish(&second)
    );
}

/// A capture of a scene that draws nothing is refused with the colour it had, and `render`
/// writes no file.
#[test]
fn a_blank_capture_is_refused() {
    let out = tempfile::tempdir().unwrap();
    let e = render_in_child(Path::new(EXE), &job(&["empty"], out.path())).unwrap_err();
    let ChildError::Failed(message) = e else {
        panic!("not the render's own error: {e}");
    };
    assert!(message.contains("empty.forge.ron"), "{message}");
    assert!(message.contains("the capture is one colour"), "{message}");

    let png = out.path().join("empty.png");
    let run = Command::new(EXE)
        .args([
            "render",
            &scene("empty").file.to_string_lossy(),
            "--size",
            "64x32",
            "--out",
        ])
        .arg(&png)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("one colour"));
    assert!(!png.exists());

    // A scene of game types only says why it may show nothing.
    let run = Command::new(EXE)
        .args([
            "render",
            &scene("game_only").file.to_string_lossy(),
            "--size",
            "64x32",
            "--out",
        ])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "one colour (rgba 43, 44, 47, 255 in every pixel): nothing was drawn; check that the scene has visible sprites, text or meshes in front of the camera; its 2 custom components are game types, left out here (they draw nothing)"
        ),
        "{err}"
    );
    assert!(!png.exists());
}

/// `forge-render render` and `review` as a user runs them: the adapter printed, the PNG and
/// the report written; a camera id the scene lacks is an error naming its cameras.
#[test]
fn the_command_line_renders_and_reviews() {
    let out = tempfile::tempdir().unwrap();
    let png = out.path().join("street.png");
    let run = Command::new(EXE)
        .args([
            "render",
            &scene("street").file.to_string_lossy(),
            "--size",
            "160x90",
            "--out",
        ])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("rendered on "), "{err}");
    assert_eq!(load(&png).dimensions(), (160, 90));

    let run = Command::new(EXE)
        .args([
            "render",
            &scene("street").file.to_string_lossy(),
            "--camera",
            "9",
            "--out",
        ])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        err.contains("--camera [9]: the scene has no camera at that id path (its cameras: [1])"),
        "{err}"
    );

    let dir = out.path().join("review");
    let run = Command::new(EXE)
        .arg("review")
        .arg(scene("yard_base").file)
        .arg(scene("yard_head").file)
        .args(["--size", "160x90", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("3 entities changed"), "{report}");
    for image in ["before.png", "after.png", "difference.png"] {
        assert_eq!(load(&dir.join(image)).dimensions(), (160, 90));
    }
    assert!(report.contains("![Before and after"), "{report}");
    assert!(load(&dir.join("composite.png")).width() > 160);
    assert!(
        !dir.join(".render").exists(),
        "the captures are not left behind"
    );
}

/// `review --git` over a repository where a prefab changed: the prefab file and the scene that
/// places it are reviewed, each side with its own revision's prefab, and the placed entities
/// are named by id path.
#[test]
fn a_git_review_shows_the_scenes_that_place_a_changed_prefab() {
    let repo = tempfile::tempdir().unwrap();
    let assets = repo.path().join("assets");
    for dir in ["scenes", "prefabs", "textures"] {
        std::fs::create_dir_all(assets.join(dir)).unwrap();
    }
    for file in [
        "scenes/street.forge.ron",
        "scenes/sprites.forge.ron",
        "prefabs/lamp_post.forge.ron",
        "textures/player.png",
    ] {
        std::fs::copy(Path::new(ASSETS).join(file), assets.join(file)).unwrap();
    }
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(args)
            .current_dir(repo.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "base"]);
    let lamp = assets.join("prefabs/lamp_post.forge.ron");
    let text = std::fs::read_to_string(&lamp).unwrap();
    let changed = text.replace(
        "base_color: (r: 1, g: 0.9, b: 0.6, a: 1)",
        "base_color: (r: 1, g: 0.2, b: 0.2, a: 1)",
    );
    assert_ne!(text, changed);
    std::fs::write(&lamp, changed).unwrap();
    git(&["commit", "-q", "-am", "red bulbs"]);

    let out = repo.path().join("review");
    let run = Command::new(EXE)
        .args([
            "review", "--git", "HEAD~1", "HEAD", "--folder", "assets", "--size", "160x90", "--out",
        ])
        .arg(&out)
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    // One summary at the top: each scene, why it is reviewed, its verdict.
    assert!(
        report.contains(
            "`HEAD~1` -> `HEAD` in `assets`: 2 scenes to review (1 changed, 1 placing a changed prefab)."
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "| `scenes/street.forge.ron` | places `prefabs/lamp_post.forge.ron` | 2 entities changed: 2 edited; nothing moved, added or removed |"
        ),
        "{report}"
    );
    assert!(
        report.contains("| `prefabs/lamp_post.forge.ron` | changed | 1 entity changed: 1 edited;"),
        "{report}"
    );
    assert_eq!(report.matches("# Scene review").count(), 1, "{report}");
    assert!(report.find("| scene | why | verdict |").unwrap() < report.find("## `").unwrap());
    assert!(
        report.contains("## `prefabs/lamp_post.forge.ron`"),
        "{report}"
    );
    assert!(report.contains("## `scenes/street.forge.ron`"), "{report}");
    assert!(!report.contains("sprites.forge.ron"), "{report}");
    // Lamps A and C take the prefab's bulb; lamp B overrides its colour.
    assert!(report.contains("| `[3, 2]` | Bulb | edited |"), "{report}");
    assert!(report.contains("| `[5, 2]` | Bulb | edited |"), "{report}");
    assert!(!report.contains("`[4, 2]`"), "{report}");
    assert!(
        report.contains("mesh3d material.base_color.g 0.9 → 0.2"),
        "{report}"
    );
    assert!(
        report.contains("![Before and after, cropped to the changes; each numbered as in the table](scenes-street/composite.png)"),
        "{report}"
    );
    for image in ["composite.png", "before.png", "after.png", "difference.png"] {
        assert!(out.join("scenes-street").join(image).is_file());
        assert!(out.join("prefabs-lamp_post").join(image).is_file());
    }
}
