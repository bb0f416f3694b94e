//! A review as Markdown, ready for a pull request comment: a verdict in words ("3 entities
//! changed: 2 moved, 1 edited; nothing added or removed"), the composite, a table with one
//! numbered row per change (the numbers of the pictures' labels), then the full frames and the
//! difference image. Images are linked by relative path: GitHub shows no `data:` images in
//! comments, so a CI job uploads the files.

use crate::headless::path_text;
use crate::job::ChangeKind;
use crate::review::{Review, ReviewEntry, Seen};

/// How many entities changed, by kind: what a verdict says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Entities added (one with entities below it counts once).
    pub added: usize,
    /// Entities removed (one with entities below it counts once).
    pub removed: usize,
    /// Entities whose transform or parent changed.
    pub moved: usize,
    /// Entities whose name or components changed, not their place.
    pub edited: usize,
    /// Of those, how many show nothing in the pictures ([`Seen::NotVisible`]).
    pub not_visible: usize,
    /// Whether the scene's own fields (its name) changed.
    pub scene: bool,
}

impl Counts {
    /// The counts of a review's entries.
    pub fn of(entries: &[ReviewEntry]) -> Counts {
        let mut c = Counts::default();
        for e in entries {
            if e.change.path.is_empty() {
                c.scene = true;
                continue;
            }
            *match e.change.kind {
                ChangeKind::Added => &mut c.added,
                ChangeKind::Removed => &mut c.removed,
                ChangeKind::Moved => &mut c.moved,
                ChangeKind::Edited => &mut c.edited,
            } += 1;
            if e.seen == Seen::NotVisible {
                c.not_visible += 1;
            }
        }
        c
    }

    /// Entities changed, of every kind.
    pub fn entities(&self) -> usize {
        self.added + self.removed + self.moved + self.edited
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The verdict of `counts` in words, without a full stop: `3 entities changed: 2 moved, 1
/// edited; nothing added or removed`, then `; 1 not visible` when some show nothing and `; the
/// scene's name changed` when it did. `No entity changed` when none did.
pub fn verdict(counts: &Counts) -> String {
    let n = counts.entities();
    let mut text = match n {
        0 => "No entity changed".to_owned(),
        1 => "1 entity changed".to_owned(),
        n => format!("{n} entities changed"),
    };
    if n > 0 {
        let kinds = [
            (counts.moved, "moved"),
            (counts.edited, "edited"),
            (counts.added, "added"),
            (counts.removed, "removed"),
        ];
        let some: Vec<String> = kinds
            .iter()
            .filter(|(k, _)| *k > 0)
            .map(|(k, word)| format!("{k} {word}"))
            .collect();
        let none: Vec<&str> = kinds
            .iter()
            .filter(|(k, _)| *k == 0)
            .map(|(_, word)| *word)
            .collect();
        text.push_str(&format!(": {}", some.join(", ")));
        if !none.is_empty() {
            text.push_str(&format!("; nothing {}", either(&none)));
        }
        if counts.not_visible > 0 {
            text.push_str(&format!("; {} not visible", counts.not_visible));
        }
    }
    if counts.scene {
        text.push_str("; the scene's own fields changed");
    }
    text
}

/// `text` safe in a Markdown table cell: pipes escaped, line breaks as spaces.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// A change's lines with arrows: `translation (4, 0, 0) → (6, 0, 0)`, one per line of the cell.
fn lines(entry: &ReviewEntry) -> String {
    let lines: Vec<String> = entry
        .change
        .lines
        .iter()
        .map(|l| cell(&l.replace(" -> ", " → ")))
        .collect();
    lines.join("<br>")
}

impl Review {
    /// The verdict in words ([`verdict`] of [`Counts::of`] the entries).
    pub fn verdict(&self) -> String {
        verdict(&Counts::of(&self.entries))
    }

    /// The review as Markdown: a heading naming `title`, the verdict, the composite, the table
    /// of changes, then the full frames and the difference image (images linked as
    /// `{images}/composite.png` ..., relative to the report), and the adapter that drew them.
    pub fn markdown(&self, title: &str, images: &str, adapter: &str) -> String {
        let mut md = format!("## `{title}`\n\n**{}.**\n\n", self.verdict());
        md.push_str(&format!(
            "![Before and after, cropped to the changes; each numbered as in the table]({images}/composite.png)\n\n"
        ));
        if !self.entries.is_empty() {
            md.push_str("| # | id path | name | change | before → after |\n");
            md.push_str("|---:|---|---|---|---|\n");
        }
        for e in &self.entries {
            let path = if e.change.path.is_empty() {
                "the scene".to_owned()
            } else {
                format!("`{}`", path_text(&e.change.path))
            };
            let seen = match e.seen {
                _ if e.change.path.is_empty() => "",
                Seen::Outlined => "",
                Seen::Everywhere => ", everywhere (see the full frames)",
                Seen::NotVisible => ", not visible",
            };
            md.push_str(&format!(
                "| {} | {path} | {} | {}{seen} | {} |\n",
                e.number,
                cell(&e.change.name),
                e.change.kind.word(),
                lines(e)
            ));
        }
        if self.differing_outside > 0 {
            md.push_str(&format!(
                "\n{} differing pixels are outside every outline (light and shadow falling elsewhere).\n",
                self.differing_outside
            ));
        }
        let c = &self.comparison;
        md.push_str(&format!(
            "\nThe full frames and the difference ({:.2}% of pixels differ; magenta), rendered on {adapter}:\n\n",
            c.share() * 100.0
        ));
        md.push_str("| before | after | difference |\n|---|---|---|\n");
        md.push_str(&format!(
            "| ![before]({images}/before.png) | ![after]({images}/after.png) | ![difference]({images}/difference.png) |\n"
        ));
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(added: usize, removed: usize, moved: usize, edited: usize) -> Counts {
        Counts {
            added,
            removed,
            moved,
            edited,
            ..Counts::default()
        }
    }

    #[test]
    fn a_verdict_says_what_changed_and_what_did_not() {
        assert_eq!(
            verdict(&counts(0, 0, 2, 1)),
            "3 entities changed: 2 moved, 1 edited; nothing added or removed"
        );
        assert_eq!(
            verdict(&counts(0, 0, 1, 0)),
            "1 entity changed: 1 moved; nothing edited, added or removed"
        );
        assert_eq!(
            verdict(&counts(1, 1, 1, 1)),
            "4 entities changed: 1 moved, 1 edited, 1 added, 1 removed"
        );
        let hidden = Counts {
            not_visible: 1,
            ..counts(0, 3, 0, 1)
        };
        assert_eq!(
            verdict(&hidden),
            "4 entities changed: 1 edited, 3 removed; nothing moved or added; 1 not visible"
        );
        assert_eq!(verdict(&Counts::default()), "No entity changed");
        let renamed = Counts {
            scene: true,
            ..Counts::default()
        };
        assert_eq!(
            verdict(&renamed),
            "No entity changed; the scene's own fields changed"
        );
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
