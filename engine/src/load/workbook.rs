//! Reading a workbook (XLSX, ODS) within limits. A workbook is a zip archive of XML
//! parts: the 8 MiB a definition list may take on disk can unpack to gigabytes (a zip
//! bomb), and its XML can ask for far more cells than it holds (one cell at `XFD1048576`,
//! ODS's repeated rows and columns), which a reader building the sheet as a grid would
//! allocate. So before calamine reads anything, the archive is checked here: it must be
//! a zip (a password-protected workbook or an old `.xls` is an OLE file, named as such),
//! not encrypted, of at most [`ARCHIVE_FILES_LIMIT`] parts unpacking (counted as they
//! really unpack, not as their headers say) to at most [`UNZIPPED_LIMIT`] together; an
//! ODS sheet's repeats may not spell out more than [`CELLS_LIMIT`] cells. An XLSX sheet
//! is then read cell by cell (never as a grid), and the sheet Crown builds may span at
//! most [`CELLS_LIMIT`] cells, hold at most [`SHEET_TEXT_LIMIT`] of text and no cell
//! longer than [`CELL_TEXT_LIMIT`] characters (Excel's own limit). Every refusal names
//! the part, sheet or cell.

use std::io::{Cursor, Read};

use super::table::{column_name, Cell, Sheet, TableFormat};

const MIB: u64 = 1024 * 1024;
/// Parts (files) in a workbook's archive.
pub const ARCHIVE_FILES_LIMIT: usize = 10_000;
/// What the parts of a workbook unpack to, together.
pub const UNZIPPED_LIMIT: u64 = 64 * MIB;
/// Cells of the first sheet's used range (and of all an ODS file's sheets, repeats
/// spelled out): ten thousand definitions of a hundred columns.
pub const CELLS_LIMIT: u64 = 1_000_000;
/// A spreadsheet's rows and columns (Excel's and LibreOffice's: `XFD1048576`).
const MAX_ROWS: u32 = 1 << 20;
const MAX_COLUMNS: u32 = 1 << 14;
/// Characters in one cell: Excel's own limit.
pub const CELL_TEXT_LIMIT: usize = 32_767;
/// Text of the first sheet, its cells and formulas together.
pub const SHEET_TEXT_LIMIT: u64 = 32 * MIB;

/// The first bytes of an OLE compound file: an encrypted OOXML workbook or an `.xls`.
const OLE_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

const PASSWORD: &str = "the workbook is password-protected (encrypted), so Crown cannot read its cells; \
                        save a copy without the password";

/// Why a workbook cannot be read, and what to do when the answer is to save it again.
#[derive(Debug)]
pub struct Unreadable {
    pub message: String,
    pub hint: Option<&'static str>,
}

impl From<String> for Unreadable {
    fn from(message: String) -> Self {
        Unreadable { message, hint: None }
    }
}

impl From<&str> for Unreadable {
    fn from(message: &str) -> Self {
        Unreadable { message: message.to_string(), hint: None }
    }
}

/// An error of calamine's (the XML of a part is not what a workbook holds).
fn damaged(e: impl std::fmt::Display) -> Unreadable {
    Unreadable { message: e.to_string(), hint: Some("save it again as .xlsx or .ods (or export it as .csv)") }
}

/// `B7`: a spreadsheet's name for a 0-based (row, column).
fn cell_name(row: u32, col: u32) -> String {
    format!("{}{}", column_name(col as usize + 1), u64::from(row) + 1)
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whether the bytes are a zip archive, and if not, what they are.
fn sniff(bytes: &[u8], format: TableFormat) -> Result<(), String> {
    let ext = if format == TableFormat::Ods { ".ods" } else { ".xlsx" };
    if bytes.is_empty() {
        return Err(format!("the file is empty; an {ext} workbook is a zip archive"));
    }
    if bytes.starts_with(OLE_MAGIC) {
        return Err(format!(
            "it is an OLE compound file, not the zip archive an {ext} workbook is: a password-protected (encrypted) \
             workbook, or an old .xls file renamed; save a copy without the password, as {ext}"
        ));
    }
    if !bytes.starts_with(b"PK\x03\x04") && !bytes.starts_with(b"PK\x05\x06") {
        let head = &bytes[..bytes.len().min(8)];
        let texty = bytes.iter().take(512).all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace() || *b >= 0x80);
        return Err(if texty {
            format!("it holds text, not the zip archive an {ext} workbook is (a CSV file? name it .csv)")
        } else {
            format!(
                "it is not a zip archive, as an {ext} workbook is (it starts with the bytes {})",
                head.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
            )
        });
    }
    Ok(())
}

