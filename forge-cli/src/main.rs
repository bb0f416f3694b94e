//! `forge`: validate, format, create and inspect `.forge.ron` scenes from the command line.
//!
//! ```text
//! forge validate <FILE|DIR>... [--schema FILE] [--assets DIR | --no-assets] [--format human|json]
//!                [--deny-warnings]
//! forge fmt <FILE|DIR>... [--check]
//! forge new <NAME> [--project DIR]
//! forge tree <FILE> [--flat]
//! forge cook <FILE|DIR>... [--out DIR] [--check] [--assets DIR | --no-assets]
//! forge export <FILE> --to bsn|rust [--out FILE] [--function NAME] [--assets DIR]
//! forge import <FILE.scn.ron> [--out FILE [--force]] [--schema FILE]
//! forge migrate <FILE|DIR>... [--dry-run] [--schema FILE]
//! forge schema diff <OLD> <NEW> [SCENE|DIR]... [--assets DIR]
//! forge merge <BASE> <OURS> <THEIRS> [--path NAME] | forge merge --install
//! forge diff <OLD> <NEW>
//! forge lsp
//! ```
//!
//! `lsp` is the language server for editors, over standard input and output
//! (`bevy_forge_scene_cli::lsp`; the guide's "Editor setup" page).
//!
//! `import` reads a Bevy `.scn.ron` world written by any Bevy from 0.9 to 0.20
//! (`bevy_world_serialization` and the `bevy_scene` before it; Bevy 0.8's list form is refused
//! naming it) with the built-in types (`Name`, `Transform`, the hierarchy, and the Bevy types of
//! the built-in components) and prints it as a scene, or writes it atomically to `--out`; the
//! era it read is a `note` on stderr. With `--schema`, the game's components are typed by its
//! exported schemas and written as `custom` components. What cannot be mapped (resources,
//! types it does not know, values it cannot write) is listed as warnings on stderr; a result
//! that does not validate (against `--schema`, when given) is not written.
//!
//! `migrate` brings scenes written at an older `format_version` to the current one through the
//! edit layer (`bevy_forge_scene::edit`), keeping comments; with `--schema`, it also rewrites the
//! custom types and fields the game renamed (`renamed_from`) with their new names, changing only
//! those strings. `--dry-run` prints the changes.
//!
//! `schema diff` lists what changed between two schema exports (types and fields added,
//! removed, renamed, retyped) and checks the given scenes against both: each scene that has
//! errors with the new schemas it did not have with the old is listed with them (exit 1).
//! `merge` is git's merge driver for scenes (`bevy_forge_scene::merge`): it merges the three
//! versions by entity id and writes the result to OURS (atomically): exit 0 when clean, 1 when
//! conflicts are left (each marked in the file by a `/* forge-merge: .. */` comment, which
//! `forge validate` reports as `forge::merge::conflict` until it is removed), 2 when a file
//! cannot be read (nothing written). `merge --install` sets a repository up (`.gitattributes`
//! and its git config, which a clone does not copy); `validate` and `lsp` warn when a
//! repository's `.gitattributes` names the driver but its config lacks it. `diff` prints what
//! changed between two versions, one line per change, by id (usable as git's
//! `diff.<driver>.command`).
//!
//! `fmt` writes the canonical layout and keeps comments, each carried to the entry or field it
//! belongs to (`bevy_forge_scene::edit::format_text`, which the language server formats with).
//!
//! `export` writes the scene as a Rust file for Bevy 0.20.1 (standard output, or `--out`
//! atomically): `--to rust` a function that spawns it with `World` calls, `--to bsn` a
//! `bsn_list!` of `bevy_scene` 0.20.1; prefab instances expanded (`bevy_forge_scene::export`).
//! A scene with errors, or one the code cannot hold, is not exported (exit 1).
//!
//! `cook` writes the cooked binary twin of each scene that validates (`<name>.forge.bin`,
//! beside it or under `--out`, atomically), with the prefabs it places bundled; a scene with
//! errors is listed with them and not cooked. `--check` writes nothing and lists the twins that
//! are missing or do not match their text.
//!
//! `validate` and `tree` follow prefab instances: each prefab file is read from the assets
//! directory (`--assets`, else the project's, else the scene's own folder), checked once, and
//! its problems are reported under its own name; problems of the scene's overrides at their
//! lines in the scene. `tree` shows the expanded tree, entities by id path, instance entities
//! marked with the prefab they place.
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

