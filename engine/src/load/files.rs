//! Reading and parsing files: TOML with spans, spreadsheets row by row, each definition
//! deserialized on its own, serde's messages in a designer's words.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::checks::{check_board, check_definition, check_id, check_rel_path, collect_def_refs, span_at, P};
use super::{Cache, CachedFile, FileKind, FileOut, PackLoad, Ref, RefKind, ScriptRef};
use crate::content::model::{BoardFile, Definition, PackManifest, Scenario};
use crate::content::{hash_bytes, DefKind, Origin, ScenarioEntry};
use crate::diag::{did_you_mean, Diagnostic, SourceFile};

impl PackLoad<'_> {
    /// The TOML files of a pack folder, with what each one holds. Reports unknown files,
    /// symlinks that leave the project or loop, and names that differ only in case.
    pub(super) fn list_files(&mut self, dir: &Path) -> Vec<(PathBuf, FileKind)> {
        let mut out = Vec::new();
        // Keyed by the folder's path as bytes: comparing `Path`s component by component
        // was most of the time spent listing a large pack.
        let mut names_by_dir: BTreeMap<(std::ffi::OsString, String), PathBuf> = BTreeMap::new();
        let walker = walkdir::WalkDir::new(dir).follow_links(false).sort_by_file_name().max_depth(6);
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let p = e.path().map(|p| self.shown(p)).unwrap_or_default();
                    self.diags.push(Diagnostic::error("unreadable", format!("cannot read: {e}")).in_file(p));
                    continue;
                }
            };
            let path = entry.path().to_path_buf();
            let rel = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
            let top = rel.components().next().and_then(|c| c.as_os_str().to_str()).unwrap_or("");
            if matches!(top, "templates" | "art" | "icons" | "fonts") {
                continue;
            }
            if let (Some(parent), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) {
                let key = (parent.as_os_str().to_os_string(), name.to_lowercase());
                if let Some(other) = names_by_dir.get(&key) {
                    self.diags.push(
                        Diagnostic::error(
                            "name-case-clash",
                            format!(
                                "`{}` and `{}` differ only in case",
                                name,
                                other.file_name().and_then(|n| n.to_str()).unwrap_or("")
                            ),
                        )
                        .in_file(self.shown(&path))
                        .hint("such names collide on Windows and macOS; rename one"),
                    );
                    continue;
                }
                names_by_dir.insert(key, path.clone());
            }
            if !self.regular_file_ok(&entry, &path) {
                continue;
            }
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if !crate::load::table::is_definition_list(name) {
                continue;
            }
            let kind = file_kind(top, rel.components().count(), name);
            match kind {
                Some(k) => out.push((path, k)),
                None => self.diags.push(
                    Diagnostic::warning("unknown-file", format!("`{}` is not a file Crown loads", rel.display()))
                        .in_file(self.shown(&path))
                        .hint("definition files are pack.toml, cards/*.toml, plaques.toml, nobles.toml, leaders.toml, board.toml and scenarios/*.toml; card lists may also be .csv, .xlsx or .ods"),
                ),
            }
        }
        out
    }

    /// Whether a listed entry is a file to read: a regular file, or a symbolic link to a
    /// file inside the project. Reports links that loop, leave the project or name a
    /// folder, and definition files that are not regular files.
    fn regular_file_ok(&mut self, entry: &walkdir::DirEntry, path: &Path) -> bool {
        let ft = entry.file_type();
        if ft.is_symlink() {
            match path.canonicalize() {
                Err(e) => {
                    self.diags.push(
                        Diagnostic::error("bad-symlink", format!("symbolic link cannot be followed: {e}"))
                            .in_file(self.shown(path))
                            .hint("a link that loops or points nowhere; remove it"),
                    );
                    return false;
                }
                Ok(target) => {
                    if !target.starts_with(&self.root) {
                        self.diags.push(
                            Diagnostic::error(
                                "symlink-outside-project",
                                format!("symbolic link points outside the project, to {}", target.display()),
                            )
                            .in_file(self.shown(path))
                            .hint("copy the file into the project instead"),
                        );
                        return false;
                    }
                    if target.is_dir() {
                        self.diags.push(
                            Diagnostic::warning("symlinked-folder", "linked folders are not followed")
                                .in_file(self.shown(path)),
                        );
                        return false;
                    }
                }
            }
        } else if !ft.is_file() {
            if !ft.is_dir() && path.extension().is_some_and(|x| x == "toml") {
                let d = crate::fsread::read_checked(path, crate::fsread::Kind::Definition).err();
                let why = d.map_or_else(|| "not a regular file".into(), |e| e.reason());
                self.diags.push(
                    Diagnostic::error("unreadable", format!("cannot read file: {why}")).in_file(self.shown(path)),
                );
            }
            return false;
        }
        true
    }
}

