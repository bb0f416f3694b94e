//! `forge`: validate, format, create and inspect `.forge.ron` scenes from the command line.
//!
//! ```text
//! forge validate <FILE|DIR>... [--schema FILE] [--assets DIR | --no-assets] [--format human|json]
//!                [--deny-warnings]
//! forge fmt <FILE|DIR>... [--check]
//! forge new <NAME> [--project DIR]
//! forge tree <FILE>
//! ```
//!
//! With `--schema game.forge-schema.ron` (written by the game with `ForgeSchemas::export`),
//! `validate` checks custom components as the scene loader does, without the game's code;
//! without it, only their shape (type path, field names, non-empty expressions).
//!
//! Human output is rendered by codespan-reporting, which calls the `Info` severity `note`; JSON
//! output says `info`.
//!
//! Exit status: 0 when nothing is wrong, 1 when a scene has errors (or, with `--check`, is not
//! canonical), 2 for usage errors, paths that cannot be read, and a `--schema` file that cannot
//! be read or is invalid (with `--format json`, stdout then has a JSON array of that one error,
//! code `forge::schema_file::unreadable` or `forge::schema_file::invalid`).

mod files;
mod render;
mod tree;

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy_forge_scene::format::{ParsedScene, SceneDoc};
use bevy_forge_scene::project::{AssetIndex, Project, slugify};
use bevy_forge_scene::schema::file::{SchemaFile, SchemaFileError};
use bevy_forge_scene::validate::{Diagnostic, Severity};
use bevy_forge_scene::validate::{validate_parsed, validate_parsed_with_schemas};
use clap::{Args, Parser, Subcommand, ValueEnum};

use bevy_forge_scene::validate::report::{self, Source};

/// Checks, formats, creates and shows Bevy Forge `.forge.ron` scenes.
#[derive(Debug, Parser)]
#[command(name = "forge", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate scenes and print their diagnostics.
    Validate(ValidateArgs),
    /// Rewrite scenes in canonical form.
    Fmt(FmtArgs),
    /// Create an empty scene in a project's `scenes/` directory.
    New(NewArgs),
    /// Print a scene's entity hierarchy.
    Tree(TreeArgs),
}

#[derive(Debug, Args)]
struct ValidateArgs {
    /// Scene files, or directories searched for `*.forge.ron` files.
    #[arg(required = true, value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Check custom components against the schemas in this `.forge-schema.ron` file (written by
    /// the game with `ForgeSchemas::export`), as the scene loader checks them.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// Check asset references against this assets directory (default: the assets directory of
    /// the project each scene is in, if any).
    #[arg(long, value_name = "DIR", conflicts_with = "no_assets")]
    assets: Option<PathBuf>,
    /// Skip the checks that need the asset files (existence and kind).
    #[arg(long)]
    no_assets: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// Count warnings as errors for the exit status.
    #[arg(long)]
    deny_warnings: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// rustc-like text.
    Human,
    /// One JSON array of `{file, severity, code, message, line, column, entity, path, help}`.
    Json,
}

#[derive(Debug, Args)]
struct FmtArgs {
    /// Scene files, or directories searched for `*.forge.ron` files.
    #[arg(required = true, value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Write nothing; list the files that are not canonical and exit with 1 if there are any.
    #[arg(long)]
    check: bool,
}

#[derive(Debug, Args)]
struct NewArgs {
    /// The scene's display name; the file is `scenes/<slug>.forge.ron`.
    name: String,
    /// The project directory.
    #[arg(long, value_name = "DIR", default_value = ".")]
    project: PathBuf,
}

#[derive(Debug, Args)]
struct TreeArgs {
    /// The scene file.
    file: PathBuf,
}

/// How a command ended; the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Ok = 0,
    Failed = 1,
    Usage = 2,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Validate(args) => validate(&args),
        Command::Fmt(args) => fmt(&args),
        Command::New(args) => new(&args),
        Command::Tree(args) => show_tree(&args),
    };
    ExitCode::from(status as u8)
}

fn fail(message: &str) -> Status {
    eprintln!("error: {message}");
    Status::Usage
}

/// What reading one file gave.
enum Loaded {
    Parsed(Source, Box<ParsedScene>),
    ReadError(Source, Diagnostic),
}

/// Reads a scene file; `Err` when the file cannot be read at all.
fn load(path: &Path) -> Result<Loaded, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let source = Source::new(path.display().to_string(), &bytes);
    Ok(match SceneDoc::from_slice(&bytes) {
        Ok(parsed) => Loaded::Parsed(source, Box::new(parsed)),
        Err(e) => Loaded::ReadError(source, Diagnostic::from_read_error(&e)),
    })
}

fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
}

