//! Definition lists kept in a spreadsheet: CSV, or the first sheet of an XLSX or ODS
//! workbook (read with calamine). A header row names the fields (`id`, `name`, `count`,
//! `keywords`, `value.attack`, `cost.wood`, `attr.faction`, `back.text`...); each row below
//! is one definition.
//!
//! Each row becomes the same spanned value a `[[card]]` table parses to, its spans
//! pointing at the cells, so the loader checks a row exactly as it checks a TOML table
//! and every diagnostic lands on its cell. A CSV file is shown as itself; a workbook as a
//! text rendering of its first sheet, one line per row, so line numbers are row numbers.

use std::ops::Range;

use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

use crate::diag::{did_you_mean, Diagnostic, SourceFile};

/// The kinds of file a definition list may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TableFormat {
    Csv,
    Xlsx,
    Ods,
}

impl TableFormat {
    /// The format of a file name: `.csv`, `.xlsx` or `.ods` (any case).
    pub fn of(name: &str) -> Option<TableFormat> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".csv") {
            Some(TableFormat::Csv)
        } else if lower.ends_with(".xlsx") {
            Some(TableFormat::Xlsx)
        } else if lower.ends_with(".ods") {
            Some(TableFormat::Ods)
        } else {
            None
        }
    }
}

/// Whether a file name is a definition list Crown reads: TOML or a spreadsheet. Lock and
/// temporary files of office programs (`~$cards.xlsx`, `.~lock.cards.ods#`) are not.
pub fn is_definition_list(name: &str) -> bool {
    !name.starts_with("~$") && !name.starts_with('.') && (name.ends_with(".toml") || TableFormat::of(name).is_some())
}

/// One cell: its text, where it is shown, and where it sits in the sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    /// Byte span in the shown text.
    pub span: Range<usize>,
    /// 1-based row and column of the sheet.
    pub row: usize,
    pub col: usize,
    /// The formula of a workbook cell that has one (without its `=`).
    pub formula: Option<String>,
    /// A workbook value Crown does not read (a date, an error such as `#DIV/0!`), in
    /// words; its `text` is then empty.
    pub bad: Option<String>,
}

/// A sheet as read: the text shown in diagnostics and its rows of cells.
#[derive(Debug, Clone, Default)]
pub struct Sheet {
    /// The sheet's name in its workbook (empty for CSV).
    pub name: String,
    pub shown: String,
    pub rows: Vec<Vec<Cell>>,
}

impl Sheet {
    /// The sheet a diagnostic reads back from a list's shown text (a CSV file is shown
    /// as itself, a workbook written as CSV).
    pub fn from_shown(shown: &str) -> Option<Sheet> {
        parse_csv(shown).ok()
    }

    /// The cell under the column headed `header` in the row that holds the byte offset
    /// `at` of the shown text (a definition's row): where a value of that row is written.
    pub fn cell_at(&self, at: usize, header: &str) -> Option<&Cell> {
        let head = content_rows(self).next()?;
        let col = head.iter().find(|h| h.text.trim() == header)?.col;
        let row = self
            .rows
            .iter()
            .find(|r| r.first().is_some_and(|c| c.span.start <= at) && r.last().is_some_and(|c| at <= c.span.end))?;
        row.iter().find(|c| c.col == col && !std::ptr::eq(row, head))
    }

    /// The header row: the first row that holds something and is not a comment.
    pub fn header(&self) -> Option<&Vec<Cell>> {
        content_rows(self).next()
    }

    /// The header cell of the column headed `header`.
    pub fn header_cell(&self, header: &str) -> Option<&Cell> {
        content_rows(self).next()?.iter().find(|h| h.text.trim() == header)
    }
}