/// What a definition file holds, from its top folder in the pack, its depth and its name
/// (None for a file Crown does not load).
fn file_kind(top: &str, depth: usize, name: &str) -> Option<FileKind> {
    // A definition list is TOML or a spreadsheet (CSV, XLSX, ODS) of the same name.
    let (stem, defs_kind) = match crate::load::table::TableFormat::of(name) {
        Some(f) => (name.rsplit_once('.').map_or(name, |(s, _)| s), Some(f)),
        None => (name.strip_suffix(".toml").unwrap_or(name), None),
    };
    let list = |k: DefKind| match defs_kind {
        Some(f) => FileKind::Table(k, f),
        None => FileKind::Defs(k),
    };
    match (top, depth, stem, defs_kind) {
        (_, 1, "pack", None) => Some(FileKind::Manifest),
        (_, 1, "cards", _) | ("cards", _, _, _) => Some(list(DefKind::Card)),
        (_, 1, "plaques", _) => Some(list(DefKind::Plaque)),
        (_, 1, "nobles", _) => Some(list(DefKind::Noble)),
        (_, 1, "leaders", _) => Some(list(DefKind::Leader)),
        (_, 1, "board", None) => Some(FileKind::Board),
        ("scenarios", 2, _, None) => Some(FileKind::Scenario),
        _ => None,
    }
}

/// A path as bytes, normalised as `Path` comparison sees it (`a/./b` is `a/b`), for
/// sets and maps that `Path`'s component-by-component ordering would make slow.
pub(super) fn path_key(p: &Path) -> std::ffi::OsString {
    p.components().collect::<PathBuf>().into_os_string()
}

pub(super) fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "file not found".into(),
        _ => e.to_string(),
    }
}

/// UTF-8 text of a file, without a byte-order mark; a clear diagnostic where it is not text.
pub(super) fn decode(bytes: &[u8], shown: &Path) -> Result<String, Box<Diagnostic>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let good = std::str::from_utf8(good).unwrap_or("");
            let line = good.matches('\n').count() + 1;
            let col = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let mut d = Diagnostic::error(
                "invalid-utf8",
                format!("file is not valid UTF-8 (bad byte at offset {})", e.valid_up_to()),
            )
            .in_file(shown)
            .hint("save the file as UTF-8");
            d.line = line;
            d.column = col;
            Err(Box::new(d))
        }
    }
}

/// The span of a top-level `key = value` line's value (0..0 when absent).
pub(super) fn span_of_key(text: &str, key: &str) -> Range<usize> {
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix(key) {
            if rest.trim_start().starts_with('=') {
                let start = off + (line.len() - t.len());
                return start..start + line.trim_end().len() - (line.len() - t.len());
            }
        }
        if t.starts_with('[') {
            break;
        }
        off += line.len();
    }
    0..0
}

/// Read, decode and parse one file into what it defines, with diagnostics.
pub(super) fn parse_file(path: &Path, shown: &Path, kind: FileKind, pack: &str) -> FileOut {
    match crate::fsread::read_checked(path, crate::fsread::Kind::Definition).map_err(std::io::Error::from) {
        Ok(bytes) => parse_bytes(&bytes, hash_bytes(&bytes), shown, kind, pack),
        Err(e) => unreadable(&e, shown),
    }
}

