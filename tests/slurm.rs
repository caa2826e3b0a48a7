//! The Slurm example of docs/balance.md run for real: `docs/balance/slurm.sh` as a job
//! array on a Slurm cluster (the one-node cluster `cargo xtask provision` starts), one
//! task cancelled, re-run the documented way, and the documented merge compared with one
//! unsharded run.
//!
//! The commands are the documented ones, with the run made small through the variables
//! the script reads (`GAMES`); the test only adds what a person at the prompt does by
//! hand: reading the job id sbatch prints, and waiting for the jobs to end.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::{crown_bin, repo_project};

/// Shards and games of the run: a few seconds a shard for a debug-build crown.
const SHARDS: u32 = 4;
const GAMES: u32 = 100;
/// How long the jobs may take, queueing included (a busy machine, another test's jobs).
const JOBS_WITHIN: Duration = Duration::from_secs(300);

const MISSING: &str = "this test runs docs/balance/slurm.sh with Slurm's `sbatch` on a Slurm cluster: \
    run the suite with `cargo xtask test` (or `cargo xtask provision` once), which installs Debian's \
    `slurmctld`, `slurmd`, `slurm-client` and `munge` and starts a one-node cluster";

/// A Slurm command run in `dir` with `path` as its `PATH` (which `--export=ALL` hands to
/// the jobs); its output, which must be a success.
fn slurm(dir: &Path, path: &std::ffi::OsStr, args: &[&str]) -> Output {
    let o = Command::new(args[0])
        .args(&args[1..])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap_or_else(|e| panic!("could not run `{}` ({e}); {MISSING}", args[0]));
    assert!(
        o.status.success(),
        "`{}` failed ({}): {}{}",
        args.join(" "),
        o.status,
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    o
}

/// The job id in sbatch's `Submitted batch job 12`.
fn job_id(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    out.trim()
        .strip_prefix("Submitted batch job ")
        .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("sbatch printed no job id: {out}"))
        .to_string()
}

/// Jobs this test submitted, cancelled if it stops before they end (so a failed run
/// leaves nothing queued on the cluster).
struct Jobs<'a> {
    dir: &'a Path,
    path: &'a std::ffi::OsStr,
    ids: Vec<String>,
}

impl Jobs<'_> {
    /// `sbatch ARGS`, noting the job.
    fn submit(&mut self, args: &[&str]) -> String {
        let id = job_id(&slurm(self.dir, self.path, &[&["sbatch"], args].concat()));
        self.ids.push(id.clone());
        id
    }

    /// Wait until none of the jobs is pending or running (array tasks included).
    fn wait(&self) {
        let ids = self.ids.join(",");
        let started = Instant::now();
        loop {
            let o = Command::new("squeue").args(["-h", "-j", &ids, "-o", "%i %T %r"]).output().expect("squeue runs");
            let queued = String::from_utf8_lossy(&o.stdout).trim().to_string();
            // squeue refuses ids it no longer knows: then they have all ended long ago.
            if queued.is_empty() || !o.status.success() {
                return;
            }
            if started.elapsed() > JOBS_WITHIN {
                let nodes = Command::new("sinfo").args(["-N", "-l"]).output().expect("sinfo runs");
                panic!(
                    "the jobs did not end within {} s; still queued (id, state, reason):\n{queued}\nthe nodes:\n{}",
                    JOBS_WITHIN.as_secs(),
                    String::from_utf8_lossy(&nodes.stdout)
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Jobs<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() && !self.ids.is_empty() {
            let _ = Command::new("scancel").args(&self.ids).output();
        }
    }
}

/// The output file (`slurm-ID.out`) of a `--wrap` job.
fn output_of(dir: &Path, id: &str) -> String {
    let f = dir.join(format!("slurm-{id}.out"));
    std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
}

#[test]
fn the_documented_job_array_with_one_task_cancelled_and_re_run_merges_into_one_run() {
    // sbatch where the suite says; a cluster that answers.
    let sinfo = Command::new("sinfo").args(["-h", "-o", "%a"]).output();
    match &sinfo {
        Err(e) => panic!("could not run `sinfo` ({e}); {MISSING}"),
        Ok(o) if !o.status.success() => {
            panic!("no Slurm cluster answers (sinfo: {}); {MISSING}", String::from_utf8_lossy(&o.stderr).trim())
        }
        Ok(_) => {}
    }

    // A project with the pack and the documented script, in the build's own folder (a
    // real cluster's nodes see it where they see the crown binary).
    let repo = repo_project().root;
    let project = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temporary folder");
    let dir = project.path();
    for part in ["content/take-the-kingdom", "scripts/take-the-kingdom"] {
        crate::common::copy_dir(&repo.join(part), &dir.join(part)).unwrap();
    }
    std::fs::create_dir_all(dir.join("docs/balance")).unwrap();
    std::fs::copy(repo.join("docs/balance/slurm.sh"), dir.join("docs/balance/slurm.sh")).unwrap();

    // The jobs find this test's crown first on their PATH.
    let bin: PathBuf = crown_bin().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut jobs = Jobs { dir, path: &path, ids: Vec::new() };
    let export = format!("--export=ALL,SHARDS={SHARDS},GAMES={GAMES}");
    let merge = "crown sim merge results/shard-*.json --json";
    let last = SHARDS - 1;

    // The array, as docs/balance.md gives it; its last task cancelled at once (it is still
    // queued or playing: a shard takes seconds), as a killed task would end.
    let array = jobs.submit(&[&format!("--array=0-{last}"), &export, "docs/balance/slurm.sh"]);
    slurm(dir, &path, &["scancel", &format!("{array}_{last}")]);
    // The merge runs once every task has ended, and names the games that are missing.
    let first = jobs.submit(&[&format!("--dependency=afterany:{array}"), "--wrap", merge]);
    jobs.wait();
    for i in 0..SHARDS {
        let shard = dir.join(format!("results/shard-{i}.json"));
        assert_eq!(shard.is_file(), i != last, "{}: only the cancelled task leaves no shard", shard.display());
    }
    let named = output_of(dir, &first);
    let missing = format!("missing game ranges: {}..{GAMES}", GAMES * last / SHARDS);
    assert!(named.contains(&missing), "the first merge names the cancelled task's games ({missing}): {named}");

    // The cancelled shard re-run with the same command and its number alone, then the
    // same merge after it.
    let rerun = jobs.submit(&[&format!("--array={last}"), &export, "docs/balance/slurm.sh"]);
    let second = jobs.submit(&[&format!("--dependency=afterany:{rerun}"), "--wrap", merge]);
    jobs.wait();
    let merged = output_of(dir, &second);

    // One unsharded run of the same games, with the script's options.
    let games = GAMES.to_string();
    let one = Command::new(crown_bin())
        .arg("--project")
        .arg(dir)
        .args(["sim", "take-the-kingdom", "--players", "4", "--games", &games, "--seed", "7"])
        .args(["--seat-order", "rotate", "--characters", "sweep", "--json"])
        .output()
        .expect("crown runs");
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    assert_eq!(merged, String::from_utf8_lossy(&one.stdout), "the merged shards are byte for byte one run");
}