/// `A`, `B`, ..., `Z`, `AA`: a spreadsheet's name for a 1-based column.
pub fn column_name(mut col: usize) -> String {
    let mut s = Vec::new();
    while col > 0 {
        col -= 1;
        s.push(b'A' + (col % 26) as u8);
        col /= 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// Parse CSV (RFC 4180: `"` quotes, `""` inside quotes, CRLF or LF) with the span of
/// every cell. The delimiter is `,`, or `;` when the first line has semicolons and no
/// commas (what spreadsheets write in locales with a decimal comma). An unclosed quote
/// is an error at the quote.
pub fn parse_csv(text: &str) -> Result<Sheet, (String, Range<usize>)> {
    let first_line = text.lines().next().unwrap_or("");
    let delim = if !first_line.contains(',') && first_line.contains(';') { b';' } else { b',' };
    let b = text.as_bytes();
    let mut rows = Vec::new();
    let mut row: Vec<Cell> = Vec::new();
    // A byte-order mark (what Excel writes, and `crown export csv --bom`) is not part of
    // the first cell; spans stay offsets into the text as read.
    let mut i = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    loop {
        // One field, from `i` to the delimiter or the end of the record.
        let start = i;
        let mut value = String::new();
        let mut k = i;
        if b.get(i) == Some(&b'"') {
            let mut j = i + 1;
            let mut seg = j;
            loop {
                match b.get(j) {
                    None => return Err(("a quote opened here is never closed".into(), start..start + 1)),
                    Some(b'"') if b.get(j + 1) == Some(&b'"') => {
                        value.push_str(&text[seg..=j]);
                        j += 2;
                        seg = j;
                    }
                    Some(b'"') => {
                        value.push_str(&text[seg..j]);
                        j += 1;
                        break;
                    }
                    Some(_) => j += 1,
                }
            }
            k = j;
        }
        // Unquoted text (or anything after a closing quote) runs to the delimiter.
        let rest = k;
        while k < b.len() && b[k] != delim && b[k] != b'\n' && b[k] != b'\r' {
            k += 1;
        }
        value.push_str(&text[rest..k]);
        // Rows are numbered as a spreadsheet shows them: a line break inside quotes is
        // part of its cell, not a new row.
        row.push(Cell {
            text: unguarded(value),
            span: start..k,
            row: rows.len() + 1,
            col: row.len() + 1,
            formula: None,
            bad: None,
        });
        i = k;
        if i < b.len() && b[i] == delim {
            i += 1;
            continue;
        }
        rows.push(std::mem::take(&mut row));
        if i >= b.len() {
            break;
        }
        i += if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
        if i >= b.len() {
            break;
        }
    }
    Ok(Sheet { name: String::new(), shown: text.to_string(), rows })
}

/// How a column's cells become a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Text,
    Int,
    Bool,
    List,
}

/// The columns a definition list may have (besides `value.*`, `cost.*`, `attr.*` and
/// `back.*`), with their types.
const FIELDS: &[(&str, Type)] = &[
    ("id", Type::Text),
    ("name", Type::Text),
    ("kind", Type::Text),
    ("keywords", Type::List),
    ("count", Type::Int),
    ("text", Type::Text),
    ("flavor", Type::Text),
    ("art", Type::Text),
    ("script", Type::Text),
    ("hooks", Type::List),
    ("cards", Type::List),
    ("decks", Type::List),
    ("serial", Type::Int),
    ("override", Type::Bool),
];

/// A column: where its value goes (`["values", "attack"]`) and its type.
#[derive(Debug, Clone)]
struct Column {
    path: Vec<String>,
    ty: Type,
}

fn column(header: &str) -> Result<Column, String> {
    let h = header.trim();
    let col = |path: Vec<&str>, ty| Column { path: path.into_iter().map(String::from).collect(), ty };
    if let Some((_, ty)) = FIELDS.iter().find(|(f, _)| *f == h) {
        return Ok(col(vec![h], *ty));
    }
    let keyed = |rest: &str, prefix: &str| -> Result<String, String> {
        if rest.is_empty() {
            Err(format!("`{h}` names no key: write `{prefix}.<key>`"))
        } else {
            Ok(rest.to_string())
        }
    };
    let (face, rest) = match h.strip_prefix("back.") {
        Some(r) => (Some("back"), r),
        None => (None, h),
    };
    let mut path: Vec<String> = face.map(|f| vec![f.to_string()]).unwrap_or_default();
    let ty = if let Some(k) = rest.strip_prefix("value.") {
        path.extend(["values".to_string(), keyed(k, "value")?]);
        Type::Int
    } else if let Some(k) = rest.strip_prefix("cost.") {
        path.extend(["cost".to_string(), keyed(k, "cost")?]);
        Type::Int
    } else if let Some(k) = rest.strip_prefix("attr.") {
        path.extend(["attrs".to_string(), keyed(k, "attr")?]);
        Type::Text
    } else if face.is_some() && (rest == "name" || rest == "text") {
        path.push(rest.to_string());
        Type::Text
    } else {
        if h == "stages" || h.starts_with("stages.") || h.starts_with("stage.") {
            return Err("multi-stage cards cannot be kept in a spreadsheet: keep them in a .toml file".into());
        }
        if h == "cells" || h.starts_with("cells.") || h.starts_with("cell.") {
            return Err(
                "tiles (definitions with cells) cannot be kept in a spreadsheet: keep them in a .toml file".into()
            );
        }
        let mut known: Vec<String> = FIELDS.iter().map(|(f, _)| f.to_string()).collect();
        known.extend(["back.name", "back.text"].map(String::from));
        let near = did_you_mean(h, known.iter().map(String::as_str)).map(|n| format!(" (did you mean `{n}`?)"));
        return Err(format!(
            "unknown column `{h}`{}; columns are {}, value.<key>, cost.<key>, attr.<key> and back.name, back.text, back.value.<key>, back.cost.<key>, back.attr.<key>",
            near.unwrap_or_default(),
            FIELDS.iter().map(|(f, _)| *f).collect::<Vec<_>>().join(", ")
        ));
    };
    Ok(Column { path, ty })
}

/// `row 4, column D (value.attack)`: where a cell is, in a spreadsheet's words.
pub fn cell_label(cell: &Cell, header: &str) -> String {
    format!("row {}, column {} ({header})", cell.row, column_name(cell.col))
}

/// A value of the right type for a cell; text the type does not accept stays text, so
/// that deserializing reports it at the cell.
fn cell_value(cell: &Cell, ty: Type) -> Spanned<DeValue<'_>> {
    let t = cell.text.trim();
    let span = cell.span.clone();
    let text = || Spanned::new(span.clone(), DeValue::String(std::borrow::Cow::Owned(cell.text.clone())));
    match ty {
        Type::Text => text(),
        Type::Int => match DeValue::parse(t) {
            Ok(v) if v.get_ref().is_integer() => Spanned::new(span, v.into_inner()),
            _ => text(),
        },
        Type::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Spanned::new(span, DeValue::Boolean(true)),
            "false" | "no" | "0" => Spanned::new(span, DeValue::Boolean(false)),
            _ => text(),
        },
        Type::List => {
            let mut arr = DeArray::new();
            let raw = cell.text.as_str();
            let mut from = 0;
            for part in raw.split(',') {
                let at = from;
                from += part.len() + 1;
                let item = part.trim();
                if item.is_empty() {
                    continue;
                }
                // The item's own span when the cell is shown as written (not quoted).
                let lead = part.len() - part.trim_start().len();
                let shown_len = span.end - span.start;
                let item_span = if shown_len == raw.len() {
                    span.start + at + lead..span.start + at + lead + item.len()
                } else {
                    span.clone()
                };
                arr.push(Spanned::new(item_span, DeValue::String(std::borrow::Cow::Owned(item.to_string()))));
            }
            Spanned::new(span, DeValue::Array(arr))
        }
    }
}

