//! A one-node Slurm cluster on this machine, for the test that runs the documented job
//! array (`tests/slurm.rs` runs `docs/balance/slurm.sh` with `sbatch`).
//!
//! [`ensure_cluster`] runs after the packages are installed. When a cluster already
//! answers it does nothing; otherwise it writes `/etc/slurm/slurm.conf` (where Debian's
//! Slurm reads it) for one node, `localhost`, with this machine's CPUs and memory, makes a
//! munge key when there is none, and starts `munged`, `slurmctld` and `slurmd` directly as
//! daemons (no service manager is assumed: containers often have none), then waits until
//! the node takes jobs. A `slurm.conf` that it did not write is never touched: that
//! cluster must answer by itself.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const CONF: &str = "/etc/slurm/slurm.conf";
/// The first line of the configuration written here, how a later run knows it.
const MARK: &str = "# A one-node Slurm cluster for Crown's tests, written by `cargo xtask provision`.";
const MUNGE_KEY: &str = "/etc/munge/munge.key";
const MUNGED_PID: &str = "/run/munge/munged.pid";
const SLURMCTLD_PID: &str = "/run/slurmctld.pid";
const SLURMD_PID: &str = "/run/slurmd.pid";
const LOGS: [&str; 3] = ["/var/log/slurm/slurmctld.log", "/var/log/slurm/slurmd.log", "/var/log/munge/munged.log"];
/// How long the node may take to answer once the daemons are started.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// Make sure a Slurm cluster takes jobs here, starting a one-node one when needed (as
/// root, or through `sudo -n`).
pub fn ensure_cluster() -> Result<(), String> {
    let existing = std::fs::read_to_string(CONF).ok();
    if existing.as_deref().is_some_and(|c| !c.starts_with(MARK)) {
        // Someone else's cluster: use it as it is, or say why not.
        return match node_states() {
            Ok(states) if states.iter().any(|s| takes_jobs(s)) => Ok(()),
            Ok(states) => Err(format!(
                "{CONF} was not written by `cargo xtask provision`, so it is left alone, and no node of \
                 its cluster takes jobs (states: {}); the Slurm test (tests/slurm.rs) needs one. Start \
                 that cluster, or move {CONF} away and run `cargo xtask provision` again to get a \
                 one-node cluster",
                states.join(", ")
            )),
            Err(e) => Err(format!(
                "{CONF} was not written by `cargo xtask provision`, so it is left alone, and its cluster \
                 does not answer ({e}); the Slurm test (tests/slurm.rs) needs one. Start that cluster, \
                 or move {CONF} away and run `cargo xtask provision` again to get a one-node cluster"
            )),
        };
    }
    let conf = config()?;
    let rewrite = existing.as_deref() != Some(conf.as_str());
    if daemons_alive() && !rewrite && node_states().is_ok_and(|s| s.iter().any(|s| takes_jobs(s))) {
        return Ok(());
    }
    let root = crate::root_prefix().map_err(|e| {
        format!(
            "{e}, so the one-node Slurm cluster the Slurm test (tests/slurm.rs) needs cannot be \
             started; run `cargo xtask provision` as root once"
        )
    })?;
    let root = &root[..];
    eprintln!("xtask: starting a one-node Slurm cluster for the Slurm test ({CONF})");
    if rewrite {
        // Daemons running on an older version of this file read it again when restarted.
        for (pid, name) in [(SLURMD_PID, "slurmd"), (SLURMCTLD_PID, "slurmctld")] {
            stop(root, pid, name)?;
        }
        as_root(root, &["mkdir", "-p", "/etc/slurm"], None)?;
        as_root(root, &["tee", CONF], Some(conf.as_bytes()))?;
    }
    as_root(root, &["mkdir", "-p", "/var/spool/slurmctld", "/var/spool/slurmd", "/var/log/slurm"], None)?;
    if !alive(MUNGED_PID, "munged") {
        if !Path::new(MUNGE_KEY).exists() {
            as_root(root, &["runuser", "-u", "munge", "--", "mungekey", "--create", "--keyfile", MUNGE_KEY], None)?;
        }
        as_root(root, &["install", "-d", "-o", "munge", "-g", "munge", "-m", "0755", "/run/munge"], None)?;
        as_root(root, &["runuser", "-u", "munge", "--", "/usr/sbin/munged"], None)?;
    }
    if !alive(SLURMCTLD_PID, "slurmctld") {
        as_root(root, &["/usr/sbin/slurmctld"], None)?;
    }
    if !alive(SLURMD_PID, "slurmd") {
        as_root(root, &["/usr/sbin/slurmd", "-N", "localhost"], None)?;
    }
    let started = Instant::now();
    let mut last = String::new();
    while started.elapsed() < READY_WITHIN {
        // A daemon that stops right after starting (a bad key, a port taken) shows here
        // first: slurmctld restores the node's last state before slurmd is heard from.
        match node_states() {
            Ok(_) if !daemons_alive() => last = "a daemon stopped after starting".into(),
            Ok(s) if s.iter().any(|s| takes_jobs(s)) => {
                eprintln!("xtask: the Slurm node is up ({:.1} s)", started.elapsed().as_secs_f64());
                return Ok(());
            }
            Ok(s) => last = format!("the node is {}", s.join(", ")),
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let reasons = Command::new("sinfo").args(["-R"]).output().map(|o| text(&o)).unwrap_or_default();
    let logs: Vec<String> = LOGS.iter().map(|l| format!("--- the end of {l}:\n{}", tail(l, 15))).collect();
    Err(format!(
        "the one-node Slurm cluster did not take jobs within {} s of starting its daemons ({last}). \
         The Slurm test (tests/slurm.rs) needs it.\n{reasons}\n{}",
        READY_WITHIN.as_secs(),
        logs.join("\n")
    ))
}

/// `/etc/slurm/slurm.conf` for one node, `localhost`, with what `slurmd -C` finds here.
/// No cgroups, no accounting: processes are tracked by their parent ids, and jobs run
/// where they are put.
fn config() -> Result<String, String> {
    let o = Command::new("/usr/sbin/slurmd")
        .arg("-C")
        .output()
        .map_err(|e| format!("could not run `slurmd -C` to read this machine's CPUs and memory: {e}"))?;
    let found = String::from_utf8_lossy(&o.stdout);
    let node: Vec<&str> = found
        .lines()
        .find(|l| l.starts_with("NodeName="))
        .ok_or_else(|| format!("`slurmd -C` did not describe this machine:\n{}", text(&o)))?
        .split_whitespace()
        .filter(|f| !f.starts_with("NodeName="))
        .collect();
    Ok(format!(
        "{MARK}
# One node, this machine, and one partition; nothing here is for a real cluster.
ClusterName=crown
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile={SLURMCTLD_PID}
SlurmdPidFile={SLURMD_PID}
SlurmctldLogFile={}
SlurmdLogFile={}
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=5
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=localhost {} State=UNKNOWN
PartitionName=main Nodes=localhost Default=YES MaxTime=INFINITE State=UP
",
        LOGS[0],
        LOGS[1],
        node.join(" ")
    ))
}

/// The states `sinfo` gives the cluster's nodes, or why it did not answer.
fn node_states() -> Result<Vec<String>, String> {
    let o = Command::new("sinfo")
        .args(["-h", "-N", "-o", "%t"])
        .output()
        .map_err(|e| format!("could not run sinfo: {e}"))?;
    if !o.status.success() {
        return Err(format!("sinfo: {}", text(&o)));
    }
    Ok(String::from_utf8_lossy(&o.stdout).split_whitespace().map(str::to_string).collect())
}

/// A node state in which the node runs jobs (`idle*`, not responding, does not).
fn takes_jobs(state: &str) -> bool {
    matches!(state, "idle" | "mix" | "alloc" | "comp")
}

/// Whether munged, slurmctld and slurmd all run.
fn daemons_alive() -> bool {
    alive(MUNGED_PID, "munged") && alive(SLURMCTLD_PID, "slurmctld") && alive(SLURMD_PID, "slurmd")
}

/// Whether the process a pid file names runs, and is `name`.
fn alive(pid_file: &str, name: &str) -> bool {
    std::fs::read_to_string(pid_file)
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
        .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).ok())
        .is_some_and(|comm| comm.trim() == name)
}

