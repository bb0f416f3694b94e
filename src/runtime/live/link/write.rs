//! The one write path: every writer (a kept live value, a set, an undo or a redo) hands it the
//! changes to make to each file, and it
//!
//! 1. takes the newest revision of the file out of the scene files' memory ([`SceneFiles`]),
//!    reading the file from disk only when the game holds no version of it, or the file
//!    changed on disk since;
//! 2. splices the changes in through the edit layer (only their bytes change; comments and
//!    layout stay) and reads again only the entries they touched;
//! 3. checks the new text once, in part, against what the check of the last one kept (with the
//!    game's schemas and the prefab files it places), refusing any error the file did not
//!    have;
//! 4. commits it as the next revision with what its check gave, so the load that reads it back
//!    neither reads nor checks it again;
//! 5. writes it atomically on Bevy's IO task pool (the `fsync` off the frame), refusing when
//!    the file changed on disk meanwhile, and reloads the scene once the file is in place
//!    ([`ForgeSceneWritten`] says how it went).
//!
//! A world without Bevy's IO task pool or `ForgeScenePlugin` writes at once, in the call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use bevy_app::{App, Last, Plugin};
use bevy_asset::AssetServer;
use bevy_ecs::event::Event;
use bevy_ecs::prelude::{Commands, Res, Resource};
use bevy_ecs::schedule::IntoScheduleConfigs;
use bevy_ecs::world::World;
use bevy_tasks::Task;

use super::{KeptFile, KeptPatch, LinkError, LiveLink};
use crate::edit::{FieldEdit, PatchGroup, SceneEdit, SceneEditError};
use crate::format::{ParsedScene, SceneDoc, TextChange};
use crate::pipeline::incremental::{MemoryOf, check_scene};
use crate::pipeline::{Checked, PrefabFiles, Source};
use crate::runtime::asset::files::{FileText, Revision, SceneFiles, Stamp};
use crate::runtime::values::custom::{CustomContext, PreparedCustoms};
use crate::runtime::values::registry::ForgeSchemas;
use crate::validate::{Diagnostic, Severity};

/// Triggered when a file the live link wrote (a kept value, a set, an undo) is in place on
/// disk, or could not be written: then `error` says why, and the scene reloads from the file as
/// it is on disk.
#[derive(Event, Clone, Debug, PartialEq, Eq)]
pub struct ForgeSceneWritten {
    /// The file's asset path.
    pub scene: String,
    /// Why it could not be written; `None` when it was.
    pub error: Option<String>,
}

/// One file's change, as a writer hands it over.
pub(crate) enum Change {
    /// Values written at places of the file.
    Edits(Vec<FieldEdit>),
    /// A group of patches given back (`true`: undone) or made again (`false`: redone).
    Replay(PatchGroup, bool),
}

/// What the write path did to one file.
pub(crate) struct Committed {
    pub(crate) file: KeptFile,
    /// The edit made, which undo gives back.
    pub(crate) group: PatchGroup,
}

/// The newest version of scene file `asset` (at `file` on disk): the store's when the file on
/// disk is that one, or a write of it is on its way; else the file as it is on disk now
/// (remembered when the store has nothing for the path).
///
/// # Errors
/// [`LinkError::Read`] when the file cannot be read or does not read as a scene.
pub(crate) fn current(
    files: &SceneFiles,
    asset: &str,
    file: &Path,
) -> Result<Arc<FileText>, LinkError> {
    let read_error = |e: &dyn std::fmt::Display| LinkError::Read {
        file: file.display().to_string(),
        reason: e.to_string(),
    };
    let newest = files.newest(asset);
    if let Some((text, _)) = &newest
        && files.is_writing(asset)
    {
        return Ok(text.clone());
    }
    let now = Stamp::of(file).map_err(|e| read_error(&e))?;
    if let Some((text, disk)) = &newest
        && *disk == Some((text.number, now))
    {
        return Ok(text.clone());
    }
    let bytes = std::fs::read(file).map_err(|e| read_error(&e))?;
    if let Some((text, _)) = newest
        && text.text.as_bytes() == bytes
    {
        files.on_disk(asset, text.number, now);
        return Ok(text);
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        read_error(&"the file is not UTF-8 text (a cooked scene has no lines to point at)")
    })?;
    let parsed = SceneDoc::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
        .map_err(|e| read_error(&e))?;
    Ok(files.offer(asset, text, parsed, now))
}