/// Check the archive: its parts, what they unpack to, encryption; for ODS, the cells its
/// sheets' repeats spell out.
pub fn check_archive(bytes: &[u8], format: TableFormat) -> Result<(), String> {
    sniff(bytes, format)?;
    let mut zip =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("it is not a readable zip archive ({e})"))?;
    if zip.len() > ARCHIVE_FILES_LIMIT {
        return Err(format!(
            "its archive holds {} parts, over the limit of {} for a workbook",
            thousands(zip.len() as u64),
            thousands(ARCHIVE_FILES_LIMIT as u64)
        ));
    }
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut part = match zip.by_index(i) {
            Ok(p) => p,
            Err(e) if e.to_string().to_ascii_lowercase().contains("password") => return Err(PASSWORD.into()),
            Err(e) => return Err(format!("part {} of its archive cannot be read ({e})", i + 1)),
        };
        if part.encrypted() {
            return Err(PASSWORD.into());
        }
        let name = part.name().map(|n| n.to_string()).unwrap_or_else(|_| format!("number {}", i + 1));
        let left = UNZIPPED_LIMIT - total;
        let mut manifest = Vec::new();
        let mut strings = Entries::default();
        let read = if name == "META-INF/manifest.xml" {
            (&mut part).take(left + 1).read_to_end(&mut manifest).map(|n| n as u64)
        } else if name.ends_with("sharedStrings.xml") {
            std::io::copy(&mut (&mut part).take(left + 1), &mut strings)
        } else {
            std::io::copy(&mut (&mut part).take(left + 1), &mut std::io::sink())
        };
        let n = read.map_err(|e| format!("part `{}` of its archive is damaged ({e})", shown(&name)))?;
        total += n;
        if total > UNZIPPED_LIMIT {
            return Err(format!(
                "its parts unpack to more than {} MiB (the limit for a workbook), passed at part `{}`: a zip bomb, \
                 or far more than a list of definitions",
                UNZIPPED_LIMIT / MIB,
                shown(&name)
            ));
        }
        // Each entry of the shared strings is a string kept in memory once read: 60 MiB
        // of `<si/>` would be 12 million of them.
        if strings.count > CELLS_LIMIT {
            return Err(format!(
                "its shared-strings table (`{}`) holds more than {} entries, the limit for a workbook",
                shown(&name),
                thousands(CELLS_LIMIT)
            ));
        }
        // An ODS file's password leaves the archive readable and its parts encrypted,
        // which the manifest says.
        if manifest.windows(b"encryption-data".len()).any(|w| w == b"encryption-data") {
            return Err(PASSWORD.into());
        }
    }
    if format == TableFormat::Ods {
        let content = match zip.by_name("content.xml") {
            Ok(c) => c,
            Err(_) => return Err("it has no `content.xml`, so it is not an ODS workbook".into()),
        };
        check_ods_cells(std::io::BufReader::new(content))?;
    }
    Ok(())
}

/// Counts the entries (`<si>`, `<si/>`, `<x:si ...>`) of a shared-strings table as it
/// unpacks, keeping nothing but the last bytes of each piece.
#[derive(Default)]
struct Entries {
    count: u64,
    tail: Vec<u8>,
}