/// The rows that hold something: not empty, not comments (a first cell starting with `#`).
fn content_rows(sheet: &Sheet) -> impl Iterator<Item = &Vec<Cell>> {
    let blank = |r: &&Vec<Cell>| r.iter().all(|c| c.text.trim().is_empty());
    let comment = |r: &&Vec<Cell>| r.first().is_some_and(|c| c.text.trim_start().starts_with('#'));
    sheet.rows.iter().filter(move |r| !blank(r) && !comment(r))
}

/// Label each diagnostic on a spreadsheet (without a label of its own) with the row and
/// column of the cell it points at: `row 4, column E (keywords)`. The shown text of a
/// CSV is the file, and that of a workbook is written as CSV, so it is read back the same
/// way.
pub fn label_cells(diags: &mut [Diagnostic], sources: &crate::diag::SourceMap) {
    let mut sheets: std::collections::BTreeMap<std::path::PathBuf, Option<Sheet>> = Default::default();
    for d in diags {
        let (Some(file), Some(span), None) = (&d.file, &d.span, &d.label) else { continue };
        if file.file_name().and_then(|n| n.to_str()).and_then(TableFormat::of).is_none() {
            continue;
        }
        let sheet = sheets
            .entry(file.clone())
            .or_insert_with(|| sources.get(file).and_then(|f| parse_csv(&f.text).ok()))
            .as_ref();
        let Some(sheet) = sheet else { continue };
        let Some(header) = content_rows(sheet).next() else { continue };
        let cell = sheet.rows.iter().flatten().find(|c| c.span.start <= span.start && span.start <= c.span.end);
        if let Some(cell) = cell {
            let name = header.iter().find(|h| h.col == cell.col).map(|h| h.text.trim()).unwrap_or("");
            d.label = Some(if name.is_empty() {
                format!("row {}, column {}", cell.row, column_name(cell.col))
            } else {
                cell_label(cell, name)
            });
        }
    }
}

