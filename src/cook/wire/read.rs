//! Reading a cooked body back: a bounds-checked [`Reader`] over untrusted bytes, then the
//! document (in chunks, on the app's task pool when large), its components, instances,
//! overrides and tile layers.

use super::*;

/// Reads bytes of a body from `at` on; `base` is where `bytes` start in the body (for offsets
/// in errors).
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pub(super) at: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8], base: usize) -> Self {
        Reader { bytes, at: 0, base }
    }

    pub(super) fn error(&self, what: impl Into<String>) -> BodyError {
        BodyError::new(self.base + self.at, what)
    }

    #[inline]
    pub(super) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    #[inline]
    pub(super) fn byte(&mut self, what: &str) -> Result<u8, BodyError> {
        match self.bytes.get(self.at) {
            Some(b) => {
                self.at += 1;
                Ok(*b)
            }
            None => Err(self.error(format!("the body ends inside {what}"))),
        }
    }

    #[inline]
    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], BodyError> {
        if n > self.left() {
            return Err(self.error(format!(
                "{what} needs {n} bytes but {} are left",
                self.left()
            )));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    /// A LEB128 `u64`: seven bits a byte, low bits first, at most ten bytes.
    #[inline]
    pub(super) fn varint(&mut self, what: &str) -> Result<u64, BodyError> {
        // Most numbers (lengths, flags, small ids) fit one byte.
        if let Some(&b) = self.bytes.get(self.at)
            && b < 0x80
        {
            self.at += 1;
            return Ok(u64::from(b));
        }
        self.varint_long(what)
    }

    /// A varint of more than one byte. A badly written one is reported at its first byte, as
    /// every number is.
    pub(super) fn varint_long(&mut self, what: &str) -> Result<u64, BodyError> {
        let start = self.at;
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte(what)?;
            let bits = u64::from(b & 0x7F);
            if shift == 63 && bits > 1 {
                self.at = start;
                return Err(self.error(format!("{what} does not fit 64 bits")));
            }
            value |= bits << shift;
            if b & 0x80 == 0 {
                // A last byte of zero after others: the same number fits fewer bytes.
                if b == 0 && shift > 0 {
                    self.at = start;
                    return Err(
                        self.error(format!("{what} is written in more bytes than it needs"))
                    );
                }
                return Ok(value);
            }
        }
        self.at = start;
        Err(self.error(format!("{what} does not fit 64 bits")))
    }

    /// A count of items each at least `min_bytes` long: more than the bytes left could hold
    /// is refused before anything is reserved.
    #[inline]
    pub(super) fn count(&mut self, min_bytes: usize, what: &str) -> Result<usize, BodyError> {
        let start = self.at;
        let n = self.varint(what)?;
        let most = self.left() / min_bytes.max(1);
        match usize::try_from(n) {
            Ok(n) if n <= most => Ok(n),
            _ => {
                self.at = start;
                Err(self.error(format!(
                    "{what} is {n}, more than the {} bytes left can hold",
                    self.left()
                )))
            }
        }
    }

    #[inline]
    pub(super) fn str(&mut self, what: &str) -> Result<&'a str, BodyError> {
        let len = self.count(1, what)?;
        let start = self.at;
        let bytes = self.take(len, what)?;
        std::str::from_utf8(bytes).map_err(|e| {
            BodyError::new(
                self.base + start + e.valid_up_to(),
                format!("{what} is not UTF-8"),
            )
        })
    }

    /// A transform: nine little-endian `f32`s.
    #[inline]
    pub(super) fn transform(&mut self) -> Result<TransformData, BodyError> {
        let (words, _) = self.take(36, "a transform")?.as_chunks::<4>();
        let mut f = [0.0f32; 9];
        for (out, word) in f.iter_mut().zip(words) {
            *out = f32::from_le_bytes(*word);
        }
        let v = |i: usize| Vec3Data {
            x: f[i],
            y: f[i + 1],
            z: f[i + 2],
        };
        Ok(TransformData {
            translation: v(0),
            rotation: v(3),
            scale: v(6),
        })
    }

    /// Little-endian `f32`s of `what`.
    #[inline]
    pub(super) fn f32s<const N: usize>(&mut self, what: &str) -> Result<[f32; N], BodyError> {
        if self.left() < 4 * N {
            self.at = self.bytes.len();
            return Err(self.error(format!("{what} does not decode: the bytes end inside it")));
        }
        let (words, _) = self.bytes[self.at..self.at + 4 * N].as_chunks::<4>();
        let mut out = [0.0f32; N];
        for (o, w) in out.iter_mut().zip(words) {
            *o = f32::from_le_bytes(*w);
        }
        self.at += 4 * N;
        Ok(out)
    }

    /// A string inside `what`: a length past the bytes left is named at its first byte, bytes
    /// that are not UTF-8 where they stop being so.
    pub(super) fn string_in(&mut self, what: &str) -> Result<&'a str, BodyError> {
        let start = self.at;
        let len = self.varint(what)?;
        let left = self.left();
        let len = match usize::try_from(len) {
            Ok(len) if len <= left => len,
            _ => {
                self.at = start;
                return Err(self.error(format!(
                    "{what} does not decode: a length asks for more than the {left} bytes left"
                )));
            }
        };
        let bytes = &self.bytes[self.at..self.at + len];
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                self.at += len;
                Ok(s)
            }
            Err(e) => Err(BodyError::new(
                self.base + self.at + e.valid_up_to(),
                format!("{what} does not decode: a string is not UTF-8"),
            )),
        }
    }

    /// A byte that must be below `n`: a bool (`n` 2), an option tag, a variant; at the byte when
    /// it is not.
    pub(super) fn below(&mut self, n: u8, what: &str, words: &str) -> Result<u8, BodyError> {
        let b = self.byte(what)?;
        if b >= n {
            self.at -= 1;
            return Err(self.error(format!("{what} does not decode: {words}")));
        }
        Ok(b)
    }

    /// A list of ids.
    pub(super) fn ids(&mut self, what: &str) -> Result<Vec<u64>, BodyError> {
        let n = self.count(1, what)?;
        let mut ids = Vec::with_capacity(n.min(RESERVE_AT_MOST));
        for _ in 0..n {
            ids.push(self.varint(what)?);
        }
        Ok(ids)
    }
}

