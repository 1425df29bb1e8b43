//! Sizes that come from a file header or an option (variables, population sizes) are checked
//! against the memory this process may still take before anything of that size is allocated: a
//! failed allocation aborts the process, and a header may announce two billion variables in ten
//! bytes.
//!
//! The memory left is the smallest of what the machine has available (`MemAvailable`), what the
//! process's own limits leave (the address-space and data limits, `ulimit -v` and `ulimit -d`:
//! the limit minus the process's current virtual and data size) and what its control group
//! leaves (the memory limit of a container or a SLURM job, at every level of the group's path:
//! cgroup v2 `memory.max` minus `memory.current`, v1 `memory.limit_in_bytes` minus
//! `memory.usage_in_bytes`, the page cache that the kernel reclaims first, `inactive_file`, not
//! counted as used). A check that passes under the machine's memory can otherwise still end in an
//! abort or the OOM killer under such a limit.
//!
//! [`ensure`] checks a number of bytes; [`vec_with_capacity`] and [`vec_filled`] check and then
//! allocate, with a fallible reservation, so that no buffer sized from input is made before its
//! check.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// What bounds the memory a process may still take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The memory the system can still hand out (`MemAvailable` of /proc/meminfo).
    Available,
    /// The address-space limit (RLIMIT_AS, `ulimit -v`) minus the process's virtual size.
    AddressSpace,
    /// The data limit (RLIMIT_DATA, `ulimit -d`) minus the process's data size.
    Data,
    /// The memory limit of the process's control group (a container, a SLURM job) minus its use.
    Cgroup,
}

impl Bound {
    /// How messages name the bound.
    pub fn describe(self) -> &'static str {
        match self {
            Bound::Available => "available on this machine",
            Bound::AddressSpace => "left under this process's address-space limit (RLIMIT_AS, ulimit -v)",
            Bound::Data => "left under this process's data-size limit (RLIMIT_DATA, ulimit -d)",
            Bound::Cgroup => "left under the memory limit of this process's control group (a container or job limit)",
        }
    }
}

/// The memory this process may still take, and what bounds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headroom {
    pub(crate) bytes: u64,
    pub(crate) bound: Bound,
}

/// The smallest headroom of the machine, the process's limits and its control group; None where
/// none can be read (then only arithmetic overflow is checked).
pub fn headroom() -> Option<Headroom> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let status = read("/proc/self/status");
    let status = status.as_deref().unwrap_or("");
    let candidates = [
        read("/proc/meminfo").and_then(|t| meminfo_available(&t)).map(|b| (b, Bound::Available)),
        // SAFETY (both): getrlimit writes one rlimit into the struct it is given.
        rlimit(|l| unsafe { libc::getrlimit(libc::RLIMIT_AS, l) })
            .map(|lim| (lim.saturating_sub(status_bytes(status, "VmSize:").unwrap_or(0)), Bound::AddressSpace)),
        rlimit(|l| unsafe { libc::getrlimit(libc::RLIMIT_DATA, l) })
            .map(|lim| (lim.saturating_sub(status_bytes(status, "VmData:").unwrap_or(0)), Bound::Data)),
        cgroup_headroom().map(|b| (b, Bound::Cgroup)),
    ];
    candidates.into_iter().flatten().min_by_key(|&(bytes, _)| bytes).map(|(bytes, bound)| Headroom { bytes, bound })
}

/// The memory this process may still take ([`headroom`]), in bytes.
pub fn available() -> Option<u64> {
    headroom().map(|h| h.bytes)
}

/// Ok when `bytes` fit in the memory this process may still take; else an error saying that
/// `what` needs them and which limit refuses them.
pub fn ensure(bytes: u128, what: &str) -> Result<()> {
    ensure_within(bytes, what, headroom())
}

/// [`ensure`] against a given headroom (tests give their own).
pub fn ensure_within(bytes: u128, what: &str, headroom: Option<Headroom>) -> Result<()> {
    if bytes > isize::MAX as u128 {
        return Err(Error::usage(format!("{what} would need {}: more than any machine can address", human(bytes))));
    }
    match headroom {
        Some(h) if bytes > h.bytes as u128 => Err(Error::usage(format!(
            "{what} would need about {} of memory, but only {} are {}",
            human(bytes),
            human(h.bytes as u128),
            h.bound.describe()
        ))),
        _ => Ok(()),
    }
}

