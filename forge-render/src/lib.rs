//! Pictures of `.forge.ron` scenes through Bevy's real renderer, without a window: the
//! `forge-render` binary behind `forge render` and `forge review`.
//!
//! - [`headless::render_in_process`] spawns scenes through [`ForgeScenePlugin`] and draws them
//!   into an image with Bevy's default plugins (no window), reading the picture back with
//!   Bevy's `Screenshot`; a blank capture is an error ([`compare::check_not_blank`]).
//! - [`process::render_in_child`] runs that in a child process and tries once more when the
//!   child crashes (software Vulkan sometimes does).
//! - [`review::review`] turns the captures of two versions into a composite (before | after,
//!   cropped to the changes, each numbered: [`composite`], placed by the pure rules of
//!   [`layout`], drawn by [`draw`]), before / after / difference images with the changes
//!   outlined, and the changes in words ([`words::changes`], from the two files' diff);
//!   [`report`] writes it as Markdown: a verdict, the composite, a numbered table.
//! - [`compare`] is the tolerance the golden-image tests and reviews use: a pixel differs when
//!   a channel is off by more than 4/255; two pictures differ when more than 1% of pixels do.
//!
//! This package is a member of the render-stack workspace (`render-tests/`): the render stack
//! declares Rust 1.97.1 and is kept out of the library's workspace.
//!
//! [`ForgeScenePlugin`]: bevy_forge_scene::ForgeScenePlugin

pub mod compare;
pub mod composite;
pub mod draw;
pub mod git;
pub mod headless;
pub mod job;
pub mod layout;
pub mod process;
pub mod report;
pub mod review;
pub mod words;

use std::path::{Path, PathBuf};

/// The asset folder of a scene file: `--assets` when given, else the assets folder of the
/// project the file is in (the nearest enclosing folder with a `scenes/` or `assets/` folder:
/// its `assets/`, or itself), else the file's own folder. The rule of `forge validate`.
pub fn asset_folder(file: &Path, assets: Option<&Path>) -> PathBuf {
    if let Some(dir) = assets {
        return dir.to_owned();
    }
    let project = file.canonicalize().ok().and_then(|f| {
        f.parent()?
            .ancestors()
            .find(|d| d.join("scenes").is_dir() || d.join("assets").is_dir())
            .and_then(|d| bevy_forge_scene::project::Project::open(d).ok())
    });
    match project {
        Some(project) => project.assets_dir(),
        None => file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned(),
    }
}

/// Reads `1280x720` as `(1280, 720)`.
///
/// # Errors
/// What was expected, when `text` is not two whole numbers from 1 to 8192 joined by `x`.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{text}` is not a size: expected WIDTHxHEIGHT, such as 1280x720");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if !(1..=8192).contains(&w) || !(1..=8192).contains(&h) {
        return Err(format!(
            "`{text}`: width and height must each be from 1 to 8192 pixels"
        ));
    }
    Ok((w, h))
}

/// Reads `--camera`: `auto`, or the id path of one of the scene's cameras (`1`, `5/2`,
/// `[5, 2]`).
///
/// # Errors
/// What was expected, when `text` is neither.
pub fn parse_camera(text: &str) -> Result<job::CameraChoice, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("auto") {
        return Ok(job::CameraChoice::Auto);
    }
    let inner = t.trim_start_matches('[').trim_end_matches(']');
    let ids: Result<Vec<u64>, _> = inner
        .split(['/', ','])
        .map(|p| p.trim().parse::<u64>())
        .collect();
    match ids {
        Ok(ids) if !ids.is_empty() => Ok(job::CameraChoice::Entity(ids)),
        _ => Err(format!(
            "`{text}` is not a camera: expected `auto` or a camera's id path such as `1`, `5/2` or `[5, 2]`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_cameras_read_as_documented() {
        assert_eq!(parse_size("1280x720"), Ok((1280, 720)));
        assert_eq!(parse_size("64X32"), Ok((64, 32)));
        assert!(parse_size("1280").unwrap_err().contains("WIDTHxHEIGHT"));
        assert!(parse_size("0x10").unwrap_err().contains("from 1 to 8192"));
        assert_eq!(parse_camera("auto"), Ok(job::CameraChoice::Auto));
        assert_eq!(parse_camera("1"), Ok(job::CameraChoice::Entity(vec![1])));
        assert_eq!(
            parse_camera("5/2"),
            Ok(job::CameraChoice::Entity(vec![5, 2]))
        );
        assert_eq!(
            parse_camera("[5, 2]"),
            Ok(job::CameraChoice::Entity(vec![5, 2]))
        );
        assert!(parse_camera("front").unwrap_err().contains("id path"));
    }
}