fn unreadable(e: &std::io::Error, shown: &Path) -> FileOut {
    let mut out = FileOut::default();
    out.diags.push(Diagnostic::error("unreadable", format!("cannot read file: {}", io_reason(e))).in_file(shown));
    out
}

/// [`parse_file`] through a [`Loader`]'s cache: the cached result when the file's bytes
/// are unchanged, else a fresh parse and the entry to cache.
pub(super) fn parse_file_cached(
    cache: &Cache,
    path: &Path,
    shown: PathBuf,
    kind: FileKind,
    pack: &str,
) -> (FileOut, Option<CachedFile>) {
    let bytes = match crate::fsread::read_checked(path, crate::fsread::Kind::Definition).map_err(std::io::Error::from) {
        Ok(b) => b,
        Err(e) => return (unreadable(&e, &shown), None),
    };
    let hash = hash_bytes(&bytes);
    if let Some(c) = cache.files.get(path) {
        if c.hash == hash && c.len == bytes.len() && c.kind == kind && c.pack == pack && c.shown == shown {
            return (c.out.clone(), None);
        }
    }
    let out = parse_bytes(&bytes, hash, &shown, kind, pack);
    let entry = CachedFile {
        hash,
        len: bytes.len(),
        kind,
        pack: pack.to_string(),
        shown,
        out: out.clone(),
        seen: cache.generation,
    };
    (out, Some(entry))
}

fn parse_bytes(bytes: &[u8], hash: u64, shown: &Path, kind: FileKind, pack: &str) -> FileOut {
    if let FileKind::Table(dk, format) = kind {
        return parse_table(bytes, hash, shown, dk, format, pack);
    }
    let mut out = FileOut { hash, ..FileOut::default() };
    let text = match decode(bytes, shown) {
        Ok(t) => t,
        Err(d) => {
            out.diags.push(*d);
            return out;
        }
    };
    let src = SourceFile::new(shown, text.as_str());
    if text.trim().is_empty() {
        out.diags.push(Diagnostic::error("empty-file", "file is empty").in_file(shown).hint(empty_file_hint(kind)));
        out.source = Some(src);
        return out;
    }
    let (root, errors) = DeTable::parse_recoverable(&text);
    for e in &errors {
        let span = e.span().unwrap_or(0..0);
        let msg = first_line(e.message());
        let hint = toml_syntax_hint(&msg, text.contains('\0'));
        out.diags
            .push(Diagnostic::error("toml-syntax", format!("invalid TOML: {msg}")).at(&src, span).maybe_hint(hint));
    }
    if !errors.is_empty() {
        // A file with syntax errors defines nothing: partial data would mislead.
        out.source = Some(src);
        return out;
    }
    let file = TomlFile { src: &src, shown, pack, root_span: root.span() };
    let table = root.into_inner();
    match kind {
        FileKind::Manifest => file.manifest(table, &mut out),
        FileKind::Defs(dk) => file.definitions(dk, &table, &mut out),
        FileKind::Scenario => file.scenario(table, &mut out),
        // Spreadsheets are read by `parse_table`.
        FileKind::Table(..) => {}
        FileKind::Board => file.board(table, &mut out),
    }
    out.source = Some(src);
    out
}

/// What an empty file of a kind should hold.
fn empty_file_hint(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Manifest => "a pack.toml needs at least id, name, version and players",
        FileKind::Defs(k) => match k {
            DefKind::Card => "add [[card]] tables, or delete the file",
            DefKind::Plaque => "add [[plaque]] tables, or delete the file",
            DefKind::Noble => "add [[noble]] tables, or delete the file",
            DefKind::Leader => "add [[leader]] tables, or delete the file",
        },
        FileKind::Scenario => "a scenario needs at least id and name",
        FileKind::Board => "add [[space]], [grid] or [[supply]] tables, or delete the file",
        FileKind::Table(..) => "add a header row and one row per definition, or delete the file",
    }
}

/// A TOML file that parsed: its source, where it is shown, its pack, and the span of its
/// root table.
struct TomlFile<'a> {
    src: &'a SourceFile,
    shown: &'a Path,
    pack: &'a str,
    root_span: Range<usize>,
}