/// An empty vector with room for `count` elements, allocated only after [`ensure`] passes, and
/// then with a fallible reservation: a refusal or a failed allocation is an error naming `what`.
pub fn vec_with_capacity<T>(count: usize, what: &str) -> Result<Vec<T>> {
    let bytes = count as u128 * std::mem::size_of::<T>() as u128;
    ensure(bytes, what)?;
    let mut v = Vec::new();
    v.try_reserve_exact(count).map_err(|_| {
        Error::usage(format!("{what} would need about {} of memory, which could not be allocated", human(bytes)))
    })?;
    Ok(v)
}

/// `count` copies of `value` ([`vec_with_capacity`], then filled).
pub fn vec_filled<T: Clone>(value: T, count: usize, what: &str) -> Result<Vec<T>> {
    let mut v = vec_with_capacity(count, what)?;
    v.resize(count, value);
    Ok(v)
}

/// Bytes for people: `1.5 GiB`.
pub fn human(bytes: u128) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{bytes} bytes") } else { format!("{v:.1} {}", units[u]) }
}

/// `MemAvailable` of a /proc/meminfo text, in bytes.
pub fn meminfo_available(meminfo: &str) -> Option<u64> {
    status_bytes(meminfo, "MemAvailable:")
}

/// A `NAME: N kB` field of /proc/self/status or /proc/meminfo, in bytes.
pub fn status_bytes(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The soft limit that `get` (a getrlimit call) reads, or None when it is unlimited or cannot be
/// read. (The resource's type differs between C libraries, hence the call as an argument.)
fn rlimit(get: impl FnOnce(&mut libc::rlimit) -> libc::c_int) -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    let ok = get(&mut lim) == 0;
    // rlim_t is u64 on Linux, not on every C library.
    #[allow(clippy::unnecessary_cast)]
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur as u64)
}

/// A control group's memory files, as read from its directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CgroupVersion {
    /// `memory.max`, `memory.current`, `memory.stat` (`inactive_file`).
    V2,
    /// `memory.limit_in_bytes`, `memory.usage_in_bytes`, `memory.stat` (`total_inactive_file`).
    V1,
}

/// The memory a control group still allows, from the texts of its files: the limit minus the use,
/// the inactive page cache not counted as used (the kernel reclaims it before it refuses); None
/// without a limit (`max`, or v1's "unlimited", the largest page-aligned 63-bit number).
pub fn cgroup_left(version: CgroupVersion, limit: &str, usage: &str, stat: Option<&str>) -> Option<u64> {
    let limit = limit.trim();
    if limit == "max" {
        return None;
    }
    let limit: u64 = limit.parse().ok()?;
    if version == CgroupVersion::V1 && limit >= (i64::MAX as u64 & !0xFFF) {
        return None;
    }
    let usage: u64 = usage.trim().parse().ok()?;
    let inactive_name = match version {
        CgroupVersion::V2 => "inactive_file",
        CgroupVersion::V1 => "total_inactive_file",
    };
    let inactive = stat
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix(inactive_name)?.strip_prefix(' ')?.trim().parse().ok()))
        .unwrap_or(0u64);
    Some(limit.saturating_sub(usage.saturating_sub(inactive)))
}

/// The cgroup of this process for memory, from /proc/self/cgroup: the v2 path (`0::/path`) and
/// the v1 path of the hierarchy with the memory controller (`N:memory,...:/path`).
pub fn cgroup_paths(proc_self_cgroup: &str) -> (Option<String>, Option<String>) {
    let (mut v2, mut v1) = (None, None);
    for line in proc_self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
        if id == "0" && controllers.is_empty() {
            v2 = Some(path.to_string());
        } else if controllers.split(',').any(|c| c == "memory") {
            v1 = Some(path.to_string());
        }
    }
    (v2, v1)
}

/// A cgroup file system mounted: its root inside the hierarchy and where it is mounted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupMount {
    pub(crate) version: CgroupVersion,
    pub(crate) root: String,
    pub(crate) mount_point: PathBuf,
}