/// The most items a count from the file reserves room for before they decode: a list longer
/// than this grows as its items actually arrive, so a count that lies costs little.
pub(super) const RESERVE_AT_MOST: usize = 4096;

/// [`RESERVE_AT_MOST`] for the lists of one entity (its components, a component's fields),
/// which every entity reserves: short, so a lying count in each of many entities costs little.
pub(super) const RESERVE_PER_ENTITY_AT_MOST: usize = 64;

pub(super) fn read_doc(r: &mut Reader<'_>, pool: &[EcoString]) -> Result<SceneDoc, Failure> {
    let version = r.varint("format_version")?;
    if version != u64::from(crate::format::FORMAT_VERSION) {
        return Err(Failure::Rule(format!(
            "format_version {version} (this build reads {})",
            crate::format::FORMAT_VERSION
        )));
    }
    let format_version = crate::format::FORMAT_VERSION;
    let name = r.str("the scene name")?.to_owned();
    let next_id = r.varint("next_id")?;
    let roots_len = r.count(1, "the number of roots")?;
    let mut roots = Vec::with_capacity(roots_len.min(RESERVE_AT_MOST));
    for _ in 0..roots_len {
        roots.push(r.varint("a root id")?);
    }
    let total = r.count(MIN_ENTITY_BYTES, "the number of entities")?;
    let chunk_count = r.count(2, "the number of entity chunks")?;
    // Each chunk: its entities (1 to `CHUNK_ENTITIES`) and bytes, checked against what is left.
    let mut chunks = Vec::with_capacity(chunk_count);
    let mut entities = 0usize;
    let mut bytes = 0usize;
    for _ in 0..chunk_count {
        let n = r.varint("a chunk's entity count")?;
        let len = r.varint("a chunk's length")?;
        let (Ok(n), Ok(len)) = (usize::try_from(n), usize::try_from(len)) else {
            return Err(r.error("a chunk larger than the body").into());
        };
        entities = entities.saturating_add(n);
        bytes = bytes.saturating_add(len);
        if n == 0 || n > CHUNK_ENTITIES || entities > total || n * MIN_ENTITY_BYTES > len {
            return Err(r
                .error(format!(
                    "a chunk of {} in {len} bytes, of {} in all (a chunk holds 1 to {CHUNK_ENTITIES})",
                    count_of(n, "entity"),
                    count_of(total, "entity")
                ))
                .into());
        }
        chunks.push((n, len));
    }
    if entities != total {
        return Err(r
            .error(format!(
                "the chunks hold {}, not the {total} announced",
                count_of(entities, "entity")
            ))
            .into());
    }
    if bytes > r.left() {
        return Err(r
            .error(format!(
                "the chunks need {bytes} bytes but {} are left",
                r.left()
            ))
            .into());
    }
    // The chunks' bytes, each with its offset in the body.
    let mut slices = Vec::with_capacity(chunks.len());
    for (n, len) in chunks {
        let base = r.base + r.at;
        slices.push((n, base, r.take(len, "a chunk")?));
    }
    let mut map = EntityMap::with_capacity_and_hasher(total, Default::default());
    let mut twice = None;
    let outcome = {
        let mut put = |key: u64, node: EntityNode| {
            if map.insert(key, node.into()).is_some() {
                twice.get_or_insert(key);
            }
        };
        if let Some(tasks) = parallel(total, slices.len()) {
            read_shared(&slices, pool, tasks, &mut put)
        } else {
            read_chunks(&slices, pool, &mut put)
        }
    };
    // Every entity before the first problem is in the map: a key given twice among them comes
    // first in the file.
    if let Some(key) = twice {
        return Err(Failure::DuplicateId(key));
    }
    outcome?;
    Ok(SceneDoc {
        format_version,
        name,
        entities: map,
        roots,
        next_id,
        layers: Vec::new(),
    })
}

