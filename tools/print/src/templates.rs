//! The tera templates: the built-in set embedded in the binary, a pack's overrides from
//! `content/<pack>/templates/<name>`, and the functions templates call (`layout`, `fit`,
//! `icon`, `text_width`).
//!
//! Invariants: every value that comes from a definition reaches a template as data and is
//! escaped on output (XML/HTML escaping for `.svg` and `.html`, Markdown escaping for
//! `.md`); definition text is never parsed as a template.

use crate::html_escape;
use crown_engine::fsread;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use crown_engine::content::Pack;
use crown_engine::diag::Diagnostic;
use serde_json::Value;
use tera::Tera;

use super::fonts::FontId;
use super::icons::IconSet;
use super::layout::{self, Align, Issue, Request, VAlign};
use super::util::Hasher;

/// The built-in templates, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("macros.svg", include_str!("../../templates/macros.svg")),
    ("card-front.svg", include_str!("../../templates/card-front.svg")),
    ("card-back.svg", include_str!("../../templates/card-back.svg")),
    ("card-reverse.svg", include_str!("../../templates/card-reverse.svg")),
    ("character-front.svg", include_str!("../../templates/character-front.svg")),
    ("plaque-front.svg", include_str!("../../templates/plaque-front.svg")),
    ("plaque-back.svg", include_str!("../../templates/plaque-back.svg")),
    ("stages-front.svg", include_str!("../../templates/stages-front.svg")),
    ("stages-back.svg", include_str!("../../templates/stages-back.svg")),
    ("tile-front.svg", include_str!("../../templates/tile-front.svg")),
    ("tile-back.svg", include_str!("../../templates/tile-back.svg")),
    ("board.svg", include_str!("../../templates/board.svg")),
    ("reference.html", include_str!("../../templates/reference.html")),
    ("reference.md", include_str!("../../templates/reference.md")),
    ("reference-page.svg", include_str!("../../templates/reference-page.svg")),
];

/// Where a template came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Builtin,
    /// A pack file, as shown to people (relative to the project).
    Pack(PathBuf),
}

impl Origin {
    pub fn describe(&self, name: &str) -> String {
        match self {
            Origin::Builtin => format!("built-in template `{name}`"),
            Origin::Pack(p) => format!("template `{}`", p.display()),
        }
    }
}

/// A pack's template set, parsed.
pub struct Templates {
    tera: Tera,
    md: Tera,
    pub origins: BTreeMap<String, Origin>,
    /// The text of every template, by name, to place what fails in it.
    texts: BTreeMap<String, String>,
    /// Hash of every template's text, for caches.
    pub hash: u64,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates").field("origins", &self.origins).field("hash", &self.hash).finish()
    }
}

impl Templates {
    /// The built-in templates, overridden and extended by the files in the `templates/`
    /// folder of the pack and of the packs it extends (the outermost pack wins).
    pub fn load(pack: &Pack, icons: Arc<IconSet>) -> Result<Templates, Vec<Diagnostic>> {
        let (sources, mut diags) = sources(pack);
        let mut hasher = Hasher::default();
        for (name, (text, _)) in &sources {
            hasher.str(name).str(text);
        }
        let origins: BTreeMap<String, Origin> = sources.iter().map(|(n, (_, o))| (n.clone(), o.clone())).collect();

        let mut tera = Tera::default();
        tera.autoescape_on(vec![".svg", ".html"]);
        let mut md = Tera::default();
        md.autoescape_on(vec![".md"]);
        md.set_escape_fn(escape_markdown);
        register(&mut tera, icons.clone(), false);
        register(&mut md, icons, true);

        // Parse one by one first, so every broken template is reported with its own file.
        for (name, (text, origin)) in &sources {
            if let Err(e) = tera::Template::new(name, None, text) {
                diags.push(parse_error(&e, &origin.describe(name), origin, text));
            }
        }
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        let svg_html: Vec<(&str, &str)> =
            sources.iter().filter(|(n, _)| !n.ends_with(".md")).map(|(n, (t, _))| (n.as_str(), t.as_str())).collect();
        let mds: Vec<(&str, &str)> =
            sources.iter().filter(|(n, _)| n.ends_with(".md")).map(|(n, (t, _))| (n.as_str(), t.as_str())).collect();
        if let Err(e) = tera.add_raw_templates(svg_html) {
            diags.push(template_error(&e, "templates", &Origin::Builtin));
        }
        if let Err(e) = md.add_raw_templates(mds) {
            diags.push(template_error(&e, "templates", &Origin::Builtin));
        }
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        // The limits every drawing runs under (see `sandbox`).
        for set in [&mut tera, &mut md] {
            if let Err((first, e)) = super::sandbox::harden(set) {
                let d = Diagnostic::error("template-error", e);
                diags.push(match origins.get(&first) {
                    Some(Origin::Pack(p)) => d.in_file(p),
                    _ => d,
                });
            }
        }
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        let texts = sources.into_iter().map(|(n, (t, _))| (n, t)).collect();
        Ok(Templates { tera, md, origins, texts, hash: hasher.finish() })
    }