impl TomlFile<'_> {
    /// Where something of this file is.
    fn origin(&self, span: Range<usize>, id_span: Range<usize>) -> Origin {
        Origin { file: self.shown.to_path_buf(), span, id_span, pack: self.pack.to_string(), nth: 0 }
    }

    /// The whole file as one value.
    fn value<'i>(&self, table: DeTable<'i>) -> Spanned<DeValue<'i>> {
        Spanned::new(self.root_span.clone(), DeValue::Table(table))
    }

    /// A `pack.toml`: the manifest, with the span of each key (and each array item).
    fn manifest(&self, table: DeTable<'_>, out: &mut FileOut) {
        let src = self.src;
        match deserialize::<PackManifest>(self.value(table.clone()), src) {
            Ok(m) => {
                let mut spans = BTreeMap::new();
                for (k, v) in table.iter() {
                    spans.insert(k.get_ref().to_string(), v.span());
                    if let DeValue::Array(a) = v.get_ref() {
                        for (i, e) in a.iter().enumerate() {
                            spans.insert(format!("{}.{i}", k.get_ref()), e.span());
                        }
                    }
                }
                if let Some(r) = &m.rules {
                    let several = matches!(r, crate::content::model::RuleFiles::Several(_));
                    for (i, f) in r.files().into_iter().enumerate() {
                        let key = if several { format!("rules.{i}") } else { "rules".to_string() };
                        check_rel_path(f, spans.get(&key).cloned().unwrap_or(0..0), src, &mut out.diags);
                    }
                }
                if let Some(b) = &m.bots {
                    check_rel_path(b, spans.get("bots").cloned().unwrap_or(0..0), src, &mut out.diags);
                }
                for (k, r) in &m.counter_ranges {
                    if let (Some(a), Some(b)) = (r.min, r.max) {
                        if a > b {
                            let at = span_at(&self.value(table.clone()), &[P::K("counter_ranges"), P::K(k)]);
                            let d = Diagnostic::error(
                                "out-of-range",
                                format!("counter_ranges: `{k}` runs from {a} to {b}, which no value can be"),
                            );
                            out.diags.push(match at {
                                Some(span) => d.at(src, span),
                                None => d.in_file(self.shown.to_path_buf()),
                            });
                        }
                    }
                }
                let id_span = spans.get("id").cloned().unwrap_or(0..0);
                out.manifest = Some((m, self.origin(self.root_span.clone(), id_span), spans));
            }
            Err(d) => out.diags.push(*d),
        }
    }

    /// A definition list: its `[[card]]` (or plaque, noble, leader) tables.
    fn definitions(&self, dk: DefKind, table: &DeTable<'_>, out: &mut FileOut) {
        let src = self.src;
        let key = dk.table_key();
        for (k, v) in table.iter() {
            if k.get_ref() == "product" {
                self.products(dk, v, out);
                continue;
            }
            if k.get_ref() != key {
                let hint = did_you_mean(k.get_ref(), [key, "product"])
                    .map(|s| format!("did you mean `[[{s}]]`?"))
                    .unwrap_or_else(|| format!("this file holds `[[{key}]]` tables only"));
                out.diags.push(
                    Diagnostic::error(
                        "unknown-field",
                        format!("unknown table `{}` in a {} file", k.get_ref(), dk.as_str()),
                    )
                    .at(src, k.span())
                    .hint(hint),
                );
                continue;
            }
            let DeValue::Array(items) = v.get_ref() else {
                out.diags.push(
                    Diagnostic::error("wrong-type", format!("`{key}` must be an array of tables"))
                        .at(src, v.span())
                        .hint(format!("write each one as a `[[{key}]]` table")),
                );
                continue;
            };
            for item in items.iter() {
                take_definition(dk, item, src, self.shown, self.pack, 0, out);
            }
        }
    }

    /// The `[[product]]` tables of a definition file: the definitions each makes, checked
    /// one by one as written ones are, a problem of the template said once.
    fn products(&self, dk: DefKind, v: &Spanned<DeValue<'_>>, out: &mut FileOut) {
        let src = self.src;
        let DeValue::Array(products) = v.get_ref() else {
            out.diags.push(
                Diagnostic::error("bad-product", "`product` must be an array of tables")
                    .at(src, v.span())
                    .hint("write each one as a `[[product]]` table"),
            );
            return;
        };
        for product in products.iter() {
            let made = match super::product::expand(dk.table_key(), product, src) {
                Ok(made) => made,
                Err(diags) => {
                    out.diags.extend(diags);
                    continue;
                }
            };
            let mut ids: BTreeMap<String, usize> = BTreeMap::new();
            let before = out.diags.len();
            for (n, item) in made.iter().enumerate() {
                if let Some(id) = item.get_ref().get("id").and_then(|i| i.get_ref().as_str()) {
                    if let Some(first) = ids.insert(id.to_string(), n) {
                        out.diags.push(
                            Diagnostic::error(
                                "bad-product",
                                format!("this product makes `{id}` more than once (definitions {} and {})", first + 1, n + 1),
                            )
                            .at(src, item.get_ref().get("id").map_or(item.span(), |i| i.span()))
                            .hint("the id must name an item of every list, `{suit.id}-{rank.id}`, so that each combination has its own"),
                        );
                        break;
                    }
                }
            }
            if out.diags.len() > before {
                continue;
            }
            let nth = |n: usize| u32::try_from(n + 1).unwrap_or(u32::MAX);
            for (n, item) in made.iter().enumerate() {
                take_definition(dk, item, src, self.shown, self.pack, nth(n), out);
            }
            // Every definition was checked at the template's lines: a problem there is said once.
            let mut seen = std::collections::BTreeSet::new();
            let mut i = before;
            while i < out.diags.len() {
                let d = &out.diags[i];
                if seen.insert((d.code, d.span.clone().map(|r| (r.start, r.end)))) {
                    i += 1;
                } else {
                    out.diags.remove(i);
                }
            }
        }
    }

    /// A scenario, with the references its seats make to characters and cards.
    fn scenario(&self, table: DeTable<'_>, out: &mut FileOut) {
        let (src, shown) = (self.src, self.shown);
        let id_span = table.get("id").map(|v| v.span()).unwrap_or(0..0);
        let value = self.value(table);
        match deserialize::<Scenario>(value.clone(), src) {
            Ok(s) => {
                if check_id(&s.id, id_span.clone(), src, &mut out.diags) {
                    for (i, seat) in s.seat.iter().enumerate() {
                        if let Some(c) = &seat.character {
                            let span =
                                span_at(&value, &[P::K("seat"), P::I(i), P::K("character")]).unwrap_or(id_span.clone());
                            out.refs.push(Ref {
                                kind: RefKind::Character,
                                id: c.clone(),
                                file: shown.to_path_buf(),
                                span,
                            });
                        }
                        for (j, c) in seat.cards.iter().enumerate() {
                            let span = span_at(&value, &[P::K("seat"), P::I(i), P::K("cards"), P::I(j)])
                                .unwrap_or(id_span.clone());
                            out.refs.push(Ref { kind: RefKind::Card, id: c.clone(), file: shown.to_path_buf(), span });
                        }
                    }
                    out.scenarios
                        .push(ScenarioEntry { scenario: s, origin: self.origin(self.root_span.clone(), id_span) });
                }
            }
            Err(d) => out.diags.push(*d),
        }
    }

    /// A `board.toml`, kept only when its checks find no error.
    fn board(&self, table: DeTable<'_>, out: &mut FileOut) {
        let value = self.value(table);
        match deserialize::<BoardFile>(value.clone(), self.src) {
            Ok(b) => {
                let (before, refs_before) = (out.diags.len(), out.refs.len());
                check_board(&b, &value, self.shown, self.src, &mut out.diags, &mut out.refs);
                if !out.diags[before..].iter().any(|d| d.severity == crate::diag::Severity::Error) {
                    out.board = Some((b, self.origin(self.root_span.clone(), 0..0)));
                } else {
                    // The board is left out until its errors are fixed; its spaces naming
                    // one another would then each be reported as missing, so they are not.
                    let own: std::collections::BTreeSet<&str> = b.space.iter().map(|sp| sp.id.as_str()).collect();
                    let added = out.refs.split_off(refs_before);
                    out.refs.extend(
                        added.into_iter().filter(|r| !(r.kind == RefKind::Space && own.contains(r.id.as_str()))),
                    );
                }
            }
            Err(d) => out.diags.push(*d),
        }
    }
}