/// The task pool to decode `chunks` chunks of `total` entities on: from [`PARALLEL_FROM`]
/// entities, when the app has Bevy's async compute pool with threads (the command line and
/// tests without pools, and wasm, decode on the calling thread).
pub(super) fn parallel(total: usize, chunks: usize) -> Option<&'static bevy_tasks::TaskPool> {
    let threads = cfg!(feature = "multi_threaded") && !cfg!(target_arch = "wasm32");
    if !threads || total < PARALLEL_FROM || chunks < 2 {
        return None;
    }
    bevy_tasks::AsyncComputeTaskPool::try_get().map(|p| &**p)
}

/// A chunk's entities, in order, up to its first problem, and that problem.
pub(super) type Decoded = (Vec<(u64, EntityNode)>, Result<(), Failure>);

/// Decodes `chunks` on this thread and a task of `tasks`, giving every entity to `put` in chunk
/// order up to the first problem, and that problem: each takes the next chunk nobody has
/// taken; this thread also hands over finished chunks as soon as every chunk before them is in,
/// and decodes a chunk straight into `put` when it is the next one due. The result is what one
/// thread would give.
pub(super) fn read_shared(
    chunks: &[(usize, usize, &[u8])],
    pool: &[EcoString],
    tasks: &bevy_tasks::TaskPool,
    put: &mut dyn FnMut(u64, EntityNode),
) -> Result<(), Failure> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    // The helper's own copy of the pool: a pooled string longer than fits inline is shared by
    // counting references, and two threads counting on one string would fight over it.
    let own: Vec<EcoString> = pool.iter().map(|s| EcoString::from(s.as_str())).collect();
    let decode = |i: usize, pool: &[EcoString]| -> Decoded {
        let chunk = std::slice::from_ref(&chunks[i]);
        let mut out = Vec::with_capacity(chunks[i].0);
        let outcome = read_chunks(chunk, pool, &mut |k, n| out.push((k, n)));
        (out, outcome)
    };
    let (send, receive) = std::sync::mpsc::channel::<(usize, Decoded)>();
    let mut outcome = Ok(());
    tasks.scope(|s| {
        let (next, own, decode) = (&next, &own, &decode);
        s.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= chunks.len() || send.send((i, decode(i, own))).is_err() {
                    return;
                }
            }
        });
        let mut pending: Vec<Option<Decoded>> = Vec::new();
        pending.resize_with(chunks.len(), || None);
        let mut due = 0;
        outcome = loop {
            while let Ok((i, decoded)) = receive.try_recv() {
                pending[i] = Some(decoded);
            }
            // Every finished chunk that is due goes to `put`, up to the first problem.
            let mut failed = None;
            while let Some((list, outcome)) = pending.get_mut(due).and_then(Option::take) {
                list.into_iter().for_each(|(k, n)| put(k, n));
                if let Err(e) = outcome {
                    failed = Some(e);
                    break;
                }
                due += 1;
            }
            if let Some(e) = failed {
                break Err(e);
            }
            if due == chunks.len() {
                break Ok(());
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i == due {
                // Due now: straight to `put`.
                let chunk = std::slice::from_ref(&chunks[i]);
                if let Err(e) = read_chunks(chunk, pool, put) {
                    break Err(e);
                }
                due += 1;
            } else if i < chunks.len() {
                pending[i] = Some(decode(i, pool));
            } else {
                // Every chunk is taken: wait for the helper's.
                match receive.recv() {
                    Ok((i, decoded)) => pending[i] = Some(decoded),
                    // The helper ended without sending what it took: it failed.
                    Err(_) => {
                        break Err(Failure::Layout(BodyError::new(
                            chunks[due].1,
                            "the decoding task failed",
                        )));
                    }
                }
            }
        };
        // Stop the helper after its current chunk.
        next.store(chunks.len(), Ordering::Relaxed);
    });
    outcome
}