/// A file on its way through [`commit`].
struct Staged {
    asset: String,
    file: PathBuf,
    /// The revision changed: its number, and what its check kept and found (the base of the
    /// new text's check, and what goes back to the store when nothing is written).
    base: Base,
    /// The stamp of the file the write replaces (`None`: a write of it is on its way).
    expects: Option<Stamp>,
    group: PatchGroup,
    /// Where each patch starts in the base's text.
    starts: Vec<crate::format::Position>,
    /// The new text and its read (the read is with the check while it runs).
    text: String,
    parsed: ParsedScene,
    change: TextChange,
}

/// What is kept of the revision a write changes.
struct Base {
    number: u64,
    /// Whether it came out of the store (it goes back there when nothing is written).
    taken: bool,
    memory: Option<MemoryOf<CustomContext>>,
    builtins: Option<crate::runtime::values::builtin::BuiltinsMemory>,
    errors: Vec<Diagnostic>,
}

/// Makes `changes` (each to one file, by asset path) through the one write path, as one edit
/// labelled `label` per file; with `dry_run`, nothing is kept or written.
///
/// # Errors
/// [`LinkError::Invalid`] when a result has an error its file did not have; the edit layer's
/// and the files' errors. Nothing is written, and the store is as it was, when one is
/// returned.
pub(crate) fn commit(
    world: &World,
    link: &LiveLink,
    label: &str,
    changes: Vec<(String, Change)>,
    dry_run: bool,
) -> Result<Vec<Committed>, LinkError> {
    let files = super::files_of(world);
    let context = custom_context(world);
    let mut staged: Vec<Staged> = Vec::new();
    let mut failed = None;
    // 1-2. Each file's newest revision, changed in place.
    for (asset, change) in changes {
        match stage(&files, link, &context, &asset, label, change) {
            Ok(Some(s)) => staged.push(s),
            Ok(None) => {}
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    // 3. Each new text checked once, in part, with the others' new texts as the prefab files
    // they are.
    let placed_here: HashMap<String, String> = staged
        .iter()
        .filter(|s| {
            staged.iter().any(|other| {
                crate::prefab::instance_scenes(&other.parsed.doc).contains(&s.asset.as_str())
            })
        })
        .map(|s| (s.asset.clone(), s.text.clone()))
        .collect();
    let mut checked: Vec<Found> = Vec::with_capacity(staged.len());
    // What the check of a refused text kept (its base gets it back from that).
    let mut refused = None;
    if failed.is_none() {
        for s in &mut staged {
            let mut prefabs = prefab_files(link, &files, &placed_here);
            match check(s, &mut prefabs, &context) {
                Ok(found) => checked.push(found),
                Err(refusal) => {
                    let (e, memory) = *refusal;
                    failed = Some(e);
                    refused = Some(memory);
                    break;
                }
            }
        }
    }
    let out = |s: &Staged| Committed {
        file: KeptFile {
            asset: s.asset.clone(),
            file: s.file.clone(),
            patches: s
                .group
                .patches
                .iter()
                .zip(&s.starts)
                .map(|(p, at)| KeptPatch {
                    line: at.line,
                    column: at.column,
                    before: p.before.clone(),
                    after: p.after.clone(),
                })
                .collect(),
        },
        group: s.group.clone(),
    };
    if failed.is_some() || dry_run {
        let answer = staged.iter().map(out).collect();
        // The bases go back, keeping what their checks knew, for the next writer: from what
        // the check of the new text kept where it ran.
        let mut ran = checked.into_iter().map(|found| found.1).chain(refused);
        for s in staged {
            let mut prefabs = prefab_files(link, &files, &placed_here);
            restore(&files, s, ran.next(), &mut prefabs, &context);
        }
        return match failed {
            Some(e) => Err(e),
            None => Ok(answer),
        };
    }
    // 4. Committed, each once; 5. written.
    let mut answer = Vec::with_capacity(staged.len());
    let mut jobs = Vec::new();
    for (s, (result, memory, errors)) in staged.into_iter().zip(checked) {
        answer.push(out(&s));
        let Staged {
            asset,
            file,
            base,
            expects,
            group,
            text,
            parsed,
            ..
        } = s;
        files.put(
            &asset,
            (text, parsed),
            Some(group.ends_at),
            None,
            |file_text| Revision {
                memory,
                builtins: base.builtins,
                errors: Some(errors),
                ready: Some(result),
                ..Revision::unchecked(file_text)
            },
        );
        if let Some((text, _)) = files.newest(&asset) {
            jobs.push((
                asset,
                Job {
                    text,
                    file,
                    expects,
                },
            ));
        }
    }
    for (asset, job) in jobs {
        write(world, &files, &asset, job)?;
    }
    Ok(answer)
}

/// What the check of one new text gave: the result (its read taken out, into the store's
/// text), what it keeps for the next, its errors.
type Found = (
    Checked<PreparedCustoms>,
    Option<MemoryOf<CustomContext>>,
    Vec<Diagnostic>,
);

/// Checks `source` whole with `context`, keeping what a next check needs; its read back out
/// of the result.
fn check_whole<R: crate::pipeline::PrefabSource>(
    asset: &str,
    parsed: ParsedScene,
    prefabs: &mut PrefabFiles<R>,
    context: &CustomContext,
    prior: Option<(MemoryOf<CustomContext>, TextChange)>,
) -> (ParsedScene, Found) {
    let pool = bevy_tasks::AsyncComputeTaskPool::try_get().map(|p| &**p);
    let source = Source::from_parsed(asset.to_owned(), parsed);
    let (mut checked, memory) = check_scene(source, prefabs, context, pool, prior, true);
    let parsed = std::mem::replace(&mut checked.source.parsed, ParsedScene::empty());
    let errors = errors_of(&checked.diagnostics);
    (parsed, (checked, memory, errors))
}

/// Takes `asset`'s newest revision out (checked whole first when nothing checked it yet) and
/// makes `change` to it; `None` when it changes nothing (the revision is back in the store).
fn stage(
    files: &SceneFiles,
    link: &LiveLink,
    context: &CustomContext,
    asset: &str,
    label: &str,
    change: Change,
) -> Result<Option<Staged>, LinkError> {
    let file = link.file_of(asset)?;
    let number = current(files, asset, &file)?.number;
    let expects = match files.is_writing(asset) {
        true => None,
        false => Some(Stamp::of(&file).map_err(|e| LinkError::Read {
            file: file.display().to_string(),
            reason: e.to_string(),
        })?),
    };
    let (revision, taken) = match files.take_if(asset, number) {
        Some(revision) => (revision, true),
        None => (Revision::unchecked(current(files, asset, &file)?), false),
    };
    let Revision {
        file: shared,
        memory,
        builtins,
        errors,
        ..
    } = revision;
    let hash = shared.hash;
    let (text, mut parsed) = Revision::into_owned(shared);
    // The errors the file has, for a write to refuse only new ones: known from its last
    // check, or found now.
    let (memory, errors) = match (memory, errors) {
        (Some(memory), Some(errors)) => (Some(memory), errors),
        _ => {
            let none = HashMap::new();
            let mut prefabs = prefab_files(link, files, &none);
            let (back, (_, memory, errors)) =
                check_whole(asset, parsed, &mut prefabs, context, None);
            parsed = back;
            (memory, errors)
        }
    };
    let base = Base {
        number,
        taken,
        memory,
        builtins,
        errors,
    };
    let mut edit = SceneEdit::from_owned(text, parsed, hash);
    let made = match change {
        Change::Edits(edits) => edit.write_unchecked(label, &edits),
        Change::Replay(group, backwards) => {
            edit.replay_as_edit(label.to_owned(), &group, backwards)
        }
    };
    let group = match made {
        Ok(Some(group)) => group,
        other => {
            let (text, parsed) = edit.into_text_and_parsed();
            give_back(files, asset, base, text, parsed, hash);
            return match other {
                Err(SceneEditError::Invalid(message)) => Err(LinkError::Invalid {
                    file: file.display().to_string(),
                    diagnostic: message,
                }),
                Err(SceneEditError::NotAtStart(_)) => {
                    Err(LinkError::ChangedOnDisk(file.display().to_string()))
                }
                Err(other) => Err(LinkError::Edit(other)),
                Ok(_) => Ok(None),
            };
        }
    };
    let change = edit.last_change().unwrap_or(TextChange::NONE);
    let starts = edit.last_starts().to_vec();
    let (text, parsed) = edit.into_text_and_parsed();
    Ok(Some(Staged {
        asset: asset.to_owned(),
        file,
        base,
        expects,
        group,
        starts,
        text,
        parsed,
        change,
    }))
}

/// Puts the base revision `base` of `asset` (its text and read) back in the store, when it
/// came from there.
fn give_back(
    files: &SceneFiles,
    asset: &str,
    base: Base,
    text: String,
    parsed: ParsedScene,
    hash: Option<u64>,
) {
    if !base.taken {
        return;
    }
    files.put_back(
        asset,
        Revision {
            file: Arc::new(FileText {
                number: base.number,
                text,
                parsed,
                hash,
            }),
            memory: base.memory,
            builtins: base.builtins,
            errors: Some(base.errors),
            ready: None,
        },
    );
}

/// The custom component rules of the game in `world` (its type registry and schemas), as its
/// scene loader has them.
fn custom_context(world: &World) -> CustomContext {
    CustomContext {
        registry: world
            .get_resource::<bevy_ecs::reflect::AppTypeRegistry>()
            .cloned()
            .unwrap_or_default(),
        schemas: world
            .get_resource::<ForgeSchemas>()
            .cloned()
            .unwrap_or_default(),
    }
}

/// The prefab files a check reads: the new texts of this write, else the store's newest
/// version, else the file under the link's root.
fn prefab_files<'a>(
    link: &'a LiveLink,
    files: &'a SceneFiles,
    texts: &'a HashMap<String, String>,
) -> PrefabFiles<impl crate::pipeline::PrefabSource + 'a> {
    PrefabFiles::new(move |path: &str| -> Result<Vec<u8>, String> {
        if let Some(text) = texts.get(path) {
            return Ok(text.clone().into_bytes());
        }
        let file = link.file_of(path).map_err(|e| e.to_string())?;
        let text = current(files, path, &file).map_err(|e| e.to_string())?;
        Ok(text.text.clone().into_bytes())
    })
}

