//! Inline content of the document as layout markup (`**bold**`, `:icon:`), with
//! cross-references printed as `Name (p. N)`, and a note's blocks flattened into lines.

use super::Places;
use crate::ref_doc::{Block, Span};

/// The text of inline content in layout markup, with cross-references as `Name (p. N)`;
/// the links it holds are added to `links`.
pub(super) fn markup(r: &[Span], known: &Places, links: &mut Vec<(String, String)>) -> String {
    let mut s = String::new();
    for p in r {
        match p {
            Span::Text(t) => s.push_str(t),
            Span::Markup(m) => s.push_str(m),
            Span::Bold(v) => {
                let inner = markup(v, known, links);
                let trimmed = inner.trim_end();
                s.push_str(&format!("**{trimmed}**"));
                s.push_str(&inner[trimmed.len()..]);
            }
            Span::Italic(v) => s.push_str(&markup(v, known, links)),
            Span::Icon(n) => s.push_str(&format!(":{n}:")),
            Span::Link { text, anchor, .. } => match anchor {
                Some(a) => {
                    let page = known.get(a).map_or_else(|| "?".to_string(), |(p, _)| (p + 1).to_string());
                    let label = format!("{text} (p. {page})");
                    s.push_str(&label);
                    links.push((label, a.clone()));
                }
                None => s.push_str(text),
            },
        }
    }
    s
}

/// The paragraphs of a note, lists flattened into bulleted lines.
pub(super) fn collect_note(
    blocks: &[Block],
    known: &Places,
    out: &mut Vec<(String, Vec<(String, String)>)>,
    prefix: &str,
) {
    for b in blocks {
        match b {
            Block::Para(r) | Block::Heading { text: r, .. } => {
                let mut links = Vec::new();
                let m = markup(r, known, &mut links);
                out.push((format!("{prefix}{m}"), links));
            }
            Block::List { ordered, items } => {
                for (n, item) in items.iter().enumerate() {
                    let marker = if *ordered { format!("{}. ", n + 1) } else { "• ".to_string() };
                    collect_note(item, known, out, &marker);
                }
            }
            other => {
                let mut links = Vec::new();
                if let Block::Table(t) = other {
                    for r in &t.rows {
                        let cells: Vec<String> = r.cells.iter().map(|c| markup(c, known, &mut links)).collect();
                        out.push((cells.join(" · "), std::mem::take(&mut links)));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_print_their_page() {
        let mut known = Places::new();
        known.insert("def-a".into(), (2, 30.0));
        let mut links = Vec::new();
        let r = vec![
            Span::Text("Play ".into()),
            Span::Link { text: "Alpha".into(), anchor: Some("def-a".into()), target: "a".into() },
            Span::Text(" or ".into()),
            Span::Link { text: "Beta".into(), anchor: None, target: "b".into() },
            Span::Bold(vec![Span::Text("now ".into())]),
        ];
        assert_eq!(markup(&r, &known, &mut links), "Play Alpha (p. 3) or Beta**now** ");
        assert_eq!(links, vec![("Alpha (p. 3)".to_string(), "def-a".to_string())]);
    }
}
