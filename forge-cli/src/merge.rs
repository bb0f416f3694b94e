//! `forge merge` (git's merge driver for scenes: `bevy_forge_scene::merge`), `forge merge
//! --install`, and `forge diff` (what changed between two versions, by id).

use std::path::{Path, PathBuf};

use bevy_forge_scene::diff::diff;
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::merge::{MergeError, merge};
use bevy_forge_scene::validate::Diagnostic;
use bevy_forge_scene::validate::report::{self, FileText};
use bevy_forge_scene_cli::git;
use clap::Args;

use crate::Status;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The common ancestor (`%O`), this branch's version (`%A`, where the result is written)
    /// and the other branch's (`%B`), as git passes them to a merge driver; a fourth is taken
    /// as `--path` (`forge merge %O %A %B %P`).
    #[arg(
        value_name = "BASE OURS THEIRS",
        num_args = 3..=4,
        required_unless_present = "install"
    )]
    files: Vec<PathBuf>,
    /// The scene's path in the repository (`%P`), for messages.
    #[arg(long, value_name = "NAME")]
    path: Option<String>,
    /// Set up the repository the working directory is in: `*.forge.ron merge=forge` in its
    /// `.gitattributes`, and the driver in its git config (which a clone does not copy: run
    /// this once per clone).
    #[arg(long, conflicts_with_all = ["files", "path"])]
    install: bool,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old and new versions; or the seven arguments git passes to `diff.<driver>.command`
    /// (`path old-file old-hex old-mode new-file new-hex new-mode`).
    #[arg(value_name = "OLD NEW", num_args = 2..=7, required = true)]
    files: Vec<PathBuf>,
}

/// Reads a scene's text, or the diagnostic that says why not (printed on stderr).
fn read(path: &Path, name: &str) -> Result<String, Status> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return Err(crate::fail(&format!(
                "cannot read `{}`: {e}",
                path.display()
            )));
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => {
            let error = SceneDoc::from_slice(e.as_bytes());
            Err(match error {
                Err(error) => unreadable(name, e.as_bytes(), &error),
                Ok(_) => crate::fail(&format!("`{name}` is not UTF-8 text")),
            })
        }
    }
}

/// Prints why `bytes` (the file `name`) does not read; the exit status of a file that cannot
/// be read.
fn unreadable(name: &str, bytes: &[u8], e: &bevy_forge_scene::format::ReadError) -> Status {
    let source = FileText::new(name.to_owned(), bytes);
    let text = report::human(
        &source,
        &[Diagnostic::from_read_error(e)],
        crate::render::use_colour(),
    );
    eprint!("{text}");
    Status::Usage
}

/// `forge merge`: the merged scene written to OURS (atomically), the report on stderr; exit 0
/// when clean, 1 when conflicts are left, 2 when a file cannot be read (nothing written).
pub fn run(args: &MergeArgs) -> Status {
    if args.install {
        return install();
    }
    let (base, ours, theirs, named) = match &args.files[..] {
        [b, o, t] => (b, o, t, None),
        [b, o, t, p] => (b, o, t, Some(p.display().to_string())),
        _ => return crate::fail("`forge merge` takes three files: BASE OURS THEIRS"),
    };
    let shown = args
        .path
        .clone()
        .or(named)
        .unwrap_or_else(|| ours.display().to_string());
    let names = [
        format!("{shown} (base, {})", base.display()),
        format!("{shown} (ours, {})", ours.display()),
        format!("{shown} (theirs, {})", theirs.display()),
    ];
    let mut texts = Vec::with_capacity(3);
    for (path, name) in [base, ours, theirs].into_iter().zip(&names) {
        match read(path, name) {
            Ok(t) => texts.push(t),
            Err(status) => return status,
        }
    }
    let merged = match merge(&texts[0], &texts[1], &texts[2]) {
        Ok(m) => m,
        Err(MergeError::Read { which, error }) => {
            let i = ["base", "ours", "theirs"]
                .iter()
                .position(|w| *w == which)
                .unwrap_or(1);
            let body = texts[i].strip_prefix('\u{feff}').unwrap_or(&texts[i]);
            return unreadable(&names[i], body.as_bytes(), &error);
        }
        Err(e) => {
            eprintln!(
                "error: `{shown}`: {e}; `{}` is left as this branch had it",
                ours.display()
            );
            return Status::Usage;
        }
    };
    if let Err(e) = bevy_forge_scene::project::write_file_atomic(ours, merged.text.as_bytes()) {
        return crate::fail(&format!("cannot write the merged scene: {e}"));
    }
    eprint!("{}", merged.report(&shown));
    if merged.is_clean() {
        Status::Ok
    } else {
        Status::Failed
    }
}

