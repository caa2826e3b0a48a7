//! `crown bench --only search`: what the `search` bot costs per decision at its default
//! budget (each pack's `[search]` in `pack.toml`), on one core, in every pack of the project,
//! at the player count `crown sim` plays by default.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crown_engine::bots;
use crown_engine::game::agent::{Agent, ChoiceRequest};
use crown_engine::game::{Game, GameConfig, Status};
use crown_engine::load::Project;

use crate::session;

/// Seat 0 is the search bot under the clock; the others play at random.
struct Timed {
    inner: Box<dyn Agent>,
    spent: Arc<Mutex<(Duration, u64, Duration)>>,
}

impl Agent for Timed {
    fn choose(&mut self, req: &ChoiceRequest<'_>) -> Result<usize, String> {
        let start = Instant::now();
        let r = self.inner.choose(req);
        let took = start.elapsed();
        let mut s = self.spent.lock().map_err(|_| "timer poisoned".to_string())?;
        s.0 += took;
        s.1 += 1;
        s.2 = s.2.max(took);
        r
    }
    fn kind(&self) -> String {
        self.inner.kind()
    }
    fn wants_fork(&self) -> bool {
        self.inner.wants_fork()
    }
}

/// `(key, value, text)` per pack: mean and slowest milliseconds per decision.
pub fn figures(project: &Project, games: u64) -> Result<Vec<(String, f64, String)>, String> {
    let mut out = Vec::new();
    for id in project.pack_ids() {
        let pack = session::load(project, &id).map_err(|_| format!("{id} does not load"))?;
        let players = crate::seats::player_count(&pack, None, None);
        let spent = Arc::new(Mutex::new((Duration::ZERO, 0u64, Duration::ZERO)));
        for g in 0..games {
            let seed = 1000 + g;
            let mut agents: Vec<Box<dyn Agent>> = Vec::with_capacity(players);
            let search = bots::bot("search", seed, 0).ok_or("no search agent")?;
            agents.push(Box::new(Timed { inner: search, spent: spent.clone() }));
            for seat in 1..players {
                agents.push(bots::bot("random", seed, seat).ok_or("no random agent")?);
            }
            let mut cfg = GameConfig::new(seed, players);
            cfg.transcript = false;
            let (_, outcome) = Game::new(pack.clone(), cfg, agents)?.run();
            if let Status::Failed(f) = outcome.status {
                return Err(format!("{id}, seed {seed}: {f}"));
            }
        }
        let (total, n, worst) = *spent.lock().map_err(|_| "timer poisoned".to_string())?;
        let mean = total.as_secs_f64() * 1000.0 / n.max(1) as f64;
        let budget = pack.manifest.search.unwrap_or_default();
        let key = format!("search_{}_ms", id.replace('-', "_"));
        out.push((
            key.clone(),
            mean,
            format!(
                "{id}: search bot ({} rollouts{}) {mean:.1} ms a decision on one core, slowest {:.0} ms ({n} decisions, {games} games)",
                budget.rollouts.unwrap_or(crown_engine::bots::search::DEFAULT_ROLLOUTS),
                budget.depth.map(|d| format!(" of {d} turns")).unwrap_or_default(),
                worst.as_secs_f64() * 1000.0
            ),
        ));
        out.push((format!("{key}_max"), worst.as_secs_f64() * 1000.0, String::new()));
    }
    Ok(out)
}