    pub fn has(&self, name: &str) -> bool {
        self.origins.contains_key(name)
    }

    /// Render template `name` with `context`; errors come back as one message.
    pub fn render(&self, name: &str, context: &Value) -> Result<String, String> {
        let ctx = tera::Context::from_value(context.clone()).map_err(|e| error_chain(&e))?;
        let t = if name.ends_with(".md") { &self.md } else { &self.tera };
        super::sandbox::render(t, name, &ctx).map_err(|e| error_chain(&e))
    }

    pub fn origin(&self, name: &str) -> Origin {
        self.origins.get(name).cloned().unwrap_or(Origin::Builtin)
    }

    /// Where in a pack's template the render error `message` of template `name` is: the
    /// first name the message quotes (a variable, filter or function) written inside a
    /// tag of the template it names as rendering, else of `name`. Built-in templates are
    /// not looked in (they are not the pack's to fix).
    pub fn locate(&self, name: &str, message: &str) -> Option<(crown_engine::SourceFile, std::ops::Range<usize>)> {
        let active = message.rsplit_once("while rendering '").and_then(|(_, r)| r.split_once('\'')).map(|x| x.0);
        let tokens = quoted(message);
        for t in active.into_iter().chain([name]) {
            let (Some(Origin::Pack(path)), Some(text)) = (self.origins.get(t), self.texts.get(t)) else { continue };
            for token in tokens.iter().filter(|k| !self.origins.contains_key(**k)) {
                if let Some(span) = find_in_tags(text, token) {
                    return Some((crown_engine::SourceFile::new(path.clone(), text.as_str()), span));
                }
            }
        }
        None
    }
}

/// The names a message quotes in backquotes or single quotes, in order.
fn quoted(message: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = message;
    while let Some(i) = rest.find(['`', '\'']) {
        let q = &rest[i..i + 1];
        let Some(j) = rest[i + 1..].find(q) else { break };
        let inner = &rest[i + 1..i + 1 + j];
        if !inner.is_empty() && !inner.contains(char::is_whitespace) {
            out.push(inner);
        }
        rest = &rest[i + 2 + j..];
    }
    out
}

/// The first place `token` is written as a whole name inside a `{{ }}` or `{% %}` tag.
fn find_in_tags(text: &str, token: &str) -> Option<std::ops::Range<usize>> {
    let name_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut at = 0;
    while let Some(i) = text[at..].find("{{").into_iter().chain(text[at..].find("{%")).min() {
        let open = at + i;
        let close_tag = if text[open..].starts_with("{{") { "}}" } else { "%}" };
        let close = text[open + 2..].find(close_tag).map_or(text.len(), |j| open + 2 + j);
        let tag = &text[open + 2..close];
        let mut from = 0;
        while let Some(k) = tag[from..].find(token) {
            let start = from + k;
            let end = start + token.len();
            let before = tag[..start].chars().next_back();
            let after = tag[end..].chars().next();
            if !before.is_some_and(|c| name_char(c) || c == '.') && !after.is_some_and(name_char) {
                return Some(open + 2 + start..open + 2 + end);
            }
            from = end;
        }
        at = (close + 2).min(text.len());
    }
    None
}