impl std::io::Write for Entries {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut b = std::mem::take(&mut self.tail);
        b.extend_from_slice(buf);
        let at = |i: usize| b.get(i).copied();
        for i in 0..b.len().saturating_sub(3) {
            if b[i + 1] == b's'
                && b[i + 2] == b'i'
                && matches!(b[i], b'<' | b':')
                && matches!(at(i + 3), Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                self.count += 1;
            }
        }
        let keep = b.len().min(3);
        self.tail = b[b.len() - keep..].to_vec();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A part's name as shown: printable, at most 80 characters.
fn shown(name: &str) -> String {
    let mut s: String = name.chars().take(80).map(|c| if c.is_control() { '?' } else { c }).collect();
    if name.chars().count() > 80 {
        s.push('…');
    }
    s
}

/// ODS repeats rows (`table:number-rows-repeated`) and cells
/// (`table:number-columns-repeated`), and a reader spells them out: a few bytes can ask
/// for millions of cells, each a copy of the cell's text. Walk `content.xml` as a stream
/// and add up, sheet by sheet, the cells and the text the repeats spell out (as calamine
/// spells them: up to the last row and column holding something), refusing past
/// [`CELLS_LIMIT`] or [`SHEET_TEXT_LIMIT`].
fn check_ods_cells<R: std::io::BufRead>(input: R) -> Result<(), String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(input);
    reader.config_mut().check_end_names = false;
    let attr = |e: &quick_xml::events::BytesStart<'_>, key: &str| -> Option<u64> {
        e.attributes().flatten().find(|a| a.key.0 == key).and_then(|a| a.value.trim().parse().ok())
    };
    let has = |e: &quick_xml::events::BytesStart<'_>, keys: &[&str]| {
        e.attributes().flatten().any(|a| keys.contains(&a.key.0))
    };
    // The sheet: its name, rows spelled out (up to the last holding something), its widest row.
    let (mut sheet, mut rows, mut width, mut empty_rows, mut row_no) = (String::new(), 0u64, 0u64, 0u64, 0u64);
    let (mut cells, mut text) = (0u64, 0u64);
    // The row: its repeat, cells spelled out, empty cells waiting for one that holds something, its text.
    let (mut row_repeat, mut row_cells, mut pending, mut row_text) = (1u64, 0u64, 0u64, 0u64);
    // The cell: its repeat, whether it holds something, its text.
    let (mut in_cell, mut cell_repeat, mut cell_full, mut cell_text) = (false, 1u64, false, 0u64);
    let mut buf = Vec::new();
    let over =
        |sheet: &str, row: u64, what: String| -> String { format!("sheet `{}`, row {row}: {what}", shown(sheet)) };
    loop {
        let ev =
            reader.read_event_into(&mut buf).map_err(|e| format!("its `content.xml` is not well-formed XML ({e})"))?;
        let (start, empty) = match &ev {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            match e.name().0 {
                "table:table" => {
                    sheet = e
                        .attributes()
                        .flatten()
                        .find(|a| a.key.0 == "table:name")
                        .map(|a| a.value.to_string())
                        .unwrap_or_default();
                    (rows, width, empty_rows, row_no) = (0, 0, 0, 0);
                }
                "table:table-row" => {
                    row_repeat = attr(&e, "table:number-rows-repeated").unwrap_or(1).clamp(1, 1 << 20);
                    (row_cells, pending, row_text) = (0, 0, 0);
                    row_no += 1;
                    if empty {
                        empty_rows = empty_rows.saturating_add(row_repeat);
                        row_no = row_no.saturating_add(row_repeat - 1);
                    }
                }
                "table:table-cell" | "table:covered-table-cell" => {
                    cell_repeat = attr(&e, "table:number-columns-repeated").unwrap_or(1).clamp(1, 1 << 14);
                    cell_full = has(&e, &["office:value-type", "table:formula"]);
                    cell_text = 0;
                    in_cell = !empty;
                    if empty {
                        end_cell(cell_full, cell_repeat, cell_text, &mut row_cells, &mut pending, &mut row_text);
                    }
                }
                _ => {}
            }
        }
        match ev {
            Event::Text(t) if in_cell => {
                cell_text = cell_text.saturating_add(t.len() as u64);
                cell_full |= t.chars().any(|c| !c.is_whitespace());
            }
            Event::CData(t) if in_cell => {
                cell_text = cell_text.saturating_add(t.len() as u64);
                cell_full = true;
            }
            Event::End(e) => match e.name().0 {
                "table:table-cell" | "table:covered-table-cell" if in_cell => {
                    in_cell = false;
                    end_cell(cell_full, cell_repeat, cell_text, &mut row_cells, &mut pending, &mut row_text);
                }
                "table:table-row" => {
                    if row_cells == 0 {
                        empty_rows = empty_rows.saturating_add(row_repeat);
                    } else {
                        rows = rows.saturating_add(empty_rows).saturating_add(row_repeat);
                        empty_rows = 0;
                        width = width.max(row_cells);
                        cells = cells.saturating_add(row_cells);
                        text = text.saturating_add(row_text.saturating_mul(row_repeat));
                        let spelled = cells.saturating_add(rows.saturating_mul(width));
                        if spelled > CELLS_LIMIT {
                            return Err(over(
                                &sheet,
                                row_no,
                                format!(
                                    "its repeated rows and columns spell out more than {} cells, the limit for a \
                                     workbook",
                                    thousands(CELLS_LIMIT)
                                ),
                            ));
                        }
                        if text > SHEET_TEXT_LIMIT {
                            return Err(over(
                                &sheet,
                                row_no,
                                format!(
                                    "its repeated cells spell out more than {} MiB of text, the limit for a workbook",
                                    SHEET_TEXT_LIMIT / MIB
                                ),
                            ));
                        }
                    }
                    row_no = row_no.saturating_add(row_repeat - 1);
                }
                "table:table" => cells = cells.saturating_add(rows.saturating_mul(width)),
                _ => {}
            },
            Event::Eof => return Ok(()),
            _ => {}
        }
        buf.clear();
    }
}

