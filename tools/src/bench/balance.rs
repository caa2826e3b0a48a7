//! `crown bench --only sim` (this module is `balance`, beside `crate::sim`): what the balance tools cost: random-bot throughput through
//! `crown sim`'s own path (seating, statistics), the cost of `--compare` (every game
//! played twice), and whether a 2-shard run merged equals the unsharded run.

use std::sync::Arc;
use std::time::Instant;

use crown_engine::load::Project;

use crate::session;
use crate::sim::plan::{Characters, Plan, SeatOrder};
use crate::sim::{play, play_pair};

/// The figures: `(key, value, text)`.
pub fn figures(project: &Project, games: u64, threads: usize) -> Result<Vec<(String, f64, String)>, String> {
    let pack =
        session::load(project, super::NATIVE_PACK).map_err(|_| format!("{} does not load", super::NATIVE_PACK))?;
    let kinds = vec!["random".to_string(); 4];
    let plan = Plan::new(&pack, 11, 4, None, kinds, SeatOrder::Rotate, Characters::Game)?;
    let mut out = Vec::new();
    for t in [1, threads] {
        let start = Instant::now();
        let (s, _) = play(&pack, &plan, 0..games, Some(t), 1, None)?;
        let gps = s.games as f64 / start.elapsed().as_secs_f64().max(1e-9);
        let key = if t == 1 { "sim_ttk_gps_1t" } else { "sim_ttk_gps" };
        out.push((key.to_string(), gps, format!("crown sim take-the-kingdom, 4 random bots, seats rotated: {gps:.0} games/s on {t} thread(s) ({games} games)")));
    }
    let other = Arc::clone(&pack);
    let start = Instant::now();
    let p = play_pair(&pack, Some((&other, &plan)), &plan, 0..games, Some(threads), 1, None)?;
    let gps = p.stats.games as f64 / start.elapsed().as_secs_f64().max(1e-9);
    out.push((
        "sim_compare_pairs_per_s".into(),
        gps,
        format!("crown sim --compare: {gps:.0} paired games/s on {threads} threads (each game played on both sides)"),
    ));
    let (whole, _) = play(&pack, &plan, 0..games, Some(threads), 1, None)?;
    let half = games / 2;
    let (a, _) = play(&pack, &plan, half..games, Some(1), 1, None)?;
    let (b, _) = play(&pack, &plan, 0..half, Some(threads), 1, None)?;
    let equal = a.merge(b) == whole;
    out.push((
        "sim_two_shards_equal".into(),
        f64::from(u8::from(equal)),
        format!("2 shards merged equal the unsharded run: {}", if equal { "yes" } else { "NO" }),
    ));
    Ok(out)
}
