//! Edit mode driven as a person drives it, through Bevy's real renderer (Mesa's lavapipe in
//! CI): pointer moves, presses and releases go in as `PointerInput` messages and keys as
//! `KeyboardInput` messages; Bevy's picking finds what is under the pointer. Each test works
//! on its own copy of `tests/assets` and looks at the files written.
//!
//! Golden images (`tests/golden/`) compare with forge-render's tolerance (a pixel differs when
//! a channel is off by more than 4/255; pictures differ when more than 1% of pixels do);
//! `UPDATE_GOLDEN=1` writes them anew (look at each before committing it).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use bevy_forge_scene::prelude::*;
use bevy_forge_scene_editor::headless::Headless;
use bevy_forge_scene_editor::{
    EditHistory, EditorStatus, ForgeEditorPlugin, SelectedInfo, Selection,
};
use bevy_internal::ecs::prelude::*;
use bevy_internal::input::keyboard::KeyCode;
use bevy_internal::math::Vec2;
use bevy_internal::reflect::Reflect;
use bevy_internal::transform::components::Transform;

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets");
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
const YARD: &str = "scenes/yard2d.forge.ron";
const ROOM: &str = "scenes/room3d.forge.ron";
const SIGN: &str = "prefabs/sign.forge.ron";
const SIZE: (u32, u32) = (640, 400);

/// The game component the yard's gauge has: a level from 0 to 10.
#[derive(Component, Reflect, Default, ForgeComponent)]
#[forge(type_path = "game::Gauge")]
// Scenes set its field through reflection; the tests only write it.
#[allow(dead_code)]
struct Gauge {
    #[forge(range = 0.0..=10.0)]
    level: f32,
}

/// One renderer at a time in this process (software Vulkan).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

struct Fixture {
    h: Headless,
    dir: tempfile::TempDir,
    root: Entity,
    _turn: MutexGuard<'static, ()>,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `scene` in the app `build` makes in a copy of the tests' asset folder, edit mode on.
fn open_in(scene: &str, build: impl FnOnce(&Path) -> Headless) -> Fixture {
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(ASSETS), dir.path());
    let mut h = build(dir.path());
    let root = h.load(scene);
    h.tap(KeyCode::F2);
    h.frames(2);
    Fixture {
        h,
        dir,
        root,
        _turn: turn,
    }
}

fn open_with(scene: &str, editor: ForgeEditorPlugin) -> Fixture {
    open_in(scene, |dir| Headless::new(dir, SIZE.0, SIZE.1, editor))
}

fn open(scene: &str) -> Fixture {
    open_with(scene, ForgeEditorPlugin::default())
}

/// `scene` as `forge edit` opens it: without the game's code (custom components not spawned,
/// no schema table), edit mode on.
fn open_standalone(scene: &str) -> Fixture {
    open_in(scene, |dir| {
        Headless::standalone(dir, SIZE.0, SIZE.1, ForgeEditorPlugin::default())
    })
}

impl Fixture {
    fn file(&self, asset: &str) -> PathBuf {
        self.dir.path().join(asset)
    }

    fn read(&self, asset: &str) -> String {
        std::fs::read_to_string(self.file(asset)).unwrap()
    }

    fn entity(&self, path: &[u64]) -> Entity {
        self.h.entity(self.root, path)
    }

    fn transform(&self, e: Entity) -> Transform {
        *self.h.app.world().get::<Transform>(e).unwrap()
    }

    fn at(&mut self, e: Entity) -> Vec2 {
        self.h.screen_of(e).unwrap()
    }

    fn selected(&self) -> Vec<Entity> {
        self.h.app.world().resource::<Selection>().entities.clone()
    }

    fn info(&self) -> SelectedInfo {
        self.h.app.world().resource::<SelectedInfo>().clone()
    }

    fn status(&self) -> EditorStatus {
        self.h.app.world().resource::<EditorStatus>().clone()
    }

    fn undo_steps(&self) -> usize {
        self.h.app.world().resource::<EditHistory>().undo_len()
    }

    /// Selects `e` by clicking on it.
    fn select(&mut self, e: Entity) {
        let at = self.at(e);
        self.h.click(at);
        assert_eq!(self.selected().last(), Some(&e), "{:?}", self.status());
    }

