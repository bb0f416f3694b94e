//! One entity merged field by field: name, each transform part, `locked`, each component by
//! key (a built-in field by field, a custom component field by field and its `value`), and the
//! instance (`scene`, `model`, `streaming`, each override by target and field). Where the
//! entity sits (`parent`, `children`, an override's `children`) is the forest's (`forest`).

use std::fmt::Debug;

use super::pick::{Choice, Picker, Place, choose, merged_order, same};
use crate::format::builtin::Payload;
use crate::format::{
    ComponentData, ComponentPatch, CustomComponent, CustomField, EcoString, EntityNode, Instance,
    Override,
};

/// How conflicts name an entity: `entity 4 "Lamp"`.
pub(crate) fn named(node: &EntityNode) -> String {
    format!("entity {} {:?}", node.id, node.name.as_str())
}

/// Entity `o` (this branch) and `t` (the other) merged over `b` (`None` when both added it).
/// `parent`, `children` and overrides' `children` are `o`'s: the forest sets them.
pub(crate) fn node(
    p: &mut Picker,
    b: Option<&EntityNode>,
    o: &EntityNode,
    t: &EntityNode,
) -> EntityNode {
    let mut out = o.clone();
    let id = o.id;
    let who = named(o);
    let at = |field: &'static str, words: &str| {
        let what = format!("{who}: {words}");
        move || (Place::Field(id, field), what)
    };
    out.name = p.pick_value(b.map(|b| &b.name), &o.name, &t.name, at("name", "name"));
    let parts = |n: &EntityNode| {
        [
            n.transform.translation,
            n.transform.rotation,
            n.transform.scale,
        ]
    };
    let names = [
        ("transform.translation", "translation"),
        ("transform.rotation", "rotation"),
        ("transform.scale", "scale"),
    ];
    let (pb, po, pt) = (b.map(parts), parts(o), parts(t));
    let mut merged = po;
    for k in 0..3 {
        let (field, words) = names[k];
        merged[k] = p.pick_value(pb.as_ref().map(|v| &v[k]), &po[k], &pt[k], at(field, words));
    }
    out.transform.translation = merged[0];
    out.transform.rotation = merged[1];
    out.transform.scale = merged[2];
    out.locked = p.pick_value(
        b.map(|b| &b.locked),
        &o.locked,
        &t.locked,
        at("locked", "locked"),
    );
    out.components = components(
        p,
        &who,
        id,
        b.map(|b| &b.components[..]),
        &o.components,
        &t.components,
    );
    out.instance = instance(
        p,
        &who,
        id,
        b.and_then(|b| b.instance.as_deref()),
        o.instance.as_deref(),
        t.instance.as_deref(),
    )
    .map(Box::new);
    out
}

/// The components of one entity merged by key.
fn components(
    p: &mut Picker,
    who: &str,
    id: u64,
    b: Option<&[ComponentData]>,
    o: &[ComponentData],
    t: &[ComponentData],
) -> Vec<ComponentData> {
    if same(Some(&o), Some(&t)) {
        return o.to_vec();
    }
    let keys = |list: &[ComponentData]| list.iter().map(ComponentData::key).collect::<Vec<_>>();
    let order = merged_order(&keys(o), &keys(t), String::clone);
    let find = |list: &[ComponentData], key: &str| list.iter().find(|c| c.has_key(key)).cloned();
    let mut out = Vec::with_capacity(order.len());
    for key in order {
        let cb = b.and_then(|b| find(b, &key));
        let (co, ct) = (find(o, &key), find(t, &key));
        let k = EcoString::from(key.as_str());
        let merged = match (&cb, &co, &ct) {
            (Some(cb), Some(co), Some(ct)) if cb.same_key(co) => {
                Some(component(p, who, id, &k, cb, co, ct))
            }
            _ => {
                let what = format!("{who}: component `{key}` (added, removed or replaced)");
                p.pick(cb.as_ref(), co.as_ref(), ct.as_ref(), || {
                    (Place::Component(id, k.clone()), what)
                })
            }
        };
        out.extend(merged);
    }
    out
}

