//! A rules document expanded: its blocks and inline content turned into the
//! reference's, icons and links checked, placeholders handed to their expansion.

use crown_engine::diag::did_you_mean;

use super::model::{cost, plain, Block, Rich, Row, Span, Table};
use super::text::slug;
use super::{link_name, Expander};
use crate::rules_md::{self, Inline};

impl Expander<'_> {
    pub(super) fn blocks(&mut self, md: &[rules_md::Block]) -> Vec<Block> {
        let mut out = Vec::new();
        for b in md {
            match b {
                rules_md::Block::Heading { level, inline, .. } => {
                    self.level = *level;
                    let text = self.inline(inline);
                    let anchor = self.anchor_for(&slug(&plain(&text)));
                    out.push(Block::Heading { level: *level, text, anchor, color: None });
                }
                rules_md::Block::Para { inline, .. } => {
                    let r = self.inline(inline);
                    out.push(Block::Para(r));
                }
                rules_md::Block::List { ordered, items } => {
                    let items = items.iter().map(|i| self.blocks(i)).collect();
                    out.push(Block::List { ordered: *ordered, items });
                }
                rules_md::Block::Note(inner) => {
                    let inner = self.blocks(inner);
                    out.push(Block::Note(inner));
                }
                rules_md::Block::Table { header, rows, .. } => {
                    let header = header.iter().map(|c| self.inline(c)).collect();
                    let rows = rows
                        .iter()
                        .map(|r| Row { anchors: Vec::new(), cells: r.iter().map(|c| self.inline(c)).collect() })
                        .collect();
                    out.push(Block::Table(Table { header, rows }));
                }
                rules_md::Block::Alone(p) => match self.spec(p) {
                    Some(_) if self.over => {}
                    Some(spec) if spec.block => {
                        let made = self.block_placeholder(p, spec);
                        if self.made(made.iter().map(cost).sum(), &p.span) {
                            out.extend(made);
                        }
                    }
                    Some(_) => {
                        let r = self.inline(&[Inline::Placeholder(p.clone())]);
                        out.push(Block::Para(r));
                    }
                    None => {}
                },
            }
        }
        out
    }

    fn inline(&mut self, inline: &[Inline]) -> Rich {
        let mut out = Vec::new();
        for i in inline {
            match i {
                Inline::Text(t) => out.push(Span::Text(t.clone())),
                Inline::Bold(v) => {
                    let inner = self.inline(v);
                    out.push(Span::Bold(inner));
                }
                Inline::Italic(v) => {
                    let inner = self.inline(v);
                    out.push(Span::Italic(inner));
                }
                Inline::Icon { name, span } => {
                    if !self.icons.has(name) {
                        let hint = did_you_mean(name, self.icons.names()).map(|n| format!("did you mean `:{n}:`?"));
                        self.error(
                            "unknown-icon",
                            span,
                            format!("the icon `:{name}:` is not defined"),
                            hint.or_else(|| {
                                Some("add it to the pack's `[icons]` table, or write `\\:` for a plain colon".into())
                            }),
                        );
                    }
                    out.push(Span::Icon(name.clone()));
                }
                Inline::Link { target, text, span, target_span } => {
                    let known = match target.strip_prefix("scenario:") {
                        Some(s) => {
                            let ok = self.pack.scenario(s).is_some();
                            if !ok {
                                let hint = did_you_mean(s, self.pack.scenarios.iter().map(|e| e.scenario.id.as_str()))
                                    .map(|n| format!("did you mean `scenario:{n}`?"));
                                self.error("unknown-id", target_span, format!("no scenario `{s}` in this pack"), hint);
                            }
                            ok
                        }
                        None => {
                            let ok = self.pack.get(target).is_some();
                            if !ok {
                                let hint = did_you_mean(target, self.pack.defs.iter().map(|d| d.def.id.as_str()))
                                    .map(|n| format!("did you mean `{n}`?"))
                                    .or_else(|| Some("link a card, plaque, noble or leader by its id, or a scenario as `scenario:ID`".into()));
                                self.error(
                                    "unknown-id",
                                    target_span,
                                    format!("no card, plaque, noble or leader `{target}` in this pack"),
                                    hint,
                                );
                            }
                            ok
                        }
                    };
                    let name = text.clone().unwrap_or_else(|| link_name(self.pack, target));
                    if known {
                        if let Some(f) = &self.file {
                            self.links.push((target.clone(), f.clone(), span.clone()));
                        }
                    }
                    out.push(Span::Link { text: name, anchor: None, target: target.clone() });
                }
                Inline::Placeholder(p) => match self.spec(p) {
                    Some(spec) if spec.block => {
                        self.error(
                            "misplaced-placeholder",
                            &p.span,
                            format!(
                                "`{{{{ {} }}}}` makes a list or a table: it must stand alone in its paragraph",
                                p.name
                            ),
                            Some("put it on a line of its own, with blank lines around it".into()),
                        );
                    }
                    Some(_) if self.over => {}
                    Some(spec) => {
                        if let Some(text) = self.inline_placeholder(p, spec) {
                            if self.made(text.len(), &p.span) {
                                out.push(Span::Text(text));
                            }
                        }
                    }
                    None => {}
                },
            }
        }
        out
    }
}