    /// Waits until the live link's writes are on disk (they are made on the IO task pool, a
    /// few frames after the keep), then for the reload that follows.
    fn settle(&mut self) {
        let written = self.h.wait_for_writes(600, 8);
        assert!(written, "the writes were not on disk after 600 frames");
    }
}

/// The line (1-based) of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// The translation's `x` written on the line of the entity named `name` in `text`.
fn translation_x(text: &str, name: &str) -> f32 {
    let line = text
        .lines()
        .find(|l| l.contains(&format!("name: \"{name}\"")))
        .unwrap();
    let x = &line[line.find("translation: (x: ").unwrap() + "translation: (x: ".len()..];
    x[..x.find(',').unwrap()].parse().unwrap()
}

/// The bytes where `a` and `b` differ: the byte range in `a` and in `b` between their common
/// start and common end.
fn changed(a: &str, b: &str) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let end = a[start..]
        .iter()
        .rev()
        .zip(b[start..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (start..a.len() - end, start..b.len() - end)
}

#[test]
fn a_click_selects_the_sprite_under_the_pointer_and_nothing_else() {
    let mut f = open(YARD);
    let crate_ = f.entity(&[2]);
    f.select(crate_);
    let info = f.info();
    assert_eq!(info.name, "Crate");
    assert_eq!(info.id_path, vec![2]);
    let yard = f.read(YARD);
    let line = line_of(&yard, "name: \"Crate\"");
    assert_eq!(info.places, vec![format!("{YARD}:{line} (entity)")]);
    assert!(info.differences.is_empty(), "{:?}", info.differences);
    // Shift adds the gauge; a click on empty ground clears.
    let gauge = f.entity(&[5]);
    let at = f.at(gauge);
    f.h.hold(KeyCode::ShiftLeft);
    f.h.click(at);
    f.h.let_go(KeyCode::ShiftLeft);
    assert_eq!(f.selected(), vec![crate_, gauge]);
    f.h.click(Vec2::new(600.0, 380.0));
    assert!(f.selected().is_empty());
    // A sprite no scene made is not selectable.
    let stranger =
        f.h.app
            .world_mut()
            .spawn((
                bevy_internal::sprite::Sprite::from_color(
                    bevy_internal::color::Color::WHITE,
                    Vec2::splat(30.0),
                ),
                bevy_internal::picking::Pickable::default(),
                Transform::from_xyz(-180.0, -110.0, 0.0),
            ))
            .id();
    f.h.frames(2);
    let at = f.at(stranger);
    f.h.click(at);
    assert!(f.selected().is_empty());
}

/// The frames in which Bevy's picking backends reported hits (any `PointerHits` message).
#[derive(Resource, Default)]
struct HitFrames(usize);

fn count_hit_frames(
    mut hits: MessageReader<bevy_internal::picking::backend::PointerHits>,
    mut frames: ResMut<HitFrames>,
) {
    if !hits.is_empty() {
        frames.0 += 1;
    }
    hits.clear();
}

#[test]
fn in_edit_mode_a_still_pointer_is_not_picked_again_but_a_click_sees_what_moved() {
    let mut f = open(YARD);
    f.h.app.init_resource::<HitFrames>().add_systems(
        bevy_internal::app::PreUpdate,
        count_hit_frames.after(bevy_internal::picking::PickingSystems::Backend),
    );
    let crate_ = f.entity(&[2]);
    let at = f.at(crate_);
    let hit_frames = |f: &Fixture| f.h.app.world().resource::<HitFrames>().0;
    // A move is picked; the frames after it, with the pointer still, are not.
    f.h.move_to(at);
    let after_move = hit_frames(&f);
    assert_eq!(after_move, 1, "the move's frame is picked");
    f.h.frames(5);
    assert_eq!(
        hit_frames(&f),
        after_move,
        "a still pointer is picked again"
    );
    // The crate moves away under the still pointer and the gauge comes under it: the click
    // (a press and a release, both pointer input) picks afresh and selects the gauge.
    let gauge = f.entity(&[5]);
    let crate_place = f.transform(crate_).translation;
    let gauge_place = f.transform(gauge).translation;
    let world = f.h.app.world_mut();
    world.get_mut::<Transform>(crate_).unwrap().translation = gauge_place;
    world.get_mut::<Transform>(gauge).unwrap().translation = crate_place;
    f.h.frames(2);
    f.h.press();
    f.h.release();
    assert_eq!(f.selected(), vec![gauge], "{:?}", f.status());
    // Out of edit mode the game's picking runs every frame, as it did without the editor.
    f.h.tap(KeyCode::F2);
    f.h.frames(1);
    let before = hit_frames(&f);
    f.h.frames(4);
    assert_eq!(hit_frames(&f), before + 4);
}

#[test]
fn a_second_click_on_a_prefab_entity_walks_up_to_its_instance() {
    let mut f = open(YARD);
    let board = f.entity(&[4, 2]);
    let sign = f.entity(&[4]);
    f.select(board);
    let info = f.info();
    assert_eq!(info.id_path, vec![4, 2]);
    // Its entry in the prefab file.
    let prefab = f.read(SIGN);
    let line = line_of(&prefab, "name: \"Board\"");
    assert_eq!(info.places, vec![format!("{SIGN}:{line} (entity)")]);
    // The same spot again: the instance that placed it; and again: back to the board.
    let at = f.at(board);
    f.h.click(at);
    assert_eq!(f.selected(), vec![sign]);
    f.h.click(at);
    assert_eq!(f.selected(), vec![board]);
}

#[test]
fn a_click_selects_a_mesh_in_3d() {
    let mut f = open(ROOM);
    let ball = f.entity(&[4]);
    f.select(ball);
    assert_eq!(f.info().name, "Ball");
    let box_ = f.entity(&[3]);
    f.select(box_);
    assert_eq!(f.selected(), vec![box_]);
}

/// Drags the primary selection's X handle by `pixels` to the right.
fn drag_x(f: &mut Fixture, e: Entity, pixels: f32) {
    let centre = f.at(e);
    let from = centre + Vec2::new(50.0, 0.0);
    f.h.drag(from, from + Vec2::new(pixels, 0.0), 4);
}

#[test]
fn a_drag_along_x_moves_the_entity_and_keeps_only_that_value_then_undo_and_redo() {
    let mut f = open(YARD);
    let original = f.read(YARD);
    let crate_ = f.entity(&[2]);
    f.select(crate_);
    drag_x(&mut f, crate_, 40.0);
    let t = f.transform(crate_);
    assert!((t.translation.x - -60.0).abs() < 0.01, "{}", t.translation);
    assert_eq!(t.translation.y, 0.0);
    f.settle();
    let kept = f.read(YARD);
    assert_ne!(kept, original, "{:?}", f.status());
    // Only the crate's translation changed: the changed bytes are inside its translation's
    // parentheses on its line, and the comments are all there.
    only_translation_changed(&original, &kept, "Crate");
    assert!(
        (translation_x(&kept, "Crate") - -60.0).abs() < 0.01,
        "{kept}"
    );
    assert_eq!(f.undo_steps(), 1);
    assert!(!f.status().error, "{:?}", f.status());

    // Undo: the file byte for byte, and the live value follows.
    f.h.hold(KeyCode::ControlLeft);
    f.h.tap(KeyCode::KeyZ);
    f.h.let_go(KeyCode::ControlLeft);
    f.settle();
    assert_eq!(f.read(YARD), original);
    assert_eq!(f.transform(crate_).translation.x, -100.0);
    // Redo: the kept text again.
    f.h.hold(KeyCode::ControlLeft);
    f.h.hold(KeyCode::ShiftLeft);
    f.h.tap(KeyCode::KeyZ);
    f.h.let_go(KeyCode::ShiftLeft);
    f.h.let_go(KeyCode::ControlLeft);
    f.settle();
    assert_eq!(f.read(YARD), kept);
    assert!((f.transform(crate_).translation.x - -60.0).abs() < 0.01);
}

#[test]
fn a_prefab_entity_is_kept_into_its_instance_or_with_alt_into_the_prefab() {
    let mut f = open(YARD);
    let (yard, sign) = (f.read(YARD), f.read(SIGN));
    let board = f.entity(&[4, 2]);
    f.select(board);
    drag_x(&mut f, board, 20.0);
    f.settle();
    // Into the scene, as an override of the instance on entity 4; the prefab is untouched.
    let kept = f.read(YARD);
    assert_eq!(f.read(SIGN), sign);
    let (_, new) = changed(&yard, &kept);
    assert!(kept[new].contains("target: [2]"), "{kept}");
    assert!(f.transform(board).translation.x > 15.0);
    assert!(
        f.info().places[0].ends_with("(override)"),
        "{:?}",
        f.info().places
    );

    // Undone; then the same drag with Alt held goes into the prefab file.
    f.h.hold(KeyCode::ControlLeft);
    f.h.tap(KeyCode::KeyZ);
    f.h.let_go(KeyCode::ControlLeft);
    f.settle();
    assert_eq!(f.read(YARD), yard);
    f.h.hold(KeyCode::AltLeft);
    drag_x(&mut f, board, 20.0);
    f.h.let_go(KeyCode::AltLeft);
    f.settle();
    assert_eq!(f.read(YARD), yard);
    let prefab = f.read(SIGN);
    assert_ne!(prefab, sign, "{:?}", f.status());
    assert!(
        (translation_x(&prefab, "Board") - 20.0).abs() < 0.01,
        "{prefab}"
    );
}

#[test]
fn rotate_and_scale_snap_with_ctrl() {
    let mut f = open(YARD);
    let crate_ = f.entity(&[2]);
    f.select(crate_);
    // R: scale; the X handle from 50 to 77 pixels is 1.54 times: snapped to 1.5.
    f.h.tap(KeyCode::KeyR);
    let c = f.at(crate_);
    f.h.hold(KeyCode::ControlLeft);
    f.h.drag(c + Vec2::new(50.0, 0.0), c + Vec2::new(77.0, 0.0), 3);
    f.h.let_go(KeyCode::ControlLeft);
    let s = f.transform(crate_).scale;
    assert!((s.x - 1.5).abs() < 1e-4 && s.y == 1.0, "{s}");
    // E: rotate; the Z ring at 0.9 of 90 pixels. Sweep about 40 degrees with Ctrl: 45.
    f.h.tap(KeyCode::KeyE);
    let r = 81.0;
    let from = c + Vec2::new(r, 0.0);
    let a = 40f32.to_radians();
    let to = c + Vec2::new(r * a.cos(), -r * a.sin());
    f.h.hold(KeyCode::ControlLeft);
    f.h.drag(from, to, 5);
    f.h.let_go(KeyCode::ControlLeft);
    let (_, _, z) = f
        .transform(crate_)
        .rotation
        .to_euler(bevy_internal::math::EulerRot::XYZ);
    assert!((z.to_degrees() - 45.0).abs() < 0.01, "{}", z.to_degrees());
    f.settle();
    let yard = f.read(YARD);
    let line = yard
        .lines()
        .nth(line_of(&yard, "name: \"Crate\"") - 1)
        .unwrap();
    assert!(line.contains("z: 45"), "{line}");
    assert!(line.contains("x: 1.5"), "{line}");
    assert_eq!(f.undo_steps(), 2);
}

#[test]
fn esc_during_a_drag_puts_everything_back_and_writes_nothing() {
    let mut f = open(YARD);
    let original = f.read(YARD);
    let crate_ = f.entity(&[2]);
    f.select(crate_);
    let from = f.at(crate_) + Vec2::new(50.0, 0.0);
    f.h.move_to(from);
    f.h.press();
    f.h.move_to(from + Vec2::new(60.0, 25.0));
    assert!((f.transform(crate_).translation.x - -40.0).abs() < 0.01);
    f.h.tap(KeyCode::Escape);
    assert_eq!(f.transform(crate_).translation.x, -100.0);
    f.h.release();
    f.settle();
    assert_eq!(f.read(YARD), original);
    assert_eq!(f.undo_steps(), 0);
}

#[test]
fn a_locked_entity_does_not_move_and_nothing_is_written() {
    let mut f = open(YARD);
    let original = f.read(YARD);
    let wall = f.entity(&[3]);
    f.select(wall);
    let before = f.transform(wall);
    drag_x(&mut f, wall, 40.0);
    assert_eq!(f.transform(wall), before);
    f.settle();
    assert_eq!(f.read(YARD), original);
    let status = f.status();
    let line = line_of(&original, "name: \"Locked wall\"");
    assert!(status.error, "{status:?}");
    assert!(
        status.text.contains(&format!("{YARD}:{line}")),
        "{status:?}"
    );
    assert!(f.info().locked.is_some());
}

#[test]
fn a_keep_the_files_would_not_validate_is_refused_and_the_status_says_why() {
    let mut f = open(YARD);
    let original = f.read(YARD);
    // The game sets the gauge's level out of its range (0 to 10); K keeps every difference of
    // the selected entity, and a keep is checked as the loader checks the file: refused.
    let gauge = f.entity(&[5]);
    f.h.app.world_mut().get_mut::<Gauge>(gauge).unwrap().level = 50.0;
    f.select(gauge);
    let d = f.info().differences;
    assert!(
        d.iter()
            .any(|d| d.component == "game::Gauge" && d.live.contains("50")),
        "{d:?}"
    );
    f.h.tap(KeyCode::KeyK);
    f.settle();
    assert_eq!(f.read(YARD), original);
    let status = f.status();
    assert!(status.error, "{status:?}");
    assert!(status.text.contains("range"), "{status:?}");
    assert_eq!(f.undo_steps(), 0);
    // The live value stays (the game goes on); the panel still lists it as a difference.
    assert_eq!(f.h.app.world().get::<Gauge>(gauge).unwrap().level, 50.0);
    assert!(
        f.info()
            .differences
            .iter()
            .any(|d| d.component == "game::Gauge"),
        "{:?}",
        f.info().differences
    );
    // A drag of the gauge keeps its translation alone, which the file takes.
    drag_x(&mut f, gauge, 40.0);
    f.settle();
    assert_ne!(f.read(YARD), original, "{:?}", f.status());
    assert!(!f.status().error, "{:?}", f.status());
    assert_eq!(f.undo_steps(), 1);
}

#[test]
fn with_keep_on_save_drags_wait_for_ctrl_s_and_restore_puts_the_file_value_back() {
    let mut f = open_with(YARD, ForgeEditorPlugin::default().keep_on_save());
    let original = f.read(YARD);
    let crate_ = f.entity(&[2]);
    f.select(crate_);
    drag_x(&mut f, crate_, 40.0);
    f.settle();
    assert_eq!(f.read(YARD), original);
    // The panel lists the difference with both values.
    let d = f.info().differences;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].field.as_deref(), Some("translation"));
    assert!(d[0].file.as_deref().unwrap().contains("-100"), "{d:?}");
    assert!(d[0].live.contains("-60"), "{d:?}");
    // Backspace: the file's value comes back; nothing is written.
    f.h.tap(KeyCode::Backspace);
    assert_eq!(f.transform(crate_).translation.x, -100.0);
    // Dragged again and kept with Ctrl+S.
    drag_x(&mut f, crate_, 40.0);
    f.h.hold(KeyCode::ControlLeft);
    f.h.tap(KeyCode::KeyS);
    f.h.let_go(KeyCode::ControlLeft);
    f.settle();
    assert_ne!(f.read(YARD), original, "{:?}", f.status());
    assert_eq!(f.undo_steps(), 1);
    f.h.frames(4);
    assert!(
        f.info().differences.is_empty(),
        "{:?}",
        f.info().differences
    );
}

