#!/usr/bin/env python3
"""The speed-up curve of 2D tori as a log-log figure: time to 99 %, 99.9 % and to the optimum
against the number of vertices, per variant, from the files `benchmarks/tori_scaling.sh` writes.

    benchmarks/tori_figure.py DIR [DIR ...] --out FIGURE.svg [--extra VERTICES:VARIANT:RUN.json:TRACE.csv ...]

Every DIR holds `torus<side>-<variant>.json` (the `run --json` result, whose `target` is the
proven optimum) and `torus<side>-<variant>.csv` (its trace: time_s, evaluations, best_fitness;
times from the start of the command, set-up included). `--extra` adds a run kept elsewhere (the
10^7 torus). A run that did not reach a target within its limit is drawn as an open marker at
its limit with a caret: the true time is at least that (a lower bound). Needs matplotlib; writes
the figure (SVG, and a PNG beside it) and prints the table it drew.
"""
import argparse
import csv
import glob
import json
import os
import re

TARGETS = [(0.99, "99 %"), (0.999, "99.9 %"), (1.0, "the optimum")]
VARIANTS = ["serial-paper", "serial-default", "cpu-paper", "cpu-default", "gpu-paper", "gpu-default"]
LABELS = {
    "serial-paper": "serial GOMEA, one core (paper)",
    "serial-default": "serial GOMEA, one core (default)",
    "cpu-paper": "parallel GOMEA, 16 cores (paper)",
    "cpu-default": "parallel GOMEA, 16 cores (default)",
    "gpu-paper": "parallel GOMEA, GPU (paper)",
    "gpu-default": "parallel GOMEA, GPU (default)",
}


def load(run_path, trace_path):
    run = json.load(open(run_path))
    rows = list(csv.reader(open(trace_path)))[1:]
    # The run's end closes the trace (kept traces may be thinned; a run stopped at the optimum
    # reached it then).
    trace = [(float(t), float(f)) for t, _, f in rows] + [(run["time_s"], run["best_fitness"])]
    optimum = run["target"]
    times = []
    for share, _ in TARGETS:
        hit = [t for t, f in trace if f >= share * optimum]
        # (seconds, reached): a run that never got there gives its whole time as a lower bound.
        times.append((hit[0], True) if hit else (run["time_s"], False))
    return run["variables"], times, run["setup_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--extra", action="append", default=[])
    args = ap.parse_args()
    points = {v: [] for v in VARIANTS}
    for d in args.dirs:
        for path in sorted(glob.glob(os.path.join(d, "torus*-*.json"))):
            m = re.match(r"torus(\d+)-(.+)\.json$", os.path.basename(path))
            if not m or m.group(2) not in points:
                continue
            points[m.group(2)].append(load(path, path[:-5] + ".csv"))
    for extra in args.extra:
        _, variant, run_path, trace_path = extra.split(":")
        points[variant].append(load(run_path, trace_path))
    print("| vertices | variant | set-up s | to 99 % s | to 99.9 % s | to the optimum s |")
    print("|---:|---|---:|---:|---:|---:|")
    for v in VARIANTS:
        for n, times, setup in sorted(points[v]):
            cells = " | ".join(f"{t:.2f}" if ok else f"> {t:.0f}" for t, ok in times)
            print(f"| {n} | {v} | {setup:.2f} | {cells} |")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 5), sharey=True)
    colors = {v: plt.cm.tab10(i) for i, v in enumerate(VARIANTS)}
    for k, (ax, (_, name)) in enumerate(zip(axes, TARGETS)):
        for v in VARIANTS:
            pts = sorted(points[v])
            if not pts:
                continue
            xs = [n for n, _, _ in pts]
            ys = [times[k][0] for _, times, _ in pts]
            style = "--" if v.endswith("paper") else "-"
            ax.plot(xs, ys, style, color=colors[v], label=LABELS[v], linewidth=1.2)
            for x, (_, times, _) in zip(xs, pts):
                t, ok = times[k]
                if ok:
                    ax.plot([x], [t], "o", color=colors[v], markersize=5)
                else:
                    ax.plot([x], [t], "o", mfc="none", color=colors[v], markersize=7)
                    ax.annotate("", xy=(x, t * 1.8), xytext=(x, t), arrowprops=dict(arrowstyle="->", color=colors[v]))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"time to {name}")
        ax.set_xlabel("vertices of the 2D torus")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds from the start, set-up included")
    axes[0].legend(fontsize=8, loc="upper left")
    fig.suptitle("Tori of 10^3 to 10^7 vertices (open markers: not reached within the limit, a lower bound)")
    fig.tight_layout()
    fig.savefig(args.out)
    fig.savefig(os.path.splitext(args.out)[0] + ".png", dpi=90)


if __name__ == "__main__":
    main()
