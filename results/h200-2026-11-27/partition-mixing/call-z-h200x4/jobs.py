#!/usr/bin/env python3
"""Runs pgomea jobs on every GPU of the host at once, one job per GPU, each on its own 16 cores.
Usage: jobs.py JOBS.tsv OUTDIR. A line of JOBS.tsv: name<TAB>seconds (for ordering)<TAB>args."""
import json, os, queue, shlex, subprocess, sys, threading, time
jobs_file, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
gpus = int(os.environ.get("NGPU") or subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU "))
cores = os.cpu_count()
per = max(1, cores // gpus)
jobs = [l.rstrip("\n").split("\t") for l in open(jobs_file) if l.strip() and not l.startswith("#")]
jobs.sort(key=lambda j: -float(j[1]))  # longest first
q = queue.Queue()
for j in jobs:
    q.put(j)
lock = threading.Lock()
summary = open(os.path.join(out, "summary.tsv"), "a")
def worker(g):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(g))
    cpus = f"{g*per}-{g*per+per-1}"
    while True:
        try:
            name, _, args = q.get_nowait()
        except queue.Empty:
            return
        t0 = time.time()
        cmd = ["taskset", "-c", cpus] + shlex.split(args) + ["--json", "--trace", os.path.join(out, name + ".trace.csv")]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        try:
            d = json.loads(p.stdout); d.pop("solution", None)
            json.dump(d, open(os.path.join(out, name + ".json"), "w"))
            line = f"{name}\t{d['best_fitness']}\t{d.get('best_known')}\t{d['time_s']:.2f}\t{d.get('setup_s', 0):.2f}\t{d.get('generations')}\t{d.get('populations')}\t{d.get('stop_reason')}\tgpu{g}"
        except Exception as e:
            line = f"{name}\tFAILED rc={p.returncode} {e}\t{p.stderr[-300:]!r}"
        open(os.path.join(out, name + ".err"), "w").write(p.stderr)
        with lock:
            summary.write(line + "\n"); summary.flush()
            print(line, f"wall {time.time()-t0:.1f}", flush=True)
ts = [threading.Thread(target=worker, args=(g,)) for g in range(gpus)]
[t.start() for t in ts]
[t.join() for t in ts]