/// Asserts that `after` differs from `before` only inside the translation of the entity named
/// `name` (on one line), and that every comment of `before` is still there.
fn only_translation_changed(before: &str, after: &str, name: &str) {
    let (old, new) = changed(before, after);
    let line = line_of(before, &format!("name: \"{name}\""));
    let line_start: usize = before.lines().take(line - 1).map(|l| l.len() + 1).sum();
    let translation = line_start
        + before
            .lines()
            .nth(line - 1)
            .unwrap()
            .find("translation: (")
            .unwrap();
    let close = translation + before[translation..].find(')').unwrap();
    assert!(
        old.start > translation && old.end <= close,
        "{old:?} not in {translation}..{close}:\n{after}"
    );
    assert!(!after[new].contains('\n'), "{after}");
    for comment in before.lines().filter(|l| l.trim_start().starts_with("//")) {
        assert!(after.contains(comment));
    }
}

#[test]
fn in_forge_edit_a_drag_keeps_the_custom_components_the_scene_spawned_without() {
    let mut f = open_standalone(YARD);
    let original = f.read(YARD);
    let custom = r#"(type: custom, data: (type_path: "game::Gauge", fields: [(name: "level", expr: "5.0")]))"#;
    assert!(original.contains(custom), "{original}");
    let gauge = f.entity(&[5]);
    assert!(
        f.h.app.world().get::<Gauge>(gauge).is_none(),
        "the custom component spawned"
    );
    f.select(gauge);
    drag_x(&mut f, gauge, 40.0);
    f.settle();
    assert!(!f.status().error, "{:?}", f.status());
    let once = f.read(YARD);
    only_translation_changed(&original, &once, "Gauge");
    assert!(
        (translation_x(&once, "Gauge") - 40.0).abs() < 0.01,
        "{once}"
    );
    assert!(once.contains(custom), "{once}");
    // A second drag, from the scene as the first keep's reload spawned it.
    drag_x(&mut f, gauge, 40.0);
    f.settle();
    let twice = f.read(YARD);
    only_translation_changed(&once, &twice, "Gauge");
    assert!(
        (translation_x(&twice, "Gauge") - 80.0).abs() < 0.01,
        "{twice}"
    );
    assert!(twice.contains(custom), "{twice}");
    // Undo twice: the file as it was, byte for byte.
    f.h.hold(KeyCode::ControlLeft);
    f.h.tap(KeyCode::KeyZ);
    f.settle();
    f.h.tap(KeyCode::KeyZ);
    f.h.let_go(KeyCode::ControlLeft);
    f.settle();
    assert_eq!(f.read(YARD), original);
}