mod cook;
mod export;
mod external;
mod import;
mod merge;
mod migrate;
mod render;
mod schema;
mod tree;

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy_forge_scene::codes;
use bevy_forge_scene::format::{ParsedScene, SceneDoc};
use bevy_forge_scene::pipeline::{self, PrefabFiles, PrefabSource};
use bevy_forge_scene::prefab::ExpandedScene;
use bevy_forge_scene::project::{AssetIndex, Project, slugify};
use bevy_forge_scene::schema::{SchemaFile, SchemaFileError};
use bevy_forge_scene::validate::{Diagnostic, Severity};
use bevy_forge_scene_cli::files::{self, asset_path_of, prefab_root};
use clap::{Args, Parser, Subcommand, ValueEnum};

use bevy_forge_scene::validate::report::{self, FileText};

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
    /// Rewrite scenes in canonical form, keeping their comments.
    Fmt(FmtArgs),
    /// Create an empty scene in a project's `scenes/` directory.
    New(NewArgs),
    /// Print a scene's entity hierarchy.
    Tree(TreeArgs),
    /// Write the cooked binary twin (`.forge.bin`) of scenes that validate.
    Cook(CookArgs),
    /// Write a scene as Rust source: a `bsn!` scene list or plain `World` calls.
    Export(export::ExportArgs),
    /// Bring scenes written in an older format version to the current one, keeping comments.
    Migrate(MigrateArgs),
    /// Read a Bevy `.scn.ron` world (Bevy 0.9 to 0.20) as a scene.
    Import(ImportArgs),
    /// Work with the game's exported schema files (`.forge-schema.ron`).
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// Merge three versions of a scene by entity id (git's merge driver: `forge merge %O %A %B
    /// --path %P`); `--install` sets a repository up to use it.
    Merge(merge::MergeArgs),
    /// Print what changed between two versions of a scene, one line per change, by id.
    Diff(merge::DiffArgs),
    /// Run the language server over standard input and output (for editors: diagnostics,
    /// hover, completion, go to definition, references, symbols, inlay hints, quick fixes,
    /// formatting).
    Lsp(LspArgs),
    /// Render a scene to a PNG through Bevy's renderer, without a window (runs the
    /// `forge-render` program, built apart: see docs/guide/review.md).
    #[command(disable_help_flag = true)]
    Render(ExternalArgs),
    /// Review two versions of a scene: before / after / difference images with the changed
    /// entities outlined, and a Markdown report (runs `forge-render`).
    #[command(disable_help_flag = true)]
    Review(ExternalArgs),
    /// Open a scene in a window with edit mode: pick, drag, keep and undo (runs the
    /// `forge-edit` program, built apart: see docs/guide/edit-mode.md).
    #[command(disable_help_flag = true)]
    Edit(ExternalArgs),
}

/// The arguments of a command another program runs, passed on as given.
#[derive(Debug, Args)]
struct ExternalArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<std::ffi::OsString>,
}

#[derive(Debug, Args)]
struct LspArgs {
    /// Accepted for clients that pass it; the server always speaks over standard input and
    /// output.
    #[arg(long)]
    stdio: bool,
}

