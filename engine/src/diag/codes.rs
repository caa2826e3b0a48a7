//! The catalogue of diagnostic codes: every code a diagnostic carries, with its severity,
//! whether it is about a command's own arguments (usage) or about the pack (content), a
//! one-line summary and a page that `crown check --explain CODE` prints. The pages are
//! `docs/diagnostics.md`, built into the binary, so the reference a designer reads and the
//! one `--explain` prints are the same text. In debug builds a diagnostic made with a code
//! the catalogue lacks panics, so every test that meets a new code names it.

use std::sync::OnceLock;

/// The pages, one `## `code`` section per code.
const PAGES: &str = include_str!("../../../docs/diagnostics.md");

/// What a code is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A problem in the pack's files, scripts or templates.
    Content,
    /// A problem in the command's own arguments or options (exit status 2).
    Usage,
}

/// One code of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub code: &'static str,
    /// `error`, `warning`, or `error or warning`.
    pub severity: &'static str,
    pub kind: Kind,
    /// One sentence.
    pub summary: &'static str,
    /// The whole section, heading included, as docs/diagnostics.md writes it.
    pub page: &'static str,
}

/// Every code, in the order of the pages (alphabetical).
pub fn catalogue() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| parse(PAGES).unwrap_or_else(|e| panic!("docs/diagnostics.md: {e}")))
}

/// The entry of `code`, if the catalogue has it.
pub fn find(code: &str) -> Option<&'static Entry> {
    catalogue().iter().find(|e| e.code == code)
}

/// Whether `code` reports a problem with a command's own arguments.
pub fn is_usage(code: &str) -> bool {
    find(code).is_some_and(|e| e.kind == Kind::Usage)
}

/// The catalogued code nearest to a misspelt one.
pub fn nearest(code: &str) -> Option<&'static str> {
    super::did_you_mean(code, catalogue().iter().map(|e| e.code))
}

/// Read the pages: each `## `code`` heading, then the line `**severity** · kind · summary`.
fn parse(text: &'static str) -> Result<Vec<Entry>, String> {
    let mut starts: Vec<usize> = text.match_indices("\n## ").map(|(i, _)| i + 1).collect();
    starts.push(text.len());
    let mut out: Vec<Entry> = Vec::new();
    for w in starts.windows(2) {
        let page = text[w[0]..w[1]].trim_end();
        let (heading, rest) = page.split_once('\n').unwrap_or((page, ""));
        let code = heading
            .strip_prefix("## `")
            .and_then(|h| h.strip_suffix('`'))
            .filter(|c| {
                !c.is_empty() && c.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
            })
            .ok_or_else(|| format!("`{heading}` is not a heading of the form ## `code`"))?;
        let line = rest.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        let mut parts = line.splitn(3, " · ");
        let (sev, kind, summary) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let severity = match sev {
            "**error**" => "error",
            "**warning**" => "warning",
            "**error or warning**" => "error or warning",
            _ => {
                return Err(format!(
                    "`{code}`: `{line}` does not start with **error**, **warning** or **error or warning**"
                ))
            }
        };
        let kind = match kind {
            "content" => Kind::Content,
            "usage" => Kind::Usage,
            _ => return Err(format!("`{code}`: the kind is `content` or `usage`, not `{kind}`")),
        };
        if summary.is_empty() {
            return Err(format!("`{code}` has no summary"));
        }
        if let Some(before) = out.last().filter(|e| e.code >= code) {
            return Err(format!(
                "`{code}` comes after `{}`: the codes are in alphabetical order, each once",
                before.code
            ));
        }
        out.push(Entry { code, severity, kind, summary, page });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_parse_and_every_code_is_once_in_order() {
        let all = catalogue();
        assert!(all.len() > 100, "{} codes", all.len());
        assert!(find("unknown-attr").is_some_and(|e| e.kind == Kind::Content && e.page.contains("attribute")));
        assert!(is_usage("bad-bleed"));
        assert_eq!(nearest("unknown-atr"), Some("unknown-attr"));
    }

    #[test]
    fn a_malformed_page_is_refused_with_its_code() {
        let bad = |t: &'static str| parse(t).unwrap_err();
        assert!(bad("# D\n\n## `a-b`\n\n**fatal** · content · x.\n").contains("`a-b`"));
        assert!(bad("# D\n\n## `a-b`\n\n**error** · other · x.\n").contains("content` or `usage"));
        assert!(bad("# D\n\n## `b`\n\n**error** · content · x.\n\n## `a`\n\n**error** · content · y.\n")
            .contains("alphabetical"));
        assert!(bad("# D\n\n## Not a code\n").contains("not a heading"));
        let ok = parse("# D\n\n## `a`\n\n**error or warning** · usage · x.\n\nMore.\n").unwrap();
        assert_eq!((ok[0].severity, ok[0].kind, ok[0].summary), ("error or warning", Kind::Usage, "x."));
    }
}