/// The text and origin of every template a pack uses: the built-in ones, overridden and
/// extended by the files in the `templates/` folder of the packs it extends and then of
/// the pack itself (the outermost pack wins). Unreadable files and files that are not
/// templates come back as diagnostics.
pub fn sources(pack: &Pack) -> (BTreeMap<String, (String, Origin)>, Vec<Diagnostic>) {
    let mut sources: BTreeMap<String, (String, Origin)> = BTreeMap::new();
    for (name, text) in BUILTIN {
        sources.insert((*name).to_string(), ((*text).to_string(), Origin::Builtin));
    }
    let mut diags = Vec::new();
    // `chain` lists the pack first, then what it extends: apply the base packs first.
    for id in pack.chain.iter().rev() {
        let shown_dir = PathBuf::from("content").join(id).join("templates");
        let Ok(rd) = std::fs::read_dir(pack.project.join(&shown_dir)) else {
            continue;
        };
        let mut names: Vec<_> = rd.flatten().filter_map(|e| e.file_name().to_str().map(String::from)).collect();
        names.sort();
        for name in names {
            if name.starts_with('.') || name.ends_with('~') {
                continue;
            }
            let ok_ext = [".svg", ".html", ".md"].iter().any(|e| name.ends_with(e));
            let shown = shown_dir.join(&name);
            if !ok_ext {
                diags.push(
                    Diagnostic::warning(
                        "unknown-template",
                        format!("`{}` is not used: templates end in .svg, .html or .md", shown.display()),
                    )
                    .in_file(&shown),
                );
                continue;
            }
            let full = pack.project.join(&shown);
            match fsread::read_checked_in(&pack.project, &full, fsread::Kind::Template)
                .and_then(|b| fsread::into_text(&full, b))
            {
                Ok(text) => {
                    sources.insert(name, (text, Origin::Pack(shown)));
                }
                Err(e) => diags.push(
                    Diagnostic::error("unreadable", format!("cannot read template: {}", e.reason())).in_file(&shown),
                ),
            }
        }
    }
    (sources, diags)
}

/// A template that does not parse: tera's ` --> line:column` becomes the diagnostic's
/// position in the template file, and its `= ...` line the message.
fn parse_error(e: &tera::Error, what: &str, origin: &Origin, text: &str) -> Diagnostic {
    let Origin::Pack(p) = origin else {
        return template_error(e, what, origin);
    };
    let full = error_chain_lines(e);
    let pos = full.lines().find_map(|l| {
        let (line, col) = l.trim_start().strip_prefix("--> ")?.trim().split_once(':')?;
        Some((line.parse::<usize>().ok()?, col.parse::<usize>().ok()?))
    });
    let Some((line, col)) = pos else {
        return template_error(e, what, origin);
    };
    let reason: Vec<&str> = full.lines().filter_map(|l| l.trim_start().strip_prefix("= ")).collect();
    let reason = if reason.is_empty() { "a syntax error".to_string() } else { reason.join("; ") };
    let src = crown_engine::SourceFile::new(p.clone(), text);
    Diagnostic::error("template-error", format!("{what} does not parse: {reason}"))
        .at_line_col(&src, line, col)
        .hint("check that every `{%`, `{{` and `{#` is closed, and every `{% if %}`/`{% for %}` has its `{% end... %}`")
}

/// Template files named by diagnostics, added to `base` so that their snippets show.
pub fn with_template_sources(
    project: &std::path::Path,
    base: &crown_engine::SourceMap,
    diags: &[Diagnostic],
) -> crown_engine::SourceMap {
    let mut map = base.clone();
    add_template_sources(project, &mut map, diags);
    map
}