#[derive(Debug, Args)]
struct MigrateArgs {
    /// Scene files, or directories searched for `*.forge.ron` files.
    #[arg(required = true, value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Write nothing; print the changes each file would get.
    #[arg(long)]
    dry_run: bool,
    /// Also rewrite the custom component types and fields this schema file says were renamed
    /// (`#[forge(renamed_from = "..")]`) with their new names, changing only those strings.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ImportArgs {
    /// The Bevy world file (`.scn.ron`, as `DynamicWorldSerializer` writes it).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Write the scene to this file (atomically) instead of printing it; an existing file is
    /// refused unless `--force` is given.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace the `--out` file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// Type the game's components with the schemas in this `.forge-schema.ron` file (written
    /// by the game with `ForgeSchemas::export`): they become `custom` components, checked as
    /// the scene loader checks them. Without it, only what the text alone says is kept.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct CookArgs {
    /// Scene files, or directories searched for `*.forge.ron` files.
    #[arg(required = true, value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Write the twins under this directory (a directory argument's layout kept) instead of
    /// beside the scenes.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write nothing; list the twins that are missing or stale and exit with 1 if there are any.
    #[arg(long)]
    check: bool,
    /// Read prefab files and check asset references against this assets directory (default:
    /// the assets directory of the project each scene is in, else the scene's folder).
    #[arg(long, value_name = "DIR", conflicts_with = "no_assets")]
    assets: Option<PathBuf>,
    /// Skip the checks that need the asset files (existence and kind).
    #[arg(long)]
    no_assets: bool,
    /// Check custom components against the schemas in this `.forge-schema.ron` file (written by
    /// the game with `ForgeSchemas::export`) before cooking, as the scene loader will check the
    /// twin: a scene the loader would refuse is not cooked.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
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
    /// List every entity of the expanded scene on its own line (id path, name, components,
    /// parent) instead of drawing the tree.
    #[arg(long)]
    flat: bool,
    /// Read prefab files from this assets directory (default: the assets directory of the
    /// scene's project, else the scene's folder).
    #[arg(long, value_name = "DIR")]
    assets: Option<PathBuf>,
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
        Command::Lsp(_) => return bevy_forge_scene_cli::lsp::stdio(),
        Command::Render(args) => return external::run("render", &args.args),
        Command::Review(args) => return external::run("review", &args.args),
        Command::Edit(args) => {
            return external::run_program(&external::EDIT, "edit", None, &args.args);
        }
        Command::Validate(args) => validate(&args),
        Command::Fmt(args) => fmt(&args),
        Command::New(args) => new(&args),
        Command::Tree(args) => show_tree(&args),
        Command::Cook(args) => cook::cook(&args),
        Command::Migrate(args) => {
            migrate::migrate(&args.paths, args.dry_run, args.schema.as_deref())
        }
        Command::Schema(command) => schema::run(&command),
        Command::Import(args) => import::import(&args),
        Command::Export(args) => export::export(&args),
        Command::Merge(args) => merge::run(&args),
        Command::Diff(args) => merge::diff_files(&args),
    };
    ExitCode::from(status as u8)
}

fn fail(message: &str) -> Status {
    eprintln!("error: {message}");
    Status::Usage
}

/// What reading one file gave.
enum Loaded {
    Parsed(FileText, Box<ParsedScene>),
    ReadError(FileText, Diagnostic),
}

/// Reads a scene file; `Err` when the file cannot be read at all.
fn load(path: &Path) -> Result<Loaded, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if bevy_forge_scene::cook::is_cooked(&bytes) {
        return Ok(Loaded::ReadError(
            FileText::new(path.display().to_string(), b""),
            cooked_file(path, &bytes),
        ));
    }
    let source = FileText::new(path.display().to_string(), &bytes);
    Ok(match SceneDoc::from_slice(&bytes) {
        Ok(parsed) => Loaded::Parsed(source, Box::new(parsed)),
        Err(e) => Loaded::ReadError(source, Diagnostic::from_read_error(&e)),
    })
}

