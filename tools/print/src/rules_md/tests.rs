use std::ops::Range;

use super::*;

fn ok(text: &str) -> Vec<Block> {
    let (b, e) = parse(text);
    assert!(e.is_empty(), "{e:#?}");
    b
}

/// The errors of a document, each as its message and the text it points at.
fn errors(text: &str) -> Vec<(String, &str)> {
    let (_, e) = parse(text);
    e.iter().map(|e| (e.message.clone(), &text[e.span.clone()])).collect()
}

/// The one error of a document: its message and the text it points at.
fn one_error(text: &str) -> (String, &str) {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{text:?}: {e:#?}");
    e.into_iter().next().unwrap()
}

#[test]
fn headings_paragraphs_and_lists() {
    let b = ok("# Setup\n\nShuffle the deck\nand deal.\n\n- one\n- two **bold**\n  still two\n\n1. first\n2. second\n");
    assert!(matches!(&b[0], Block::Heading { level: 1, .. }));
    assert_eq!(b[1], Block::Para { inline: vec![Inline::Text("Shuffle the deck and deal.".into())], span: 9..35 });
    let Block::List { ordered: false, items } = &b[2] else { panic!("{b:#?}") };
    assert_eq!(items.len(), 2);
    let Block::Para { inline, .. } = &items[1][0] else { panic!() };
    assert_eq!(inline[1], Inline::Bold(vec![Inline::Text("bold".into())]));
    assert_eq!(inline[2], Inline::Text(" still two".into()));
    assert!(matches!(&b[3], Block::List { ordered: true, items } if items.len() == 2));
}

#[test]
fn nested_lists_and_notes() {
    let b = ok("- a\n  - a1\n  - a2\n- b\n\n> A note\n> over two lines.\n");
    let Block::List { items, .. } = &b[0] else { panic!() };
    assert!(matches!(&items[0][1], Block::List { items, .. } if items.len() == 2));
    assert!(matches!(&b[1], Block::Note(inner) if inner.len() == 1));
}

#[test]
fn placeholders_links_and_icons_keep_their_offsets() {
    let text = "Deal {{ value pikemen attack }} with [[pikemen|the pike]] and :sword:.";
    let b = ok(text);
    let Block::Para { inline, .. } = &b[0] else { panic!() };
    let Inline::Placeholder(p) = &inline[1] else { panic!("{inline:#?}") };
    assert_eq!(p.name, "value");
    assert_eq!(&text[p.name_span.clone()], "value");
    assert_eq!(&text[p.args[0].span.clone()], "pikemen");
    assert_eq!(&text[p.span.clone()], "{{ value pikemen attack }}");
    let Inline::Link { target, text: label, target_span, span } = &inline[3] else { panic!() };
    assert_eq!((target.as_str(), label.as_deref()), ("pikemen", Some("the pike")));
    assert_eq!(&text[target_span.clone()], "pikemen");
    assert_eq!(&text[span.clone()], "[[pikemen|the pike]]");
    let Inline::Icon { name, span } = &inline[5] else { panic!() };
    assert_eq!((name.as_str(), &text[span.clone()]), ("sword", ":sword:"));
}

#[test]
fn offsets_stay_those_of_the_file_after_escapes_entities_and_containers() {
    // Escapes and an entity before the placeholder change the text, not the offsets; so do
    // a note's `>` and a list item's indent, and a placeholder over two lines.
    let text =
        "> \\*a\\* &amp; \\\\ `x` {{ value\n> pikemen attack }} [[ castle ]]\n\n- item\n\n  :coin: {{ option hand }}\n";
    let b = ok(text);
    let Block::Note(inner) = &b[0] else { panic!("{b:#?}") };
    let Block::Para { inline, .. } = &inner[0] else { panic!() };
    assert_eq!(inline[0], Inline::Text("*a* & \\ `x` ".into()));
    let Inline::Placeholder(p) = &inline[1] else { panic!("{inline:#?}") };
    assert_eq!(&text[p.span.clone()], "{{ value\n> pikemen attack }}");
    assert_eq!(&text[p.args[1].span.clone()], "attack");
    let Inline::Link { target, target_span, .. } = &inline[3] else { panic!("{inline:#?}") };
    assert_eq!((target.as_str(), &text[target_span.clone()]), ("castle", "castle"));
    let Block::List { items, .. } = &b[1] else { panic!() };
    let Block::Para { inline, .. } = &items[0][1] else { panic!("{items:#?}") };
    let Inline::Icon { span, .. } = &inline[0] else { panic!() };
    assert_eq!(&text[span.clone()], ":coin:");
    let Inline::Placeholder(p) = &inline[2] else { panic!() };
    assert_eq!(&text[p.args[0].value_span.clone()], "hand");
}

#[test]
fn named_and_quoted_arguments() {
    let text = "{{ cards kind=\"attack\" as=table values=\"attack, solo\" }}";
    let b = ok(text);
    let Block::Alone(p) = &b[0] else { panic!("{b:#?}") };
    assert_eq!(p.args.len(), 3);
    assert_eq!(p.args[0].key.as_deref(), Some("kind"));
    assert_eq!(p.args[0].value, "attack");
    assert_eq!(&text[p.args[0].value_span.clone()], "attack");
    assert_eq!(&text[p.args[0].span.clone()], "kind=\"attack\"");
    assert_eq!(p.args[2].value, "attack, solo");
    // `\"` is a quote inside a quoted value; `_` and `*` inside a placeholder are its own.
    let text = "{{ cards where=\"name=a \\\"b\\\"\" sort=max_attack }}";
    let Block::Alone(p) = &ok(text)[0] else { panic!() };
    assert_eq!(p.args[0].value, "name=a \"b\"");
    assert_eq!(p.args[1].value, "max_attack");
}

#[test]
fn tables_split_cells_at_bars_not_written_with_a_backslash() {
    // As in GitHub's tables (and editors' previews), a `|` in a cell is written `\|`, in a
    // link's too: an unescaped one starts a new cell wherever it is.
    let text = "| Card | Note |\n| --- | --- |\n| [[a\\|b]] | x \\| y |\n";
    let b = ok(text);
    let Block::Table { header, rows, .. } = &b[0] else { panic!() };
    assert_eq!(header.len(), 2);
    assert_eq!(rows[0].len(), 2);
    let Inline::Link { target, text: label, target_span, .. } = &rows[0][0][0] else { panic!("{rows:#?}") };
    assert_eq!((target.as_str(), label.as_deref(), &text[target_span.clone()]), ("a", Some("b"), "a"));
    assert_eq!(rows[0][1], vec![Inline::Text("x | y".into())]);
    let e = errors("| Card | Note |\n| --- | --- |\n| [[a|b]] | c |\n");
    assert!(e.contains(&("this row has 3 cells, the header 2".into(), "| [[a|b]] | c |")), "{e:#?}");
}

#[test]
fn comments_vanish_and_keep_positions() {
    let text = "<!-- a\nnote -->\nText {{ oops";
    assert_eq!(one_error(text), ("this placeholder is never closed".into(), "{{"));
    let b = ok("<!-- a -->\n# Setup\n\nText <!-- inline\ncomment --> and more.\n");
    assert!(matches!(&b[0], Block::Heading { level: 1, .. }), "{b:#?}");
    let Block::Para { inline, .. } = &b[1] else { panic!("{b:#?}") };
    assert_eq!(inline, &vec![Inline::Text("Text  and more.".into())]);
}

#[test]
fn syntax_errors_are_located() {
    let text = "**open\n\n{{ }}\n\n| a |\n| b |\n";
    let (_, e) = parse(text);
    let msgs: Vec<&str> = e.iter().map(|e| e.message.as_str()).collect();
    assert!(msgs.contains(&"bold text that is never closed"), "{msgs:?}");
    assert!(msgs.contains(&"a placeholder without a name"), "{msgs:?}");
    assert!(msgs.contains(&"a table without its `| --- |` line"), "{msgs:?}");
    let t = e.iter().find(|e| e.message.starts_with("a table")).unwrap();
    assert_eq!(t.span.start, text.find("| a").unwrap());
    // In the order of the file.
    assert!(e.windows(2).all(|w| w[0].span.start <= w[1].span.start), "{e:#?}");
}

#[test]
fn unclosed_marks_links_and_comments_are_errors() {
    assert_eq!(one_error("An *open italic."), ("italic text that is never closed".into(), "*"));
    assert_eq!(one_error("Closed** too late."), ("`**` that closes no bold text".into(), "**"));
    assert_eq!(one_error("See [[castle and more."), ("this link is never closed".into(), "[["));
    assert_eq!(one_error("See [[ ]] here."), ("a link without a target".into(), "[[ ]]"));
    assert_eq!(one_error("See [[]] here."), ("a link without a target".into(), "[[]]"));
    assert_eq!(one_error("Text <!-- never closed"), ("this comment is never closed".into(), "<!--"));
    assert_eq!(one_error("# Setup\n\n<!-- never\n\nclosed\n"), ("this comment is never closed".into(), "<!--"));
    // Plain asterisks and underscores stay text.
    let b = ok("2 * 3 = 6, snake_case and a lone _ too");
    assert_eq!(
        b[0],
        Block::Para { inline: vec![Inline::Text("2 * 3 = 6, snake_case and a lone _ too".into())], span: 0..38 }
    );
}

#[test]
fn markdown_the_reference_cannot_print_is_an_error_at_its_place() {
    let cases: &[(&str, &str, &str)] = &[
        ("#### Deep\n", "a heading of level 4", "####"),
        ("Text\n\n***\n", "a horizontal rule", "***"),
        ("Text\n\n    indented code\n", "a code block", "indented code"),
        ("```rhai\nlet x = 1;\n```\n", "a code block", "```rhai"),
        ("<div>box</div>\n", "HTML in the rules document", "<div>box</div>"),
        ("<!-- c --> and text\n", "text on the line of a comment", "and text"),
        ("Some <b>bold</b>.\n", "HTML in the text", "<b>"),
        ("A ![card](card.png).\n", "a picture", "![card](card.png)"),
        ("A [site](https://example.com).\n", "a Markdown link", "[site](https://example.com)"),
        ("At <https://example.com>.\n", "an address in `<` `>`", "<https://example.com>"),
        ("~~gone~~ text\n", "struck-through text", "~~"),
        ("- [ ] to do\n", "a task box", "[ ]"),
        ("> [!WARNING]\n> Careful.\n", "a GitHub alert (`[!WARNING]`)", "[!WARNING]"),
        ("Two  \nlines\n", "a line break inside a paragraph", "  "),
        ("Two\\\nlines\n", "a line break inside a paragraph", "\\"),
        ("3. three\n4. four\n", "a list numbered from 3", "3"),
        ("Text [p]\n\n[p]: https://example.com\n", "a link definition", "[p]: https://example.com"),
        ("{{ value _a }} b_\n", "Markdown reads bold or italic inside this placeholder", "_"),
        ("[[a|*b*]]\n", "Markdown inside a link's text", "*b*"),
    ];
    for (text, message, at) in cases {
        let e = errors(text);
        assert!(e.iter().any(|(m, s)| m == message && s == at), "{text:?} gives {e:#?}, not {message:?} at {at:?}");
    }
    // A footnote's definition is reported, and its text left out.
    let text = "Note[^n].\n\n[^n]: Here.\n";
    let (b, e) = parse(text);
    assert_eq!(e.iter().map(|e| &text[e.span.clone()]).collect::<Vec<_>>(), ["[^n]", "[^n]:"]);
    assert_eq!(b.len(), 1, "{b:#?}");
}

#[test]
fn every_hint_says_what_to_write() {
    for text in ["#### a", "***", "<div>x</div>", "![a](b)", "[a](b)", "a[^1]\n\n[^1]: b", "~~a~~", "- [ ] a"] {
        let (_, e) = parse(text);
        assert!(!e.is_empty() && e.iter().all(|e| e.hint.is_some()), "{text:?}: {e:#?}");
    }
}

#[test]
fn markdown_reads_what_commonmark_reads() {
    // `_` marks italic too, an underlined line is a heading, `+` and `1)` make lists.
    let b = ok("_one_ and __two__\n\nTitle\n=====\n\n+ a\n\n1) b\n");
    let Block::Para { inline, .. } = &b[0] else { panic!("{b:#?}") };
    assert_eq!(inline[0], Inline::Italic(vec![Inline::Text("one".into())]));
    assert_eq!(inline[2], Inline::Bold(vec![Inline::Text("two".into())]));
    assert!(matches!(&b[1], Block::Heading { level: 1, .. }));
    assert!(matches!(&b[2], Block::List { ordered: false, .. }));
    assert!(matches!(&b[3], Block::List { ordered: true, .. }));
    // A code span is printed as written, and nothing in it is Crown's syntax.
    let b = ok("Run `crown check {{ x }}` first.");
    assert_eq!(
        b[0],
        Block::Para { inline: vec![Inline::Text("Run `crown check {{ x }}` first.".into())], span: 0..32 }
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let (_, e) = parse(&">".repeat(100_000));
    assert!(e.iter().any(|e| e.message.contains("nested more than")), "{e:?}");
    let (_, e) = parse(&(0..20).map(|i| format!("{}- x\n", "  ".repeat(i))).collect::<String>());
    assert!(e.iter().any(|e| e.message.contains("nested more than")), "{e:?}");
    let deep = format!("{}x{}", "*a _".repeat(50), "_ a*".repeat(50));
    let (_, e) = parse(&deep);
    assert!(e.iter().any(|e| e.message.contains("nested too deeply")), "{e:?}");
    // Unclosed openers do not make parsing quadratic.
    let t = std::time::Instant::now();
    let (_, e) = parse(&"{{ [[ ".repeat(200_000));
    assert!(!e.is_empty() && t.elapsed().as_secs() < 10);
    let (_, e) = parse(&"**a ".repeat(100_000));
    assert!(!e.is_empty() && t.elapsed().as_secs() < 20);
}

#[test]
fn escapes_and_plain_colons() {
    let b = ok("Choose one: \\{{ not \\[[ this \\*\\* and a:b:c *see* this");
    let Block::Para { inline, .. } = &b[0] else { panic!() };
    assert_eq!(inline[0], Inline::Text("Choose one: {{ not [[ this ** and a:b:c ".into()));
    assert_eq!(inline[1], Inline::Italic(vec![Inline::Text("see".into())]));
    // An escaped backslash escapes nothing more; `\:` keeps a colon plain.
    let b = ok("a \\\\{{ option hand }} and \\:coin:");
    let Block::Para { inline, .. } = &b[0] else { panic!() };
    assert!(matches!(&inline[1], Inline::Placeholder(p) if p.name == "option"), "{inline:#?}");
    assert_eq!(inline[2], Inline::Text(" and :coin:".into()));
}

/// Every span in what a document gave, placeholders', links' and icons' included.
fn spans(blocks: &[Block], out: &mut Vec<Range<usize>>) {
    fn inline(i: &[Inline], out: &mut Vec<Range<usize>>) {
        for x in i {
            match x {
                Inline::Text(_) => {}
                Inline::Bold(v) | Inline::Italic(v) => inline(v, out),
                Inline::Icon { span, .. } => out.push(span.clone()),
                Inline::Link { span, target_span, .. } => out.extend([span.clone(), target_span.clone()]),
                Inline::Placeholder(p) => placeholder(p, out),
            }
        }
    }
    fn placeholder(p: &Placeholder, out: &mut Vec<Range<usize>>) {
        out.extend([p.span.clone(), p.name_span.clone()]);
        out.extend(p.args.iter().flat_map(|a| [a.span.clone(), a.value_span.clone()]));
    }
    for b in blocks {
        match b {
            Block::Heading { inline: i, span, .. } | Block::Para { inline: i, span } => {
                out.push(span.clone());
                inline(i, out);
            }
            Block::List { items, .. } => items.iter().for_each(|i| spans(i, out)),
            Block::Note(inner) => spans(inner, out),
            Block::Table { header, rows, span } => {
                out.push(span.clone());
                header.iter().chain(rows.iter().flatten()).for_each(|c| inline(c, out));
            }
            Block::Alone(p) => placeholder(p, out),
        }
    }
}

#[test]
fn any_document_reads_without_a_panic_and_every_span_is_in_the_file() {
    const PIECES: &[&str] = &[
        "*", "_", "**", "{{", "}}", "[[", "]]", "|", "\\", "`", "<!--", "-->", "\n", "\n\n", "> ", "- ", "1. ", "3. ",
        "# ", "#### ", " ", "  ", "    ", "\t", "a", "é", "😀", ":", "coin", "&amp;", "&#123;", "<b>", "~~", "[^1]",
        "[^1]: ", "![", "](", ")", "---", "\"", "=", "x=", "| --- |", "\r\n", "[x]: y", "- [ ] ", "[!NOTE]", "```",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let len = next() % 40;
        let text: String = (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        let (blocks, errors) = parse(&text);
        let mut all: Vec<Range<usize>> = errors.iter().map(|e| e.span.clone()).collect();
        spans(&blocks, &mut all);
        for s in all {
            assert!(
                s.start <= s.end && text.get(s.clone()).is_some(),
                "{s:?} is not a span of {text:?}: {blocks:#?} {errors:#?}"
            );
        }
    }
}