/// Add to `map` the template files `diags` point into (so their snippets show).
pub fn add_template_sources(project: &std::path::Path, map: &mut crown_engine::SourceMap, diags: &[Diagnostic]) {
    for d in diags {
        let Some(f) = &d.file else { continue };
        if d.code != "template-error" || d.span.is_none() || map.get(f).is_some() {
            continue;
        }
        if let Ok(text) = fsread::read_text_checked(&project.join(f), fsread::Kind::Template) {
            map.insert(crown_engine::SourceFile::new(f.clone(), text));
        }
    }
}

/// The message of a tera error with its causes, line breaks kept.
fn error_chain_lines(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut src = e.source();
    while let Some(s) = src {
        let m = s.to_string();
        if !parts.contains(&m) {
            parts.push(m);
        }
        src = s.source();
    }
    parts.join("\n")
}

fn template_error(e: &tera::Error, what: &str, origin: &Origin) -> Diagnostic {
    let d = Diagnostic::error("template-error", format!("{what} does not parse: {}", error_chain(e)));
    match origin {
        Origin::Pack(p) => d.in_file(p),
        Origin::Builtin => d,
    }
}

/// The message of a tera error with its causes.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut src = e.source();
    while let Some(s) = src {
        let m = s.to_string();
        if !parts.contains(&m) {
            parts.push(m);
        }
        src = s.source();
    }
    parts.retain(|p| !super::sandbox::is_hidden_call(p));
    parts.join(": ").replace('\n', " ")
}

/// Markdown escaping: HTML-significant characters as entities, Markdown punctuation
/// behind a backslash, line breaks kept as spaces.
pub fn escape_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_markdown_char(&mut out, c);
    }
    out
}

/// Append `c` to Markdown text, escaped as it needs to be where it lands.
fn push_markdown_char(out: &mut String, c: char) {
    let line_start = out.trim_end_matches(' ').is_empty() || out.trim_end_matches(' ').ends_with('\n');
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
            out.push('\\');
            out.push(c);
        }
        // These begin a heading, a list or a quote only at the start of a line.
        '#' | '+' | '-' if line_start => {
            out.push('\\');
            out.push(c);
        }
        '\n' | '\r' => out.push(' '),
        c => out.push(c),
    }
}

fn register(tera: &mut Tera, icons: Arc<IconSet>, markdown: bool) {
    tera.register_filter("rich", RichFilter { icons: icons.clone(), markdown });
    tera.register_function("layout", LayoutFn(icons.clone()));
    tera.register_function("fit", FitFn(icons.clone()));
    tera.register_function("icon", IconFn(icons.clone()));
    tera.register_function("text_width", WidthFn(icons));
    tera.register_filter("n", num_filter);
}

fn arg_f32(args: &HashMap<String, Value>, name: &str, default: Option<f32>) -> tera::Result<f32> {
    match args.get(name) {
        Some(v) => v
            .as_f64()
            .map(|x| x as f32)
            .ok_or_else(|| tera::Error::msg(format!("argument `{name}` must be a number, got {v}"))),
        None => default.ok_or_else(|| tera::Error::msg(format!("argument `{name}` is required"))),
    }
}

fn arg_str<'a>(args: &'a HashMap<String, Value>, name: &str) -> tera::Result<Option<&'a str>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(tera::Error::msg(format!("argument `{name}` must be a string, got {v}"))),
    }
}

fn arg_font(args: &HashMap<String, Value>) -> tera::Result<FontId> {
    match arg_str(args, "font")? {
        None => Ok(FontId::Sans),
        Some(f) => FontId::parse(f)
            .ok_or_else(|| tera::Error::msg(format!("unknown font `{f}` (use sans, bold, italic or serif)"))),
    }
}

/// `layout(text, x, y, w, h, size, min_size=size*0.75, line_height=1.2, align="left",
/// valign="top", font="sans")`: lines of text and icons that fit the box.
struct LayoutFn(Arc<IconSet>);