/// Why a staged text was refused, and what its check kept (to give the base back with).
type Refusal = (LinkError, Option<MemoryOf<CustomContext>>);

/// Checks `s`'s new text in part against what the check of its base kept, refusing any error
/// the base did not have.
fn check<R: crate::pipeline::PrefabSource>(
    s: &mut Staged,
    prefabs: &mut PrefabFiles<R>,
    context: &CustomContext,
) -> Result<Found, Box<Refusal>> {
    let parsed = std::mem::replace(&mut s.parsed, ParsedScene::empty());
    let prior = s.base.memory.take().map(|m| (m, s.change));
    let (parsed, found) = check_whole(&s.asset, parsed, prefabs, context, prior);
    s.parsed = parsed;
    let key = |d: &Diagnostic| (d.code, d.entity, d.path.clone(), d.message.clone());
    let known: Vec<_> = s.base.errors.iter().map(key).collect();
    let Some(d) = found.2.iter().find(|d| !known.contains(&key(d))) else {
        return Ok(found);
    };
    let diagnostic = match d.position {
        Some(p) => format!(
            "{}:{}:{}: {d}",
            d.file.as_deref().unwrap_or(&s.asset),
            p.line,
            p.column
        ),
        None => format!("{}: {d}", d.file.as_deref().unwrap_or(&s.asset)),
    };
    Err(Box::new((
        LinkError::Invalid {
            file: s.file.display().to_string(),
            diagnostic,
        },
        found.1,
    )))
}