/// One component that every side has, merged field by field.
fn component(
    p: &mut Picker,
    who: &str,
    id: u64,
    key: &EcoString,
    b: &ComponentData,
    o: &ComponentData,
    t: &ComponentData,
) -> ComponentData {
    if same(Some(o), Some(t)) {
        return o.clone();
    }
    match (b, o, t) {
        (ComponentData::Custom(b), ComponentData::Custom(o), ComponentData::Custom(t)) => {
            ComponentData::Custom(custom(p, who, id, key, b, o, t))
        }
        _ => match o.builtin() {
            Some(tag) if matches!(tag.payload, Payload::Fields(_)) && o.same_key(t) => {
                let mut out = o.clone();
                for (i, f) in tag.fields().iter().enumerate() {
                    let (Some(vb), Some(vo), Some(vt)) =
                        ((tag.get)(b, i), (tag.get)(o, i), (tag.get)(t, i))
                    else {
                        continue;
                    };
                    let take = if vo.same(&vt) || vt.same(&vb) {
                        None
                    } else if vo.same(&vb) {
                        Some(vt)
                    } else {
                        p.clash(
                            Place::Payload(id, key.clone(), f.path),
                            format!("{who}: `{key}` field `{}`", f.path),
                        );
                        (p.side == super::Side::Theirs).then_some(vt)
                    };
                    if let Some(v) = take {
                        (tag.set)(&mut out, i, v.to_value());
                    }
                }
                out
            }
            _ => {
                let what = format!("{who}: component `{key}`");
                p.pick_value(Some(b), o, t, || (Place::Component(id, key.clone()), what))
            }
        },
    }
}

/// A custom component every side has: each field by name, and its `value`.
fn custom(
    p: &mut Picker,
    who: &str,
    id: u64,
    key: &EcoString,
    b: &CustomComponent,
    o: &CustomComponent,
    t: &CustomComponent,
) -> CustomComponent {
    let mut out = o.clone();
    let names = |c: &CustomComponent| c.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    let expr = |c: &CustomComponent, name: &EcoString| {
        c.fields
            .iter()
            .find(|f| f.name == *name)
            .map(|f| f.expr.clone())
    };
    let mut fields = Vec::with_capacity(o.fields.len());
    for name in merged_order(&names(o), &names(t), EcoString::clone) {
        let what = format!("{who}: `{key}` field `{name}`");
        let merged = p.pick(
            expr(b, &name).as_ref(),
            expr(o, &name).as_ref(),
            expr(t, &name).as_ref(),
            || (Place::Expr(id, key.clone(), name.clone()), what),
        );
        if let Some(e) = merged {
            fields.push(CustomField { name, expr: e });
        }
    }
    out.fields = fields;
    let what = format!("{who}: `{key}` value");
    out.value = p.pick(b.value.as_ref(), o.value.as_ref(), t.value.as_ref(), || {
        (Place::Value(id, key.clone()), what)
    });
    out
}

/// An instance without its overrides' `children` (where entities sit is the forest's).
pub(crate) fn bare(i: &Instance) -> Instance {
    let mut out = i.clone();
    for o in &mut out.overrides {
        o.children.clear();
    }
    out
}

/// The key of each override of `i`: its target (or node path) and how many before it share it.
pub(crate) fn override_keys(i: &Instance) -> Vec<OverrideKey> {
    let mut out: Vec<OverrideKey> = Vec::with_capacity(i.overrides.len());
    for o in &i.overrides {
        let nth = out
            .iter()
            .filter(|k| k.target == o.target && k.node == o.node)
            .count();
        out.push(OverrideKey {
            target: o.target.clone(),
            node: o.node.clone(),
            nth,
        });
    }
    out
}

/// An override's identity across branches: what it targets, and which of the overrides of
/// that target it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct OverrideKey {
    pub(crate) target: Vec<u64>,
    pub(crate) node: Vec<EcoString>,
    pub(crate) nth: usize,
}

fn find_override<'a>(i: Option<&'a Instance>, key: &OverrideKey) -> Option<&'a Override> {
    let i = i?;
    override_keys(i)
        .iter()
        .position(|k| k == key)
        .map(|at| &i.overrides[at])
}

