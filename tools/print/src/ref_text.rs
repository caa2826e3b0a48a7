//! The rules reference written as HTML or Markdown: the body of the page, which the
//! `reference.html` and `reference.md` templates place under their header.
//!
//! Every piece of text is escaped here (HTML entities, or Markdown punctuation behind a
//! backslash); definition text goes through [`rich`], which escapes it and turns `:icon:`
//! and `**bold**` markup into images and bold.

use super::icons::IconSet;
use super::ref_doc::{Block, Doc, Entry, Rich, Span, Table};
use super::templates::{escape_markdown, rich};
use crate::html_escape;

/// HTML or Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Html,
    Markdown,
}

/// The body of the reference (everything under the header and the contents).
pub fn body(doc: &Doc, icons: &IconSet, flavor: Flavor) -> String {
    let mut out = String::new();
    let w = Writer { icons, flavor, level: std::cell::Cell::new(0) };
    for b in &doc.blocks {
        w.block(b, &mut out);
    }
    if flavor == Flavor::Markdown {
        while out.contains("\n\n\n") {
            out = out.replace("\n\n\n", "\n\n");
        }
    }
    out
}

/// The table of contents: chapters and top-level sections, linked.
pub fn contents(doc: &Doc, icons: &IconSet, flavor: Flavor) -> String {
    let items = doc.contents();
    if items.is_empty() {
        return String::new();
    }
    let w = Writer { icons, flavor, level: std::cell::Cell::new(0) };
    let mut out = String::new();
    match flavor {
        Flavor::Html => {
            out.push_str("<ol>");
            for (level, text, anchor) in &items {
                out.push_str(&format!(
                    "<li class=\"toc-{level}\"><a href=\"#{}\">{}</a></li>",
                    html_escape(anchor),
                    html_escape(text)
                ));
            }
            out.push_str("</ol>");
        }
        Flavor::Markdown => {
            for (level, text, anchor) in &items {
                let indent = if *level == 0 {
                    ""
                } else if items.iter().any(|i| i.0 == 0) {
                    "  "
                } else {
                    ""
                };
                out.push_str(&format!("{indent}- [{}](#{anchor})\n", w.esc(text)));
            }
        }
    }
    out
}

struct Writer<'a> {
    icons: &'a IconSet,
    flavor: Flavor,
    /// The level of the last heading written: entries' titles go one level below.
    level: std::cell::Cell<u8>,
}

