//! `crown reference` and the rules documents (`content/<pack>/rules.md`): every shipped
//! pack's reference in HTML, Markdown and PDF with its sections and generated tables;
//! numbers that follow the TOML; placeholders and links that name nothing, found by
//! `crown check` and `crown reference` at their line and column; the PDF's text holding
//! what the HTML shows; the examples of the designer's guide.

use std::path::Path;
use std::process::Command;

use crown_engine::content::Pack;
use crown_engine::load::{load_pack, LoadOptions, Project};
use crown_tools::print::{self, Paper, ReferenceFormat};

use crate::common::{crown_bin, edit_after, project_copy, repo_project};

use crate::common::SHIPPED_PACKS as PACKS;

fn load(root: &Path, id: &str) -> Pack {
    let loaded = load_pack(&Project::new(root), id, LoadOptions { compile_scripts: false });
    match loaded.pack {
        Some(p) => p,
        None => panic!("{id} does not load: {:#?}", loaded.diagnostics),
    }
}

fn render(pack: &Pack, format: ReferenceFormat) -> Vec<u8> {
    match print::render_reference(pack, format, Paper::A4) {
        Ok((bytes, diags)) => {
            assert!(diags.is_empty(), "{}: {format:?}: {diags:#?}", pack.id());
            bytes
        }
        Err(diags) => panic!("{}: {format:?} failed: {diags:#?}", pack.id()),
    }
}

/// The text poppler reads out of a PDF, white space squeezed; missing, the test fails
/// saying what to install.
fn pdf_text(pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ref.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdftotext").arg(&path).arg("-").output().unwrap_or_else(|e| {
        panic!(
            "`pdftotext` could not be run ({e}): this test reads the reference PDF with poppler; \
             run the suite with `cargo xtask test` (it installs Debian's `poppler-utils`), or install poppler yourself"
        )
    });
    assert!(out.status.success(), "pdftotext failed: {}", String::from_utf8_lossy(&out.stderr));
    squeeze(&String::from_utf8_lossy(&out.stdout))
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// HTML text without its tags and entities, white space squeezed.
fn html_text(html: &str) -> String {
    let mut out = String::new();
    let mut tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                tag = true;
                out.push(' ');
            }
            '>' => tag = false,
            c if !tag => out.push(c),
            _ => {}
        }
    }
    squeeze(
        &out.replace("&amp;", "&")
            .replace("&#x27;", "'")
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">"),
    )
}

/// The headings of one level in the HTML (`<h2 ...>Text</h2>`), as text.
fn headings(html: &str, level: u8) -> Vec<String> {
    let open = format!("<h{level}");
    let close = format!("</h{level}>");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i..];
        let Some(gt) = after.find('>') else { break };
        let Some(end) = after.find(&close) else { break };
        out.push(html_text(&after[gt + 1..end]));
        rest = &after[end..];
    }
    out
}

/// A tile's entry shows its squares, each with its terrain and values.
#[test]
fn a_tiles_entry_shows_its_squares() {
    let pack = load(&repo_project().root, "crownfields");
    let md = String::from_utf8(render(&pack, ReferenceFormat::Md)).unwrap();
    assert!(md.contains("### Tile 48") && md.contains("Squares: Mine (Crowns 3), Field"), "{md}");
}

#[test]
fn every_shipped_pack_has_a_rules_reference_in_html_markdown_and_pdf() {
    let root = repo_project().root;
    for id in PACKS {
        let pack = load(&root, id);
        let html = String::from_utf8(render(&pack, ReferenceFormat::Html)).unwrap();
        let md = String::from_utf8(render(&pack, ReferenceFormat::Md)).unwrap();
        let pdf = render(&pack, ReferenceFormat::Pdf);
        // The sections a rules reference must have: setup, a turn, the end and scoring.
        let sections: Vec<String> =
            headings(&html, 2).iter().chain(&headings(&html, 3)).map(|h| h.to_lowercase()).collect();
        for want in ["setup", "turn", "end of the game", "scoring"] {
            assert!(sections.iter().any(|h| h.contains(want)), "{id}: no `{want}` section in {sections:?}");
        }
        // Generated content: tables and card lists from the definitions.
        assert!(
            html.contains("<table>") && html.contains("<article class=\"entry\""),
            "{id}: no generated tables or entries"
        );
        assert!(md.contains("| --- |") && md.contains("## Setup"), "{id}: Markdown without its tables or setup");
        // A cross-reference is a link in HTML and Markdown, and `Name (p. N)` in the PDF.
        assert!(html.contains("<a class=\"ref\" href=\"#def-"), "{id}: no cross-reference in the HTML");
        assert!(md.contains("](#def-"), "{id}: no cross-reference in the Markdown");
        let text = pdf_text(&pdf);
        for h in headings(&html, 2) {
            assert!(text.contains(&h), "{id}: the PDF lacks the section `{h}`");
        }
        assert!(regex_like_page_ref(&text), "{id}: no `(p. N)` cross-reference in the PDF");
        // Every entry's name and its numbers line (serial, copies, decks) is in the PDF.
        for (title, meta) in entries(&html) {
            assert!(text.contains(&title), "{id}: the PDF lacks the entry `{title}`");
            assert!(text.contains(&meta), "{id}: the PDF lacks `{meta}` (of {title})");
        }
        assert!(!text.contains("(p. ?)"), "{id}: a page number was left unresolved");
    }
}

