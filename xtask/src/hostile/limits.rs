//! The limits of each case (time, resident memory, address space) and how a case's
//! memory is measured.

use std::process::{Child, Command};
use std::time::Duration;

/// The bar: each case ends within this time.
pub(super) const TIME_LIMIT: Duration = Duration::from_secs(20);
/// The bar: no case holds more than this in memory (peak resident set).
pub(super) const MEMORY_LIMIT: u64 = 1 << 30;
/// A backstop on address space, so that a runaway case fails an allocation rather than
/// take the machine's memory. Above the bar: address space counts every thread's
/// reserved stack (`sim --threads 256` reserves 4 GiB of stacks it never touches), so
/// the bar itself is the measured resident peak.
const ADDRESS_SPACE_LIMIT: u64 = 6 << 30;

/// The largest resident size of any child waited for so far, in bytes.
pub(super) fn children_max_rss() -> u64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map(|u| u.max_rss().max(0) as u64 * 1024)
        .unwrap_or(0)
}

/// `VmHWM` of a running process, in bytes.
pub(super) fn peak_rss_of(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Spawn with the address-space backstop: lowered in this process for the spawn (the
/// child inherits it), then raised back.
pub(super) fn spawn_limited(cmd: &mut Command) -> std::io::Result<Child> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (soft, hard) = getrlimit(Resource::RLIMIT_AS).map_err(std::io::Error::from)?;
    setrlimit(Resource::RLIMIT_AS, ADDRESS_SPACE_LIMIT.min(hard), hard).map_err(std::io::Error::from)?;
    let child = cmd.spawn();
    setrlimit(Resource::RLIMIT_AS, soft, hard).map_err(std::io::Error::from)?;
    child
}