impl Writer<'_> {
    fn md(&self) -> bool {
        self.flavor == Flavor::Markdown
    }

    fn esc(&self, s: &str) -> String {
        if self.md() {
            escape_markdown(s)
        } else {
            html_escape(s)
        }
    }

    fn rich(&self, r: &Rich) -> String {
        let mut out = String::new();
        for s in r {
            match s {
                Span::Text(t) => out.push_str(&self.esc(t)),
                Span::Markup(m) => {
                    // Keep the spaces `rich` trims at the ends: they separate it from
                    // what is around it.
                    if m.starts_with(' ') {
                        out.push(' ');
                    }
                    out.push_str(&rich(m, self.icons, self.md()));
                    if m.ends_with(' ') && m.trim() != "" {
                        out.push(' ');
                    }
                }
                Span::Bold(v) => {
                    let inner = self.rich(v);
                    if self.md() {
                        out.push_str(&format!("**{}**", inner.trim()));
                        if inner.ends_with(' ') {
                            out.push(' ');
                        }
                    } else {
                        out.push_str(&format!("<strong>{inner}</strong>"));
                    }
                }
                Span::Italic(v) => {
                    let inner = self.rich(v);
                    if self.md() {
                        out.push_str(&format!("*{}*", inner.trim()));
                        if inner.ends_with(' ') {
                            out.push(' ');
                        }
                    } else {
                        out.push_str(&format!("<em>{inner}</em>"));
                    }
                }
                Span::Icon(n) => out.push_str(&rich(&format!(":{n}:"), self.icons, self.md())),
                Span::Link { text, anchor, .. } => match (anchor, self.md()) {
                    (Some(a), false) => out.push_str(&format!(
                        "<a class=\"ref\" href=\"#{}\">{}</a>",
                        html_escape(a),
                        html_escape(text)
                    )),
                    (Some(a), true) => out.push_str(&format!("[{}](#{a})", escape_markdown(text))),
                    (None, _) => out.push_str(&self.esc(text)),
                },
            }
        }
        out
    }

    /// Anchors as empty elements (for the ids an element cannot carry itself).
    fn anchors(&self, anchors: &[String]) -> String {
        anchors.iter().map(|a| format!("<a id=\"{}\"></a>", html_escape(a))).collect()
    }

    fn block(&self, b: &Block, out: &mut String) {
        match b {
            Block::Heading { level, text, anchor, color } => {
                self.level.set(*level);
                let t = self.rich(text);
                if self.md() {
                    let hashes = "#".repeat(usize::from(*level) + 1);
                    out.push_str(&format!("\n<a id=\"{anchor}\"></a>\n\n{hashes} {t}\n\n"));
                } else {
                    let tag = format!("h{}", level + 1);
                    let class = if *level == 0 { " class=\"part\"" } else { "" };
                    let style =
                        color.as_ref().map(|c| format!(" style=\"--band: {}\"", html_escape(c))).unwrap_or_default();
                    out.push_str(&format!("<{tag} id=\"{}\"{class}{style}>{t}</{tag}>\n", html_escape(anchor)));
                }
            }
            Block::Para(r) => {
                if self.md() {
                    out.push_str(&format!("{}\n\n", self.rich(r).trim()));
                } else {
                    out.push_str(&format!("<p>{}</p>\n", self.rich(r)));
                }
            }
            Block::List { ordered, items } => {
                if self.md() {
                    for (n, item) in items.iter().enumerate() {
                        let marker = if *ordered { format!("{}. ", n + 1) } else { "- ".into() };
                        let mut inner = String::new();
                        for b in item {
                            self.block(b, &mut inner);
                        }
                        let pad = " ".repeat(marker.len());
                        let text = inner.trim().lines().collect::<Vec<_>>();
                        for (i, l) in text.iter().enumerate() {
                            if i == 0 {
                                out.push_str(&format!("{marker}{l}\n"));
                            } else if l.is_empty() {
                                out.push('\n');
                            } else {
                                out.push_str(&format!("{pad}{l}\n"));
                            }
                        }
                    }
                    out.push('\n');
                } else {
                    let tag = if *ordered { "ol" } else { "ul" };
                    out.push_str(&format!("<{tag}>\n"));
                    for item in items {
                        out.push_str("<li>");
                        match item.as_slice() {
                            [Block::Para(r)] => out.push_str(&self.rich(r)),
                            [Block::Para(r), rest @ ..] => {
                                out.push_str(&self.rich(r));
                                for b in rest {
                                    self.block(b, out);
                                }
                            }
                            blocks => {
                                for b in blocks {
                                    self.block(b, out);
                                }
                            }
                        }
                        out.push_str("</li>\n");
                    }
                    out.push_str(&format!("</{tag}>\n"));
                }
            }
            Block::Note(inner) => {
                let mut s = String::new();
                for b in inner {
                    self.block(b, &mut s);
                }
                if self.md() {
                    for l in s.trim().lines() {
                        out.push_str(if l.is_empty() { ">\n" } else { "> " });
                        if !l.is_empty() {
                            out.push_str(l);
                            out.push('\n');
                        }
                    }
                    out.push('\n');
                } else {
                    out.push_str(&format!("<aside class=\"note\">{s}</aside>\n"));
                }
            }
            Block::Table(t) => self.table(t, out),
            Block::Entries(es) => {
                if self.md() {
                    for e in es {
                        self.entry_md(e, out);
                    }
                } else {
                    out.push_str("<div class=\"entries\">\n");
                    for e in es {
                        self.entry_html(e, out);
                    }
                    out.push_str("</div>\n");
                }
            }
            Block::Grid { rows, legend } => {
                let w = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
                let intro = format!("Grid of {w} × {} tiles: ", rows.len());
                if self.md() {
                    let legend: Vec<String> =
                        legend.iter().map(|(k, v)| format!("`{k}` {}", escape_markdown(v))).collect();
                    out.push_str(&format!("{intro}{}.\n\n```\n", legend.join(", ")));
                    for r in rows {
                        out.push_str(r);
                        out.push('\n');
                    }
                    out.push_str("```\n\n");
                } else {
                    let legend: Vec<String> = legend
                        .iter()
                        .map(|(k, v)| format!("<code>{}</code> {}", html_escape(k), html_escape(v)))
                        .collect();
                    out.push_str(&format!("<p>{intro}{}.</p>\n<pre class=\"grid\">", legend.join(", ")));
                    for r in rows {
                        out.push_str(&html_escape(r));
                        out.push('\n');
                    }
                    out.push_str("</pre>\n");
                }
            }
        }
    }

    fn table(&self, t: &Table, out: &mut String) {
        if self.md() {
            let cell = |r: &Rich| {
                let s = self.rich(r);
                let s = s.trim().replace("  \n", "<br>").replace("\n\n", "<br><br>").replace('\n', " ");
                if s.is_empty() {
                    " ".to_string()
                } else {
                    s
                }
            };
            out.push('|');
            for h in &t.header {
                out.push_str(&format!(" {} |", cell(h)));
            }
            out.push_str("\n|");
            for _ in &t.header {
                out.push_str(" --- |");
            }
            out.push('\n');
            for row in &t.rows {
                out.push('|');
                for (i, c) in row.cells.iter().enumerate() {
                    let a = if i == 0 { self.anchors(&row.anchors) } else { String::new() };
                    out.push_str(&format!(" {a}{} |", cell(c)));
                }
                out.push('\n');
            }
            out.push('\n');
        } else {
            out.push_str("<table>\n<thead><tr>");
            for h in &t.header {
                out.push_str(&format!("<th>{}</th>", self.rich(h)));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            for row in &t.rows {
                match row.anchors.first() {
                    Some(a) => out.push_str(&format!("<tr id=\"{}\">", html_escape(a))),
                    None => out.push_str("<tr>"),
                }
                for (i, c) in row.cells.iter().enumerate() {
                    let a =
                        if i == 0 && row.anchors.len() > 1 { self.anchors(&row.anchors[1..]) } else { String::new() };
                    out.push_str(&format!("<td>{a}{}</td>", self.rich(c)));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table>\n");
        }
    }

    fn entry_html(&self, e: &Entry, out: &mut String) {
        let id = e.anchors.first().map(|a| format!(" id=\"{}\"", html_escape(a))).unwrap_or_default();
        let style =
            if e.color.is_empty() { String::new() } else { format!(" style=\"--band: {}\"", html_escape(&e.color)) };
        out.push_str(&format!("<article class=\"entry\"{id}{style}>"));
        if e.anchors.len() > 1 {
            out.push_str(&self.anchors(&e.anchors[1..]));
        }
        let h = (self.level.get() + 2).min(6);
        out.push_str(&format!(
            "\n  <h{h}><span>{}</span><span class=\"count\">{}</span></h{h}>\n",
            html_escape(&e.title),
            html_escape(&e.badge)
        ));
        if !e.meta.is_empty() {
            out.push_str(&format!("  <div class=\"meta\">{}</div>\n", html_escape(&e.meta)));
        }
        for p in &e.paras {
            let class = if p.side { "side" } else { "text" };
            out.push_str(&format!("  <p class=\"{class}\">{}</p>\n", self.rich(&p.rich)));
        }
        if !e.flavor.is_empty() {
            out.push_str(&format!("  <p class=\"flavor\">{}</p>\n", html_escape(&e.flavor)));
        }
        out.push_str("</article>\n");
    }

    fn entry_md(&self, e: &Entry, out: &mut String) {
        out.push('\n');
        for a in &e.anchors {
            out.push_str(&format!("<a id=\"{a}\"></a>"));
        }
        if !e.anchors.is_empty() {
            out.push('\n');
        }
        let hashes = "#".repeat(usize::from(self.level.get() + 2).min(6));
        out.push_str(&format!("{hashes} {}\n\n", escape_markdown(&e.title)));
        let meta = if e.meta.is_empty() { e.badge.clone() } else { format!("{} · {}", e.badge, e.meta) };
        out.push_str(&format!("*{}*\n\n", escape_markdown(&meta)));
        for p in &e.paras {
            let text = self.rich(&p.rich);
            if p.side {
                out.push_str(&format!("- {}\n", text.trim().replace("  \n", " ").replace("\n\n", " ")));
            } else {
                out.push_str(&format!("{}\n\n", text.trim()));
            }
        }
        if e.paras.last().is_some_and(|p| p.side) {
            out.push('\n');
        }
        if !e.flavor.is_empty() {
            out.push_str(&format!("*{}*\n\n", escape_markdown(&e.flavor)));
        }
    }
}