/// A cell of an ODS row ends: one holding something spells out the empty cells before
/// it and its repeats; an empty one waits for one that holds something.
fn end_cell(full: bool, repeat: u64, text: u64, row_cells: &mut u64, pending: &mut u64, row_text: &mut u64) {
    if full {
        *row_cells = row_cells.saturating_add(*pending).saturating_add(repeat);
        *pending = 0;
        *row_text = row_text.saturating_add(text.saturating_mul(repeat));
    } else {
        *pending = pending.saturating_add(repeat);
    }
}

/// One cell as read: its text, its formula, and what makes its value unreadable.
struct Raw {
    text: String,
    formula: Option<String>,
    bad: Option<String>,
}

/// The text of a value, and what makes it unreadable (a date, an error).
fn value_text(v: &calamine::Data) -> (String, Option<String>) {
    use calamine::Data;
    match v {
        Data::Empty => (String::new(), None),
        Data::String(s) => (s.clone(), None),
        Data::Int(n) => (n.to_string(), None),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => (format!("{}", *f as i64), None),
        Data::Float(f) => (f.to_string(), None),
        Data::Bool(b) => (b.to_string(), None),
        Data::Error(e) => (e.to_string(), Some(format!("the error {e}"))),
        Data::DateTime(d) => {
            let what = if d.is_duration() { "a duration" } else { "a date or time" };
            (d.to_string(), Some(format!("{what} (stored as the number {d})")))
        }
        Data::DateTimeIso(s) => (s.clone(), Some(format!("a date or time ({s})"))),
        Data::DurationIso(s) => (s.clone(), Some(format!("a duration ({s})"))),
    }
}

/// Cells read so far, and the limits on them.
#[derive(Default)]
struct Cells {
    sheet: String,
    cells: Vec<((u32, u32), Raw)>,
    text: u64,
}

impl Cells {
    fn push(&mut self, at: (u32, u32), raw: Raw) -> Result<(), String> {
        let place = || format!("sheet `{}`, cell {}", shown(&self.sheet), cell_name(at.0, at.1));
        for (what, s) in [("text", Some(&raw.text)), ("formula", raw.formula.as_ref())] {
            if let Some(s) = s.filter(|s| s.len() > CELL_TEXT_LIMIT) {
                let n = s.chars().count();
                if n > CELL_TEXT_LIMIT {
                    return Err(format!(
                        "{}: its {what} is {} characters long; a cell holds at most {} (Excel's own limit)",
                        place(),
                        thousands(n as u64),
                        thousands(CELL_TEXT_LIMIT as u64)
                    ));
                }
            }
        }
        self.text += (raw.text.len() + raw.formula.as_ref().map_or(0, String::len)) as u64;
        if self.text > SHEET_TEXT_LIMIT {
            return Err(format!(
                "{}: the sheet's cells hold more than {} MiB of text, the limit for a workbook",
                place(),
                SHEET_TEXT_LIMIT / MIB
            ));
        }
        if self.cells.len() as u64 >= CELLS_LIMIT {
            return Err(format!(
                "{}: the sheet holds more than {} cells, the limit for a workbook",
                place(),
                thousands(CELLS_LIMIT)
            ));
        }
        self.cells.push((at, raw));
        Ok(())
    }
}