/// Decodes `chunks` in order, giving each entity to `put`, up to the first problem.
pub(super) fn read_chunks(
    chunks: &[(usize, usize, &[u8])],
    pool: &[EcoString],
    put: &mut dyn FnMut(u64, EntityNode),
) -> Result<(), Failure> {
    for (n, base, bytes) in chunks {
        let mut r = Reader::new(bytes, *base);
        for _ in 0..*n {
            let (key, node) = read_entity(&mut r, pool)?;
            put(key, node);
        }
        if r.left() > 0 {
            return Err(r
                .error(format!(
                    "{} bytes are left after the chunk's {}",
                    r.left(),
                    count_of(*n, "entity")
                ))
                .into());
        }
    }
    Ok(())
}

pub(super) fn read_entity(
    r: &mut Reader<'_>,
    pool: &[EcoString],
) -> Result<(u64, EntityNode), Failure> {
    let key = r.varint("an entity key")?;
    read_entity_after_key(r, pool, key).map_err(|e| match e {
        Failure::Layout(e) => Failure::Layout(BodyError {
            entity: Some(key),
            ..e
        }),
        other => other,
    })
}

/// The rest of entity `key`, after its key.
pub(super) fn read_entity_after_key(
    r: &mut Reader<'_>,
    pool: &[EcoString],
    key: u64,
) -> Result<(u64, EntityNode), Failure> {
    // Every bit of the flags byte has a meaning (`MODEL` took the last one).
    let flags = r.byte("an entity's flags")?;
    if flags & (STREAMED | MODEL) != 0 && flags & HAS_INSTANCE == 0 {
        r.at -= 1;
        return Err(r
            .error(format!(
                "flags {flags:#04x}: a streamed or model entity without a prefab instance"
            ))
            .into());
    }
    let id = if flags & ID_DIFFERS != 0 {
        r.varint("an entity id")?
    } else {
        key
    };
    let parent = if flags & HAS_PARENT != 0 {
        Some(r.varint("a parent id")?)
    } else {
        None
    };
    let name = EcoString::from(r.str("an entity name")?);
    let children = if flags & HAS_CHILDREN != 0 {
        let n = r.count(1, "the number of children")?;
        let mut children = Vec::with_capacity(n.min(RESERVE_AT_MOST));
        for _ in 0..n {
            children.push(r.varint("a child id")?);
        }
        children
    } else {
        Vec::new()
    };
    let transform = r.transform()?;
    let components = if flags & HAS_COMPONENTS != 0 {
        let n = r.count(2, "the number of components")?;
        let mut components = Vec::with_capacity(n.min(RESERVE_PER_ENTITY_AT_MOST));
        for _ in 0..n {
            components.push(read_component(r, pool)?);
        }
        components
    } else {
        Vec::new()
    };
    let instance = if flags & HAS_INSTANCE != 0 {
        let mut instance = read_instance(r, pool, flags & super::MODEL != 0)?;
        if flags & STREAMED != 0 {
            let [load_radius, unload_radius] = r.f32s::<2>("a streamed instance's radii")?;
            instance.streaming = Some(crate::format::Streaming {
                load_radius,
                unload_radius,
            });
        }
        super::super::check_instance(key, &instance).map_err(Failure::Rule)?;
        Some(Box::new(instance))
    } else {
        None
    };
    Ok((
        key,
        EntityNode {
            id,
            name,
            parent,
            children,
            transform,
            components,
            locked: flags & LOCKED != 0,
            instance,
        },
    ))
}

