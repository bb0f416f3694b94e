//! A render in a child process: software Vulkan occasionally takes a process down, so the
//! `forge-render` process hands the job to a child (`forge-render child`) and tries once more
//! when the child dies without saying why. A child that fails for a reason (a scene that does
//! not load, a blank capture) is not tried again.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::job::{RenderJob, Rendered};

/// The exit code of a child that failed for a reason it wrote to `error.txt`.
pub const FAILED_WITH_REASON: i32 = 2;

/// Why a render in a child process failed.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    /// The child said why (the render's own error).
    #[error("{0}")]
    Failed(String),
    /// The child died twice without saying why.
    #[error("the renderer crashed twice ({first}; then {second}); see its output above")]
    Crashed {
        /// How the first try ended.
        first: String,
        /// How the second try ended.
        second: String,
    },
    /// The child could not be started, or its files read.
    #[error("{path}: {source}")]
    Io {
        /// The program or file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// Renders `job` in a child process running `exe child` (the `forge-render` binary), trying
/// once more if the child crashes. The job and the result pass through `job.out_dir`
/// (`job.json`, `result.json`, `error.txt`).
///
/// # Errors
/// [`ChildError`]: the render's own error, two crashes, or files that cannot be written.
pub fn render_in_child(exe: &Path, job: &RenderJob) -> Result<Rendered, ChildError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| ChildError::Io { path, source }
    };
    std::fs::create_dir_all(&job.out_dir).map_err(io(&job.out_dir))?;
    let job_file = job.out_dir.join("job.json");
    let result_file = job.out_dir.join("result.json");
    let error_file = job.out_dir.join("error.txt");
    let text = serde_json::to_string_pretty(job).map_err(|e| ChildError::Io {
        path: job_file.clone(),
        source: std::io::Error::other(e),
    })?;
    std::fs::write(&job_file, text).map_err(io(&job_file))?;
    let mut ends = Vec::new();
    for attempt in 0..2 {
        let _ = std::fs::remove_file(&result_file);
        let _ = std::fs::remove_file(&error_file);
        let status = Command::new(exe)
            .arg("child")
            .arg(&job_file)
            .status()
            .map_err(io(exe))?;
        if status.success() {
            let text = std::fs::read_to_string(&result_file).map_err(io(&result_file))?;
            return serde_json::from_str(&text).map_err(|e| ChildError::Io {
                path: result_file.clone(),
                source: std::io::Error::other(e),
            });
        }
        if status.code() == Some(FAILED_WITH_REASON)
            && let Ok(reason) = std::fs::read_to_string(&error_file)
        {
            return Err(ChildError::Failed(reason.trim_end().to_owned()));
        }
        let end = describe(&status);
        if attempt == 0 {
            eprintln!("forge-render: the renderer crashed ({end}); trying once more");
        }
        ends.push(end);
    }
    let second = ends.pop().unwrap_or_default();
    let first = ends.pop().unwrap_or_default();
    Err(ChildError::Crashed { first, second })
}

fn describe(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(101) => "it panicked".to_owned(),
        Some(code) => format!("exit code {code}"),
        None => "no exit code".to_owned(),
    }
}

/// What `forge-render child JOB` does: runs the job in this process, writes `result.json`
/// (or `error.txt` and returns [`FAILED_WITH_REASON`]).
pub fn child_main(job_file: &Path) -> i32 {
    let fail = |dir: &Path, message: String| {
        let _ = std::fs::write(dir.join("error.txt"), &message);
        eprintln!("forge-render: {message}");
        FAILED_WITH_REASON
    };
    let dir = job_file.parent().unwrap_or(Path::new(".")).to_owned();
    let job: RenderJob = match std::fs::read_to_string(job_file)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(job) => job,
        Err(e) => return fail(&dir, format!("{}: {e}", job_file.display())),
    };
    match crate::headless::render_in_process(&job) {
        Ok(rendered) => match serde_json::to_string_pretty(&rendered) {
            Ok(text) => match std::fs::write(job.out_dir.join("result.json"), text) {
                Ok(()) => 0,
                Err(e) => fail(&dir, format!("result.json: {e}")),
            },
            Err(e) => fail(&dir, e.to_string()),
        },
        Err(e) => fail(&job.out_dir, e.to_string()),
    }
}
