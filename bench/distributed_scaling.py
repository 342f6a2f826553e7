#!/usr/bin/env python3
"""Scaling of `poppy train --distributed`: games/hour with 1, 2, 4 ... actors, bytes per game.

For each actor count, a fresh run of the given config under `mpirun` (1 learner + N actors) for
--seconds of run time; then, from the run directory, the games saved, their rate over the time
the actors played, samples per game, and the bytes the learner received per game. Prints a table
and writes the rows to --csv. The learner trains meanwhile (train_ratio as configured), so on a
machine with few cores the actors share them with it: that is what such a run gets.

  bench/distributed_scaling.py --config configs/train/micro.yaml --actors 1 2 4 --seconds 150

Needs an MPI build (scripts/setup.sh installs Open MPI). Run directories go under --work
(default: a new temporary directory, removed at the end unless --keep).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=os.path.join(HERE, "..", "configs", "train", "micro.yaml"))
    p.add_argument("--poppy", default=os.path.join(HERE, "..", "build", "poppy"))
    p.add_argument("--actors", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--seconds", type=float, default=150)
    p.add_argument("--csv", default="distributed_scaling.csv")
    p.add_argument("--work", default=None)
    p.add_argument("--keep", action="store_true")
    return p.parse_args()


def mpirun_command(poppy, ranks, config, run_dir, hours):
    cmd = ["mpirun", "--enable-recovery", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")  # Open MPI refuses root unless told
    return cmd + [poppy, "train", "--distributed", "--config", config, "--run-dir", run_dir, "--hours", f"{hours:.6f}"]


def measure(args, actors, work):
    run_dir = os.path.join(work, f"actors-{actors}")
    log_path = os.path.join(work, f"actors-{actors}.log")
    cmd = mpirun_command(os.path.abspath(args.poppy), actors + 1, os.path.abspath(args.config), run_dir,
                         args.seconds / 3600)
    started = time.monotonic()
    first_play = None
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        while proc.poll() is None:
            time.sleep(1)
            if first_play is None and "playing with" in open(log_path, errors="replace").read():
                first_play = time.monotonic()
            elapsed = time.monotonic() - started
            games = count_lines(os.path.join(run_dir, "games.jsonl"))
            print(f"\r{actors} actors: {elapsed:5.0f}s, {games} games", end="", file=sys.stderr, flush=True)
            if elapsed > args.seconds + 300:
                proc.kill()
                raise SystemExit(f"\nmpirun with {actors} actors ran {elapsed:.0f}s, past its {args.seconds}s: killed; see {log_path}")
    ended = time.monotonic()
    print(file=sys.stderr)
    records = [json.loads(l) for l in open(os.path.join(run_dir, "games.jsonl")) if l.strip()]
    selfplay = [m for m in map(json.loads, open(os.path.join(run_dir, "metrics.jsonl"))) if m.get("event") == "selfplay"]
    received = max((m.get("bytes_received", 0) for m in selfplay), default=0)
    fed_games = sum(m.get("games", 0) for m in selfplay)
    trains = [m for m in map(json.loads, open(os.path.join(run_dir, "metrics.jsonl"))) if m.get("event") == "train"]
    playing = ended - (first_play or started)
    samples = sum(r.get("samples", len(r.get("moves", []))) for r in records)
    return {
        "actors": actors,
        "games": len(records),
        "seconds_playing": round(playing, 1),
        "games_per_hour": round(len(records) * 3600 / playing),
        "games_per_hour_per_actor": round(len(records) * 3600 / playing / actors),
        "samples_per_game": round(samples / max(len(records), 1), 1),
        "samples_per_second_received": round(samples / playing, 1),
        "bytes_per_game": round(received / fed_games) if fed_games else "",
        "train_steps": sum(m.get("steps", 0) for m in trains),
        "stale_games": sum(m.get("stale_games", 0) for m in selfplay),
    }


def count_lines(path):
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def main():
    args = parse_args()
    if not shutil.which("mpirun"):
        raise SystemExit("mpirun not found: install openmpi-bin (scripts/setup.sh does)")
    work = args.work or tempfile.mkdtemp(prefix="poppy-distributed-bench-")
    os.makedirs(work, exist_ok=True)
    rows = [measure(args, n, work) for n in args.actors]
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"{'actors':>6} {'games':>6} {'games/h':>9} {'per actor':>9} {'samples/game':>12} {'samples/s in':>12} "
          f"{'bytes/game':>10} {'steps':>6} {'stale':>5}")
    for r in rows:
        print(f"{r['actors']:>6} {r['games']:>6} {r['games_per_hour']:>9} {r['games_per_hour_per_actor']:>9} "
              f"{r['samples_per_game']:>12} {r['samples_per_second_received']:>12} {r['bytes_per_game']:>10} "
              f"{r['train_steps']:>6} {r['stale_games']:>5}")
    print(f"rows in {args.csv}; runs in {work}" + ("" if args.keep or args.work else " (removed)"))
    if not args.keep and not args.work:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