/// Stop the daemon a pid file names, when it runs, and wait for it to end.
fn stop(root: &[&str], pid_file: &str, name: &str) -> Result<(), String> {
    if !alive(pid_file, name) {
        return Ok(());
    }
    let pid = std::fs::read_to_string(pid_file).unwrap_or_default().trim().to_string();
    as_root(root, &["kill", &pid], None)?;
    let since = Instant::now();
    while alive(pid_file, name) {
        if since.elapsed() > Duration::from_secs(20) {
            return Err(format!("{name} (pid {pid}) did not stop within 20 s of being told to"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(())
}

/// Run a command as root (through the prefix), with `input` on its standard input.
fn as_root(root: &[&str], args: &[&str], input: Option<&[u8]>) -> Result<Output, String> {
    let all: Vec<&str> = root.iter().chain(args).copied().collect();
    let mut cmd = Command::new(all[0]);
    cmd.args(&all[1..]).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().map_err(|e| format!("could not run `{}`: {e}", all.join(" ")))?;
    if let Some(bytes) = input {
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(bytes).map_err(|e| format!("`{}`: {e}", all.join(" ")))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("`{}`: {e}", all.join(" ")))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!("`{}` failed ({}): {}", all.join(" "), out.status, text(&out)))
    }
}

/// A command's standard error, else its standard output, trimmed.
fn text(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    if err.is_empty() {
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    } else {
        err
    }
}

/// The last `n` lines of a file, or why there are none.
fn tail(path: &str, n: usize) -> String {
    match std::fs::read_to_string(path) {
        Ok(s) => {
            let lines: Vec<&str> = s.lines().collect();
            lines[lines.len().saturating_sub(n)..].join("\n")
        }
        Err(e) => format!("({e})"),
    }
}