/// An error for every formula cell with no saved result: read as empty, it would
/// silently become a default (a `count` of 1). Files written by a program that does not
/// compute formulas (a script's library such as openpyxl) hold such cells. An error for
/// every cell holding a date or an error value (`#DIV/0!`), which no field reads.
fn unsaved_formulas(sheet: &Sheet, src: &SourceFile) -> Vec<Diagnostic> {
    let header = content_rows(sheet).next();
    let comment = |r: &Vec<Cell>| r.first().is_some_and(|c| c.text.trim_start().starts_with('#'));
    let mut diags = Vec::new();
    for cell in sheet.rows.iter().filter(|r| !comment(r)).flatten() {
        let place = format!("sheet `{}`, row {}, column {}", sheet.name, cell.row, column_name(cell.col));
        if let Some(bad) = &cell.bad {
            let formula = cell.formula.as_deref().map(|f| format!(" (its formula is `={f}`)")).unwrap_or_default();
            diags.push(
                Diagnostic::error(
                    "unreadable-value",
                    format!("{place} holds {bad}{formula}, which is neither text nor a number"),
                )
                .at(src, cell.span.clone())
                .label(format!("row {}, column {}", cell.row, column_name(cell.col)))
                .hint(
                    "type the value as text or a whole number (a spreadsheet turns entries such as 1/2 or 3-4 into \
                     dates: format the column as text first), or fix the formula that gives an error",
                ),
            );
            continue;
        }
        let Some(formula) = cell.formula.as_deref().filter(|_| cell.text.trim().is_empty()) else { continue };
        let name = header.and_then(|h| h.iter().find(|h| h.col == cell.col)).map(|h| h.text.trim()).unwrap_or("");
        let label = match name {
            "" => format!("row {}, column {}", cell.row, column_name(cell.col)),
            _ if header.is_some_and(|h| h.first().is_some_and(|c| c.row == cell.row)) => {
                format!("row {}, column {}", cell.row, column_name(cell.col))
            }
            _ => cell_label(cell, name),
        };
        diags.push(
            Diagnostic::error(
                "formula-without-value",
                format!("the formula `={formula}` in {place} has no saved result, so its value cannot be read"),
            )
            .at(src, cell.span.clone())
            .label(label)
            .hint(
                "open the file in a program that computes formulas (LibreOffice Calc, Excel) and save it, or type the value into the cell; a file written by a script library (such as openpyxl) keeps formulas without their results",
            ),
        );
    }
    diags
}

/// Unknown columns reported one by one; past these, one error counts the rest.
const SHOWN_UNKNOWN_COLUMNS: usize = 20;

