//! The generated benchmark project (any number of cards and scripts), and the load and
//! reload figures measured on it.

use std::path::Path;
use std::time::Instant;

use crown_engine::load::{load_pack, LoadOptions, Loader, Project};

/// Write a project of `cards` card files (one card each) and `scripts` scripts.
pub fn generate_project(root: &Path, cards: usize, scripts: usize) -> std::io::Result<()> {
    let pack = root.join("content/generated");
    std::fs::create_dir_all(pack.join("cards"))?;
    std::fs::create_dir_all(root.join("scripts/generated/cards"))?;
    std::fs::write(
        pack.join("pack.toml"),
        "id = \"generated\"\nname = \"Generated\"\nversion = \"1.0.0\"\nplayers = { min = 2, max = 4 }\n",
    )?;
    std::fs::write(
        root.join("scripts/generated/rules.rhai"),
        "fn setup() {}\nfn turn() { end_game([], \"done\"); }\n",
    )?;
    for i in 0..cards {
        let script = if i < scripts {
            std::fs::write(
                root.join(format!("scripts/generated/cards/c{i:05}.rhai")),
                format!("fn on_play(p, c) {{\n    let x = value(c, \"attack\") + {i};\n    add_counter(p, \"score\", x % 7);\n}}\n"),
            )?;
            format!("script = \"cards/c{i:05}.rhai\"\nhooks = [\"on_play\"]\n")
        } else {
            String::new()
        };
        std::fs::write(
            pack.join(format!("cards/c{i:05}.toml")),
            format!(
                "[[card]]\nid = \"c{i:05}\"\nname = \"Card {i}\"\nkind = \"attack\"\ncount = {}\nkeywords = [\"generated\"]\nvalues = {{ attack = {}, defence = {} }}\ntext = \"Generated card number {i}.\"\n{script}",
                1 + i % 3,
                i % 9,
                i % 5
            ),
        )?;
    }
    Ok(())
}

/// Load-and-validate time of a generated project, best of `runs` warm runs, in ms.
pub fn load_time_ms(cards: usize, scripts: usize, runs: usize) -> Result<f64, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    generate_project(dir.path(), cards, scripts).map_err(|e| e.to_string())?;
    let project = Project::new(dir.path());
    let first = load_pack(&project, "generated", LoadOptions::default());
    if first.errors() > 0 {
        return Err(format!("the generated project does not load: {}", first.diagnostics[0]));
    }
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let l = load_pack(&project, "generated", LoadOptions::default());
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        assert!(l.pack.is_some());
        best = best.min(ms);
    }
    Ok(best)
}

/// Reload time of the generated project through a [`Loader`] after one card file and one
/// script changed (full validation, one file parsed and one script compiled), best of
/// `runs`, in ms.
pub fn reload_time_ms(cards: usize, scripts: usize, runs: usize) -> Result<f64, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    generate_project(dir.path(), cards, scripts).map_err(|e| e.to_string())?;
    let project = Project::new(dir.path());
    let mut loader = Loader::new(&project, "generated", LoadOptions::default());
    if loader.load().errors() > 0 {
        return Err("the generated project does not load".into());
    }
    let card = dir.path().join("content/generated/cards/c00001.toml");
    let script = dir.path().join("scripts/generated/cards/c00001.rhai");
    let (card_text, script_text) = (
        std::fs::read_to_string(&card).map_err(|e| e.to_string())?,
        std::fs::read_to_string(&script).map_err(|e| e.to_string())?,
    );
    let mut best = f64::MAX;
    for run in 0..runs {
        std::fs::write(&card, card_text.replace("Card 1\"", &format!("Card 1 (edit {run})\"")))
            .map_err(|e| e.to_string())?;
        std::fs::write(&script, format!("{script_text}// edit {run}\n")).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let l = loader.load();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let s = loader.stats();
        if l.pack.is_none() || s.files_parsed != 1 || s.scripts_compiled != 1 {
            return Err(format!("reload parsed {} files and compiled {} scripts", s.files_parsed, s.scripts_compiled));
        }
        best = best.min(ms);
    }
    Ok(best)
}