/// Gives `s`'s base back to the store: its text and read by undoing the edit (the entries it
/// touched read again), and what its check knew: its own memory when the new text's check did
/// not run (`ran` is `None`), else from what that check kept, by checking the base's text again
/// in part. A refused or dry-run write leaves the next writer (or load) as fast as before it.
fn restore<R: crate::pipeline::PrefabSource>(
    files: &SceneFiles,
    s: Staged,
    ran: Option<Option<MemoryOf<CustomContext>>>,
    prefabs: &mut PrefabFiles<R>,
    context: &CustomContext,
) {
    let Staged {
        asset,
        mut base,
        group,
        text,
        parsed,
        change,
        ..
    } = s;
    let mut edit = SceneEdit::from_owned(text, parsed, Some(group.ends_at));
    if edit
        .replay_as_edit("give back".to_owned(), &group, true)
        .is_err()
    {
        return; // the store keeps no version of it: the next writer reads the file
    }
    let (text, mut parsed) = edit.into_text_and_parsed();
    if let Some(kept) = ran {
        base.memory = None;
        if let Some(memory) = kept {
            let back = TextChange {
                start: change.start,
                old_end: change.new_end(),
                new_len: change.old_end - change.start,
            };
            let (again, (_, memory, _)) =
                check_whole(&asset, parsed, prefabs, context, Some((memory, back)));
            parsed = again;
            base.memory = memory;
        }
    }
    give_back(files, &asset, base, text, parsed, Some(group.starts_from));
}