fn validate(args: &ValidateArgs) -> Status {
    let paths = match files::collect(&args.paths) {
        Ok(paths) => paths,
        Err(e) => return fail(&e),
    };
    let schemas = match &args.schema {
        Some(path) => match SchemaFile::read(path) {
            Ok(file) => Some(file),
            Err(e) => return schema_file_error(path, &e, args.format),
        },
        None => None,
    };
    let fixed_index = match &args.assets {
        Some(dir) => match AssetIndex::scan(dir) {
            Ok(index) => Some(index),
            Err(e) => return fail(&format!("cannot scan assets: {e}")),
        },
        None => None,
    };
    let mut project_indexes: HashMap<PathBuf, Option<AssetIndex>> = HashMap::new();
    let colour = render::use_colour();
    let mut status = Status::Ok;
    let (mut errors, mut warnings, mut infos) = (0, 0, 0);
    let mut json = Vec::new();
    for path in &paths {
        let (source, diagnostics) = match load(path) {
            Err(e) => {
                status = status.max(fail(&e));
                continue;
            }
            Ok(Loaded::ReadError(source, d)) => (source, vec![d]),
            Ok(Loaded::Parsed(source, parsed)) => {
                let index = if args.no_assets {
                    None
                } else if fixed_index.is_some() {
                    fixed_index.as_ref()
                } else {
                    match files::project_of(path) {
                        None => None,
                        Some(project) => project_indexes
                            .entry(project.root().to_owned())
                            .or_insert_with(|| AssetIndex::scan(project.assets_dir()).ok())
                            .as_ref(),
                    }
                };
                let report = match &schemas {
                    Some(schemas) => {
                        validate_parsed_with_schemas(&parsed, &source.text, index, schemas)
                    }
                    None => validate_parsed(&parsed, index),
                };
                (source, report.diagnostics)
            }
        };
        for d in &diagnostics {
            match d.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
                Severity::Info => infos += 1,
            }
        }
        let failed = diagnostics.iter().any(|d| {
            d.severity == Severity::Error || (args.deny_warnings && d.severity == Severity::Warning)
        });
        if failed {
            status = status.max(Status::Failed);
        }
        match args.format {
            OutputFormat::Human => print(&report::human(&source, &diagnostics, colour)),
            OutputFormat::Json => {
                json.extend(
                    diagnostics
                        .iter()
                        .map(|d| render::json_object(&source.name, d)),
                );
            }
        }
    }
    match args.format {
        OutputFormat::Human => print(&format!(
            "checked {}: {}, {}, {}\n",
            render::count(paths.len(), "file"),
            render::count(errors, "error"),
            render::count(warnings, "warning"),
            render::count(infos, "info"),
        )),
        OutputFormat::Json => {
            let text = serde_json::to_string_pretty(&json).unwrap_or_else(|_| "[]".to_owned());
            print(&format!("{text}\n"));
        }
    }
    status
}

/// Reports a schema file that cannot be read or is invalid (exit status 2): on stderr, and
/// with `--format json` also as a JSON array of one error on stdout (code
/// `forge::schema_file::unreadable` or `forge::schema_file::invalid`), so tools reading stdout
/// see what went wrong.
fn schema_file_error(path: &Path, e: &SchemaFileError, format: OutputFormat) -> Status {
    let unreadable = matches!(e, SchemaFileError::Io { .. });
    if format == OutputFormat::Json {
        let (line, column) = e.position().unzip();
        let error = serde_json::json!({
            "file": path.display().to_string(),
            "severity": "error",
            "code": if unreadable {
                "forge::schema_file::unreadable"
            } else {
                "forge::schema_file::invalid"
            },
            "message": e.message(),
            "line": line,
            "column": column,
            "entity": null,
            "path": null,
            "help": null,
        });
        let text = serde_json::to_string_pretty(&[error]).unwrap_or_else(|_| "[]".to_owned());
        print(&format!("{text}\n"));
    }
    if unreadable {
        fail(&format!("cannot read the schema file {e}"))
    } else {
        fail(&format!("invalid schema file: {e}"))
    }
}

fn fmt(args: &FmtArgs) -> Status {
    let paths = match files::collect(&args.paths) {
        Ok(paths) => paths,
        Err(e) => return fail(&e),
    };
    let colour = render::use_colour();
    let mut status = Status::Ok;
    for path in &paths {
        let (source, parsed) = match load(path) {
            Err(e) => {
                status = status.max(fail(&e));
                continue;
            }
            Ok(Loaded::ReadError(source, d)) => {
                print(&report::human(&source, &[d], colour));
                status = status.max(Status::Failed);
                continue;
            }
            Ok(Loaded::Parsed(source, parsed)) => (source, parsed),
        };
        let canonical = parsed.doc.to_canonical_string();
        let on_disk = std::fs::read(path).unwrap_or_default();
        if on_disk == canonical.as_bytes() {
            continue;
        }
        if args.check {
            print(&format!("{}\n", source.name));
            status = status.max(Status::Failed);
            continue;
        }
        match write_canonical(path, &parsed.doc) {
            Ok(()) => print(&format!("formatted {}\n", source.name)),
            Err(e) => status = status.max(fail(&format!("cannot write `{}`: {e}", source.name))),
        }
    }
    status
}

/// Writes `doc` canonically over `path`, atomically (through the file's directory as a project).
fn write_canonical(path: &Path, doc: &SceneDoc) -> Result<(), String> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or("not a file")?;
    let project = Project::open(dir).map_err(|e| e.to_string())?;
    project
        .save_scene(name, doc)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn new(args: &NewArgs) -> Status {
    let project = match Project::open(&args.project) {
        Ok(p) => p,
        Err(e) => {
            return fail(&format!(
                "cannot open project `{}`: {e}",
                args.project.display()
            ));
        }
    };
    let rel = format!("scenes/{}.forge.ron", slugify(&args.name));
    if project.root().join(&rel).exists() {
        eprintln!("error: `{rel}` already exists; not overwriting it");
        return Status::Failed;
    }
    match project.save_scene(&rel, &SceneDoc::new(args.name.clone())) {
        Ok(_) => {
            print(&format!("created {rel}\n"));
            Status::Ok
        }
        Err(e) => {
            eprintln!("error: cannot write `{rel}`: {e}");
            Status::Failed
        }
    }
}

fn show_tree(args: &TreeArgs) -> Status {
    match load(&args.file) {
        Err(e) => fail(&e),
        Ok(Loaded::ReadError(source, d)) => {
            print(&report::human(&source, &[d], render::use_colour()));
            Status::Failed
        }
        Ok(Loaded::Parsed(_, parsed)) => {
            print(&tree::render(&parsed.doc));
            Status::Ok
        }
    }
}