/// Check one definition (a `[[card]]` table, or a spreadsheet row made into one) and add
/// it, with its references and script, to what its file defines.
#[allow(clippy::too_many_arguments)]
fn take_definition(
    dk: DefKind,
    item: &Spanned<DeValue<'_>>,
    src: &SourceFile,
    shown: &Path,
    pack: &str,
    nth: u32,
    out: &mut FileOut,
) {
    let id_span = item.get_ref().get("id").map(|v| v.span()).unwrap_or(item.span());
    match deserialize::<Definition>(item.clone(), src) {
        Ok(def) => {
            let before = out.diags.len();
            check_definition(&def, item, src, &mut out.diags);
            if out.diags[before..].iter().any(|d| d.severity == crate::diag::Severity::Error) {
                return;
            }
            collect_def_refs(&def, item, shown, &mut out.refs);
            let sref = def.script.as_ref().map(|s| ScriptRef {
                pack: pack.to_string(),
                rel: s.clone(),
                file: shown.to_path_buf(),
                span: item.get_ref().get("script").map(|v| v.span()).unwrap_or(0..0),
                hooks: def
                    .hooks
                    .iter()
                    .enumerate()
                    .map(|(i, h)| (h.clone(), span_at(item, &[P::K("hooks"), P::I(i)]).unwrap_or(id_span.clone())))
                    .collect(),
                more: Vec::new(),
            });
            if sref.is_none() && !def.hooks.is_empty() {
                out.diags.push(
                    Diagnostic::error("hooks-without-script", format!("`{}` names hooks but no script", def.id))
                        .at(src, item.get_ref().get("hooks").map(|v| v.span()).unwrap_or(id_span.clone()))
                        .hint("add `script = \"path.rhai\"`"),
                );
                return;
            }
            out.defs.push((
                dk,
                def,
                Origin { file: shown.to_path_buf(), span: item.span(), id_span, pack: pack.to_string(), nth },
                sref,
            ));
        }
        Err(d) => out.diags.push(*d),
    }
}