/// The diagnostic for a cooked file given to a command that reads text: the cook error when it
/// does not decode (`forge::cook::checksum`, `forge::cook::truncated`, ..), else
/// `forge::cook::not_text` naming its text twin beside it, or the asset path it was cooked from.
fn cooked_file(path: &Path, bytes: &[u8]) -> Diagnostic {
    let name = path.display().to_string();
    let beside = path
        .to_str()
        .and_then(bevy_forge_scene::cook::text_path)
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    let text = |source: Option<&str>| match (&beside, source) {
        (Some(p), _) => format!("its text, `{}`", p.display()),
        (None, Some(s)) => format!(
            "the text it was cooked from (asset path `{}`)",
            s.escape_debug()
        ),
        (None, None) => "its text".to_owned(),
    };
    match bevy_forge_scene::cook::CookedScene::decode(bytes) {
        Ok(cooked) => Diagnostic::new(
            Severity::Error,
            codes::cook::NOT_TEXT,
            format!("`{name}` is a cooked scene (`.forge.bin`); `forge` reads text"),
        )
        .with_help(format!(
            "run this on {}; `forge cook --check` on it tells whether the cooked file is up to date",
            text(Some(&cooked.source))
        )),
        Err(e) => {
            let d = Diagnostic::new(
                Severity::Error,
                e.code(),
                format!("`{name}` is not a usable cooked scene: {e}"),
            );
            match e.entity() {
                Some(id) => d.with_entity(id),
                None => d,
            }
        }
        .with_help(format!(
            "`forge` reads text: `forge cook` on {} writes the cooked file again",
            text(None)
        )),
    }
}

/// Prefab files read from disk, by asset path under an assets directory.
struct OnDisk {
    root: PathBuf,
}

impl PrefabSource for OnDisk {
    fn read(&mut self, asset: &str) -> Result<Vec<u8>, String> {
        let file = self.root.join(asset);
        std::fs::read(&file).map_err(|e| format!("`{}`: {e}", file.display()))
    }
}

/// Prefab files under one root, read once each.
type Prefabs = PrefabFiles<OnDisk>;

fn prefab_files(
    root: PathBuf,
    schemas: Option<&SchemaFile>,
    assets: Option<AssetIndex>,
) -> Prefabs {
    let mut files = PrefabFiles::new(OnDisk { root });
    if let Some(schemas) = schemas {
        files = files.with_schemas(schemas.clone());
    }
    if let Some(assets) = assets {
        files = files.with_assets(assets);
    }
    files
}