/// The cgroup v2 mount and the v1 mount of the memory controller, from /proc/self/mountinfo
/// (`ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [TAGS] - FSTYPE SOURCE SUPER_OPTIONS`).
pub fn cgroup_mounts(mountinfo: &str) -> Vec<CgroupMount> {
    let mut out = Vec::new();
    for line in mountinfo.lines() {
        let Some((before, after)) = line.split_once(" - ") else { continue };
        let fields: Vec<&str> = before.split(' ').collect();
        let after: Vec<&str> = after.split(' ').collect();
        let (Some(root), Some(mount_point), Some(fstype)) = (fields.get(3), fields.get(4), after.first()) else {
            continue;
        };
        let version = match *fstype {
            "cgroup2" => CgroupVersion::V2,
            "cgroup" if after.get(2).is_some_and(|o| o.split(',').any(|c| c == "memory")) => CgroupVersion::V1,
            _ => continue,
        };
        out.push(CgroupMount { version, root: unescape(root), mount_point: PathBuf::from(unescape(mount_point)) });
    }
    out
}

/// Mountinfo writes a space as `\040` (and tab, newline, backslash likewise in octal).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The directories of a cgroup `path` and of its ancestors below the mount, innermost first: a
/// limit may be set on any of them (a SLURM job's limit sits above the step's group). A path
/// outside the mount's root (another cgroup namespace) is taken as the mount point itself.
pub fn cgroup_dirs(mount: &CgroupMount, path: &str) -> Vec<PathBuf> {
    let root = mount.root.trim_end_matches('/');
    let relative = path.strip_prefix(root).filter(|r| r.is_empty() || r.starts_with('/')).unwrap_or("");
    let mut dirs = Vec::new();
    let mut rel = relative.trim_matches('/').to_string();
    loop {
        dirs.push(if rel.is_empty() { mount.mount_point.clone() } else { mount.mount_point.join(&rel) });
        match rel.rfind('/') {
            Some(k) => rel.truncate(k),
            None if !rel.is_empty() => rel.clear(),
            None => break,
        }
    }
    dirs
}