/// A definition list kept in a spreadsheet: each row checked as a `[[card]]` table would
/// be, its diagnostics on its cells, labelled with their row and column.
fn parse_table(
    bytes: &[u8],
    hash: u64,
    shown: &Path,
    dk: DefKind,
    format: crate::load::table::TableFormat,
    pack: &str,
) -> FileOut {
    use crate::load::table;
    let mut out = FileOut { hash, ..FileOut::default() };
    let sheet = match format {
        table::TableFormat::Csv => {
            let text = match decode(bytes, shown) {
                Ok(t) => t,
                Err(d) => {
                    out.diags.push(*d);
                    return out;
                }
            };
            match table::parse_csv(&text) {
                Ok(s) => s,
                Err((msg, span)) => {
                    let src = SourceFile::new(shown, text.as_str());
                    out.diags.push(Diagnostic::error("csv-syntax", format!("invalid CSV: {msg}")).at(&src, span).hint(
                        "a cell with a comma, quote or line break is written in double quotes, a quote inside as two",
                    ));
                    out.source = Some(src);
                    return out;
                }
            }
        }
        _ => match super::workbook::read(bytes, format) {
            Ok(s) => s,
            Err(e) => {
                out.diags.push(
                    Diagnostic::error("unreadable", format!("cannot read the spreadsheet: {}", e.message))
                        .in_file(shown)
                        .maybe_hint(e.hint.map(String::from)),
                );
                return out;
            }
        },
    };
    let src = SourceFile::new(shown, sheet.shown.as_str());
    let (items, diags) = table::rows_to_items(&sheet, &src);
    out.diags.extend(diags);
    for item in &items {
        take_definition(dk, item, &src, shown, pack, 0, &mut out);
    }
    out.source = Some(src);
    out
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).trim().to_string()
}