pub(super) fn read_component(
    r: &mut Reader<'_>,
    pool: &[EcoString],
) -> Result<ComponentData, BodyError> {
    match r.byte("a component tag")? {
        tag @ (TAG_CUSTOM | TAG_CUSTOM_VALUE) => {
            let type_path = pooled(r, pool, "a custom type path")?;
            let n = r.count(2, "the number of custom fields")?;
            let mut fields = Vec::with_capacity(n.min(RESERVE_PER_ENTITY_AT_MOST));
            for _ in 0..n {
                fields.push(CustomField {
                    name: pooled(r, pool, "a field name")?,
                    expr: EcoString::from(r.str("a field expression")?),
                });
            }
            let value = match tag {
                TAG_CUSTOM_VALUE => Some(EcoString::from(r.str("a custom component's value")?)),
                _ => None,
            };
            Ok(ComponentData::Custom(CustomComponent {
                type_path,
                fields,
                value,
            }))
        }
        TAG_BUILTIN => {
            let start = r.at;
            let index = r.varint("a built-in component's kind")?;
            let Some(b) = usize::try_from(index).ok().and_then(|i| BUILTINS.get(i)) else {
                r.at = start;
                return Err(r.error("a built-in component's kind names none of the format's"));
            };
            read_builtin(r, b)
        }
        other => {
            r.at -= 1;
            Err(r.error(format!("unknown component tag {other}")))
        }
    }
}

pub(super) fn pooled(
    r: &mut Reader<'_>,
    pool: &[EcoString],
    what: &str,
) -> Result<EcoString, BodyError> {
    let start = r.at;
    let i = r.varint(what)?;
    match usize::try_from(i).ok().and_then(|i| pool.get(i)) {
        Some(s) => Ok(s.clone()),
        None => {
            r.at = start;
            Err(r.error(format!(
                "{what} names string {i} of a pool of {}",
                pool.len()
            )))
        }
    }
}

/// The fields of built-in `b`, as [`put_component`] writes them. A problem is told as the
/// component's (`a \`sprite\` component does not decode: a bool is neither 0 nor 1`), at the
/// byte where it is.
pub(super) fn read_builtin(
    r: &mut Reader<'_>,
    b: &'static BuiltinTag,
) -> Result<ComponentData, BodyError> {
    let mut c = (b.default)();
    let what = format!("a `{}` component", b.tag);
    let what = what.as_str();
    match b.payload {
        Payload::Unit => {}
        Payload::Mode(modes) => {
            let i = r.below(
                modes.len() as u8,
                what,
                "its value names none of the format's",
            )?;
            (b.set)(&mut c, 0, Value::Mode(usize::from(i)));
        }
        Payload::Fields(fields) => {
            for (i, f) in fields.iter().enumerate() {
                let value = match f.kind {
                    FieldKind::Float => Value::Float(r.f32s::<1>(what)?[0]),
                    FieldKind::Bool => Value::Bool(r.below(2, what, BOOL)? == 1),
                    FieldKind::Text => Value::Text(r.string_in(what)?.to_owned()),
                    FieldKind::Color => {
                        let [red, green, blue, alpha] = r.f32s::<4>(what)?;
                        Value::Color(ColorData::rgba(red, green, blue, alpha))
                    }
                    FieldKind::Image => Value::Image(match r.below(2, what, OPTION)? {
                        0 => None,
                        _ => Some(r.string_in(what)?.to_owned()),
                    }),
                    FieldKind::Size => Value::Size(match r.below(2, what, OPTION)? {
                        0 => None,
                        _ => {
                            let [x, y] = r.f32s::<2>(what)?;
                            Some(Vec2Data { x, y })
                        }
                    }),
                    FieldKind::Mesh => Value::Mesh(read_mesh(r, what)?),
                };
                (b.set)(&mut c, i, value);
            }
        }
    }
    Ok(c)
}