/// The rows of a sheet as spanned tables, one per definition, with the diagnostics of
/// the sheet itself (unknown or repeated columns, cells beyond the header). Rows whose
/// first cell starts with `#` are comments; empty rows are skipped.
pub fn rows_to_items<'a>(sheet: &'a Sheet, src: &SourceFile) -> (Vec<Spanned<DeValue<'a>>>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut rows = content_rows(sheet);
    let Some(header) = rows.next() else {
        diags.push(
            Diagnostic::error("empty-file", "no header row: the first row names the columns")
                .in_file(&src.path)
                .hint("start with a row such as `id,name,kind,count,text`, then one row per definition"),
        );
        return (Vec::new(), diags);
    };
    let mut columns: Vec<Option<Column>> = Vec::new();
    let mut seen: Vec<(String, Range<usize>)> = Vec::new();
    let mut unknown = 0;
    for cell in header {
        let h = cell.text.trim();
        if h.is_empty() {
            columns.push(None);
            continue;
        }
        match column(h) {
            Ok(c) => {
                if let Some((_, first)) = seen.iter().find(|(p, _)| *p == c.path.join(".")) {
                    diags.push(
                        Diagnostic::error("duplicate-column", format!("column `{h}` appears twice"))
                            .at(src, cell.span.clone())
                            .related(src, first.clone(), "first here"),
                    );
                    columns.push(None);
                    continue;
                }
                seen.push((c.path.join("."), cell.span.clone()));
                columns.push(Some(c));
            }
            Err(msg) => {
                unknown += 1;
                if unknown <= SHOWN_UNKNOWN_COLUMNS {
                    diags.push(Diagnostic::error("unknown-column", msg).at(src, cell.span.clone()));
                }
                columns.push(None);
            }
        }
    }
    if unknown > SHOWN_UNKNOWN_COLUMNS {
        let more = unknown - SHOWN_UNKNOWN_COLUMNS;
        diags.push(
            Diagnostic::error("unknown-column", format!("{more} more unknown columns in the header row"))
                .in_file(&src.path)
                .hint("is the first row the header? it names the fields (`id`, `name`, `count`...)"),
        );
    }
    diags.extend(unsaved_formulas(sheet, src));
    if diags.iter().any(|d| d.code != "formula-without-value") {
        // Rows read against a wrong header would only add follow-on errors.
        return (Vec::new(), diags);
    }
    let mut items = Vec::new();
    for row in rows {
        let start = row.first().map_or(0, |c| c.span.start);
        let end = row.last().map_or(start, |c| c.span.end);
        let mut table = DeTable::new();
        for cell in row {
            let Some(col) = columns.get(cell.col - header[0].col).cloned().flatten() else {
                if !cell.text.trim().is_empty() && cell.col - header[0].col >= columns.len() {
                    diags.push(
                        Diagnostic::error(
                            "cell-outside-columns",
                            "this cell has no column: the header row ends before it",
                        )
                        .at(src, cell.span.clone())
                        .label(format!("row {}, column {}", cell.row, column_name(cell.col)))
                        .hint("add a header for it, or delete it"),
                    );
                }
                continue;
            };
            if cell.text.trim().is_empty() {
                continue;
            }
            insert(&mut table, &col.path, cell_value(cell, col.ty), cell.span.clone());
        }
        items.push(Spanned::new(start..end, DeValue::Table(table)));
    }
    (items, diags)
}

/// Put `value` at `path` in `table`, making the tables on the way (spanned as the cell).
fn insert<'a>(table: &mut DeTable<'a>, path: &[String], value: Spanned<DeValue<'a>>, span: Range<usize>) {
    let key = Spanned::new(span.clone(), std::borrow::Cow::Owned(path[0].clone()));
    if path.len() == 1 {
        table.insert(key, value);
        return;
    }
    let entry = table.entry(key).or_insert_with(|| Spanned::new(span.clone(), DeValue::Table(DeTable::new())));
    if let DeValue::Table(inner) = entry.get_mut() {
        insert(inner, &path[1..], value, span);
    }
}

/// One CSV cell as written: quoted when it holds a delimiter, a quote, a line break, or
/// spaces at either end (which reading would otherwise keep only inside quotes).
fn csv_cell(s: &str) -> String {
    let s = guarded(s);
    if s.contains([',', '"', '\n', '\r', ';']) || s.trim() != s || s.starts_with('#') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

/// Whether a spreadsheet would read a cell holding `s` as a formula (OWASP's "CSV
/// injection": a cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return), or
/// `s` is such a text behind the guard's quote. A plain number (`-3`) is no formula.
fn needs_guard(s: &str) -> bool {
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => s.parse::<i64>().is_err(),
        Some('\'') => needs_guard(&s[1..]),
        _ => false,
    }
}

/// A cell's text as `crown export csv` writes it: with a leading `'` where a spreadsheet
/// would otherwise run it as a formula (the `'` makes it text), so a pack shared with
/// others cannot run a formula on the reader's machine.
pub fn guarded(s: &str) -> std::borrow::Cow<'_, str> {
    if needs_guard(s) {
        format!("'{s}").into()
    } else {
        s.into()
    }
}

/// A cell read from a CSV file, without the guard [`guarded`] adds: export, edit in a
/// spreadsheet and import give back the same text.
fn unguarded(s: String) -> String {
    match s.strip_prefix('\'') {
        Some(rest) if needs_guard(rest) => rest.to_string(),
        _ => s,
    }
}