fn toml_syntax_hint(msg: &str, has_nul: bool) -> Option<String> {
    let m = msg.to_lowercase();
    if m.contains("duplicate key") {
        Some("each key may appear once per table; delete or rename one".into())
    } else if has_nul {
        Some("the file holds a NUL byte (shown as ␀), which TOML does not allow anywhere; delete it".into())
    } else if m.contains("string") || m.contains("unterminated") || m.contains("missing closing") {
        Some(
            "check the quotes: strings open and close with \" on the same line (or use \"\"\" for several lines)"
                .into(),
        )
    } else if m.contains("control character") || m.contains("invalid character") {
        Some("the file holds a character TOML does not allow (a NUL byte or a stray control character)".into())
    } else if m.contains("expected") && m.contains('=') {
        Some("every line is `key = value`, a [table] or [[array]] header, or a comment".into())
    } else {
        None
    }
}

/// Deserialize one value, turning serde's error into a diagnostic with a did-you-mean.
fn deserialize<T: for<'de> Deserialize<'de>>(
    value: Spanned<DeValue<'_>>,
    src: &SourceFile,
) -> Result<T, Box<Diagnostic>> {
    let whole = value.span();
    let de = toml::de::ValueDeserializer::from(value);
    T::deserialize(de).map_err(|e| {
        let msg = plain_serde(&first_line(e.message()));
        let span = e.span().unwrap_or(whole);
        let (code, hint) = serde_hint(&msg);
        // The list of known fields is in the hint: the message names the unknown one only.
        let msg = match (code, msg.split_once("`, expected")) {
            ("unknown-field", Some((head, _))) => format!("{head}`"),
            _ => msg,
        };
        Box::new(Diagnostic::error(code, msg).at(src, span).maybe_hint(hint))
    })
}

/// serde's messages in a designer's words: no Rust type names (`i64`, `i128`, `u32`).
fn plain_serde(msg: &str) -> String {
    if let Some((head, _)) = msg.split_once(" as i128, expected i64") {
        let n = head.rsplit('`').nth(1).unwrap_or(head);
        return format!("`{n}` is too large: a number may be at most {} and at least {}", i64::MAX, i64::MIN);
    }
    let mut m = msg.replace("floating point", "decimal number");
    for (rust, word) in [
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number of 0 or more"),
        ("expected u32", "expected a whole number of 0 or more"),
        ("expected usize", "expected a whole number of 0 or more"),
        ("expected f64", "expected a number"),
    ] {
        m = m.replace(rust, word);
    }
    crate::script::api::plain_words(&m)
}

/// A code and a hint for serde's messages: "did you mean" for unknown fields.
fn serde_hint(msg: &str) -> (&'static str, Option<String>) {
    let ticked: Vec<&str> = msg.split('`').skip(1).step_by(2).collect();
    if msg.starts_with("unknown field") {
        let word = ticked.first().copied().unwrap_or("");
        let expected = ticked.iter().skip(1).copied();
        let hint = match did_you_mean(word, expected) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("known fields: {}", ticked.iter().skip(1).copied().collect::<Vec<_>>().join(", ")),
        };
        ("unknown-field", Some(hint))
    } else if msg.starts_with("unknown variant") {
        let word = ticked.first().copied().unwrap_or("");
        let hint = match did_you_mean(word, ticked.iter().skip(1).copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("one of: {}", ticked.iter().skip(1).copied().collect::<Vec<_>>().join(", ")),
        };
        ("unknown-variant", Some(hint))
    } else if msg.starts_with("missing field") {
        ("missing-field", ticked.first().map(|f| format!("add `{f} = ...`")))
    } else if msg.starts_with("invalid type") {
        ("wrong-type", None)
    } else if msg.contains("did not match any variant") {
        ("wrong-type", Some("see the format in docs/designers-guide.md, and docs/schema/ for every field".into()))
    } else {
        ("invalid-value", None)
    }
}