/// Read the first sheet of an XLSX or ODS workbook whose archive passed
/// [`check_archive`]: its name and its cells that hold something.
fn read_cells(bytes: &[u8], format: TableFormat) -> Result<Cells, Unreadable> {
    use calamine::{Data, Reader};
    let mut out = Cells::default();
    let formula_of = |f: &str| {
        // ODS writes `of:=A1*2`, XLSX `A1*2`: kept without the prefix and the `=`.
        Some(f.trim().trim_start_matches("of:").trim_start_matches('=').to_string()).filter(|f| !f.is_empty())
    };
    match format {
        TableFormat::Xlsx => {
            let mut wb: calamine::Xlsx<_> = calamine::Xlsx::new(Cursor::new(bytes)).map_err(damaged)?;
            let Some(first) = wb.sheet_names().first().cloned() else { return Err("the workbook has no sheet".into()) };
            out.sheet = first.clone();
            // Cell by cell: `worksheet_range` would make a grid of the cells' whole span.
            let mut reader =
                wb.worksheet_cells_reader(&first).map_err(|e| damaged(format!("sheet `{}`: {e}", shown(&first))))?;
            while let Some(c) =
                reader.next_cell_with_formula().map_err(|e| damaged(format!("sheet `{}`: {e}", shown(&first))))?
            {
                let formula = c.formula.as_deref().and_then(formula_of);
                // A long shared string is measured before it is copied.
                if let calamine::DataRef::SharedString(s) = &c.value {
                    if s.len() > CELL_TEXT_LIMIT && s.chars().count() > CELL_TEXT_LIMIT {
                        out.push(c.pos, Raw { text: s.to_string(), formula: None, bad: None })?;
                    }
                }
                let value: Data = c.value.into();
                let (text, bad) = value_text(&value);
                if text.is_empty() && formula.is_none() {
                    continue;
                }
                out.push(c.pos, Raw { text, formula, bad })?;
            }
        }
        TableFormat::Ods => {
            let mut wb: calamine::Ods<_> = calamine::Ods::new(Cursor::new(bytes)).map_err(damaged)?;
            let Some(first) = wb.sheet_names().first().cloned() else { return Err("the workbook has no sheet".into()) };
            out.sheet = first.clone();
            let range = wb.worksheet_range(&first).map_err(damaged)?;
            let formulas = wb.worksheet_formula(&first).map_err(damaged)?;
            let mut at: std::collections::BTreeMap<(u32, u32), Raw> = Default::default();
            for (r, c, v) in range.used_cells() {
                let (r, c) = (r as u32 + range.start().map_or(0, |s| s.0), c as u32 + range.start().map_or(0, |s| s.1));
                let (text, bad) = value_text(v);
                at.insert((r, c), Raw { text, formula: None, bad });
            }
            for (r, c, f) in formulas.used_cells() {
                let (r, c) =
                    (r as u32 + formulas.start().map_or(0, |s| s.0), c as u32 + formulas.start().map_or(0, |s| s.1));
                if let Some(f) = formula_of(f) {
                    at.entry((r, c)).or_insert(Raw { text: String::new(), formula: None, bad: None }).formula = Some(f);
                }
            }
            for (pos, raw) in at {
                if !raw.text.is_empty() || raw.formula.is_some() {
                    out.push(pos, raw)?;
                }
            }
        }
        TableFormat::Csv => return Err("not a workbook".into()),
    }
    Ok(out)
}