fn regex_like_page_ref(text: &str) -> bool {
    text.match_indices("(p. ").any(|(i, _)| text[i + 4..].chars().next().is_some_and(|c| c.is_ascii_digit()))
}

/// (title, badge · meta) of every entry of the HTML, as text.
fn entries(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for part in html.split("<article class=\"entry\"").skip(1) {
        let title =
            part.split("<span>").nth(1).and_then(|s| s.split("</span>").next()).map(html_text).unwrap_or_default();
        let badge = part
            .split("<span class=\"count\">")
            .nth(1)
            .and_then(|s| s.split("</span>").next())
            .map(html_text)
            .unwrap_or_default();
        let meta = part.split("<div class=\"meta\">").nth(1).and_then(|s| s.split("</div>").next()).map(html_text);
        out.push((
            title,
            match meta {
                Some(m) => format!("{badge} · {m}"),
                None => badge,
            },
        ));
    }
    out
}

#[test]
fn the_pdf_keeps_kingdom_legacys_card_numbers_and_take_the_kingdoms_decks() {
    let root = repo_project().root;
    let kl = load(&root, "kingdom-legacy");
    let html = html_text(&String::from_utf8(render(&kl, ReferenceFormat::Html)).unwrap());
    let pdf = pdf_text(&render(&kl, ReferenceFormat::Pdf));
    for d in &kl.defs {
        let serial = d.def.serial.expect("every Kingdom Legacy card has a number");
        let badge = format!("#{serial} · ×{}", d.def.count);
        assert!(html.contains(&badge), "the HTML lacks {badge} ({})", d.def.id);
        assert!(pdf.contains(&badge), "the PDF lacks {badge} ({})", d.def.id);
    }
    let ttk = load(&root, "take-the-kingdom");
    let html = html_text(&String::from_utf8(render(&ttk, ReferenceFormat::Html)).unwrap());
    let pdf = pdf_text(&render(&ttk, ReferenceFormat::Pdf));
    for deck in ["deck: Main, Solo action", "deck: Kingdom, Solo action", "Solo attack", "Solo defend"] {
        assert!(html.contains(deck), "the HTML lacks `{deck}`");
        assert!(pdf.contains(deck), "the PDF lacks `{deck}`");
    }
    // The expansion's reference: the base game's chapter, then its own.
    let sr = load(&root, "kingdom-legacy-saltroad");
    let html = String::from_utf8(render(&sr, ReferenceFormat::Html)).unwrap();
    let parts = headings(&html, 1).into_iter().filter(|h| h.starts_with("Kingdom Legacy: ")).collect::<Vec<_>>();
    assert_eq!(parts[1..], ["Kingdom Legacy: Hearthvale", "Kingdom Legacy: The Salt Road"], "{parts:?}");
    let pdf = pdf_text(&render(&sr, ReferenceFormat::Pdf));
    assert!(pdf.contains("#50 · ×1") && pdf.contains("Purge 12."), "the Salt Road chapter is missing from the PDF");
}

#[test]
fn the_reference_follows_the_toml() {
    let dir = project_copy(&["content/take-the-kingdom", "scripts/take-the-kingdom"]);
    let md = |dir: &Path| String::from_utf8(render(&load(dir, "take-the-kingdom"), ReferenceFormat::Md)).unwrap();
    let before = md(dir.path());
    assert!(before.contains("until you hold 5 cards"), "hand size from the standard scenario");
    assert!(before.contains("exactly 12 points, the castle's 3 included"));
    let content = dir.path().join("content/take-the-kingdom");
    edit_after(&content.join("scenarios/standard.toml"), &["[options]"], "hand_size = 5", "hand_size = 7");
    edit_after(&content.join("cards/castles.toml"), &["id = \"castle\""], "defence = 3", "defence = 4");
    edit_after(&content.join("nobles.toml"), &["id = \"simon\""], "hand_with_land = 6", "hand_with_land = 8");
    let after = md(dir.path());
    assert!(after.contains("until you hold 7 cards (Simon draws to 8 while he has a land)"), "{after}");
    assert!(after.contains("exactly 12 points, the castle's 4 included"));
    assert!(!after.contains("until you hold 5 cards"));
    // The tables follow too.
    assert!(
        after.contains("| <a id=\"def-castle\"></a>Castle") || after.contains("*×6 · Castle · Defence 4"),
        "{after}"
    );
}

