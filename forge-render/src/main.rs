//! `forge-render`: pictures of `.forge.ron` scenes through Bevy's renderer, without a window.
//! `forge render ...` and `forge review ...` run it (it is found on `PATH` or beside `forge`).
//!
//! ```text
//! forge-render render SCENE.forge.ron --out scene.png [--size 1280x720] [--camera ID|auto] [--assets DIR]
//! forge-render review BASE HEAD --out DIR [--size ..] [--camera ..] [--assets DIR]
//! forge-render review --git BASE_REV HEAD_REV --out DIR [--folder assets]
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy_forge_scene_render::compare::Tolerance;
use bevy_forge_scene_render::job::{CameraChoice, RenderJob, Rendered, SceneFile};
use bevy_forge_scene_render::process::{child_main, render_in_child};
use bevy_forge_scene_render::{asset_folder, git, parse_camera, parse_size, review};
use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "forge-render",
    version,
    about = "Pictures of .forge.ron scenes through Bevy's renderer, without a window"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Render one scene to a PNG file.
    Render(RenderArgs),
    /// Render two versions of a scene (two files, or two git revisions of an asset folder) and
    /// write before / after / difference images and a Markdown report.
    Review(ReviewArgs),
    /// Run a render job (what `render` and `review` start in a child process).
    #[command(hide = true)]
    Child {
        /// The job file (`job.json`).
        job: PathBuf,
    },
}

#[derive(Args, Clone)]
struct Picture {
    /// Width and height in pixels.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    size: (u32, u32),
    /// `auto` (a camera framing every entity: top-down for 2D, three-quarter for 3D), or the
    /// id path of one of the scene's cameras (`1`, `5/2`). Default: the scene's own cameras,
    /// else auto.
    #[arg(long, value_parser = parse_camera)]
    camera: Option<CameraChoice>,
    /// The asset folder prefab files and images are read from. Default: the `assets/` folder
    /// of the scene's project, else the scene's own folder.
    #[arg(long)]
    assets: Option<PathBuf>,
}

#[derive(Args)]
struct RenderArgs {
    /// The scene file.
    scene: PathBuf,
    /// The PNG file to write.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    picture: Picture,
}

#[derive(Args)]
struct ReviewArgs {
    /// The base: a scene file, or with `--git` a revision (`main`, `HEAD~1`, a commit).
    base: String,
    /// The head: a scene file, or with `--git` a revision.
    head: String,
    /// The folder the report (`report.md`) and its images are written to.
    #[arg(long)]
    out: PathBuf,
    /// BASE and HEAD are git revisions: review every scene of `--folder` that changed between
    /// them, or that places a file that changed.
    #[arg(long)]
    git: bool,
    /// With `--git`: the asset folder to look at, in the current git work tree.
    #[arg(long, default_value = "assets")]
    folder: PathBuf,
    #[command(flatten)]
    picture: Picture,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Child { job } => {
            return ExitCode::from(u8::try_from(child_main(&job)).unwrap_or(1));
        }
        Command::Render(args) => render(&args),
        Command::Review(args) if args.git => review_git(&args),
        Command::Review(args) => review_files(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("forge-render: {message}");
            ExitCode::FAILURE
        }
    }
}

fn exe() -> Result<PathBuf, String> {
    std::env::current_exe().map_err(|e| format!("cannot find its own program: {e}"))
}

fn job(scenes: Vec<SceneFile>, out_dir: &Path, picture: &Picture) -> RenderJob {
    let mut job = RenderJob::new(scenes, out_dir);
    (job.width, job.height) = picture.size;
    job.camera = picture.camera.clone().unwrap_or_default();
    job
}

fn report_timings(rendered: &Rendered) {
    let t = rendered.timings;
    eprintln!(
        "forge-render: rendered on {} (start-up {:.2} s, load and spawn {:.2} s, frames {:.2} s)",
        rendered.adapter, t.startup, t.load_spawn, t.frames
    );
}

