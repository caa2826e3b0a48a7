//! Rules-text layout: markup (`:icon:`, `**bold**`, line breaks; see `markup.rs`) broken into lines that
//! fit a box, measured with the bundled fonts, shrinking the type down to a minimum size
//! before giving up and reporting an overflow.
//!
//! Templates call this through the tera function `layout(...)` (see `templates.rs`);
//! what it finds wrong (an unknown icon, a glyph the font lacks, text that does not fit) is
//! collected per thread and turned into diagnostics naming the card by the caller.

use std::cell::RefCell;

use serde::Serialize;

use super::fonts::{self, FontId};
use super::icons::IconSet;
use super::markup::{self, Mark};

/// Horizontal advance of an inline icon, in em.
const ICON_ADVANCE: f32 = 1.22;
/// Drawn size of an inline icon, in em.
const ICON_SIZE: f32 = 1.12;
/// Extra space after a paragraph (blank line), in lines.
const PARAGRAPH_GAP: f32 = 0.45;

/// Something wrong found while laying out text.
#[derive(Debug, Clone, PartialEq)]
pub enum Issue {
    UnknownIcon(String),
    MissingGlyphs(Vec<char>),
    Overflow { excerpt: String, size: f32, needed: f32, box_height: f32, too_wide: Option<String> },
}

thread_local! {
    static ISSUES: RefCell<Vec<Issue>> = const { RefCell::new(Vec::new()) };
}

/// Record an issue for the card being rendered on this thread.
pub fn report(issue: Issue) {
    ISSUES.with(|i| {
        let mut v = i.borrow_mut();
        if !v.contains(&issue) {
            v.push(issue);
        }
    });
}

/// Take the issues recorded on this thread since the last call.
pub fn take_issues() -> Vec<Issue> {
    ISSUES.with(|i| std::mem::take(&mut *i.borrow_mut()))
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String, FontId),
    Icon(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(Vec<Piece>),
    /// A single line break.
    Break,
    /// A blank line.
    Paragraph,
}

/// Split marked-up text (read by [`markup::read`]) into words, breaks and paragraphs.
fn tokenize(text: &str, base: FontId) -> Vec<Token> {
    let text = text.replace("\r\n", "\n");
    let mut tokens = Vec::new();
    let mut bold = false;
    let mut word: Vec<Piece> = Vec::new();
    let mut buf = String::new();
    let font = |bold: bool| if bold { base.bolder() } else { base };
    let mut newlines = 0;
    let flush_buf = |buf: &mut String, word: &mut Vec<Piece>, bold: bool| {
        if !buf.is_empty() {
            word.push(Piece::Text(std::mem::take(buf), font(bold)));
        }
    };
    for mark in markup::read(text.trim()).marks {
        if let Mark::Char(c @ ('\n' | ' ' | '\t')) = mark {
            flush_buf(&mut buf, &mut word, bold);
            if !word.is_empty() {
                tokens.push(Token::Word(std::mem::take(&mut word)));
            }
            if c == '\n' {
                newlines += 1;
            }
            continue;
        }
        if newlines > 0 {
            if !tokens.is_empty() {
                tokens.push(if newlines > 1 { Token::Paragraph } else { Token::Break });
            }
            newlines = 0;
        }
        match mark {
            Mark::Bold => {
                flush_buf(&mut buf, &mut word, bold);
                bold = !bold;
            }
            Mark::Icon(name) => {
                flush_buf(&mut buf, &mut word, bold);
                word.push(Piece::Icon(name));
            }
            Mark::Char(c) => buf.push(c),
        }
    }
    flush_buf(&mut buf, &mut word, bold);
    if !word.is_empty() {
        tokens.push(Token::Word(word));
    }
    tokens
}

/// What a template asks for.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub text: &'a str,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub size: f32,
    pub min_size: f32,
    /// Line height as a multiple of the size.
    pub line_height: f32,
    pub align: Align,
    pub valign: VAlign,
    pub font: FontId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VAlign {
    Top,
    Middle,
    Bottom,
}

