#!/usr/bin/env python3
"""Soak test of `poppy train`: runs a tiny training run and stops it at random moments with
SIGKILL, SIGINT or SIGTERM, restarting it each time, then checks that nothing was lost.

After every stop (the run directory as the next start will find it):
  - every game record in games.jsonl has its replay chunk, no record is there twice;
  - every chunk has a record, except chunks newer than the newest record (written just before
    their record when the stop came between the two; the next start moves them aside);
  - every chunk starts with the POPPYRPL magic; `best` names a model that exists.
At the end the run is resumed once more and left to finish an iteration (it must exit 0), and
then, strictly: every chunk has its record and every record its chunk, state.json counts
exactly the records and their samples, and every model loads (`poppy match` plays one game with
each). Progress goes to stdout and one JSON line per stop to OUT/soak.jsonl.

Usage: scripts/soak.py [--minutes 30] [--poppy build/poppy] [--out /tmp/poppy-soak] [--seed 1]
Exit status: 0 when every check passed, 1 otherwise.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

TINY_CONFIG = """# scripts/soak.py: a tiny run, so that many iterations (and phase changes) fit in the soak
variant: micro
device: cpu
seed: 7
network: {blocks: 1, channels: 8, value_hidden: 8}
selfplay: {games_per_iteration: 8, parallel_games: 8, playouts: 16, threads: 1}
training: {batch_size: 32, steps_per_iteration: 20, min_samples: 50, window: 20000, threads: 1}
gate: {games: 4, playouts: 8, parallel_games: 4}
run: {iterations: 0}
"""

SIGNALS = [("SIGKILL", signal.SIGKILL), ("SIGINT", signal.SIGINT), ("SIGTERM", signal.SIGTERM)]


def read_records(run):
    """The records of games.jsonl; a torn last line (a kill while appending) is not a record."""
    path = run / "games.jsonl"
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return records


def chunk_names(run):
    replay = run / "replay"
    if not replay.exists():
        return []
    return sorted(p.name for p in replay.iterdir() if p.name.startswith("chunk-") and p.name.endswith(".rpl"))


def check_run(run, strict):
    """Problems found in the run directory (an empty list when it is sound)."""
    problems = []
    records = read_records(run)
    ids = [r.get("id", "") for r in records]
    if len(set(ids)) != len(ids):
        problems.append("a game record appears twice in games.jsonl")
    chunks = set(chunk_names(run))
    for i in ids:
        if i + ".rpl" not in chunks:
            problems.append(f"record {i} has no replay chunk")
    newest = max(ids) + ".rpl" if ids else ""
    for c in sorted(chunks - {i + ".rpl" for i in ids}):
        if strict or c < newest:
            problems.append(f"chunk {c} has no record")
    for c in chunks:
        with open(run / "replay" / c, "rb") as f:
            if f.read(8) != b"POPPYRPL":
                problems.append(f"chunk {c} is damaged (no magic)")
    best = run / "best"
    if best.exists():
        name = best.read_text().strip()
        if not (run / "models" / (name + ".model")).exists():
            problems.append(f"best names {name}, which has no model file")
    if strict:
        state = json.loads((run / "state.json").read_text())
        if state["total_games"] != len(records):
            problems.append(f"state.json counts {state['total_games']} games, games.jsonl has {len(records)}")
        samples = sum(r.get("samples", r.get("plies", 0)) for r in records)
        if state["total_samples"] != samples:
            problems.append(f"state.json counts {state['total_samples']} samples, the records {samples}")
    return problems


def stop(proc, signum):
    """Sends signum; a SIGINT/SIGTERM must end the trainer within 120 s (it saves its state)."""
    proc.send_signal(signum)
    try:
        return proc.wait(timeout=120), False
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(), True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=30, help="how long to keep stopping and restarting")
    ap.add_argument("--min-gap", type=float, default=3, help="shortest run between stops, seconds")
    ap.add_argument("--max-gap", type=float, default=30, help="longest run between stops, seconds")
    ap.add_argument("--poppy", default="build/poppy")
    ap.add_argument("--out", default="/tmp/poppy-soak", help="scratch directory (emptied first)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    poppy = str(Path(a.poppy).resolve())
    out = Path(a.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    (out / "tiny.yaml").write_text(TINY_CONFIG)
    run = out / "run"
    log = open(out / "train.log", "ab")
    events = open(out / "soak.jsonl", "a")
    train = [poppy, "train", "--config", str(out / "tiny.yaml"), "--run-dir", str(run)]

    failures = []
    kills = {name: 0 for name, _ in SIGNALS}
    hung = 0
    started = time.time()
    while time.time() - started < a.minutes * 60:
        proc = subprocess.Popen(train, stdout=log, stderr=log)
        gap = rng.uniform(a.min_gap, a.max_gap)
        try:
            code = proc.wait(timeout=gap)
            failures.append(f"the trainer exited by itself with {code} (see {out / 'train.log'})")
            break
        except subprocess.TimeoutExpired:
            pass
        name, signum = rng.choice(SIGNALS)
        code, was_hung = stop(proc, signum)
        kills[name] += 1
        hung += was_hung
        if was_hung:
            failures.append(f"the trainer did not stop within 120 s of {name}")
        problems = check_run(run, strict=False)
        total = sum(kills.values())
        events.write(json.dumps({"stop": total, "signal": name, "after_s": round(gap, 1), "exit": code,
                                 "games": len(read_records(run)), "problems": problems}) + "\n")
        events.flush()
        failures += [f"after stop {total} ({name}): {p}" for p in problems]
        left = a.minutes * 60 - (time.time() - started)
        print(f"\rstop {total}: {name} after {gap:4.1f} s, exit {code}, {len(read_records(run))} games, "
              f"{len(problems)} problems, {max(left, 0) / 60:4.1f} min left   ", end="", flush=True)
    print()

    # One last resume, left to finish its iteration: it must succeed and leave a sound run.
    state = json.loads((run / "state.json").read_text()) if (run / "state.json").exists() else {"iteration": 0}
    final = subprocess.run(train + ["--iterations", str(state["iteration"] + 1)], stdout=log, stderr=log)
    if final.returncode != 0:
        failures.append(f"the final resume exited with {final.returncode} (see {out / 'train.log'})")
    failures += [f"at the end: {p}" for p in check_run(run, strict=True)]
    models = sorted((run / "models").glob("gen-*.model"))
    for m in models:
        r = subprocess.run([poppy, "match", "--variant", "micro", "--a", f"model:{m}:4", "--b", "random",
                            "--games", "1", "--records", "none", "--summary", "none"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"model {m.name} does not load: {r.stderr.strip()}")

    total = sum(kills.values())
    records = len(read_records(run))
    summary = {"stops": total, **kills, "hung": hung, "games": records, "models": len(models),
               "minutes": round((time.time() - started) / 60, 1), "failures": failures}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"soak: {total} stops ({', '.join(f'{k} {v}' for k, v in kills.items())}), {records} games, "
          f"{len(models)} models checked; {len(failures)} failures")
    for f in failures:
        print("  " + f)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