fn render(args: &RenderArgs) -> Result<(), String> {
    if !args.scene.is_file() {
        return Err(format!("{}: no such scene file", args.scene.display()));
    }
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let scene = SceneFile {
        assets: asset_folder(&args.scene, args.picture.assets.as_deref()),
        file: args.scene.clone(),
    };
    let job = job(vec![scene], work.path(), &args.picture);
    let rendered = render_in_child(&exe()?, &job).map_err(|e| e.to_string())?;
    report_timings(&rendered);
    let capture = &rendered.captures[0];
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::copy(&capture.image, &args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    println!(
        "{}: {} entities drawn through {} -> {}",
        args.scene.display(),
        capture.entities.len(),
        capture.camera,
        args.out.display()
    );
    Ok(())
}

/// Renders `base` and `head` in one child (one job) and writes the review's images into
/// `images` (under `out`); returns its verdict and its Markdown section.
fn review_pair(
    title: &str,
    base: SceneFile,
    head: SceneFile,
    out: &Path,
    images: &str,
    picture: &Picture,
) -> Result<(String, String), String> {
    let work = out.join(images).join(".render");
    let mut job = job(vec![base, head], &work, picture);
    job.frame_together = true;
    job.quick_captures = true;
    let rendered = render_in_child(&exe()?, &job).map_err(|e| e.to_string())?;
    report_timings(&rendered);
    let started = std::time::Instant::now();
    let review = review::review(&rendered, Tolerance::DEFAULT).map_err(|e| e.to_string())?;
    review
        .write_images(&out.join(images))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!(
        "forge-render: compared, drew and wrote the review's pictures in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&work);
    Ok((
        review.verdict(),
        review.markdown(title, images, &rendered.adapter),
    ))
}

/// Renders one side of a scene that only one revision has.
fn render_one(
    scene: SceneFile,
    out: &Path,
    images: &str,
    name: &str,
    picture: &Picture,
) -> Result<(), String> {
    let work = out.join(images).join(".render");
    let job = job(vec![scene], &work, picture);
    let rendered = render_in_child(&exe()?, &job).map_err(|e| e.to_string())?;
    report_timings(&rendered);
    std::fs::copy(&rendered.captures[0].image, out.join(images).join(name))
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn write_report(out: &Path, body: &str) -> Result<(), String> {
    let report = out.join("report.md");
    std::fs::write(&report, body).map_err(|e| format!("{}: {e}", report.display()))?;
    println!("{}", report.display());
    Ok(())
}

fn review_files(args: &ReviewArgs) -> Result<(), String> {
    let (base, head) = (PathBuf::from(&args.base), PathBuf::from(&args.head));
    for f in [&base, &head] {
        if !f.is_file() {
            return Err(format!("{}: no such scene file", f.display()));
        }
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let assets = args.picture.assets.as_deref();
    let (_, section) = review_pair(
        &args.head,
        SceneFile {
            assets: asset_folder(&base, assets),
            file: base.clone(),
        },
        SceneFile {
            assets: asset_folder(&head, assets),
            file: head.clone(),
        },
        &args.out,
        ".",
        &args.picture,
    )?;
    write_report(
        &args.out,
        &format!(
            "# Scene review\n\n`{}` -> `{}`\n\n{section}",
            args.base, args.head
        ),
    )
}

fn review_git(args: &ReviewArgs) -> Result<(), String> {
    let revisions =
        git::checkout(&args.base, &args.head, &args.folder).map_err(|e| e.to_string())?;
    let scenes = git::affected(&revisions);
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let mut sections = String::new();
    let mut summary = Vec::new();
    let mut failed = Vec::new();
    for scene in &scenes {
        let images = scene
            .path
            .trim_end_matches(".forge.ron")
            .replace(['/', '\\'], "-");
        let side = |root: &Path| SceneFile {
            assets: root.to_owned(),
            file: root.join(&scene.path),
        };
        std::fs::create_dir_all(args.out.join(&images)).map_err(|e| e.to_string())?;
        let result = match (scene.in_base, scene.in_head) {
            (true, true) => review_pair(
                &scene.path,
                side(&revisions.base),
                side(&revisions.head),
                &args.out,
                &images,
                &args.picture,
            ),
            (false, _) => render_one(
                side(&revisions.head),
                &args.out,
                &images,
                "after.png",
                &args.picture,
            )
            .map(|()| {
                (
                    "a new scene".to_owned(),
                    format!(
                        "## `{}`\n\nA new scene.\n\n![after]({images}/after.png)\n",
                        scene.path
                    ),
                )
            }),
            (true, false) => render_one(
                side(&revisions.base),
                &args.out,
                &images,
                "before.png",
                &args.picture,
            )
            .map(|()| {
                (
                    "the scene was removed".to_owned(),
                    format!(
                        "## `{}`\n\nThe scene was removed.\n\n![before]({images}/before.png)\n",
                        scene.path
                    ),
                )
            }),
        };
        let verdict = match result {
            Ok((verdict, section)) => {
                sections.push_str(&section);
                verdict
            }
            Err(e) => {
                sections.push_str(&format!("## `{}`\n\nNot rendered: {e}\n", scene.path));
                failed.push(scene.path.clone());
                "not rendered (below)".to_owned()
            }
        };
        sections.push('\n');
        summary.push((scene, verdict));
    }
    let body = format!(
        "# Scene review\n\n{}{sections}",
        git_summary(args, &summary)
    );
    write_report(&args.out, &body)?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("not rendered: {}", failed.join(", ")))
    }
}

/// The one summary at the top of a `--git` report: how many scenes and why, then a line per
/// scene with its verdict.
fn git_summary(args: &ReviewArgs, scenes: &[(&git::Affected, String)]) -> String {
    let own = scenes.iter().filter(|(s, _)| s.changed).count();
    let placing = scenes.len() - own;
    let mut text = format!(
        "`{}` -> `{}` in `{}`: {}",
        args.base,
        args.head,
        args.folder.display(),
        match scenes.len() {
            0 => "no scene changed.\n".to_owned(),
            1 => "1 scene to review".to_owned(),
            n => format!("{n} scenes to review"),
        }
    );
    if scenes.is_empty() {
        return text;
    }
    let placing = match placing {
        0 => String::new(),
        1 => ", 1 placing a changed prefab".to_owned(),
        n => format!(", {n} placing a changed prefab"),
    };
    text.push_str(&format!(" ({own} changed{placing}).\n\n"));
    text.push_str("| scene | why | verdict |\n|---|---|---|\n");
    for (scene, verdict) in scenes {
        let mut why = Vec::new();
        if scene.changed {
            why.push("changed".to_owned());
        }
        if !scene.places.is_empty() {
            let files: Vec<String> = scene.places.iter().map(|p| format!("`{p}`")).collect();
            why.push(format!("places {}", files.join(", ")));
        }
        text.push_str(&format!(
            "| `{}` | {} | {verdict} |\n",
            scene.path,
            why.join("; ")
        ));
    }
    text.push('\n');
    text
}