/// The smallest headroom over this process's control groups and their ancestors.
fn cgroup_headroom() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let (v2, v1) = cgroup_paths(&cgroup);
    let read = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let mut best: Option<u64> = None;
    for mount in cgroup_mounts(&mountinfo) {
        let (path, limit_file, usage_file) = match mount.version {
            CgroupVersion::V2 => (v2.as_deref(), "memory.max", "memory.current"),
            CgroupVersion::V1 => (v1.as_deref(), "memory.limit_in_bytes", "memory.usage_in_bytes"),
        };
        let Some(path) = path else { continue };
        for dir in cgroup_dirs(&mount, path) {
            let (Some(limit), Some(usage)) = (read(&dir, limit_file), read(&dir, usage_file)) else { continue };
            let stat = read(&dir, "memory.stat");
            if let Some(left) = cgroup_left(mount.version, &limit, &usage, stat.as_deref()) {
                best = Some(best.map_or(left, |b| b.min(left)));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_fields_are_read_in_bytes() {
        let meminfo = "MemTotal:       24531212 kB\nMemFree:        23000000 kB\nMemAvailable:   23456789 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(23456789 * 1024));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
        let status = "Name:\tpgomea\nVmPeak:\t  10000 kB\nVmSize:\t    3896 kB\nVmData:\t     428 kB\n";
        assert_eq!(status_bytes(status, "VmSize:"), Some(3896 * 1024));
        assert_eq!(status_bytes(status, "VmData:"), Some(428 * 1024));
        assert_eq!(status_bytes(status, "VmSwap:"), None);
    }

    #[test]
    fn cgroup_limits_are_limit_minus_use_without_the_inactive_page_cache() {
        let stat2 = "anon 1000\nfile 5000\ninactive_file 3000\nactive_file 2000\n";
        assert_eq!(cgroup_left(CgroupVersion::V2, "max\n", "123\n", None), None);
        assert_eq!(cgroup_left(CgroupVersion::V2, "10000\n", "6000\n", None), Some(4000));
        assert_eq!(cgroup_left(CgroupVersion::V2, "10000\n", "6000\n", Some(stat2)), Some(7000));
        // Use above the limit (the kernel reclaiming): nothing left, not an underflow.
        assert_eq!(cgroup_left(CgroupVersion::V2, "100\n", "6000\n", None), Some(0));
        let stat1 = "cache 1\ninactive_file 99\ntotal_inactive_file 500\n";
        assert_eq!(cgroup_left(CgroupVersion::V1, "9223372036854771712\n", "1498202112\n", None), None);
        assert_eq!(cgroup_left(CgroupVersion::V1, "8000\n", "3000\n", Some(stat1)), Some(5500));
        assert_eq!(cgroup_left(CgroupVersion::V2, "garbage", "1", None), None);
    }

    #[test]
    fn the_cgroup_of_the_process_is_found_for_both_versions() {
        let hybrid = "9:name=systemd:/\n4:memory:/process_api/ed76\n3:cpuset:/\n0::/\n";
        assert_eq!(cgroup_paths(hybrid), (Some("/".into()), Some("/process_api/ed76".into())));
        let v2 = "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n";
        assert_eq!(cgroup_paths(v2), (Some("/system.slice/slurmstepd.scope/job_42/step_0/user/task_0".into()), None));
        let combined = "5:cpu,memory,pids:/docker/abc\n";
        assert_eq!(cgroup_paths(combined), (None, Some("/docker/abc".into())));
        let mountinfo = "\
25 30 0:23 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
30 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory
31 25 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 25 0:30 /docker/abc /sys/fs/cgroup/unified\\040dir rw - cgroup2 cgroup2 rw,nsdelegate
";
        let mounts = cgroup_mounts(mountinfo);
        assert_eq!(
            mounts,
            vec![
                CgroupMount {
                    version: CgroupVersion::V1,
                    root: "/".into(),
                    mount_point: PathBuf::from("/sys/fs/cgroup/memory")
                },
                CgroupMount {
                    version: CgroupVersion::V2,
                    root: "/docker/abc".into(),
                    mount_point: PathBuf::from("/sys/fs/cgroup/unified dir")
                },
            ]
        );
        // Every level from the process's group up to the mount, innermost first.
        assert_eq!(
            cgroup_dirs(&mounts[0], "/process_api/ed76"),
            vec![
                PathBuf::from("/sys/fs/cgroup/memory/process_api/ed76"),
                PathBuf::from("/sys/fs/cgroup/memory/process_api"),
                PathBuf::from("/sys/fs/cgroup/memory"),
            ]
        );
        // The mount's root is stripped; a path outside it is the mount point itself.
        assert_eq!(
            cgroup_dirs(&mounts[1], "/docker/abc/job"),
            vec![PathBuf::from("/sys/fs/cgroup/unified dir/job"), PathBuf::from("/sys/fs/cgroup/unified dir")]
        );
        assert_eq!(cgroup_dirs(&mounts[1], "/"), vec![PathBuf::from("/sys/fs/cgroup/unified dir")]);
        assert_eq!(cgroup_dirs(&mounts[1], "/docker/abcdef"), vec![PathBuf::from("/sys/fs/cgroup/unified dir")]);
    }

    #[test]
    fn a_check_names_the_limit_that_refuses() {
        let h = |bytes, bound| Some(Headroom { bytes, bound });
        assert!(ensure_within(100, "x", h(100, Bound::Cgroup)).is_ok());
        assert!(ensure_within(100, "x", None).is_ok());
        let e = ensure_within(2 << 30, "an instance of 9 variables", h(1 << 30, Bound::AddressSpace))
            .unwrap_err()
            .to_string();
        assert!(e.contains("an instance of 9 variables would need about 2.0 GiB") && e.contains("RLIMIT_AS"), "{e}");
        let e = ensure_within(2 << 30, "x", h(5, Bound::Cgroup)).unwrap_err().to_string();
        assert!(e.contains("control group"), "{e}");
        assert!(ensure_within(u128::MAX, "x", None).unwrap_err().to_string().contains("more than any machine"));
        // The live headroom of this process is found (this machine has /proc) and is positive.
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(headroom().is_some_and(|h| h.bytes > 0));
        }
        assert!(vec_with_capacity::<u64>(usize::MAX / 4, "a huge buffer").is_err());
        assert_eq!(vec_filled(7u8, 3, "three").unwrap(), vec![7, 7, 7]);
    }
}
