//! `forge render` and `forge review`: run by the `forge-render` program, which holds Bevy's
//! render stack and is built apart (its workspace is `render-tests/`; the render stack needs
//! a newer Rust than the library), so `forge` itself gains no render dependency. As `git` and
//! `cargo` do for their external commands, `forge render ARGS` runs `forge-render render ARGS`
//! and ends with its exit status.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// Where `forge-render` is: `$FORGE_RENDER` when set, else beside this program, else on `PATH`.
pub fn find() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FORGE_RENDER").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let name = format!("forge-render{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
        .filter(|p| p.is_file());
    beside.or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|dir| dir.join(&name))
            .find(|p| p.is_file())
    })
}

/// Runs `forge-render COMMAND ARGS`, or says how to get it (exit status 2).
pub fn run(command: &str, args: &[OsString]) -> ExitCode {
    let Some(program) = find() else {
        eprintln!(
            "error: `forge {command}` is run by the `forge-render` program, which was not found \
             (looked at $FORGE_RENDER, beside `forge`, and on PATH).\n\
             help: build it from the repository with \
             `cargo install --path forge-render --ignore-rust-version` (it needs Bevy's render \
             stack and a Vulkan driver; on a machine without a GPU, Mesa's lavapipe: Debian's \
             `mesa-vulkan-drivers`); see docs/guide/review.md"
        );
        return ExitCode::from(2);
    };
    match std::process::Command::new(&program)
        .arg(command)
        .args(args)
        .status()
    {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => {
                eprintln!("error: `{}` was killed", program.display());
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("error: `{}` could not be started: {e}", program.display());
            ExitCode::from(2)
        }
    }
}
