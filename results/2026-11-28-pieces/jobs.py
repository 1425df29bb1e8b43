#!/usr/bin/env python3
"""Runs jobs (lines: name<TAB>estimated seconds<TAB>bash command) on N GPUs, longest first,
one job per GPU at a time (CUDA_VISIBLE_DEVICES), logs in LOGDIR/name.log."""
import subprocess, sys, os, time, threading, queue
jobs_file, ngpu, logdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(logdir, exist_ok=True)
jobs = []
for line in open(jobs_file):
    line = line.rstrip("\n")
    if not line.strip() or line.startswith("#"):
        continue
    name, est, cmd = line.split("\t", 2)
    jobs.append((float(est), name, cmd))
jobs.sort(key=lambda j: -j[0])
q = queue.Queue()
for j in jobs:
    q.put(j)
t0 = time.time()
lock = threading.Lock()
def worker(gpu):
    while True:
        try:
            est, name, cmd = q.get_nowait()
        except queue.Empty:
            return
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu))
        # Each job on its GPU's share of the cores (rayon sizes its pool from the affinity).
        cpus = sorted(os.sched_getaffinity(0)); per = max(1, len(cpus) // ngpu)
        mine = set(cpus[gpu * per:(gpu + 1) * per]) if ngpu > 1 else set(cpus)
        s = time.time()
        with open(os.path.join(logdir, name + ".log"), "w") as log:
            rc = subprocess.call(["bash", "-c", cmd], env=env, stdout=log, stderr=subprocess.STDOUT,
                                 preexec_fn=lambda: os.sched_setaffinity(0, mine))
        with lock:
            print(f"[{time.time()-t0:7.1f}s] gpu{gpu} {name}: rc {rc}, {time.time()-s:.1f}s (est {est:.0f})", flush=True)
ts = [threading.Thread(target=worker, args=(g,)) for g in range(ngpu)]
for t in ts: t.start()
for t in ts: t.join()
print(f"all done in {time.time()-t0:.1f}s")