#[test]
fn a_drag_in_3d_along_x_keeps_the_box() {
    let mut f = open(ROOM);
    let box_ = f.entity(&[3]);
    f.select(box_);
    let before = f.transform(box_);
    drag_x(&mut f, box_, 30.0);
    let after = f.transform(box_);
    assert!(
        after.translation.x > before.translation.x + 0.1,
        "{after:?}"
    );
    assert_eq!(after.translation.y, before.translation.y);
    assert_eq!(after.translation.z, before.translation.z);
    f.settle();
    assert_eq!(f.undo_steps(), 1, "{:?}", f.status());
    // The locked floor: selected, never moved.
    let floor = f.entity(&[2]);
    let at =
        f.h.screen_of_point(bevy_internal::math::Vec3::new(0.0, 0.0, 3.0))
            .unwrap();
    f.h.click(at);
    assert_eq!(f.selected(), vec![floor]);
    assert!(f.info().locked.is_some());
}

fn golden(f: &mut Fixture, name: &str) {
    let image = f.h.capture();
    let rgba = image.try_into_dynamic().unwrap().to_rgba8();
    bevy_forge_scene_render::compare::check_not_blank(&rgba).unwrap();
    let path = Path::new(GOLDEN).join(format!("{name}.png"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        bevy_forge_scene_render::compare::save_png(&rgba, &path).unwrap();
        return;
    }
    let want = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()))
        .to_rgba8();
    let got_path = std::env::temp_dir().join(format!("forge-editor-{name}.png"));
    bevy_forge_scene_render::compare::save_png(&rgba, &got_path).unwrap();
    let tolerance = bevy_forge_scene_render::compare::Tolerance::DEFAULT;
    let diff = bevy_forge_scene_render::compare::compare(&want, &rgba, tolerance).unwrap();
    assert!(
        diff.within(tolerance),
        "{name}: {diff:?} (this run's picture: {})",
        got_path.display()
    );
}

#[test]
fn golden_images_of_the_overlay_in_2d_and_3d() {
    let mut f = open(YARD);
    let board = f.entity(&[4, 2]);
    f.select(board);
    let crate_ = f.entity(&[2]);
    f.select(crate_);
    golden(&mut f, "overlay_2d");
    drop(f);
    let mut f = open(ROOM);
    let box_ = f.entity(&[3]);
    f.select(box_);
    golden(&mut f, "overlay_3d");
}