/// Prints the errors of every prefab file `prefabs` read on stderr, each file under its own
/// name (its asset path under `root`); whether there were any.
fn report_prefab_errors(prefabs: &Prefabs, root: &Path) -> bool {
    let mut any = false;
    for (asset, file) in prefabs.files() {
        let mut errors: Vec<Diagnostic> = file
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        if errors.is_empty() {
            continue;
        }
        any = true;
        localize(&mut errors, root);
        let name = shown(&root.join(asset));
        let source = FileText::new(name, file.text.as_bytes());
        let text = report::human(&source, &errors, render::use_colour());
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
    any
}

/// Names the other files `diagnostics` point at (prefab files, by asset path under `root`) by
/// their paths on disk as [`shown`] writes them, so they can be opened from where `forge` runs.
fn localize(diagnostics: &mut [Diagnostic], root: &Path) {
    for d in diagnostics {
        for related in &mut d.related {
            if let Some(file) = &related.file {
                let on_disk = root.join(file);
                if on_disk.exists() {
                    related.file = Some(shown(&on_disk));
                }
            }
        }
    }
}

/// `path` as a report names a file: relative to the working directory when it is below it (as
/// the scenes given on the command line usually are), else as it is.
fn shown(path: &Path) -> String {
    // The working directory does not change during a run: resolved once, not per file named.
    static CWD: std::sync::LazyLock<Option<PathBuf>> = std::sync::LazyLock::new(|| {
        std::env::current_dir()
            .and_then(|cwd| cwd.canonicalize())
            .ok()
    });
    let below = CWD
        .as_deref()
        .zip(path.canonicalize().ok())
        .and_then(|(cwd, file)| Some(file.strip_prefix(cwd).ok()?.to_path_buf()));
    below
        .unwrap_or_else(|| path.to_owned())
        .display()
        .to_string()
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
    let mut checker = match Checker::new(schemas, args.assets.clone(), args.no_assets) {
        Ok(checker) => checker,
        Err(status) => return status,
    };
    if let Some(warning) = paths
        .first()
        .and_then(|p| bevy_forge_scene_cli::git::missing_driver_warning(p))
    {
        eprintln!("warning: {warning}");
    }
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
                // The prefab files' own problems are listed under their names, below.
                let mut diagnostics = checker.check(path, *parsed).diagnostics;
                diagnostics.retain(|d| d.file.is_none());
                (source, diagnostics)
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
    // The prefab files the scenes placed, each under its own name, unless checked above.
    let checked: Vec<PathBuf> = paths.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let mut prefab_count = 0;
    let mut roots: Vec<_> = checker.prefab_roots.iter().collect();
    roots.sort_by(|a, b| a.0.cmp(b.0));
    for (root, prefabs) in roots {
        for (asset, file) in prefabs.files() {
            let on_disk = root.join(asset);
            let already = on_disk.canonicalize().is_ok_and(|p| checked.contains(&p));
            if already || file.unreadable.is_some() {
                continue; // checked above, or reported where it is placed
            }
            prefab_count += 1;
            let name = shown(&on_disk);
            let mut diagnostics = file.diagnostics.clone();
            localize(&mut diagnostics, root);
            let diagnostics = &diagnostics;
            for d in diagnostics {
                match d.severity {
                    Severity::Error => errors += 1,
                    Severity::Warning => warnings += 1,
                    Severity::Info => infos += 1,
                }
            }
            if diagnostics.iter().any(|d| {
                d.severity == Severity::Error
                    || (args.deny_warnings && d.severity == Severity::Warning)
            }) {
                status = status.max(Status::Failed);
            }
            let source = FileText::new(name.clone(), file.text.as_bytes());
            match args.format {
                OutputFormat::Human => print(&report::human(&source, diagnostics, colour)),
                OutputFormat::Json => {
                    json.extend(diagnostics.iter().map(|d| render::json_object(&name, d)))
                }
            }
        }
    }
    match args.format {
        OutputFormat::Human => print(&format!(
            "checked {}: {}, {}, {}\n",
            render::count(paths.len() + prefab_count, "file"),
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

/// Checks scenes as `forge validate` does (`forge cook` refuses what it reports), keeping what
/// several scenes share: asset indexes by project, prefab files by root.
struct Checker {
    schemas: Option<SchemaFile>,
    assets: Option<PathBuf>,
    no_assets: bool,
    fixed_index: Option<AssetIndex>,
    project_indexes: HashMap<PathBuf, Option<AssetIndex>>,
    prefab_roots: HashMap<PathBuf, Prefabs>,
}

impl Checker {
    /// # Errors
    /// The usage status when `--assets` cannot be scanned (reported on stderr).
    fn new(
        schemas: Option<SchemaFile>,
        assets: Option<PathBuf>,
        no_assets: bool,
    ) -> Result<Self, Status> {
        let fixed_index = match &assets {
            Some(dir) => match AssetIndex::scan(dir) {
                Ok(index) => Some(index),
                Err(e) => return Err(fail(&format!("cannot scan assets: {e}"))),
            },
            None => None,
        };
        Ok(Self {
            schemas,
            assets,
            no_assets,
            fixed_index,
            project_indexes: HashMap::new(),
            prefab_roots: HashMap::new(),
        })
    }

    /// Every diagnostic of the scene `parsed` read from `path` and of the prefab files it
    /// places (theirs naming their file): the pipeline the scene loader walks
    /// ([`bevy_forge_scene::pipeline::check`]), custom components against `--schema` (without
    /// it, their shape and references), asset references against the project's assets.
    fn check(&mut self, path: &Path, parsed: ParsedScene) -> pipeline::Checked {
        let root = prefab_root(path, self.assets.as_deref());
        let asset_path = asset_path_of(path, &root);
        let source = pipeline::Source::from_parsed(asset_path, parsed);
        let mut checked = pipeline::check(source, self.prefabs(path, &root));
        localize(&mut checked.diagnostics, &root);
        checked
    }

    /// Prints the errors `checked` found in the prefab files it places (from root `root`), each
    /// file under its own name, on stdout.
    fn print_prefab_errors(&self, checked: &pipeline::Checked, root: &Path, colour: bool) {
        let mut by_file: std::collections::BTreeMap<&str, Vec<Diagnostic>> = Default::default();
        for d in &checked.diagnostics {
            if let Some(file) = &d.file
                && d.severity == Severity::Error
            {
                let mut d = d.clone();
                d.file = None;
                by_file.entry(file.as_str()).or_default().push(d);
            }
        }
        let files = self.prefab_roots.get(root);
        for (file, errors) in by_file {
            let text = files
                .and_then(|f| f.file(file))
                .map_or(&[][..], |f| f.text.as_bytes());
            let source = FileText::new(shown(&root.join(file)), text);
            print(&report::human(&source, &errors, colour));
        }
    }

    /// The asset index of the scene at `path`'s assets: `--assets`, or its project's (none with
    /// `--no-assets`, or outside a project).
    fn index(&mut self, path: &Path) -> Option<AssetIndex> {
        if self.no_assets {
            return None;
        }
        if let Some(index) = &self.fixed_index {
            return Some(index.clone());
        }
        let project = files::project_of(path)?;
        self.project_indexes
            .entry(project.root().to_owned())
            .or_insert_with(|| AssetIndex::scan(project.assets_dir()).ok())
            .clone()
    }

    /// The prefab files under `root` (where the scene at `path` reads its prefabs from), read
    /// once.
    fn prefabs(&mut self, path: &Path, root: &Path) -> &mut Prefabs {
        let index = match self.prefab_roots.contains_key(root) {
            true => None,
            false => self.index(path),
        };
        let schemas = self.schemas.as_ref();
        self.prefab_roots
            .entry(root.to_owned())
            .or_insert_with(|| prefab_files(root.to_owned(), schemas, index))
    }
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
                codes::schema_file::UNREADABLE
            } else {
                codes::schema_file::INVALID
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
        let on_disk = std::fs::read(path).unwrap_or_default();
        // The canonical layout with the file's comments carried to their entries (the
        // language server formats alike).
        let text = String::from_utf8_lossy(&on_disk);
        let formatted = match bevy_forge_scene::edit::format_text(&text) {
            Ok(formatted) => formatted,
            Err(e) => {
                eprintln!("error: {}: not formatted: {e}", source.name);
                status = status.max(Status::Failed);
                continue;
            }
        };
        drop(parsed);
        if on_disk == formatted.as_bytes() {
            continue;
        }
        if args.check {
            print(&format!("{}\n", source.name));
            status = status.max(Status::Failed);
            continue;
        }
        match write_text(path, &formatted) {
            Ok(()) => print(&format!("formatted {}\n", source.name)),
            Err(e) => status = status.max(fail(&format!("cannot write `{}`: {e}", source.name))),
        }
    }
    status
}

/// Writes `text` over `path`, atomically.
fn write_text(path: &Path, text: &str) -> Result<(), String> {
    bevy_forge_scene::project::write_file_atomic(path, text.as_bytes()).map_err(|e| e.to_string())
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
        Ok(Loaded::Parsed(source, parsed)) => {
            // Through the pipeline as every command: the expansion and every problem, once.
            let root = prefab_root(&args.file, args.assets.as_deref());
            let mut prefabs = prefab_files(root.clone(), None, None);
            let asset_path = asset_path_of(&args.file, &root);
            let scene = pipeline::Source::from_parsed(asset_path, *parsed);
            let checked = pipeline::check(scene, &mut prefabs);
            let doc = &checked.source.parsed.doc;
            let plain;
            let expanded = match &checked.expanded {
                Some(expanded) => expanded,
                None => {
                    plain = ExpandedScene::plain(doc.clone().into());
                    &plain
                }
            };
            print(&if args.flat {
                tree::render_flat(expanded)
            } else {
                tree::render_expanded(expanded, doc, Some(&root))
            });
            // What kept the tree from being whole, and what else the check found: on stderr,
            // rustc-style, the scene's under its name, each prefab file's under its own.
            let mut problems: Vec<Diagnostic> = checked
                .diagnostics
                .iter()
                .filter(|d| d.file.is_none() && d.severity != Severity::Info)
                .cloned()
                .collect();
            localize(&mut problems, &root);
            if !problems.is_empty() {
                let text = report::human(&source, &problems, render::use_colour());
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
            let mut failed = problems.iter().any(|d| d.severity == Severity::Error);
            failed |= report_prefab_errors(&prefabs, &root);
            if failed { Status::Failed } else { Status::Ok }
        }
    }
}