pub(super) const BOOL: &str = "a bool is neither 0 nor 1";
pub(super) const OPTION: &str = "an option tag is neither 0 nor 1";

pub(super) fn read_mesh(r: &mut Reader<'_>, what: &str) -> Result<MeshSource, BodyError> {
    if r.below(2, what, "its mesh source names none of the format's")? == 1 {
        return Ok(MeshSource::Asset(r.string_in(what)?.to_owned()));
    }
    let shape = r.below(
        PRIMITIVE_SHAPES.len() as u8,
        what,
        "its shape names none of the format's",
    )?;
    Ok(MeshSource::Primitive(
        match PRIMITIVE_SHAPES[usize::from(shape)] {
            "cuboid" => {
                let [x, y, z] = r.f32s::<3>(what)?;
                PrimitiveShape::Cuboid {
                    size: Vec3Data { x, y, z },
                }
            }
            "sphere" => PrimitiveShape::Sphere {
                radius: r.f32s::<1>(what)?[0],
            },
            "plane" => {
                let [x, y] = r.f32s::<2>(what)?;
                PrimitiveShape::Plane {
                    size: Vec2Data { x, y },
                }
            }
            "cylinder" => {
                let [radius, height] = r.f32s::<2>(what)?;
                PrimitiveShape::Cylinder { radius, height }
            }
            _ => {
                let [radius, length] = r.f32s::<2>(what)?;
                PrimitiveShape::Capsule { radius, length }
            }
        },
    ))
}

/// A prefab instance, as [`put_instance`] writes it.
/// `model`: the entity's [`MODEL`](super::MODEL) flag.
pub(super) fn read_instance(
    r: &mut Reader<'_>,
    pool: &[EcoString],
    model: bool,
) -> Result<Instance, BodyError> {
    let path = EcoString::from(r.str("a prefab instance's scene")?);
    let overrides = read_overrides(r, pool, model)?;
    let (scene, model) = if model {
        (EcoString::default(), Some(path))
    } else {
        (path, None)
    };
    Ok(Instance {
        scene,
        model,
        overrides,
        streaming: None,
    })
}

/// A list of overrides, as [`put_overrides`] writes it.
/// `nodes`: a model instance's, whose overrides target node paths.
pub(super) fn read_overrides(
    r: &mut Reader<'_>,
    pool: &[EcoString],
    nodes: bool,
) -> Result<Vec<Override>, BodyError> {
    let n = r.count(7, "the number of overrides")?;
    let mut overrides = Vec::with_capacity(n.min(RESERVE_PER_ENTITY_AT_MOST));
    for _ in 0..n {
        let (target, node) = if nodes {
            let k = r.count(1, "an override's node path")?;
            let mut path = Vec::with_capacity(k.min(RESERVE_PER_ENTITY_AT_MOST));
            for _ in 0..k {
                path.push(EcoString::from(r.str("a node name")?));
            }
            (Vec::new(), path)
        } else {
            (r.ids("an override's target")?, Vec::new())
        };
        let name = match r.below(2, "an override's name", OPTION)? {
            0 => None,
            _ => Some(EcoString::from(r.str("an override's name")?)),
        };
        let transform = match r.below(2, "an override's transform", OPTION)? {
            0 => None,
            _ => Some(r.transform()?),
        };
        let n = r.count(3, "the number of an override's `set` patches")?;
        let mut set = Vec::with_capacity(n.min(RESERVE_PER_ENTITY_AT_MOST));
        for _ in 0..n {
            let component = read_component(r, pool)?;
            let settable = component.builtin().map(|b| b.fields()).unwrap_or_default();
            let k = r.count(1, "the number of a patch's fields")?;
            let mut fields = Vec::with_capacity(k.min(RESERVE_PER_ENTITY_AT_MOST));
            for _ in 0..k {
                let start = r.at;
                let i = r.varint("a patch's field")?;
                match usize::try_from(i).ok().and_then(|i| settable.get(i)) {
                    Some(f) => fields.push(EcoString::from(f.path)),
                    None => {
                        r.at = start;
                        return Err(r.error(format!(
                            "a patch's field {i} is none of the {} fields of `{}`",
                            settable.len(),
                            component.tag()
                        )));
                    }
                }
            }
            set.push(ComponentPatch { component, fields });
        }
        let n = r.count(2, "the number of an override's added components")?;
        let mut add = Vec::with_capacity(n.min(RESERVE_PER_ENTITY_AT_MOST));
        for _ in 0..n {
            add.push(read_component(r, pool)?);
        }
        let n = r.count(1, "the number of an override's removed components")?;
        let mut remove = Vec::with_capacity(n.min(RESERVE_PER_ENTITY_AT_MOST));
        for _ in 0..n {
            remove.push(EcoString::from(r.str("a removed component's key")?));
        }
        let children = r.ids("an override's children")?;
        overrides.push(Override {
            target,
            node,
            name,
            transform,
            set,
            add,
            remove,
            children,
        });
    }
    Ok(overrides)
}