/// The errors among `diagnostics`.
fn errors_of(diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect()
}

// ---- writing -------------------------------------------------------------------------------

/// One revision to write.
struct Job {
    text: Arc<FileText>,
    file: PathBuf,
    /// The stamp of the file the write replaces (`None`: the one the write before it left).
    expects: Option<Stamp>,
}

/// The writes of a world, by asset path: the one on its way, and the newest revision to write
/// once it is done (revisions in between are never written alone: the newest holds their
/// changes).
#[derive(Resource, Default)]
pub(crate) struct Writes(Mutex<HashMap<String, Queue>>);

#[derive(Default)]
struct Queue {
    running: Option<(u64, Task<Result<Stamp, String>>)>,
    next: Option<Job>,
}

impl Queue {
    /// Whether a write is queued or on its way to disk.
    fn is_busy(&self) -> bool {
        self.running.is_some() || self.next.is_some()
    }
}

/// How many scene files of `world` the live link is writing: a write queued or on its way to
/// disk (each ends with a [`ForgeSceneWritten`]).
pub fn pending_writes(world: &World) -> usize {
    world.get_resource::<Writes>().map_or(0, |w| {
        w.0.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter(|q| q.is_busy())
            .count()
    })
}

/// Writes `job` for `asset`: on the IO task pool after any write of it on its way, or at once
/// in a world without one.
fn write(world: &World, files: &SceneFiles, asset: &str, job: Job) -> Result<(), LinkError> {
    let (Some(writes), Some(pool)) = (
        world.get_resource::<Writes>(),
        bevy_tasks::IoTaskPool::try_get(),
    ) else {
        let number = job.text.number;
        return match write_file(&job) {
            Ok(stamp) => {
                files.on_disk(asset, number, stamp);
                reload(world.get_resource::<AssetServer>(), asset);
                Ok(())
            }
            Err(e) => {
                files.forget_revisions(asset);
                Err(e)
            }
        };
    };
    files.set_writing(asset, true);
    let mut queues = writes.0.lock().unwrap_or_else(PoisonError::into_inner);
    let queue = queues.entry(asset.to_owned()).or_default();
    match &queue.running {
        Some(_) => queue.next = Some(job),
        None => queue.running = Some(start(pool, job)),
    }
    Ok(())
}

fn start(pool: &bevy_tasks::IoTaskPool, job: Job) -> (u64, Task<Result<Stamp, String>>) {
    let number = job.text.number;
    let task = pool.spawn(async move { write_file(&job).map_err(|e| e.to_string()) });
    (number, task)
}

/// Writes `job`'s text over its file, atomically, when the file is still the one it expects.
fn write_file(job: &Job) -> Result<Stamp, LinkError> {
    let shown = || job.file.display().to_string();
    if let Some(expects) = job.expects
        && Stamp::of(&job.file).ok() != Some(expects)
    {
        return Err(LinkError::ChangedOnDisk(shown()));
    }
    // Through a symbolic link (inside the root), the file it points to.
    let target = std::fs::canonicalize(&job.file).unwrap_or_else(|_| job.file.clone());
    crate::project::write_file_atomic(&target, job.text.text.as_bytes())?;
    Stamp::of(&job.file).map_err(|e| LinkError::Read {
        file: shown(),
        reason: e.to_string(),
    })
}