/// Definitions as a CSV definition list (the columns `crown export csv` writes, read back
/// to the same definitions). `Err` names what a spreadsheet cannot hold: multi-stage
/// cards, list items with a comma, empty attributes.
pub fn to_csv(defs: &[&crate::content::model::Definition]) -> Result<String, Vec<String>> {
    let mut out = String::new();
    for row in to_rows(defs)? {
        out.push_str(&row.iter().map(|c| csv_cell(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    Ok(out)
}

/// Whether a column of [`to_rows`] holds whole numbers (`count`, `serial`, costs and
/// values), which a workbook writes as numbers.
pub fn numeric_column(header: &str) -> bool {
    column(header).is_ok_and(|c| c.ty == Type::Int)
}

/// Definitions as the rows of a definition list: the header, then one row per definition,
/// each cell's text as a spreadsheet shows it (an empty cell for a field left out). What
/// [`to_csv`] writes and `crown export xlsx` puts in a workbook; `Err` as for [`to_csv`].
pub fn to_rows(defs: &[&crate::content::model::Definition]) -> Result<Vec<Vec<String>>, Vec<String>> {
    use std::collections::BTreeSet;
    let mut problems = Vec::new();
    // Stages, a tile's cells and effects are lists of tables, which no column holds.
    let staged: Vec<&str> = defs.iter().filter(|d| !d.stages.is_empty()).map(|d| d.id.as_str()).collect();
    let tiles: Vec<&str> = defs.iter().filter(|d| !d.cells.is_empty()).map(|d| d.id.as_str()).collect();
    let effects: Vec<&str> = defs
        .iter()
        .filter(|d| !d.effects.is_empty() || d.back.as_ref().is_some_and(|b| !b.effects.is_empty()))
        .map(|d| d.id.as_str())
        .collect();
    for (what, ids) in [("stages", staged), ("cells (a tile's squares)", tiles), ("effects", effects)] {
        match ids.len() {
            0 => {}
            1 => problems.push(format!("`{}` has {what}, which need a .toml file", ids[0])),
            n => problems.push(format!(
                "{n} definitions have {what}, which need a .toml file: {}{}",
                ids.iter().take(5).map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
                if n > 5 { format!(" and {} more", n - 5) } else { String::new() }
            )),
        }
    }
    for d in defs {
        for (field, list) in [("keywords", &d.keywords), ("hooks", &d.hooks), ("cards", &d.cards), ("decks", &d.decks)]
        {
            if list.iter().any(|x| x.contains(',') || x.trim() != x || x.is_empty()) {
                problems.push(format!("`{}`: an item of `{field}` has a comma or spaces at an end", d.id));
            }
        }
        let faces = std::iter::once(&d.attrs).chain(d.back.as_ref().map(|b| &b.attrs));
        if faces.flat_map(|a| a.values()).any(|v| v.trim().is_empty()) {
            problems.push(format!("`{}` has an empty attribute, which a spreadsheet cell cannot tell from none", d.id));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let keys = |f: &dyn Fn(&crate::content::model::Definition) -> Vec<String>| -> Vec<String> {
        defs.iter().flat_map(|d| f(d)).collect::<BTreeSet<String>>().into_iter().collect()
    };
    let any = |f: &dyn Fn(&crate::content::model::Definition) -> bool| defs.iter().any(|d| f(d));
    // Columns: the fields some definition uses, in a fixed order.
    let mut cols: Vec<String> = vec!["id".into(), "name".into()];
    for (name, used) in [
        ("kind", any(&|d| !d.kind.is_empty())),
        ("count", true),
        ("serial", any(&|d| d.serial.is_some())),
        ("keywords", any(&|d| !d.keywords.is_empty())),
        ("decks", any(&|d| !d.decks.is_empty())),
    ] {
        if used {
            cols.push(name.into());
        }
    }
    cols.extend(keys(&|d| d.cost.keys().map(|k| format!("cost.{k}")).collect()));
    cols.extend(keys(&|d| d.values.keys().map(|k| format!("value.{k}")).collect()));
    cols.extend(keys(&|d| d.attrs.keys().map(|k| format!("attr.{k}")).collect()));
    for (name, used) in [
        ("text", any(&|d| !d.text.is_empty())),
        ("flavor", any(&|d| !d.flavor.is_empty())),
        ("art", any(&|d| d.art.is_some())),
        ("script", any(&|d| d.script.is_some())),
        ("hooks", any(&|d| !d.hooks.is_empty())),
        ("cards", any(&|d| !d.cards.is_empty())),
        ("override", any(&|d| d.replaces)),
        ("back.name", any(&|d| d.back.as_ref().is_some_and(|b| !b.name.is_empty()))),
        ("back.text", any(&|d| d.back.as_ref().is_some_and(|b| !b.text.is_empty()))),
    ] {
        if used {
            cols.push(name.into());
        }
    }
    let back = |d: &crate::content::model::Definition,
                f: &dyn Fn(&crate::content::model::Face) -> Vec<String>|
     -> Vec<String> { d.back.as_ref().map(f).unwrap_or_default() };
    cols.extend(keys(&|d| back(d, &|b| b.cost.keys().map(|k| format!("back.cost.{k}")).collect())));
    cols.extend(keys(&|d| back(d, &|b| b.values.keys().map(|k| format!("back.value.{k}")).collect())));
    cols.extend(keys(&|d| back(d, &|b| b.attrs.keys().map(|k| format!("back.attr.{k}")).collect())));
    let mut out = vec![cols.clone()];
    for d in defs {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| {
                let get = |m: &std::collections::BTreeMap<String, i64>, k: &str| m.get(k).map(i64::to_string);
                let v: Option<String> = match c.as_str() {
                    "id" => Some(d.id.clone()),
                    "name" => Some(d.name.clone()),
                    "kind" => Some(d.kind.clone()),
                    "count" => Some(d.count.to_string()),
                    "serial" => d.serial.map(|s| s.to_string()),
                    "keywords" => Some(d.keywords.join(", ")),
                    "decks" => Some(d.decks.join(", ")),
                    "text" => Some(d.text.clone()),
                    "flavor" => Some(d.flavor.clone()),
                    "art" => d.art.clone(),
                    "script" => d.script.clone(),
                    "hooks" => Some(d.hooks.join(", ")),
                    "cards" => Some(d.cards.join(", ")),
                    "override" => d.replaces.then(|| "true".to_string()),
                    "back.name" => d.back.as_ref().map(|b| b.name.clone()),
                    "back.text" => d.back.as_ref().map(|b| b.text.clone()),
                    other => {
                        let (face, rest) = match other.strip_prefix("back.") {
                            Some(r) => (d.back.as_ref(), r),
                            None => (None, other),
                        };
                        let on_back = other.starts_with("back.");
                        if let Some(k) = rest.strip_prefix("cost.") {
                            if on_back {
                                face.and_then(|b| get(&b.cost, k))
                            } else {
                                get(&d.cost, k)
                            }
                        } else if let Some(k) = rest.strip_prefix("value.") {
                            if on_back {
                                face.and_then(|b| get(&b.values, k))
                            } else {
                                get(&d.values, k)
                            }
                        } else if let Some(k) = rest.strip_prefix("attr.") {
                            if on_back {
                                face.and_then(|b| b.attrs.get(k).cloned())
                            } else {
                                d.attrs.get(k).cloned()
                            }
                        } else {
                            None
                        }
                    }
                };
                v.unwrap_or_default()
            })
            .collect();
        out.push(cells);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &Sheet) -> Vec<Vec<&str>> {
        s.rows.iter().map(|r| r.iter().map(|c| c.text.as_str()).collect()).collect()
    }

    #[test]
    fn a_cell_a_spreadsheet_would_run_is_written_as_text_and_read_back_the_same() {
        for text in
            ["=1+1", "=HYPERLINK(\"http://x.invalid\",\"Deny\")", "+2 gold", "-cmd|x", "@SUM(A1)", "\tx", "'=1", "''=1"]
        {
            let cell = csv_cell(text);
            assert!(
                !cell.trim_start_matches('"').starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{text:?} -> {cell:?}"
            );
            let back = parse_csv(&format!("a\n{cell}\n")).unwrap();
            assert_eq!(back.rows[1][0].text, text, "{cell:?} reads back");
        }
        // Plain text, numbers and a quote that guards nothing are left as they are.
        for text in ["Deny", "-3", "'Tis", "a = b"] {
            assert_eq!(csv_cell(text), text);
            assert_eq!(parse_csv(&format!("a\n{text}\n")).unwrap().rows[1][0].text, text);
        }
    }

    #[test]
    fn csv_cells_keep_their_spans() {
        let text = "id,name,text\r\na,\"Alpha, the first\",\"Say \"\"hi\"\"\nthen go\"\nb,Beta,\n";
        let s = parse_csv(text).unwrap();
        assert_eq!(
            texts(&s),
            vec![
                vec!["id", "name", "text"],
                vec!["a", "Alpha, the first", "Say \"hi\"\nthen go"],
                vec!["b", "Beta", ""]
            ]
        );
        let c = &s.rows[1][1];
        assert_eq!(&text[c.span.clone()], "\"Alpha, the first\"");
        assert_eq!((c.row, c.col), (2, 2));
        // The row after a cell spanning two lines starts on line 4 of the file, and is
        // row 3 of the sheet.
        assert_eq!(s.rows[2][0].row, 3);
        assert_eq!(SourceFile::new("x.csv", text).line_col(s.rows[2][0].span.start).0, 4);
        assert_eq!(&text[s.rows[2][0].span.clone()], "b");
        assert!(parse_csv("id,name\na,\"open").is_err());
        let semi = parse_csv("id;name\na;Alpha").unwrap();
        assert_eq!(texts(&semi), vec![vec!["id", "name"], vec!["a", "Alpha"]]);
        assert_eq!(texts(&parse_csv("a,b,").unwrap()), vec![vec!["a", "b", ""]]);
        // A byte-order mark is not part of the first header.
        let bom = "\u{feff}id,name\na,Alpha\n";
        let s = parse_csv(bom).unwrap();
        assert_eq!(texts(&s), vec![vec!["id", "name"], vec!["a", "Alpha"]]);
        assert_eq!(&bom[s.rows[0][0].span.clone()], "id");
        assert!(numeric_column("count") && numeric_column("value.attack") && numeric_column("back.cost.gold"));
        assert!(!numeric_column("name") && !numeric_column("attr.side") && !numeric_column("keywords"));
        assert_eq!(column_name(1), "A");
        assert_eq!(column_name(28), "AB");
    }

    #[test]
    fn a_formula_without_a_saved_result_is_an_error_at_its_cell() {
        let cell = |text: &str, at: usize, row, col, formula: Option<&str>| Cell {
            text: text.into(),
            span: at..at + formula.map_or(text.len(), |f| f.len() + 1),
            row,
            col,
            formula: formula.map(String::from),
            bad: None,
        };
        // As workbook::read shows it: the second row's count is `=2*2` with no result, the
        // third's `=1+1` with its saved result 2.
        let shown = "id,count\na,=2*2\nb,2\n";
        let sheet = Sheet {
            name: "Cards".into(),
            shown: shown.into(),
            rows: vec![
                vec![cell("id", 0, 1, 1, None), cell("count", 3, 1, 2, None)],
                vec![cell("a", 9, 2, 1, None), cell("", 11, 2, 2, Some("2*2"))],
                vec![cell("b", 16, 3, 1, None), cell("2", 18, 3, 2, Some("1+1"))],
            ],
        };
        let src = SourceFile::new("cards.xlsx", shown);
        let (items, diags) = rows_to_items(&sheet, &src);
        assert_eq!(items.len(), 2);
        assert_eq!(diags.len(), 1, "{diags:#?}");
        let d = &diags[0];
        assert_eq!(d.code, "formula-without-value");
        assert!(d.message.contains("`=2*2` in sheet `Cards`, row 2, column B"), "{}", d.message);
        assert!(d.hint.as_deref().unwrap_or("").contains("computes formulas"), "{d:?}");
        assert_eq!((d.line, d.column, d.label.as_deref()), (2, 3, Some("row 2, column B (count)")));
    }

    #[test]
    fn columns_map_to_fields() {
        assert_eq!(column("value.attack").unwrap().path, ["values", "attack"]);
        assert_eq!(column("back.cost.wood").unwrap().path, ["back", "cost", "wood"]);
        assert_eq!(column("keywords").unwrap().ty, Type::List);
        assert!(column("stages").unwrap_err().contains("toml"));
        assert!(column("cells").unwrap_err().contains("toml"));
        let tile = crate::content::model::Definition {
            id: "d1".into(),
            cells: vec![crate::content::model::TileCell { terrain: "wood".into(), ..Default::default() }],
            ..Default::default()
        };
        let refused = to_csv(&[&tile]).unwrap_err();
        assert_eq!(
            refused,
            ["`d1` has cells (a tile's squares), which need a .toml file"],
            "a tile is never written without its cells"
        );
        assert!(column("nmae").unwrap_err().contains("did you mean `name`"));
        assert!(column("value.").is_err());
        assert!(is_definition_list("cards.csv") && !is_definition_list("~$cards.xlsx") && !is_definition_list("x.png"));
    }
}