/// The instances of one entity merged: `scene`, `model` and `streaming`, each override by its
/// target and field. Conflicts are at the entity's `instance`.
fn instance(
    p: &mut Picker,
    who: &str,
    id: u64,
    b: Option<&Instance>,
    o: Option<&Instance>,
    t: Option<&Instance>,
) -> Option<Instance> {
    let (bb, ob, tb) = (b.map(bare), o.map(bare), t.map(bare));
    match choose(bb.as_ref(), ob.as_ref(), tb.as_ref()) {
        Choice::Ours => return o.cloned(),
        Choice::Theirs => {
            // Theirs, with the children this branch placed (the forest places them again).
            let mut out = t.cloned()?;
            for (k, slot) in override_keys(&out).iter().zip(&mut out.overrides) {
                slot.children = find_override(o, k)
                    .map(|o| o.children.clone())
                    .unwrap_or_default();
            }
            return Some(out);
        }
        Choice::Clash => {}
    }
    let at = |words: String| move || (Place::Field(id, "instance"), words);
    let (Some(o), Some(t)) = (o, t) else {
        // Placed on one side, removed (or placed anew) on the other.
        return p.pick(b, o, t, at(format!("{who}: instance (placed or removed)")));
    };
    let mut out = o.clone();
    out.scene = p.pick_value(
        b.map(|b| &b.scene),
        &o.scene,
        &t.scene,
        at(format!("{who}: instance scene")),
    );
    out.model = p.pick(
        b.and_then(|b| b.model.as_ref()),
        o.model.as_ref(),
        t.model.as_ref(),
        at(format!("{who}: instance model")),
    );
    out.streaming = p.pick(
        b.and_then(|b| b.streaming.as_ref()),
        o.streaming.as_ref(),
        t.streaming.as_ref(),
        at(format!("{who}: instance streaming")),
    );
    let order = merged_order(&override_keys(o), &override_keys(t), OverrideKey::clone);
    let mut overrides = Vec::with_capacity(order.len());
    for key in order {
        let (ob, oo, ot) = (
            find_override(b, &key),
            find_override(Some(o), &key),
            find_override(Some(t), &key),
        );
        let target = target_words(&key);
        let merged = match (ob, oo, ot) {
            (Some(ob), Some(oo), Some(ot)) => Some(one_override(p, who, id, &target, ob, oo, ot)),
            _ => {
                let bare_of = |x: Option<&Override>| {
                    x.map(|x| Override {
                        children: Vec::new(),
                        ..x.clone()
                    })
                };
                let picked = p.pick(
                    bare_of(ob).as_ref(),
                    bare_of(oo).as_ref(),
                    bare_of(ot).as_ref(),
                    at(format!("{who}: override of {target} (added or removed)")),
                );
                picked.map(|mut x| {
                    x.children = oo.map(|o| o.children.clone()).unwrap_or_default();
                    x
                })
            }
        };
        overrides.extend(merged);
    }
    out.overrides = overrides;
    Some(out)
}

/// How conflicts name an override's target: `[7, 2]`, `node Roof/Chimney`.
fn target_words(key: &OverrideKey) -> String {
    if key.node.is_empty() {
        format!("{:?}", key.target)
    } else {
        let path: Vec<&str> = key.node.iter().map(EcoString::as_str).collect();
        format!("node {}", path.join("/"))
    }
}

/// One override every side has: `name`, `transform`, each `set` patch and `add` by key, and
/// `remove` as a set (what either side took out stays out). `children` are `o`'s.
fn one_override(
    p: &mut Picker,
    who: &str,
    id: u64,
    target: &str,
    b: &Override,
    o: &Override,
    t: &Override,
) -> Override {
    let mut out = o.clone();
    let at = |words: &str| {
        let what = format!("{who}: override of {target}: {words}");
        move || (Place::Field(id, "instance"), what.clone())
    };
    out.name = p.pick(
        b.name.as_ref(),
        o.name.as_ref(),
        t.name.as_ref(),
        at("name"),
    );
    out.transform = p.pick(
        b.transform.as_ref(),
        o.transform.as_ref(),
        t.transform.as_ref(),
        at("transform"),
    );
    out.set = sets(p, &b.set, &o.set, &t.set, &at("set"));
    out.add = by_key(p, &b.add, &o.add, &t.add, ComponentData::key, at("add"));
    let mut remove: Vec<EcoString> = Vec::new();
    for k in merged_order(&o.remove, &t.remove, EcoString::clone) {
        let (inb, ino, int) = (
            b.remove.contains(&k),
            o.remove.contains(&k),
            t.remove.contains(&k),
        );
        // Kept by both, or put in by one: what either took out stays out.
        if (ino || int) && (!inb || (ino && int)) {
            remove.push(k);
        }
    }
    out.remove = remove;
    out
}