fn reload(server: Option<&AssetServer>, asset: &str) {
    if let Some(server) = server {
        server.reload(asset.to_owned());
    }
}

/// Finishes the writes whose tasks are done: the next queued write of the file starts, or the
/// scene reloads (and [`ForgeSceneWritten`] is triggered); a write that failed forgets the
/// revisions not on disk and reloads the file as it is.
fn finish_writes(
    writes: Res<Writes>,
    files: Res<SceneFiles>,
    server: Option<Res<AssetServer>>,
    mut commands: Commands,
) {
    let Some(pool) = bevy_tasks::IoTaskPool::try_get() else {
        return;
    };
    let mut queues = writes.0.lock().unwrap_or_else(PoisonError::into_inner);
    for (asset, queue) in queues.iter_mut() {
        let Some((number, task)) = &mut queue.running else {
            continue;
        };
        let Some(result) = bevy_tasks::futures::check_ready(task) else {
            continue;
        };
        let number = *number;
        queue.running = None;
        match result {
            Ok(stamp) => {
                files.on_disk(asset, number, stamp);
                if let Some(mut next) = queue.next.take() {
                    next.expects = next.expects.or(Some(stamp));
                    queue.running = Some(start(pool, next));
                    continue;
                }
                files.set_writing(asset, false);
                reload(server.as_deref(), asset);
                commands.trigger(ForgeSceneWritten {
                    scene: asset.clone(),
                    error: None,
                });
            }
            Err(error) => {
                tracing::error!(
                    "`{asset}` could not be written, it is read again as it is on disk: {error}"
                );
                queue.next = None;
                files.set_writing(asset, false);
                files.forget_revisions(asset);
                reload(server.as_deref(), asset);
                commands.trigger(ForgeSceneWritten {
                    scene: asset.clone(),
                    error: Some(error),
                });
            }
        }
    }
}

/// The write path's part of the live plugin: the writes' queues, finished each frame.
pub(crate) struct WritePlugin;

impl Plugin for WritePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Writes>()
            .add_systems(Last, finish_writes.run_if(|w: Res<Writes>| !w.is_idle()));
    }
}

impl Writes {
    fn is_idle(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .all(|q| !q.is_busy())
    }
}

// ---- undo and redo -------------------------------------------------------------------------

/// Gives back the exact bytes each file had before `kept` (a [`keep`](super::keep) or
/// [`set`](super::set) that wrote), through the same write path: checked, written atomically,
/// the scene reloaded, so the live values follow the files again.
///
/// # Errors
/// [`LinkError::ChangedOnDisk`] when a file is no longer the text `kept` left (edited since);
/// as the write path. Nothing is written when one is returned.
pub fn undo(world: &mut World, kept: &super::Kept) -> Result<super::Kept, LinkError> {
    replay(world, kept, true)
}

/// Makes `kept` again after an [`undo`]: each file gets back the exact bytes `kept` wrote.
///
/// # Errors
/// As [`undo`].
pub fn redo(world: &mut World, kept: &super::Kept) -> Result<super::Kept, LinkError> {
    replay(world, kept, false)
}

fn replay(
    world: &mut World,
    kept: &super::Kept,
    backwards: bool,
) -> Result<super::Kept, LinkError> {
    let world: &World = world;
    let link = super::link_of(world)?;
    let label = if backwards { "undo" } else { "redo" };
    let mut groups: Vec<(String, Change)> = kept
        .groups
        .iter()
        .map(|(asset, group)| (asset.clone(), Change::Replay(group.clone(), backwards)))
        .collect();
    if backwards {
        groups.reverse();
    }
    let committed = commit(world, link, label, groups, false)?;
    Ok(super::Kept {
        kept: kept.kept.clone(),
        written: !committed.is_empty(),
        groups: kept.groups.clone(),
        files: committed.into_iter().map(|c| c.file).collect(),
    })
}
