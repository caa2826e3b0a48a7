//! `crown export csv|xlsx|toml`: a pack's definitions written as a CSV definition list or
//! an XLSX workbook (the columns `crown check` reads back) or as TOML tables, so a
//! designer can move a card list between TOML and a spreadsheet either way.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use crown_engine::content::DefKind;
use crown_engine::diag::SourceMap;
use crown_engine::load::Project;

use crate::out::{self, Done, Failure};

#[derive(Debug, Subcommand)]
pub enum ExportArgs {
    /// Write definitions as CSV (one row per definition, one file per kind).
    Csv(CsvArgs),
    /// Write definitions as an XLSX workbook (one row per definition, one file per kind),
    /// for Excel and other spreadsheets; it loads back as it is.
    Xlsx(ListArgs),
    /// Write definitions as TOML (`[[card]]` tables, one file per kind), e.g. to move a
    /// list kept in a spreadsheet back to TOML.
    Toml(ListArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    Card,
    Plaque,
    Noble,
    Leader,
}

impl KindArg {
    fn kind(self) -> DefKind {
        match self {
            KindArg::Card => DefKind::Card,
            KindArg::Plaque => DefKind::Plaque,
            KindArg::Noble => DefKind::Noble,
            KindArg::Leader => DefKind::Leader,
        }
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The pack, by id or path.
    pub pack: String,
    /// Only definitions of this kind (default: every kind the pack defines, a file each).
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Output file, `-` for standard output (default:
    /// <project>/build/export/<pack>/<kind>s.csv or .toml). Needs --kind when the pack has
    /// more than one kind of definition.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CsvArgs {
    #[command(flatten)]
    pub list: ListArgs,
    /// Begin the CSV with a byte-order mark, which Excel needs to read UTF-8 (accents,
    /// icons' names in other scripts) rather than guess another encoding; Crown reads the
    /// file the same either way. For Excel, `crown export xlsx` is the better choice.
    #[arg(long)]
    pub bom: bool,
}

pub fn run(project: &Project, args: &ExportArgs) -> Done {
    match args {
        ExportArgs::Csv(a) => export(project, &a.list, Form::Csv { bom: a.bom }),
        ExportArgs::Xlsx(a) => export(project, a, Form::Xlsx),
        ExportArgs::Toml(a) => export(project, a, Form::Toml),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Csv { bom: bool },
    Xlsx,
    Toml,
}

impl Form {
    fn ext(self) -> &'static str {
        match self {
            Form::Csv { .. } => "csv",
            Form::Xlsx => "xlsx",
            Form::Toml => "toml",
        }
    }
}

/// The rows of a definition list as a workbook of one sheet (named after the kind): the
/// header in bold and kept in view, whole numbers in numeric columns as numbers, every
/// other cell as text (never a formula), what `crown check` reads back to the same
/// definitions.
fn to_xlsx(kind: DefKind, rows: &[Vec<String>]) -> Result<Vec<u8>, String> {
    use crown_engine::load::table::numeric_column;
    use rust_xlsxwriter::{Format, Workbook};
    let err = |e: rust_xlsxwriter::XlsxError| e.to_string();
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    ws.set_name(format!("{}s", kind.as_str())).map_err(err)?;
    let Some((header, body)) = rows.split_first() else {
        return Err("no header".into());
    };
    let bold = Format::new().set_bold();
    let wrap = Format::new().set_text_wrap();
    // A float holds whole numbers exactly up to 2^53; larger ones are written as text.
    let exact = |n: i64| n.unsigned_abs() < (1u64 << 53);
    for (c, h) in header.iter().enumerate() {
        let col = u16::try_from(c).map_err(|_| "too many columns")?;
        ws.write_string_with_format(0, col, h, &bold).map_err(err)?;
        if h == "text" || h == "flavor" || h == "back.text" {
            ws.set_column_width(col, 60).map_err(err)?;
        }
        for (r, row) in body.iter().enumerate() {
            let at = u32::try_from(r + 1).map_err(|_| "too many rows")?;
            let cell = &row[c];
            if cell.is_empty() {
                continue;
            }
            match cell.parse::<i64>() {
                Ok(n) if numeric_column(h) && exact(n) => {
                    ws.write_number(at, col, n as f64).map_err(err)?;
                }
                _ if cell.contains('\n') => {
                    ws.write_string_with_format(at, col, cell, &wrap).map_err(err)?;
                }
                _ => {
                    ws.write_string(at, col, cell).map_err(err)?;
                }
            }
        }
    }
    ws.set_freeze_panes(1, 0).map_err(err)?;
    wb.save_to_buffer().map_err(err)
}

/// Definitions of one kind as a TOML definition file.
fn to_toml(kind: DefKind, defs: Vec<crown_engine::content::model::Definition>) -> Result<String, String> {
    use crown_engine::content::model::{CardFile, LeaderFile, NobleFile, PlaqueFile};
    let (text, schema) = match kind {
        DefKind::Card => {
            (toml::to_string(&CardFile { card: defs, product: Vec::new() }), "../../../docs/schema/cards.schema.json")
        }
        DefKind::Plaque => (
            toml::to_string(&PlaqueFile { plaque: defs, product: Vec::new() }),
            "../../docs/schema/plaques.schema.json",
        ),
        DefKind::Noble => {
            (toml::to_string(&NobleFile { noble: defs, product: Vec::new() }), "../../docs/schema/nobles.schema.json")
        }
        DefKind::Leader => (
            toml::to_string(&LeaderFile { leader: defs, product: Vec::new() }),
            "../../docs/schema/leaders.schema.json",
        ),
    };
    Ok(format!("#:schema {schema}\n{}", text.map_err(|e| e.to_string())?))
}

fn export(project: &Project, args: &ListArgs, form: Form) -> Done {
    let (proj, id) = match project.resolve(&args.pack) {
        Ok(x) => x,
        Err(d) => {
            out::print_diagnostics(&[d], &SourceMap::default());
            return Err(Failure::told(2));
        }
    };
    let loaded = crate::print::load_for_print(&proj, &id);
    let Some(pack) = loaded.pack else {
        out::print_diagnostics(&loaded.diagnostics, &loaded.sources);
        eprintln!("{id}: {} error(s); fix them (see `crown check {id}`) before exporting", loaded.errors());
        return Err(Failure::told(1));
    };
    // The pack's own definitions (an expansion's, not its base pack's), in file order.
    let kinds: Vec<DefKind> = match args.kind {
        Some(k) => vec![k.kind()],
        None => {
            DefKind::ALL.into_iter().filter(|k| pack.defs.iter().any(|d| d.kind == *k && d.origin.pack == id)).collect()
        }
    };
    if kinds.is_empty() {
        return Err(Failure::error(format!("`{id}` defines no card, plaque, noble or leader of its own")));
    }
    if args.out.is_some() && kinds.len() > 1 {
        return Err(Failure::new(
            2,
            format!(
                "`{id}` has {} kinds of definition and --out names one file: add --kind ({})",
                kinds.len(),
                kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let mut code = 0;
    for kind in kinds {
        let mut defs: Vec<&crown_engine::content::Def> =
            pack.defs.iter().filter(|d| d.kind == kind && d.origin.pack == id).collect();
        defs.sort_by(|a, b| (&a.origin.file, a.origin.span.start).cmp(&(&b.origin.file, b.origin.span.start)));
        if defs.is_empty() {
            eprintln!("error: `{id}` has no {} of its own", kind.as_str());
            code = 1;
            continue;
        }
        let list: Vec<&crown_engine::content::model::Definition> = defs.iter().map(|d| &d.def).collect();
        let bytes: Result<Vec<u8>, Vec<String>> = match form {
            // Excel reads UTF-8 only after a byte-order mark; Crown reads either.
            Form::Csv { bom } => crown_engine::load::table::to_csv(&list)
                .map(|t| if bom { format!("\u{feff}{t}") } else { t }.into_bytes()),
            Form::Xlsx => crown_engine::load::table::to_rows(&list)
                .and_then(|rows| to_xlsx(kind, &rows).map_err(|e| vec![format!("cannot write the workbook: {e}")])),
            Form::Toml => {
                to_toml(kind, list.into_iter().cloned().collect()).map(String::into_bytes).map_err(|e| vec![e])
            }
        };
        let bytes = match bytes {
            Ok(t) => t,
            Err(problems) => {
                for p in problems {
                    eprintln!("error: {p}");
                }
                eprintln!("{id}: nothing written for its {}s; keep those definitions in TOML", kind.as_str());
                code = 1;
                continue;
            }
        };
        let ext = form.ext();
        let path = args.out.clone().unwrap_or_else(|| {
            proj.root.join("build").join("export").join(&id).join(format!("{}s.{ext}", kind.as_str()))
        });
        if path.as_os_str() == "-" {
            use std::io::Write as _;
            if let Err(e) = std::io::stdout().write_all(&bytes) {
                return Err(Failure::error(format!("cannot write to standard output: {e}")));
            }
            continue;
        }
        if let Err(e) = out::write_atomic(&path, &bytes) {
            return Err(Failure::error(format!("cannot write {}: {e}", path.display())));
        }
        let place =
            if kind == DefKind::Card { format!("cards/<name>.{ext}") } else { format!("{}s.{ext}", kind.as_str()) };
        println!("{}: {} {}s written to {}", id, defs.len(), kind.as_str(), path.display());
        if matches!(form, Form::Csv { .. }) {
            println!(
                "  to keep them in a spreadsheet, move it to content/{id}/{place} (or save it from your spreadsheet as .xlsx or .ods) and delete the TOML it came from"
            );
        } else if form == Form::Xlsx {
            println!(
                "  to keep them in a spreadsheet, move it to content/{id}/{place} and delete the TOML it came from; Crown reads the first sheet"
            );
        } else {
            println!("  to keep them in TOML, move it to content/{id}/{place} and delete the list it came from");
        }
    }
    out::exit(code)
}