/// Read the first sheet of an XLSX or ODS workbook within the limits above. The shown
/// text has one line per row of the sheet (so line N is row N), each cell written as CSV
/// would write it. A formula cell keeps its formula (`Cell::formula`); one without a
/// saved result (what a program that does not compute formulas writes) is shown as its
/// formula, with empty text. A date or an error value is kept with what is wrong with it
/// (`Cell::bad`), for the loader to report at the cell.
pub fn read(bytes: &[u8], format: TableFormat) -> Result<Sheet, Unreadable> {
    check_archive(bytes, format)?;
    let Cells { sheet: name, mut cells, .. } = read_cells(bytes, format)?;
    if cells.is_empty() {
        return Ok(Sheet { name, ..Sheet::default() });
    }
    cells.sort_by_key(|c| c.0);
    let (mut r0, mut r1, mut c0, mut c1) = (u32::MAX, 0, u32::MAX, 0);
    for ((r, c), _) in &cells {
        (r0, r1, c0, c1) = (r0.min(*r), r1.max(*r), c0.min(*c), c1.max(*c));
    }
    let place = |r: u32, c: u32| format!("sheet `{}`, cell {}", shown(&name), cell_name(r, c));
    if r1 >= MAX_ROWS || c1 >= MAX_COLUMNS {
        let (r, c) = cells.iter().map(|x| x.0).find(|(r, c)| *r >= MAX_ROWS || *c >= MAX_COLUMNS).unwrap_or((r1, c1));
        return Err(format!(
            "{}: it lies past the last row ({}) or column (XFD) a spreadsheet has",
            place(r, c),
            thousands(u64::from(MAX_ROWS))
        )
        .into());
    }
    // Every row of the used span is written out from column A: that is what it costs.
    let span = (u64::from(r1 - r0) + 1) * (u64::from(c1) + 1);
    if span > CELLS_LIMIT {
        return Err(format!(
            "sheet `{}`: its cells span {} to {} ({} cells from column A), over the limit of {} for a workbook; \
             delete what lies outside the list of definitions",
            shown(&name),
            cell_name(r0, c0),
            cell_name(r1, c1),
            thousands(span),
            thousands(CELLS_LIMIT)
        )
        .into());
    }
    let mut shown_text = String::new();
    let mut rows = Vec::new();
    // Rows above the used range are empty lines, so that line numbers stay row numbers.
    for _ in 0..r0 {
        shown_text.push('\n');
        rows.push(Vec::new());
    }
    let mut next = cells.into_iter().peekable();
    for r in r0..=r1 {
        let mut row = Vec::new();
        let mut line = ",".repeat(c0 as usize);
        for c in c0..=c1 {
            if c > c0 {
                line.push(',');
            }
            let raw = match next.peek() {
                Some((at, _)) if *at == (r, c) => next.next().map(|x| x.1),
                _ => None,
            };
            let Raw { text, formula, bad } = raw.unwrap_or(Raw { text: String::new(), formula: None, bad: None });
            // A formula without a result is shown as the formula, for the diagnostic to
            // point at; a value Crown cannot read is shown as the spreadsheet shows it, and
            // read as nothing (an error value would otherwise make its row a comment).
            let (text, show) = match (&formula, &bad) {
                (_, Some(_)) => (String::new(), text),
                (Some(f), None) if text.is_empty() => (text, format!("={f}")),
                _ => (text.clone(), text),
            };
            let written = if show.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", show.replace('"', "\"\"").replace(['\n', '\r'], " "))
            } else {
                show
            };
            let start = shown_text.len() + line.len();
            line.push_str(&written);
            let (row_no, col_no) = (r as usize + 1, c as usize + 1);
            row.push(Cell { text, span: start..start + written.len(), row: row_no, col: col_no, formula, bad });
        }
        shown_text.push_str(&line);
        shown_text.push('\n');
        rows.push(row);
    }
    Ok(Sheet { name, shown: shown_text, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zip of the given parts (deflated), written in pieces so a large part costs no memory.
    fn zip_of(parts: &[(&str, &[u8], usize)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes, times) in parts {
            w.start_file(*name, opts).unwrap();
            for _ in 0..*times {
                w.write_all(bytes).unwrap();
            }
        }
        w.finish().unwrap().into_inner()
    }

    fn xlsx(rows: &str) -> Vec<u8> {
        xlsx_with(rows, &[])
    }

    fn xlsx_with(rows: &str, more: &[(&str, &[u8], usize)]) -> Vec<u8> {
        let sheet = format!(
            "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>{rows}</sheetData></worksheet>"
        );
        let mut parts: Vec<(&str, &[u8], usize)> = vec![
            (
                "_rels/.rels",
                b"<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>",
                1,
            ),
            (
                "xl/workbook.xml",
                b"<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets><sheet name=\"Cards\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>",
                1,
            ),
            (
                "xl/_rels/workbook.xml.rels",
                b"<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/></Relationships>",
                1,
            ),
            ("xl/worksheets/sheet1.xml", sheet.as_bytes(), 1),
        ];
        parts.extend_from_slice(more);
        zip_of(&parts)
    }

    fn ods(tables: &str) -> Vec<u8> {
        let content = format!(
            "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
             xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
             xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:body><office:spreadsheet>{tables}\
             </office:spreadsheet></office:body></office:document-content>"
        );
        zip_of(&[
            ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet", 1),
            (
                "META-INF/manifest.xml",
                b"<manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\"/>",
                1,
            ),
            ("content.xml", content.as_bytes(), 1),
        ])
    }

    fn err(bytes: &[u8], format: TableFormat) -> String {
        read(bytes, format).map(|_| ()).unwrap_err().message
    }

    const HEAD: &str = "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>id</t></is></c></row>";

    #[test]
    fn what_is_not_a_zip_is_named() {
        assert!(err(b"", TableFormat::Xlsx).contains("the file is empty"));
        assert!(err(b"id,name\ngem,Gem\n", TableFormat::Xlsx).contains("it holds text"));
        let mut ole = OLE_MAGIC.to_vec();
        ole.extend([0; 600]);
        assert!(err(&ole, TableFormat::Xlsx).contains("password-protected"));
        assert!(
            err(&[0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2], TableFormat::Ods).contains("starts with the bytes 89 50 4e 47")
        );
        // A zip whose central directory is cut off.
        let whole = xlsx(HEAD);
        assert!(err(&whole[..whole.len() - 10], TableFormat::Xlsx).contains("not a readable zip archive"));
    }

    #[test]
    fn a_zip_bomb_stops_at_the_limit() {
        let zeros = vec![0u8; 1 << 20];
        let bomb = xlsx_with(HEAD, &[("xl/media/image1.bin", &zeros, 80)]);
        assert!(bomb.len() < 200_000, "{}", bomb.len());
        let e = err(&bomb, TableFormat::Xlsx);
        assert!(e.contains("unpack to more than 64 MiB") && e.contains("`xl/media/image1.bin`"), "{e}");
        // Just under the limit, the same workbook reads.
        let fine = xlsx_with(HEAD, &[("xl/media/image1.bin", &zeros, 60)]);
        assert_eq!(read(&fine, TableFormat::Xlsx).unwrap().rows.len(), 1);
    }

    #[test]
    fn cells_far_apart_or_past_the_sheet_are_refused_before_a_grid_is_made() {
        let far = format!("{HEAD}<row r=\"1048576\"><c r=\"XFD1048576\"><v>1</v></c></row>");
        let e = err(&xlsx(&far), TableFormat::Xlsx);
        assert!(e.contains("span A1 to XFD1048576") && e.contains("17,179,869,184 cells"), "{e}");
        let past = format!("{HEAD}<row r=\"3000000\"><c r=\"B3000000\"><v>1</v></c></row>");
        assert!(
            err(&xlsx(&past), TableFormat::Xlsx).contains("sheet `Cards`, cell B3000000: it lies past the last row")
        );
        // One cell far down is a few empty lines, not a grid.
        let low = "<row r=\"60000\"><c r=\"C60000\" t=\"inlineStr\"><is><t>id</t></is></c></row>";
        let sheet = read(&xlsx(low), TableFormat::Xlsx).unwrap();
        assert_eq!((sheet.rows.len(), sheet.rows[59_999][0].col), (60_000, 3));
    }

    #[test]
    fn shared_string_entries_are_counted_as_they_unpack() {
        let more = xlsx_with(HEAD, &[("xl/sharedStrings.xml", b"<si/>", 1_000_001)]);
        let e = err(&more, TableFormat::Xlsx);
        assert!(e.contains("shared-strings table (`xl/sharedStrings.xml`) holds more than 1,000,000 entries"), "{e}");
        let mut n = Entries::default();
        for piece in [b"<s".as_slice(), b"i><t>a</t></s", b"i><x:si ", b"/><sis/>"] {
            std::io::Write::write_all(&mut n, piece).unwrap();
        }
        assert_eq!(n.count, 2, "`<si>` split across pieces, and `<x:si `; not `<sis`");
    }

    #[test]
    fn a_huge_cell_is_named() {
        let big = "y".repeat(CELL_TEXT_LIMIT + 1);
        let rows = format!("{HEAD}<row r=\"2\"><c r=\"B2\" t=\"inlineStr\"><is><t>{big}</t></is></c></row>");
        let e = err(&xlsx(&rows), TableFormat::Xlsx);
        assert!(e.contains("sheet `Cards`, cell B2: its text is 32,768 characters long"), "{e}");
        let fits = format!("{HEAD}<row r=\"2\"><c r=\"B2\" t=\"inlineStr\"><is><t>{}</t></is></c></row>", &big[1..]);
        assert!(read(&xlsx(&fits), TableFormat::Xlsx).is_ok());
    }

    #[test]
    fn dates_and_errors_are_kept_as_bad_values() {
        let rows = format!("{HEAD}<row r=\"2\"><c r=\"A2\" t=\"e\"><v>#DIV/0!</v></c></row>");
        let sheet = read(&xlsx(&rows), TableFormat::Xlsx).unwrap();
        let c = &sheet.rows[1][0];
        assert_eq!((c.text.as_str(), c.bad.as_deref()), ("", Some("the error #DIV/0!")));
        assert!(sheet.shown.ends_with("#DIV/0!\n"), "{}", sheet.shown);
        let date = "<table:table table:name=\"Cards\"><table:table-row><table:table-cell office:value-type=\"date\" \
                    office:date-value=\"2024-03-01\"><text:p>1/3/24</text:p></table:table-cell></table:table-row></table:table>";
        let sheet = read(&ods(date), TableFormat::Ods).unwrap();
        assert_eq!(sheet.rows[0][0].bad.as_deref(), Some("a date or time (2024-03-01)"));
    }

    #[test]
    fn ods_repeats_are_counted_before_they_are_spelled_out() {
        let cell = |rep: u32, t: &str| {
            format!(
                "<table:table-cell office:value-type=\"string\" table:number-columns-repeated=\"{rep}\"><text:p>{t}</text:p></table:table-cell>"
            )
        };
        let rows = format!(
            "<table:table table:name=\"Cards\"><table:table-row table:number-rows-repeated=\"1000000\">{}</table:table-row></table:table>",
            cell(16384, "x")
        );
        let e = err(&ods(&rows), TableFormat::Ods);
        assert!(e.contains("sheet `Cards`, row 1: its repeated rows and columns spell out more than 1,000,000"), "{e}");
        let text = format!(
            "<table:table table:name=\"Cards\"><table:table-row table:number-rows-repeated=\"50\">{}</table:table-row></table:table>",
            cell(1000, &"t".repeat(1000))
        );
        assert!(err(&ods(&text), TableFormat::Ods).contains("more than 32 MiB of text"));
        // At the limit's edge, the count of the repeats decides, before anything is spelled
        // out: 1,001 rows of 1,000 cells are refused by it, 998 rows are read.
        let block = |rows: u32| {
            format!(
                "<table:table table:name=\"Cards\"><table:table-row table:number-rows-repeated=\"{rows}\">{}</table:table-row></table:table>",
                cell(1000, "x")
            )
        };
        let e = err(&ods(&block(1001)), TableFormat::Ods);
        assert!(e.contains("its repeated rows and columns spell out more than 1,000,000 cells"), "{e}");
        assert_eq!(read(&ods(&block(998)), TableFormat::Ods).unwrap().rows.len(), 998);
        // What office programs write: empty rows and columns repeated to the sheet's end.
        let usual = format!(
            "<table:table table:name=\"Cards\"><table:table-row>{}<table:table-cell table:number-columns-repeated=\"16383\"/>\
             </table:table-row><table:table-row table:number-rows-repeated=\"1048575\"><table:table-cell \
             table:number-columns-repeated=\"16384\"/></table:table-row></table:table>",
            cell(1, "id")
        );
        assert_eq!(read(&ods(&usual), TableFormat::Ods).unwrap().rows.len(), 1);
    }

    #[test]
    fn a_password_protected_ods_is_named() {
        let mut bytes = ods("<table:table table:name=\"Cards\"/>");
        assert!(read(&bytes, TableFormat::Ods).is_ok());
        bytes = zip_of(&[
            ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet", 1),
            ("META-INF/manifest.xml", b"<manifest:file-entry><manifest:encryption-data/></manifest:file-entry>", 1),
            ("content.xml", b"\x93\x11 encrypted", 1),
        ]);
        assert!(err(&bytes, TableFormat::Ods).contains("password-protected"));
    }
}
