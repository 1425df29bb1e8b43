"""What the benchmark scripts that run pgomea and PyPI gomea side by side share: timed
subprocesses, their JSON output, censored medians, and the machine and commit of a report."""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def default_instances_dir() -> Path:
    """The instance data directory when a script is given none: $PGOMEA_INSTANCES, else
    ./instances (relative to where the script is run, as the command line looks)."""
    return Path(os.environ.get("PGOMEA_INSTANCES") or "instances")


class _Tee:
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self):
        for s in self.streams:
            s.flush()


def tee_stdout(path: Path | None) -> None:
    """Writes everything printed from now on to `path` as well (a script's --out), so that a
    report lands where the user says while it is still shown."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        sys.stdout = _Tee(sys.stdout, open(path, "w"))


def children_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed_run(cmd: list[str], timeout: float, cwd: str | None = None, env: dict | None = None):
    """Runs one subprocess; returns (completed process or None when killed, wall s, CPU s).

    CPU s is user + system time of the child (runs are sequential, so the difference of this
    process's RUSAGE_CHILDREN is exactly that child's); wall well above CPU means the machine was
    busy with other work during the run.
    """
    cpu0, start = children_cpu_s(), time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        p = None
    return p, time.perf_counter() - start, children_cpu_s() - cpu0


def last_json_line(text: str) -> dict | None:
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def censored_median(values: list[float]) -> float:
    """Median where an unreached run counts as +inf (so the median is inf if half or more fail)."""
    if not values:
        return math.inf
    s = sorted(values)
    k = len(s)
    if k % 2:
        return s[k // 2]
    a, b = s[k // 2 - 1], s[k // 2]
    return math.inf if math.isinf(a) or math.isinf(b) else (a + b) / 2


def machine_line() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