/// `forge merge --install` in the repository of the working directory.
fn install() -> Status {
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let Some(root) = git::repository_of(&here) else {
        return crate::fail(&format!(
            "`{}` is not in a git repository (no `.git` above it)",
            here.display()
        ));
    };
    let program = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("forge"));
    match git::install(&root, &program) {
        Ok(done) => {
            for line in done {
                println!("forge merge --install: {line}");
            }
            Status::Ok
        }
        Err(e) => crate::fail(&e),
    }
}

/// `forge diff`: what changed from OLD to NEW, one line per change (by id), on stdout.
pub fn diff_files(args: &DiffArgs) -> Status {
    let (name, old, new) = match &args.files[..] {
        [old, new] => (new.display().to_string(), old, new),
        [path, old, _, _, new, _, _] => (path.display().to_string(), old, new),
        _ => {
            return crate::fail(
                "`forge diff` takes OLD NEW, or the seven arguments of a git diff driver",
            );
        }
    };
    let mut docs = Vec::with_capacity(2);
    for (path, which) in [(old, "old"), (new, "new")] {
        // A file git adds or deletes is diffed against nothing (`/dev/null`).
        if path == Path::new("/dev/null") {
            docs.push(SceneDoc::new(""));
            continue;
        }
        let label = format!("{name} ({which}, {})", path.display());
        let text = match read(path, &label) {
            Ok(t) => t,
            Err(status) => return status,
        };
        match SceneDoc::from_str(&text) {
            Ok(p) => docs.push(p.doc),
            Err(e) => {
                let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
                return unreadable(&label, body.as_bytes(), &e);
            }
        }
    }
    let (a, b) = (&docs[0], &docs[1]);
    let mut out = format!("forge diff {name}\n");
    out.push_str(&diff(a, b).to_string());
    for line in layer_lines(a, b) {
        out.push_str(&line);
        out.push('\n');
    }
    if out.lines().count() == 1 {
        out.push_str("no change\n");
    }
    crate::print(&out);
    Status::Ok
}

/// The tile layers' changes in words (the scene diff is of entities).
fn layer_lines(a: &SceneDoc, b: &SceneDoc) -> Vec<String> {
    let mut out = Vec::new();
    for l in &a.layers {
        if b.layer(l.id).is_none() {
            out.push(format!("- layer {} {:?}", l.id, l.name.as_str()));
        }
    }
    for l in &b.layers {
        let Some(old) = a.layer(l.id) else {
            out.push(format!("+ layer {} {:?}", l.id, l.name.as_str()));
            continue;
        };
        if old == l {
            continue;
        }
        let cells = |x: &bevy_forge_scene::format::TileLayer| {
            x.filled()
                .map(|(i, j, k, _)| ((i, j), k))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let (before, after) = (cells(old), cells(l));
        let mut changed: Vec<String> = before
            .keys()
            .chain(after.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter(|c| before.get(c) != after.get(c))
            .map(|(i, j)| {
                let show = |k: Option<&char>| k.map_or("empty".to_owned(), |k| format!("{k:?}"));
                format!(
                    "({i}, {j}) {} -> {}",
                    show(before.get(&(*i, *j))),
                    show(after.get(&(*i, *j)))
                )
            })
            .collect();
        let total = changed.len();
        changed.truncate(20);
        let more = if total > 20 {
            format!(", and {} more", total - 20)
        } else {
            String::new()
        };
        if total > 0 {
            out.push(format!(
                "~ layer {} cells {}{more}",
                l.id,
                changed.join(", ")
            ));
        }
        let rest = bevy_forge_scene::format::TileLayer {
            rows: l.rows.clone(),
            cells: l.cells.clone(),
            start: l.start,
            origin: l.origin,
            ..old.clone()
        };
        if rest != *l || (total == 0 && old != l) {
            out.push(format!("~ layer {} {:?} changed", l.id, l.name.as_str()));
        }
    }
    out
}
