#!/usr/bin/env python3
"""Tunes the play-time search settings of a model by matches against a fixed engine.

A grid searched one setting at a time (coordinate descent, not SPSA: each point is a
`poppy ladder` match big enough to read on its own, and the curve of one setting is worth
seeing). Every point plays the same model at the same playouts against the same engine limit,
colours alternated over the same openings; only the setting under test differs from the base.

  scripts/tune_search.py --model models/micro/micro-v4.model --engine /path/to/fairy-stockfish \\
      --base cpuct=1.5,fpu_reduction=0.25,policy_temperature=1 \\
      --sweep cpuct=1,2,2.5,3 --sweep policy_temperature=1.2,1.4,1.7 --games 400

Each point's ladder goes to OUT/<setting>/ (ladder.json, games); a point whose ladder.json is
finished is not played again, so a stopped tuning resumes where it was. Every finished point is
a row of OUT/tune.csv (plots: score or Elo against the setting's value), and the table on stdout
ends with each sweep's best point. Progress: the ladder's own progress line, and a line per point.

Settings: cpuct, cpuct_growth, cpuct_base, fpu_reduction, policy_temperature (poppy ladder's
--cpuct, --cpuct-growth, --cpuct-base, --fpu-reduction, --policy-temperature; mcts/search_params.h).
Exit status: 0 when every point finished, 1 when a ladder failed, 2 on bad arguments.
"""
import argparse
import csv
import json
import math
import subprocess
import sys
from pathlib import Path

SETTINGS = {"cpuct": "--cpuct", "cpuct_growth": "--cpuct-growth", "cpuct_base": "--cpuct-base", "fpu_reduction": "--fpu-reduction", "policy_temperature": "--policy-temperature"}


def parse_assignments(text, what):
    """'a=1,b=2' -> {'a': 1.0, 'b': 2.0}"""
    values = {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        if not eq or name not in SETTINGS:
            sys.exit(f"tune_search: {what} '{text}': expected NAME=VALUE with NAME one of {', '.join(SETTINGS)}")
        values[name] = float(value)
    return values


def parse_sweep(text):
    """'cpuct=1,2,3' -> ('cpuct', [1.0, 2.0, 3.0])"""
    name, eq, values = text.partition("=")
    if not eq or name not in SETTINGS or not values:
        sys.exit(f"tune_search: --sweep '{text}': expected NAME=V1,V2,... with NAME one of {', '.join(SETTINGS)}")
    try:
        return name, [float(v) for v in values.split(",")]
    except ValueError:
        sys.exit(f"tune_search: --sweep '{text}': the values must be numbers")


# The search's own values of the settings a point may leave out (mcts/search_params.h).
OPTIONAL_DEFAULTS = {"cpuct_growth": 0.0, "cpuct_base": 500.0}


def setting_value(setting, name):
    return setting.get(name, OPTIONAL_DEFAULTS.get(name))


def point_name(setting):
    return "_".join(f"{k}{setting[k]:g}" for k in sorted(setting))


def elo(score):
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


def run_point(args, setting, out):
    ladder_json = out / "ladder.json"
    if ladder_json.exists():
        done = json.loads(ladder_json.read_text())
        if done.get("finished"):
            return done
        # An unfinished ladder is played again from the start: poppy ladder refuses a directory
        # that holds a ladder.json, so the stopped point's files are moved aside first.
        ladder_json.rename(out / "ladder.stopped.json")
        for f in out.glob("games-*.jsonl"):
            f.rename(f.with_suffix(".stopped"))
    command = [args.poppy, "ladder", "--model", args.model, "--playouts", str(args.playouts), "--engine", args.engine,
               "--rungs", args.rung, "--games", str(args.games), "--parallel", str(args.parallel), "--out", str(out),
               "--seed", str(args.seed)]
    if args.openings:
        command += ["--openings", args.openings]
    for name, value in setting.items():
        command += [SETTINGS[name], f"{value:g}"]
    print("tune_search: " + " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        return None
    return json.loads(ladder_json.read_text())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--engine", required=True, help="the fixed opponent's USI command")
    parser.add_argument("--rung", default="nodes:10000", help="the engine's limit (a poppy ladder rung)")
    parser.add_argument("--playouts", type=int, default=800, help="the model's playouts per move")
    parser.add_argument("--games", type=int, default=400, help="games per point")
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--openings", default="", help="openings file (default: the ladder's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", default="cpuct=1.5,fpu_reduction=0.25,policy_temperature=1")
    parser.add_argument("--sweep", action="append", default=[], help="NAME=V1,V2,... (repeatable)")
    parser.add_argument("--out", default="tune-search")
    parser.add_argument("--poppy", default="build/poppy")
    args = parser.parse_args()
    base = parse_assignments(args.base, "--base")
    # The three settings every point names; cpuct_growth and cpuct_base only where the base or a
    # sweep names them (so points tuned before they existed keep their names and results).
    for name, value in {"cpuct": 1.5, "fpu_reduction": 0.25, "policy_temperature": 1.0}.items():
        base.setdefault(name, value)
    sweeps = [parse_sweep(s) for s in args.sweep]
    points = [dict(base)]
    for name, values in sweeps:
        for v in values:
            point = dict(base, **{name: v})
            if point not in points:
                points.append(point)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, setting in enumerate(points, 1):
        print(f"tune_search: point {i}/{len(points)}: {point_name(setting)}", flush=True)
        ladder = run_point(args, setting, out_dir / point_name(setting))
        if ladder is None:
            print(f"tune_search: the ladder of {point_name(setting)} failed; its directory keeps what it played",
                  file=sys.stderr)
            return 1
        rung = ladder["rungs"][0]
        row = dict(setting, games=rung["games"], wins=rung["wins"], draws=rung["draws"], losses=rung["losses"],
                   score=round(rung["score"], 4), elo=round(rung["elo"], 1), elo_low=round(rung["elo_low"], 1),
                   elo_high=round(rung["elo_high"], 1))
        rows.append(row)
        print(f"tune_search: {point_name(setting)}: +{row['wins']} ={row['draws']} -{row['losses']} "
              f"score {row['score']:.3f} Elo {row['elo']:+.0f} ({row['elo_low']:+.0f} to {row['elo_high']:+.0f})",
              flush=True)
        with open(out_dir / "tune.csv.tmp", "w", newline="") as f:
            fields = [k for k in SETTINGS if any(k in r for r in rows)]
            fields += [k for k in rows[0] if k not in SETTINGS]
            writer = csv.DictWriter(f, fieldnames=fields, restval="")
            writer.writeheader()
            writer.writerows(rows)
        (out_dir / "tune.csv.tmp").replace(out_dir / "tune.csv")
    print(f"\n{'setting':40s} {'games':>6s} {'score':>6s} {'Elo (95%)':>22s}")
    for row in rows:
        name = point_name({k: row[k] for k in SETTINGS if k in row})
        print(f"{name:40s} {row['games']:6d} {row['score']:6.3f} {row['elo']:+6.0f} ({row['elo_low']:+.0f} to "
              f"{row['elo_high']:+.0f})")
    for name, values in sweeps:
        candidates = [r for r in rows
                      if all(setting_value(r, k) == setting_value(base, k) for k in SETTINGS if k != name)]
        best = max(candidates, key=lambda r: r["score"])
        print(f"best {name}: {setting_value(best, name):g} (score {best['score']:.3f}; "
              f"base {setting_value(base, name):g})")
    print(f"figures: {out_dir / 'tune.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