/// An override's `set` patches merged by component key, and a patch every side has field by
/// field (a built-in's fields, a custom component's fields by name and its `value`).
fn sets(
    p: &mut Picker,
    b: &[ComponentPatch],
    o: &[ComponentPatch],
    t: &[ComponentPatch],
    at: &dyn Fn() -> (Place, String),
) -> Vec<ComponentPatch> {
    if same(Some(&o), Some(&t)) {
        return o.to_vec();
    }
    let keys = |l: &[ComponentPatch]| l.iter().map(|c| c.component.key()).collect::<Vec<_>>();
    let find = |l: &[ComponentPatch], k: &str| l.iter().find(|x| x.component.has_key(k)).cloned();
    let mut out = Vec::new();
    for k in merged_order(&keys(o), &keys(t), String::clone) {
        let (pb, po, pt) = (find(b, &k), find(o, &k), find(t, &k));
        let merged = match (&pb, &po, &pt) {
            (Some(pb), Some(po), Some(pt)) => patch(p, pb, po, pt, at),
            _ => p.pick(pb.as_ref(), po.as_ref(), pt.as_ref(), at),
        };
        out.extend(merged);
    }
    out
}

/// One `set` patch every side has: each field it sets three-way (set or not, and to what).
fn patch(
    p: &mut Picker,
    b: &ComponentPatch,
    o: &ComponentPatch,
    t: &ComponentPatch,
    at: &dyn Fn() -> (Place, String),
) -> Option<ComponentPatch> {
    if same(Some(o), Some(t)) || same(Some(t), Some(b)) {
        return Some(o.clone());
    }
    if same(Some(o), Some(b)) {
        return Some(t.clone());
    }
    match (&b.component, &o.component, &t.component) {
        (ComponentData::Custom(cb), ComponentData::Custom(co), ComponentData::Custom(ct)) => {
            let expr = |c: &CustomComponent, name: &EcoString| {
                c.fields
                    .iter()
                    .find(|f| f.name == *name)
                    .map(|f| f.expr.clone())
            };
            let names =
                |c: &CustomComponent| c.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
            let mut out = co.clone();
            out.fields = merged_order(&names(co), &names(ct), EcoString::clone)
                .into_iter()
                .filter_map(|name| {
                    let e = p.pick(
                        expr(cb, &name).as_ref(),
                        expr(co, &name).as_ref(),
                        expr(ct, &name).as_ref(),
                        at,
                    )?;
                    Some(CustomField { name, expr: e })
                })
                .collect();
            out.value = p.pick(cb.value.as_ref(), co.value.as_ref(), ct.value.as_ref(), at);
            Some(ComponentPatch {
                component: ComponentData::Custom(out),
                fields: Vec::new(),
            })
        }
        (_, oc, tc) => match oc.builtin() {
            Some(tag) if matches!(tag.payload, Payload::Fields(_)) && oc.same_key(tc) => {
                let mut component = oc.clone();
                let mut fields = Vec::new();
                for (i, f) in tag.fields().iter().enumerate() {
                    let value = |x: &ComponentPatch| {
                        x.sets(f.path)
                            .then(|| (tag.get)(&x.component, i))
                            .flatten()
                            .map(|v| format!("{v:?}"))
                    };
                    let (vb, vo, vt) = (value(b), value(o), value(t));
                    let from_theirs =
                        match super::pick::choose(vb.as_ref(), vo.as_ref(), vt.as_ref()) {
                            Choice::Ours => false,
                            Choice::Theirs => true,
                            Choice::Clash => {
                                let (place, what) = at();
                                p.clash(place, what);
                                p.side == super::Side::Theirs
                            }
                        };
                    let from = if from_theirs { t } else { o };
                    if from.sets(f.path) {
                        if let Some(v) = (tag.get)(&from.component, i) {
                            (tag.set)(&mut component, i, v.to_value());
                        }
                        fields.push(EcoString::from(f.path));
                    }
                }
                Some(ComponentPatch { component, fields })
            }
            _ => p.pick(Some(b), Some(o), Some(t), at),
        },
    }
}

/// A keyed list merged entry by entry (each entry whole), in merged order.
fn by_key<T: Clone + PartialEq + Debug>(
    p: &mut Picker,
    b: &[T],
    o: &[T],
    t: &[T],
    key: impl Fn(&T) -> String,
    at: impl Fn() -> (Place, String),
) -> Vec<T> {
    if same(Some(&o), Some(&t)) {
        return o.to_vec();
    }
    let keys = |l: &[T]| l.iter().map(&key).collect::<Vec<_>>();
    let find = |l: &[T], k: &str| l.iter().find(|x| key(x) == k).cloned();
    let mut out = Vec::new();
    for k in merged_order(&keys(o), &keys(t), String::clone) {
        let picked = p.pick(
            find(b, &k).as_ref(),
            find(o, &k).as_ref(),
            find(t, &k).as_ref(),
            &at,
        );
        out.extend(picked);
    }
    out
}
