//! A source map brought up to date after one entity entry is read again
//! ([`ParsedScene::reread_edit`](crate::format::ParsedScene::reread_edit)): the entry's spans
//! replaced, the spans after it moved.

use super::{ComponentSpans, EntitySpans, SourceMap, Span, SpanRange};

/// What reading one entity entry again gave ([`SourceMap::splice_entry`]): its spans, with its
/// runs of components counted from the start of these tables, and its rows of the flat tables.
pub(crate) struct EntryTables {
    pub(crate) spans: EntitySpans,
    pub(crate) components: Vec<ComponentSpans>,
    pub(crate) payload_fields: Vec<(&'static str, Span)>,
    pub(crate) custom_fields: Vec<[Span; 3]>,
    pub(crate) escaped: Vec<(u32, Box<str>)>,
}

/// Moves the spans after an edit: a span after the edited entry by `delta` bytes, one that holds
/// the whole entry (the `entities` map) at its end only.
#[derive(Clone, Copy)]
struct Shift {
    entry: Span,
    delta: i64,
}

impl Shift {
    fn span(self, span: &mut Span) {
        if !span.is_some() {
            return;
        }
        let moved = |at: u32| (i64::from(at) + self.delta) as u32;
        if span.start >= self.entry.end {
            span.start = moved(span.start);
            span.end = moved(span.end);
        } else if span.start <= self.entry.start && span.end >= self.entry.end {
            span.end = moved(span.end);
        }
    }

    fn spans(self, spans: &mut [Span]) {
        spans.iter_mut().for_each(|s| self.span(s));
    }

    fn transform(self, spans: &mut [[Span; 4]; 3]) {
        spans.iter_mut().for_each(|part| self.spans(part));
    }
}

impl SourceMap {
    /// Puts `new`, entity entry `index` read again from `text`, in place of its old spans:
    /// `text` is the text this map was read from with the bytes at `old` (inside the entry)
    /// replaced by `new_len` bytes. Spans after the entry move by the change in length, the
    /// rows of the other entries' components keep their order, and the line index takes the
    /// edit: the map is then the one reading `text` whole gives.
    pub(crate) fn splice_entry(
        &mut self,
        index: usize,
        new: EntryTables,
        text: &str,
        old: std::ops::Range<usize>,
        new_len: usize,
    ) {
        let Some(entry) = self.entities.get_index(index).map(|(_, s)| s.entry) else {
            return;
        };
        let shift = Shift {
            entry,
            delta: new_len as i64 - (old.end - old.start) as i64,
        };
        // The entry's rows of each table, and where the next entry's start.
        let c0 = self
            .components
            .partition_point(|c| c.entry.start < entry.start);
        let c1 = self
            .components
            .partition_point(|c| c.entry.start < entry.end);
        let rows = |pick: fn(&ComponentSpans) -> SpanRange, table_len: usize| {
            let at = |c: usize| {
                self.components
                    .get(c)
                    .map(pick)
                    .filter(|r| r.len > 0)
                    .map_or_else(
                        // An empty run says nothing: the next one that holds rows.
                        || {
                            self.components[c.min(self.components.len())..]
                                .iter()
                                .map(pick)
                                .find(|r| r.len > 0)
                                .map_or(table_len, |r| r.start as usize)
                        },
                        |r| r.start as usize,
                    )
            };
            at(c0)..at(c1)
        };
        let p = rows(|c| c.fields, self.payload_fields.len());
        let q = rows(|c| c.custom_fields, self.custom_fields.len());
        let dc = new.components.len() as i64 - (c1 - c0) as i64;
        let dp = new.payload_fields.len() as i64 - p.len() as i64;
        let dq = new.custom_fields.len() as i64 - q.len() as i64;
        // The new rows, counted from where the entry's rows start.
        let mut spans = new.spans;
        spans.components = spans.components.moved(c0 as i64);
        if let Some(instance) = &mut spans.instance {
            for o in &mut instance.overrides {
                o.set = o.set.moved(c0 as i64);
                o.add = o.add.moved(c0 as i64);
            }
        }
        let mut components = new.components;
        for c in &mut components {
            c.fields = c.fields.moved(p.start as i64);
            c.custom_fields = c.custom_fields.moved(q.start as i64);
        }
        let added = components.len();
        self.components.splice(c0..c1, components);
        for c in &mut self.components[c0 + added..] {
            shift.span(&mut c.entry);
            shift.span(&mut c.tag);
            shift.span(&mut c.data);
            c.fields = c.fields.moved(dp);
            c.custom_fields = c.custom_fields.moved(dq);
        }
        let added = new.payload_fields.len();
        self.payload_fields.splice(p.clone(), new.payload_fields);
        for (_, span) in &mut self.payload_fields[p.start + added..] {
            shift.span(span);
        }
        let added = new.custom_fields.len();
        self.custom_fields.splice(q.clone(), new.custom_fields);
        for spans in &mut self.custom_fields[q.start + added..] {
            shift.spans(spans);
        }
        let e0 = self.escaped.partition_point(|(s, _)| *s < entry.start);
        let e1 = self.escaped.partition_point(|(s, _)| *s < entry.end);
        let added = new.escaped.len();
        self.escaped.splice(e0..e1, new.escaped);
        for (start, _) in &mut self.escaped[e0 + added..] {
            let mut span = Span::new(*start, *start);
            shift.span(&mut span);
            *start = span.start;
        }
        for (_, e) in self.entities.iter_mut().skip(index + 1) {
            shift.span(&mut e.entry);
            shift.spans(&mut e.fields);
            shift.transform(&mut e.transform);
            e.components = e.components.moved(dc);
            if let Some(instance) = &mut e.instance {
                shift.span(&mut instance.scene);
                shift.span(&mut instance.list);
                shift.spans(&mut instance.streaming);
                for o in &mut instance.overrides {
                    shift.span(&mut o.entry);
                    shift.spans(&mut o.fields);
                    shift.transform(&mut o.transform);
                    shift.spans(&mut o.remove);
                    shift.spans(&mut o.node);
                    o.set = o.set.moved(dc);
                    o.add = o.add.moved(dc);
                }
            }
        }
        if let Some((_, e)) = self.entities.get_index_mut(index) {
            *e = spans;
        }
        // Tile layers: their spans, and their overrides' rows of the components table when
        // those follow the entry's.
        for l in &mut self.layers {
            shift.span(&mut l.entry);
            shift.spans(&mut l.fields);
            for (key, scene) in &mut l.palette {
                shift.span(key);
                shift.span(scene);
            }
            shift.spans(&mut l.rows);
            shift.spans(&mut l.cells);
            for o in &mut l.overrides {
                shift.span(&mut o.entry);
                shift.spans(&mut o.fields);
                shift.transform(&mut o.transform);
                shift.spans(&mut o.remove);
                if o.set.start as usize >= c1 {
                    o.set = o.set.moved(dc);
                }
                if o.add.start as usize >= c1 {
                    o.add = o.add.moved(dc);
                }
            }
        }
        shift.spans(&mut self.top);
        self.lines.edit(text, old, new_len);
    }
}