impl tera::Function for LayoutFn {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let text = arg_str(args, "text")?.unwrap_or("");
        let size = arg_f32(args, "size", None)?;
        let align = match arg_str(args, "align")?.unwrap_or("left") {
            "left" => Align::Left,
            "center" | "centre" => Align::Center,
            "right" => Align::Right,
            a => return Err(tera::Error::msg(format!("unknown align `{a}`"))),
        };
        let valign = match arg_str(args, "valign")?.unwrap_or("top") {
            "top" => VAlign::Top,
            "middle" | "center" => VAlign::Middle,
            "bottom" => VAlign::Bottom,
            a => return Err(tera::Error::msg(format!("unknown valign `{a}`"))),
        };
        let req = Request {
            text,
            x: arg_f32(args, "x", None)?,
            y: arg_f32(args, "y", None)?,
            width: arg_f32(args, "w", None)?,
            height: arg_f32(args, "h", None)?,
            size,
            min_size: arg_f32(args, "min_size", Some(size * 0.75))?,
            line_height: arg_f32(args, "line_height", Some(1.2))?,
            align,
            valign,
            font: arg_font(args)?,
        };
        if !(req.width > 0.0 && req.height > 0.0 && req.size > 0.0) {
            return Err(tera::Error::msg("layout: w, h and size must be positive"));
        }
        serde_json::to_value(layout::layout(&req, &self.0)).map_err(tera::Error::json)
    }
}

/// `fit(text, w, size, min_size=size*0.7, font="serif")`: the size at which one line of
/// text fits a width; `{size, width, fits}`.
struct FitFn(Arc<IconSet>);

impl tera::Function for FitFn {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let text = arg_str(args, "text")?.unwrap_or("");
        let w = arg_f32(args, "w", None)?;
        let size = arg_f32(args, "size", None)?;
        let min = arg_f32(args, "min_size", Some(size * 0.7))?;
        let font = match arg_str(args, "font")? {
            None => FontId::SerifBold,
            Some(_) => arg_font(args)?,
        };
        let missing = super::fonts::missing_chars(font, text);
        if !missing.is_empty() {
            layout::report(Issue::MissingGlyphs(missing));
        }
        let em = layout::measure(text, font, &self.0);
        let mut s = size;
        if em * s > w {
            s = (w / em.max(1e-6)).max(min);
        }
        let fits = em * s <= w + 1e-3;
        if !fits {
            layout::report(Issue::Overflow {
                excerpt: layout::excerpt(text),
                size: s,
                needed: em * s,
                box_height: w,
                too_wide: Some(text.to_string()),
            });
        }
        let r = |x: f32| (f64::from(x) * 1000.0).round() / 1000.0;
        Ok(serde_json::json!({ "size": r(s), "width": r(em * s), "fits": fits }))
    }
}

/// `icon(name)`: `#icon-NAME`, for `<use href="...">` (empty, and reported, when unknown).
struct IconFn(Arc<IconSet>);

impl tera::Function for IconFn {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let name = arg_str(args, "name")?.ok_or_else(|| tera::Error::msg("icon: argument `name` is required"))?;
        match self.0.href(name) {
            Some(u) => Ok(Value::String(u.to_string())),
            None => {
                layout::report(Issue::UnknownIcon(name.to_string()));
                Ok(Value::String(String::new()))
            }
        }
    }

    fn is_safe(&self) -> bool {
        // `#icon-` and a name of letters, digits, `-` and `_`.
        true
    }
}

/// `text_width(text, size, font="sans")`: the width of one line.
struct WidthFn(Arc<IconSet>);

impl tera::Function for WidthFn {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let text = arg_str(args, "text")?.unwrap_or("");
        let size = arg_f32(args, "size", None)?;
        let w = layout::measure(text, arg_font(args)?, &self.0) * size;
        Ok(serde_json::json!((f64::from(w) * 1000.0).round() / 1000.0))
    }
}