/// A small pack written into a temporary project, with a rules document.
fn pack_with_rules(rules: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("content/tiny");
    std::fs::create_dir_all(pack.join("cards")).unwrap();
    std::fs::create_dir_all(pack.join("scenarios")).unwrap();
    std::fs::write(
        pack.join("pack.toml"),
        "#:schema ../../docs/schema/pack.schema.json\nid = \"tiny\"\nname = \"Tiny\"\nversion = \"0.1.0\"\nplayers = { min = 2, max = 4 }\n",
    )
    .unwrap();
    std::fs::write(
        pack.join("cards/c.toml"),
        "#:schema ../../../docs/schema/cards.schema.json\n[[card]]\nid = \"spear\"\nname = \"Spear\"\nkind = \"attack\"\ncount = 3\nvalues = { attack = 2 }\ntext = \"Hit for 2.\"\n",
    )
    .unwrap();
    std::fs::write(
        pack.join("scenarios/standard.toml"),
        "#:schema ../../../docs/schema/scenario.schema.json\nid = \"standard\"\nname = \"Standard\"\ndefault = true\n[options]\nhand = 4\n",
    )
    .unwrap();
    std::fs::write(pack.join("rules.md"), rules).unwrap();
    let scripts = dir.path().join("scripts/tiny");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(
        scripts.join("rules.rhai"),
        "fn setup() {}\nfn turn() { end_game([], \"test\"); }\nfn hand() { option(\"hand\") }\n",
    )
    .unwrap();
    dir
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(crown_bin()).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_placeholder_or_link_that_names_nothing_is_an_error_at_its_place() {
    let rules = "# Setup\n\nDraw {{ option hand }} cards. Then play [[spear]].\n\n\
                 A {{ valeu spear attack }} and [[sword]] and {{ value spear atack }}.\n\n\
                 {{ cards kind=\"atack\" }}\n\n{{ option hnad }}\n";
    let dir = pack_with_rules(rules);
    let root = dir.path().to_str().unwrap();
    let (code, out, _) = run(&["--project", root, "check", "tiny", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found: Vec<(String, String, u64, u64)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let at = |code: &str, line: u64, col: u64| ("content/tiny/rules.md".to_string(), code.to_string(), line, col);
    let want = [
        at("unknown-placeholder", 5, 6),
        at("unknown-id", 5, 34),
        at("unknown-value", 5, 61),
        at("unknown-value", 7, 16),
        at("unknown-option", 9, 11),
    ];
    for (file, code, line, col) in want {
        assert!(
            found.iter().any(|f| f.0 == code && f.1 == file && f.2 == line && f.3 == col),
            "no {code} at {file}:{line}:{col} in {found:#?}"
        );
    }
    // And a warning: the link to Spear has nothing to point to (no list shows Spear).
    assert!(found.iter().any(|f| f.0 == "unshown-link" && f.2 == 3 && f.3 == 41), "{found:#?}");
    assert_eq!(found.iter().filter(|f| f.1 == "content/tiny/rules.md").count(), 6, "{found:#?}");
    // Hints name the nearest names.
    let text = out.to_string();
    for hint in ["did you mean `value`?", "did you mean `attack`?", "did you mean `hand`?"] {
        assert!(text.contains(hint), "no hint {hint}: {text}");
    }

    // `crown reference` stops at the same places and writes nothing.
    let out_file = dir.path().join("ref.html");
    let (code, _, err) = run(&["--project", root, "reference", "tiny", "--out", out_file.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("content/tiny/rules.md:5:6") && err.contains("unknown placeholder `valeu`"), "{err}");
    assert!(err.contains("content/tiny/rules.md:9:11"), "{err}");
    assert!(!out_file.exists(), "a reference was written despite the errors");

    // Fixed, both pass and the numbers are in.
    std::fs::write(
        dir.path().join("content/tiny/rules.md"),
        "# Setup\n\nDraw {{ option hand }} cards, then play [[spear]] for {{ value spear attack }}.\n\n{{ cards }}\n",
    )
    .unwrap();
    assert_eq!(run(&["--project", root, "check", "tiny"]).0, 0);
    let (code, _, err) = run(&["--project", root, "reference", "tiny", "--out", out_file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&out_file).unwrap();
    assert!(html.contains("Draw 4 cards, then play <a class=\"ref\" href=\"#def-spear\">Spear</a> for 2."), "{html}");
}

#[test]
fn syntax_mistakes_in_the_rules_document_are_located_too() {
    let dir = pack_with_rules(
        "# Setup\n\nAn **open bold.\n\n{{ cards kind=\"attack }}\n\n| a | b |\n| c | d |\n\nA {{ value spear }} too.\n",
    );
    let pack = load(dir.path(), "tiny");
    let (diags, _) = print::reference::check_rules(&pack);
    let got: Vec<String> = diags.iter().map(|d| format!("{}:{}:{} {}", d.code, d.line, d.column, d.message)).collect();
    assert!(got.iter().any(|g| g.starts_with("rules-syntax:3:4 bold text")), "{got:#?}");
    assert!(got.iter().any(|g| g.starts_with("rules-syntax:5:15 a quoted value")), "{got:#?}");
    assert!(got.iter().any(|g| g.starts_with("rules-syntax:7:1 a table")), "{got:#?}");
    assert!(got.iter().any(|g| g.starts_with("bad-placeholder:10:3 `value` takes ID KEY")), "{got:#?}");
}

#[test]
fn a_pack_without_a_rules_document_gets_its_catalogue() {
    let root = repo_project().root;
    // The print fixtures' pack has no rules.md: the reference lists its definitions.
    let fixtures = root.join("tests/print-fixtures");
    let pack = load(&fixtures, "print-demo");
    let md = String::from_utf8(render(&pack, ReferenceFormat::Md)).unwrap();
    assert!(md.contains("## Scenarios") && md.contains("## Board"), "{md}");
}

/// The examples of the designer's guide marked `<!-- rules example -->` are rendered
/// against Take the Kingdom, so every example there works as written.
#[test]
fn the_designers_guide_examples_work() {
    let guide = std::fs::read_to_string(repo_project().root.join("docs/designers-guide.md")).unwrap();
    let mut examples = Vec::new();
    for part in guide.split("<!-- rules example -->").skip(1) {
        let start = part.find("```markdown\n").expect("an example is a ```markdown block") + "```markdown\n".len();
        let end = part[start..].find("```").expect("a closed block") + start;
        examples.push(part[start..end].to_string());
    }
    assert!(examples.len() >= 3, "the guide has {} rules examples", examples.len());
    let dir = project_copy(&["content/take-the-kingdom", "scripts/take-the-kingdom"]);
    let rules = dir.path().join("content/take-the-kingdom/rules.md");
    for ex in &examples {
        std::fs::write(&rules, ex).unwrap();
        let pack = load(dir.path(), "take-the-kingdom");
        let (diags, _) = print::reference::check_rules(&pack);
        assert!(diags.is_empty(), "this example of the guide does not check:\n{ex}\n{diags:#?}");
        for f in [ReferenceFormat::Html, ReferenceFormat::Md, ReferenceFormat::Pdf] {
            render(&pack, f);
        }
    }
}

/// A list asked for thousands of times, or a value printed over and over, is stopped at
/// the placeholder that passes what a reference may generate, and nothing is written;
/// a heading repeated tens of thousands of times is numbered at once (it once took a
/// search from 2 for each), and a paragraph naming a card thousands of times makes one
/// link per place it is printed.
#[test]
fn what_placeholders_make_is_bounded() {
    let dir = pack_with_rules(&"{{ cards as=\"table\" }}\n\n".repeat(20_000));
    let root = dir.path().to_str().unwrap();
    let out_file = dir.path().join("ref.html");
    let (code, _, err) = run(&["--project", root, "reference", "tiny", "--out", out_file.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[reference-too-large]") && err.contains("passes 2 MiB of generated text"), "{err}");
    // The first placeholder past the limit is named, once.
    assert_eq!(err.matches("reference-too-large").count(), 1, "{err}");
    assert!(err.contains("content/tiny/rules.md:"), "{err}");
    assert!(!out_file.exists());

    let rules =
        format!("# Setup\n\n{{{{ cards }}}}\n\n{}\n\n{}", "## Turn\n\n".repeat(30_000), "[[spear]] ".repeat(3_000));
    let dir = pack_with_rules(&rules);
    let root = dir.path().to_str().unwrap();
    let out_file = dir.path().join("r.pdf");
    let started = std::time::Instant::now();
    let (code, _, err) = run(&["--project", root, "reference", "tiny", "--out", out_file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // About 4 s in a debug build; the quadratic numbering or links took minutes.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    assert!(out_file.exists());
}