/// A laid-out run: text in one face, or an icon.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Run {
    Text { x: f64, text: String, family: &'static str, weight: &'static str, style: &'static str },
    Icon { x: f64, y: f64, size: f64, icon: String, name: String },
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Line {
    /// Baseline, in the template's units.
    pub y: f64,
    pub width: f64,
    pub runs: Vec<Run>,
}

/// The result handed back to the template.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Laid {
    pub lines: Vec<Line>,
    /// The type size finally used.
    pub size: f64,
    /// Height the text takes.
    pub height: f64,
    /// Whether it fits the box.
    pub fits: bool,
}

fn round(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

struct MeasuredWord {
    pieces: Vec<(Piece, f32)>,
    width: f32,
}

enum Item {
    Word(MeasuredWord),
    Break,
    Paragraph,
}

/// Lines of words (indices into items), with the paragraph gaps before each line.
struct Broken {
    lines: Vec<(Vec<usize>, f32, bool)>, // (word indices, width in em, paragraph gap before)
    too_wide: Option<usize>,
}

fn break_lines(items: &[Item], limit_em: f32, space_em: f32) -> Broken {
    let mut lines: Vec<(Vec<usize>, f32, bool)> = vec![(Vec::new(), 0.0, false)];
    let mut too_wide = None;
    for (i, it) in items.iter().enumerate() {
        match it {
            Item::Break | Item::Paragraph => {
                let para = matches!(it, Item::Paragraph);
                lines.push((Vec::new(), 0.0, para));
            }
            Item::Word(w) => {
                let last = lines.last_mut().expect("one line at least");
                if last.0.is_empty() {
                    last.0.push(i);
                    last.1 = w.width;
                } else if last.1 + space_em + w.width <= limit_em + 1e-4 {
                    last.0.push(i);
                    last.1 += space_em + w.width;
                } else {
                    lines.push((vec![i], w.width, false));
                }
                if w.width > limit_em + 1e-4 && too_wide.is_none() {
                    too_wide = Some(i);
                }
            }
        }
    }
    Broken { lines, too_wide }
}

fn height_em(b: &Broken, lh: f32) -> f32 {
    let gaps = b.lines.iter().filter(|l| l.2).count() as f32;
    b.lines.len() as f32 * lh + gaps * PARAGRAPH_GAP * lh
}

/// Lay out `req.text`, reporting unknown icons, missing glyphs and overflow.
pub fn layout(req: &Request<'_>, icons: &IconSet) -> Laid {
    let tokens = tokenize(req.text, req.font);
    let mut items = Vec::with_capacity(tokens.len());
    for t in tokens {
        items.push(match t {
            Token::Break => Item::Break,
            Token::Paragraph => Item::Paragraph,
            Token::Word(pieces) => {
                let mut width = 0.0;
                let mut measured = Vec::with_capacity(pieces.len());
                for p in pieces {
                    let w = match &p {
                        Piece::Text(s, f) => {
                            let missing = fonts::missing_chars(*f, s);
                            if !missing.is_empty() {
                                report(Issue::MissingGlyphs(missing));
                            }
                            fonts::width_em(*f, s)
                        }
                        Piece::Icon(name) => {
                            if !icons.has(name) {
                                report(Issue::UnknownIcon(name.clone()));
                            }
                            ICON_ADVANCE
                        }
                    };
                    width += w;
                    measured.push((p, w));
                }
                Item::Word(MeasuredWord { pieces: measured, width })
            }
        });
    }
    let space_em = fonts::width_em(req.font, " ");
    let lh = req.line_height.max(0.5);
    let min = req.min_size.min(req.size).max(0.1);
    // Try the full size, then shrink in steps of 4% down to the minimum.
    let mut size = req.size;
    let (broken, fits) = loop {
        let b = break_lines(&items, req.width / size, space_em);
        let fits = b.too_wide.is_none() && height_em(&b, lh) * size <= req.height + 1e-3;
        if fits || size <= min {
            break (b, fits);
        }
        size = (size * 0.96).max(min);
    };
    let used = height_em(&broken, lh) * size;
    if !fits {
        let too_wide = broken.too_wide.and_then(|i| match &items[i] {
            Item::Word(w) => Some(
                w.pieces
                    .iter()
                    .map(|(p, _)| match p {
                        Piece::Text(s, _) => s.clone(),
                        Piece::Icon(n) => format!(":{n}:"),
                    })
                    .collect::<String>(),
            ),
            _ => None,
        });
        report(Issue::Overflow { excerpt: excerpt(req.text), size, needed: used, box_height: req.height, too_wide });
    }
    let top = match req.valign {
        VAlign::Top => req.y,
        VAlign::Middle => req.y + ((req.height - used) / 2.0).max(0.0),
        VAlign::Bottom => req.y + (req.height - used).max(0.0),
    };
    let cap = fonts::cap_height_em();
    let mut lines = Vec::with_capacity(broken.lines.len());
    let mut cursor = 0.0f32; // in em, from the top
    for (words, width_em, para) in &broken.lines {
        if *para {
            cursor += PARAGRAPH_GAP * lh;
        }
        let baseline = top + (cursor + lh * 0.5 + 0.5 * cap) * size;
        cursor += lh;
        let width = width_em * size;
        let x0 = match req.align {
            Align::Left => req.x,
            Align::Center => req.x + (req.width - width) / 2.0,
            Align::Right => req.x + req.width - width,
        };
        let mut runs: Vec<Run> = Vec::new();
        let mut x = 0.0f32; // em from the line start
        let mut open: Option<(f32, String, FontId)> = None;
        let close = |open: &mut Option<(f32, String, FontId)>, runs: &mut Vec<Run>| {
            if let Some((rx, text, f)) = open.take() {
                let trimmed = text.trim_end().to_string();
                if !trimmed.is_empty() {
                    runs.push(Run::Text {
                        x: round(x0 + rx * size),
                        text: trimmed,
                        family: f.family(),
                        weight: f.weight(),
                        style: f.style(),
                    });
                }
            }
        };
        for (wi, &item) in words.iter().enumerate() {
            let Item::Word(w) = &items[item] else {
                continue;
            };
            if wi > 0 {
                // The space joins the open run; a run that ends up closed is trimmed.
                if let Some((_, text, _)) = &mut open {
                    text.push(' ');
                }
                x += space_em;
            }
            for (p, pw) in &w.pieces {
                match p {
                    Piece::Text(s, f) => match &mut open {
                        Some((_, text, of)) if of == f => text.push_str(s),
                        _ => {
                            close(&mut open, &mut runs);
                            open = Some((x, s.clone(), *f));
                        }
                    },
                    Piece::Icon(name) => {
                        close(&mut open, &mut runs);
                        if let Some(uri) = icons.href(name) {
                            let icon_x = x0 + (x + (ICON_ADVANCE - ICON_SIZE) / 2.0) * size;
                            let icon_y = baseline - (cap * 0.5 + ICON_SIZE * 0.5) * size;
                            runs.push(Run::Icon {
                                x: round(icon_x),
                                y: round(icon_y),
                                size: round(ICON_SIZE * size),
                                icon: uri.to_string(),
                                name: name.clone(),
                            });
                        }
                    }
                }
                x += pw;
            }
        }
        close(&mut open, &mut runs);
        lines.push(Line { y: round(baseline), width: round(width), runs });
    }
    Laid { lines, size: round(size), height: round(used), fits }
}

/// The width of one line of text at `size` in `font`, icons included.
pub fn measure(text: &str, font: FontId, icons: &IconSet) -> f32 {
    let space = fonts::width_em(font, " ");
    let mut total = 0.0;
    for (i, t) in tokenize(text, font).into_iter().enumerate() {
        if let Token::Word(pieces) = t {
            if i > 0 {
                total += space;
            }
            for p in pieces {
                total += match p {
                    Piece::Text(s, f) => fonts::width_em(f, &s),
                    Piece::Icon(n) => {
                        if !icons.has(&n) {
                            report(Issue::UnknownIcon(n));
                        }
                        ICON_ADVANCE
                    }
                };
            }
        }
    }
    total
}

/// The first words of a text, for messages.
pub fn excerpt(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 48 {
        let cut: String = flat.chars().take(45).collect();
        format!("{cut}...")
    } else {
        flat
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn req(text: &str, width: f32, height: f32) -> Request<'_> {
        Request {
            text,
            x: 5.0,
            y: 10.0,
            width,
            height,
            size: 3.0,
            min_size: 2.4,
            line_height: 1.2,
            align: Align::Left,
            valign: VAlign::Top,
            font: FontId::Sans,
        }
    }

    fn icons() -> IconSet {
        let (set, _) = IconSet::for_pack(&test_pack());
        set
    }

    pub fn test_pack() -> crown_engine::content::Pack {
        crown_engine::content::Pack {
            words: Default::default(),
            manifest: toml::from_str("id = \"t\"\nname = \"T\"\nversion = \"1\"\nplayers = { min = 1, max = 2 }\n")
                .unwrap(),
            project: std::path::PathBuf::from("/nonexistent"),
            chain: vec!["t".into()],
            defs: Vec::new(),
            index: Default::default(),
            scenarios: Vec::new(),
            board: None,
            scripts: Vec::new(),
            rules: None,
            rule_parts: Vec::new(),
            bots: None,
            prepared: Default::default(),
            sources: Default::default(),
            file_hashes: Default::default(),
            icon_packs: Default::default(),
        }
    }

    #[test]
    fn markup_is_tokenized() {
        let t = tokenize("Gain 2 :coin: and **draw** one.\n\nThen:stop", FontId::Sans);
        assert_eq!(t[2], Token::Word(vec![Piece::Icon("coin".into())]));
        assert_eq!(t[4], Token::Word(vec![Piece::Text("draw".into(), FontId::SansBold)]));
        assert!(t.contains(&Token::Paragraph));
        // `Then:stop` has no closing colon: plain text.
        assert_eq!(t.last(), Some(&Token::Word(vec![Piece::Text("Then:stop".into(), FontId::Sans)])));
        // A colon inside a word is not an icon.
        let t = tokenize("ratio 3:2:1 stays", FontId::Sans);
        assert!(t.iter().all(|t| !matches!(t, Token::Word(p) if p.iter().any(|p| matches!(p, Piece::Icon(_))))));
    }

    #[test]
    fn lines_fit_the_width() {
        let text =
            "Deal four damage to one line of an enemy kingdom, then draw a card and discard a card of your choice.";
        let laid = layout(&req(text, 40.0, 40.0), &icons());
        assert!(laid.fits);
        assert!(laid.lines.len() >= 3, "{laid:?}");
        for l in &laid.lines {
            assert!(l.width <= 40.001, "{l:?}");
        }
        // Baselines go down by the line height.
        let d = laid.lines[1].y - laid.lines[0].y;
        assert!((d - 3.6).abs() < 0.01, "{d}");
        let all: Vec<String> = laid
            .lines
            .iter()
            .flat_map(|l| l.runs.iter())
            .filter_map(|r| match r {
                Run::Text { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(all.join(" "), text);
        assert!(take_issues().is_empty());
    }

    #[test]
    fn text_shrinks_then_overflows() {
        let text = "word ".repeat(60);
        let laid = layout(&req(&text, 30.0, 12.0), &icons());
        assert!(!laid.fits);
        assert!((laid.size - 2.4).abs() < 1e-6);
        let issues = take_issues();
        assert!(matches!(issues.as_slice(), [Issue::Overflow { .. }]), "{issues:?}");
        let laid = layout(&req("word word word word word word word word", 30.0, 6.5), &icons());
        assert!(laid.fits && laid.size < 3.0, "{laid:?}");
        assert!(take_issues().is_empty());
    }

    #[test]
    fn icons_are_placed_and_unknown_ones_reported() {
        let laid = layout(&req("Gain :coin: now :nonesuch:", 50.0, 20.0), &icons());
        let icon = laid.lines[0].runs.iter().find(|r| matches!(r, Run::Icon { .. })).unwrap();
        let Run::Icon { x, name, .. } = icon else { unreachable!() };
        assert_eq!(name, "coin");
        assert!(*x > 5.0 + 3.0 * fonts::width_em(FontId::Sans, "Gain") as f64);
        assert_eq!(take_issues(), vec![Issue::UnknownIcon("nonesuch".into())]);
    }

    #[test]
    fn markup_characters_stay_text() {
        let laid = layout(&req("<script>alert(1)</script> {{ x }} & co", 60.0, 20.0), &icons());
        let text: String = laid
            .lines
            .iter()
            .flat_map(|l| l.runs.iter())
            .filter_map(|r| match r {
                Run::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(text, "<script>alert(1)</script> {{ x }} & co");
    }
}