/// `{{ card.text | rich }}`: rules text for HTML (escaped, `:icon:` as inline images,
/// `**bold**` as `<strong>`, line breaks kept) or for Markdown (escaped, icons as
/// `[name]`, bold kept).
struct RichFilter {
    icons: Arc<IconSet>,
    markdown: bool,
}

impl tera::Filter for RichFilter {
    fn filter(&self, v: &Value, _: &HashMap<String, Value>) -> tera::Result<Value> {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        Ok(Value::String(rich(&text, &self.icons, self.markdown)))
    }

    fn is_safe(&self) -> bool {
        true
    }
}

/// See [`RichFilter`]; the markup is read by [`super::markup::read`].
pub fn rich(text: &str, icons: &IconSet, markdown: bool) -> String {
    use super::markup::Mark;
    let mut out = String::with_capacity(text.len() + 16);
    let mut bold = false;
    let marks = super::markup::read(text.trim()).marks;
    let mut i = 0;
    while i < marks.len() {
        match &marks[i] {
            Mark::Bold => {
                bold = !bold;
                out.push_str(match (markdown, bold) {
                    (true, _) => "**",
                    (false, true) => "<strong>",
                    (false, false) => "</strong>",
                });
            }
            Mark::Char('\n') => {
                if marks.get(i + 1) == Some(&Mark::Char('\n')) {
                    out.push_str(if markdown { "\n\n" } else { "<br><br>" });
                    while marks.get(i + 1) == Some(&Mark::Char('\n')) {
                        i += 1;
                    }
                } else {
                    out.push_str(if markdown { "  \n" } else { "<br>" });
                }
            }
            Mark::Icon(name) => match (markdown, icons.uri(name)) {
                (false, Some(uri)) => {
                    out.push_str(&format!("<img class=\"icon\" src=\"{uri}\" alt=\"{}\">", html_escape(name)));
                }
                (false, None) => {
                    layout::report(Issue::UnknownIcon(name.clone()));
                    out.push_str(&html_escape(&format!(":{name}:")));
                }
                (true, known) => {
                    if known.is_none() {
                        layout::report(Issue::UnknownIcon(name.clone()));
                    }
                    out.push_str(&escape_markdown(&format!("[{name}]")));
                }
            },
            Mark::Char(c) => {
                if markdown {
                    push_markdown_char(&mut out, *c);
                } else {
                    out.push_str(&html_escape(&c.to_string()));
                }
            }
        }
        i += 1;
    }
    if bold {
        out.push_str(if markdown { "**" } else { "</strong>" });
    }
    out
}

/// `{{ x | n }}`: a number with at most three decimals.
fn num_filter(v: &Value, _: &HashMap<String, Value>) -> tera::Result<Value> {
    match v.as_f64() {
        Some(x) => Ok(Value::String(super::util::num(x))),
        None => Err(tera::Error::msg(format!("filter `n` needs a number, got {v}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_error_is_placed_at_the_name_it_quotes_inside_a_tag() {
        let msg = "Variable `card.motto` not found in context while rendering 'card-front.svg'";
        assert_eq!(quoted(msg), ["card.motto", "card-front.svg"]);
        let text = "<t>card.motto {{ card.mottos }}</t>\n{% if x %}{{ card.motto | upper }}{% endif %}";
        let at = find_in_tags(text, "card.motto").unwrap();
        assert_eq!(&text[at.clone()], "card.motto");
        assert_eq!(at.start, text.rfind("card.motto").unwrap());
        assert_eq!(find_in_tags("{{ layout(text=card.text) }}", "layout"), Some(3..9));
        assert_eq!(find_in_tags("{{ x.layout }}", "layout"), None);
    }

    #[test]
    fn markdown_escaping() {
        assert_eq!(escape_markdown("*a* <b> & [c](d) | e_f"), "\\*a\\* &lt;b&gt; &amp; \\[c\\](d) \\| e\\_f");
        assert_eq!(escape_markdown("# not a heading - nor a list"), "\\# not a heading - nor a list");
    }
}
