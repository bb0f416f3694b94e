//! `forge render`, `forge review` and `forge edit`: run by programs that hold Bevy's render
//! stack and are built apart (their workspace is `render-tests/`; the render stack needs a
//! newer Rust than the library), so `forge` itself gains no render dependency. As `git` and
//! `cargo` do for their external commands, `forge render ARGS` runs `forge-render render ARGS`,
//! `forge edit ARGS` runs `forge-edit ARGS`, and each ends with its program's exit status.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// A program `forge` hands a command over to.
pub struct Program {
    /// Its name (`forge-render`).
    pub name: &'static str,
    /// The environment variable that names it when set (`FORGE_RENDER`).
    pub env: &'static str,
    /// The package folder it is installed from (`forge-render`).
    pub package: &'static str,
    /// The guide page that tells about it.
    pub guide: &'static str,
}

/// `forge render` and `forge review`.
pub const RENDER: Program = Program {
    name: "forge-render",
    env: "FORGE_RENDER",
    package: "forge-render",
    guide: "docs/guide/review.md",
};

/// `forge edit`.
pub const EDIT: Program = Program {
    name: "forge-edit",
    env: "FORGE_EDIT",
    package: "forge-editor",
    guide: "docs/guide/edit-mode.md",
};

/// Where `program` is: its environment variable when set, else beside this program, else on
/// `PATH`.
pub fn find(program: &Program) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(program.env).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let name = format!("{}{}", program.name, std::env::consts::EXE_SUFFIX);
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
    run_program(&RENDER, command, Some(command), args)
}

/// Runs `PROGRAM [SUBCOMMAND] ARGS` for `forge COMMAND`, or says how to get the program (exit
/// status 2).
pub fn run_program(
    program: &Program,
    command: &str,
    subcommand: Option<&str>,
    args: &[OsString],
) -> ExitCode {
    let Some(path) = find(program) else {
        eprintln!(
            "error: `forge {command}` is run by the `{name}` program, which was not found \
             (looked at ${env}, beside `forge`, and on PATH).\n\
             help: build it from the repository with \
             `cargo install --path {package} --ignore-rust-version` (it needs Bevy's render \
             stack and a Vulkan driver; on a machine without a GPU, Mesa's lavapipe: Debian's \
             `mesa-vulkan-drivers`); see {guide}",
            name = program.name,
            env = program.env,
            package = program.package,
            guide = program.guide,
        );
        return ExitCode::from(2);
    };
    let mut child = std::process::Command::new(&path);
    if let Some(subcommand) = subcommand {
        child.arg(subcommand);
    }
    match child.args(args).status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => {
                eprintln!("error: `{}` was killed", path.display());
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("error: `{}` could not be started: {e}", path.display());
            ExitCode::from(2)
        }
    }
}