/// The layers part, as [`put_layers`] writes it, into `docs` (the scene, then the prefabs).
pub(super) fn read_layers(
    r: &mut Reader<'_>,
    pool: &[EcoString],
    docs: &mut [&mut SceneDoc],
) -> Result<(), BodyError> {
    let n = r.count(2, "the number of documents with tile layers")?;
    let mut last = None;
    for _ in 0..n {
        let index = r.varint("a document's index")?;
        let doc = match usize::try_from(index).ok().and_then(|i| docs.get_mut(i)) {
            Some(doc) if last.is_none_or(|l| l < index) => doc,
            _ => {
                return Err(r.error(format!(
                    "document {index} of {} has tile layers (each once, in order)",
                    docs.len()
                )));
            }
        };
        last = Some(index);
        let count = r.count(20, "the number of tile layers")?;
        for _ in 0..count {
            let layer = read_layer(r, pool)?;
            doc.layers.push(layer);
        }
    }
    Ok(())
}

pub(super) fn read_layer(r: &mut Reader<'_>, pool: &[EcoString]) -> Result<TileLayer, BodyError> {
    let id = r.varint("a tile layer's id")?;
    let name = EcoString::from(r.str("a tile layer's name")?);
    let mut l = TileLayer::new(id, name);
    l.parent = match r.below(2, "a tile layer's parent", OPTION)? {
        0 => None,
        _ => Some(r.varint("a tile layer's parent")?),
    };
    l.plane = match r.below(2, "a tile layer's plane", "0 (xy) or 1 (xz)")? {
        0 => TilePlane::Xy,
        _ => TilePlane::Xz,
    };
    let [x, y] = r.f32s("a tile layer's cell size")?;
    l.cell_size = Vec2Data::new(x, y);
    let [x, y, z] = r.f32s("a tile layer's origin")?;
    l.origin = Vec3Data::new(x, y, z);
    let index = |r: &mut Reader<'_>, what: &str| -> Result<u32, BodyError> {
        let v = r.varint(what)?;
        u32::try_from(v)
            .ok()
            .filter(|v| *v <= crate::format::MAX_CELL_INDEX)
            .ok_or_else(|| {
                r.error(format!(
                    "{what} {v} is above {}",
                    crate::format::MAX_CELL_INDEX
                ))
            })
    };
    l.start = (index(r, "a cell index")?, index(r, "a cell index")?);
    let key = |r: &mut Reader<'_>| -> Result<char, BodyError> {
        let s = r.str("a palette key")?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if crate::format::is_palette_key(c) => Ok(c),
            _ => Err(r.error(format!(
                "palette key {s:?} is not one character other than `.` and control characters"
            ))),
        }
    };
    let n = r.count(2, "the number of palette entries")?;
    for _ in 0..n {
        let k = key(r)?;
        let scene = EcoString::from(r.str("a palette prefab")?);
        l.palette.push((k, scene));
    }
    let n = r.count(1, "the number of rows")?;
    l.rows.reserve(n.min(RESERVE_AT_MOST));
    for _ in 0..n {
        l.rows.push(r.str("a row")?.to_owned());
    }
    let n = r.count(3, "the number of cells")?;
    l.cells.reserve(n.min(RESERVE_AT_MOST));
    for _ in 0..n {
        let i = index(r, "a cell index")?;
        let j = index(r, "a cell index")?;
        let key = key(r)?;
        l.cells.push(TileCell { i, j, key });
    }
    l.overrides = read_overrides(r, pool, false)?;
    Ok(l)
}
