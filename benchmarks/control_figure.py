#!/usr/bin/env python3
"""Best fitness over time, per instance, of the variants `benchmarks/control.sh` ran: the default
against the control (`--anneal-only`) and any other variant, one panel per instance, every seed a
line, from the directories control.sh wrote.

    benchmarks/control_figure.py DIR [DIR ...] --out FIGURE.svg [--instances A,B,...] [--columns N]

Each DIR holds `runs.csv` and `traces/<instance>-<variant>-seed<s>.csv` (time_s, evaluations,
best_fitness). The y axis is the gap to the instance's reference in percent, on a log scale: the
optimum or best-known value where `runs.csv` names one, else the best any run in the DIRs found
(a run at the reference is drawn at the floor of the axis, 10^-4 %). Time is from the start of
the run (set-up included), on a log scale. Needs matplotlib; writes the figure (SVG, and a PNG
beside it) and prints, per instance and variant, the final gaps of the seeds.
"""
import argparse
import csv
import os
from collections import defaultdict

FLOOR = 1e-4  # % : the gap drawn for a run at the reference
COLOURS = {"default": "C0", "anneal-only": "C3", "anneal-only-mix": "C4", "annealed": "C0", "descent": "C2",
           "unannealed": "C1", "mix": "C0", "no-mix": "C1"}


def read(dirs):
    """Runs keyed by instance: (variant, seed, trace [(t, f)], end time, best), and references."""
    runs, refs = defaultdict(list), {}
    for d in dirs:
        for row in csv.DictReader(open(os.path.join(d, "runs.csv"))):
            name, variant, seed = row["instance"], row["variant"], row["seed"]
            path = os.path.join(d, "traces", f"{name}-{variant}-seed{seed}.csv")
            trace = [(float(r["time_s"]), float(r["best_fitness"])) for r in csv.DictReader(open(path))]
            runs[name].append((variant, int(seed), trace, float(row["time_s"]), float(row["best_fitness"])))
            if row["reference"]:
                refs[name] = float(row["reference"])
    for name, rs in runs.items():
        refs.setdefault(name, max(best for *_, best in rs))
    return runs, refs


def gap(f, ref):
    return max(100.0 * (ref - f) / abs(ref), FLOOR)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--out", required=True, help="the figure (.svg; a .png is written beside it)")
    ap.add_argument("--instances", help="comma-separated instances, in panel order (default: all)")
    ap.add_argument("--columns", type=int, default=4)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    runs, refs = read(a.dirs)
    names = a.instances.split(",") if a.instances else sorted(runs)
    missing = [n for n in names if n not in runs]
    if missing:
        ap.error(f"no runs of {', '.join(missing)} in {', '.join(a.dirs)}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(a.columns, len(names))
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 2.7 * rows), squeeze=False)
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    for ax, name in zip(axes.flat, names):
        ref = refs[name]
        for variant, seed, trace, end, best in sorted(runs[name]):
            points = [(t, gap(f, ref)) for t, f in trace if t > 0] + [(end, gap(best, ref))]
            xs, ys = zip(*points)
            ax.step(xs, ys, where="post", color=COLOURS.get(variant, "C7"), lw=1,
                    label=variant if seed == 1 else None)
            print(f"{name:24} {variant:12} seed {seed}: gap {gap(best, ref):.4f} % at {end:.1f} s")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(bottom=FLOOR / 2)
        ax.set_title(name, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", lw=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("gap to reference (%)", fontsize=8)
    for ax in axes[-1, :]:
        ax.set_xlabel("time (s)", fontsize=8)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    if a.title:
        fig.suptitle(a.title, fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97 if a.title else 1))
    fig.savefig(a.out)
    fig.savefig(os.path.splitext(a.out)[0] + ".png", dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
