#!/usr/bin/env python3
"""Soak test of poppy: repeats the adversary's checks (issue 39) for as long as it is given.

Phases (each selectable with --phases, all run by default, in this order; they share --minutes):
  train   `poppy train` on a tiny run, stopped at random moments with SIGKILL, SIGINT or SIGTERM and
          restarted each time. After every stop (the run directory as the next start finds it):
          every record in games.jsonl has its replay chunk, no record twice, every chunk has a
          record except chunks newer than the newest record (written just before their record;
          the next start moves them aside), chunks start with POPPYRPL, `best` names a model.
          At the end one more resume finishes an iteration (exit 0) and the run is checked
          strictly: chunks and records one to one, state.json counts exactly the records and their
          samples, every model loads.
  train-async  the same with asynchronous self-play (`selfplay.asynchronous`: a thread saves
          games while the loop trains), in a run directory of its own.
  match   `poppy match --resume` between two cheap players, stopped the same way. After every
          stop: no game number twice in the records, every line parses but a torn last one, and
          after a SIGINT/SIGTERM (which end the match cleanly, exit 0) the summary counts exactly
          the records. At the end the match is left to finish: exactly --games games, summary =
          records, `finished: true`.
  damage  copies of the train phase's run directory, each damaged one way (truncated chunk,
          garbage or missing state.json, truncated model, corrupt candidate.ckpt, torn
          games.jsonl, `best` naming no model), resumed with `poppy train`. Each must either
          exit non-zero naming the damaged file, or recover (exit 0, a sound run); never die of
          a signal or hang, and never rewrite a model that was there.
  usi     `poppy usi` fed random bytes, overlong lines, bad SFENs, illegal moves, junk `go` and
          `setoption` lines, with an `isready` every few lines that must get `readyok` in time;
          at the end `position startpos` + `go nodes 50` must answer a well-formed `bestmove`
          (a board move or drop on micro's 4x5 board, not resign).
  web     `poppy serve` sent malformed HTTP (bad JSON, huge and chunked bodies, unknown paths,
          wrong methods, invalid game ids, illegal moves, binary garbage): every answer must be
          2xx or 4xx (a connection closed without answer only for input that is not HTTP or too
          big), the server must stay up, and a normal game (`/api/new`, `/api/move`) must work.

Progress goes to stdout, one JSON line per event to OUT/soak.jsonl, per-phase figures to
OUT/summary.json.

Usage: scripts/soak.py [--minutes 30] [--phases train,train-async,match,damage,usi,web] [--quick]
                       [--poppy build/poppy] [--out /tmp/poppy-soak] [--seed 1]
--quick: about 90 seconds in all, for CI.  Exit status: 0 when every check passed, 1 otherwise.
"""
import argparse
import hashlib
import json
import os
import queue
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
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
# The same run with asynchronous self-play (training/local_game_feed.h): a thread saves games
# while the loop trains, so kills land between a game's chunk, its record and the state's counts.
TINY_ASYNC_CONFIG = TINY_CONFIG.replace("threads: 1}\ntraining", "threads: 1, workers: 1, asynchronous: true}\ntraining").replace(
    "threads: 1}\ngate", "threads: 1, train_ratio: 4}\ngate")

SIGNALS = [("SIGKILL", signal.SIGKILL), ("SIGINT", signal.SIGINT), ("SIGTERM", signal.SIGTERM)]
PHASES = ["train", "train-async", "match", "damage", "usi", "web"]
# Shares of the time budget; damage is a fixed list of cases (each bounded by its own timeout).
SHARES = {"train": 0.45, "train-async": 0.2, "match": 0.3, "damage": 0.0, "usi": 0.1, "web": 0.15}


class Soak:
    """What every phase shares: the poppy binary, the scratch directory, the random source and
    the event log."""

    def __init__(self, poppy, out, seed):
        self.poppy = poppy
        self.out = out
        self.rng = random.Random(seed)
        self.events = open(out / "soak.jsonl", "a")

    def event(self, phase, **fields):
        self.events.write(json.dumps({"phase": phase, "t": round(time.time(), 1), **fields}) + "\n")
        self.events.flush()

    def log(self, name):
        return open(self.out / name, "ab")


_last_progress = [0.0]


def progress(text):
    """A progress line, at most one every 2 s (CI logs keep every carriage return)."""
    if time.time() - _last_progress[0] >= 2:
        _last_progress[0] = time.time()
        print(f"\r{text[:110]:<110}", end="", flush=True)


def stop(proc, signum, grace=120):
    """Sends signum; a SIGINT/SIGTERM must end the process within `grace` s (it saves first).
    Returns (exit code, hung)."""
    proc.send_signal(signum)
    try:
        return proc.wait(timeout=grace), False
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(), True


def file_hashes(folder):
    """sha256 of every file in folder (not recursive): to see that nothing was rewritten."""
    if not folder.exists():
        return {}
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.is_file()}


# ---------------------------------------------------------------------------------------- train

def read_records(path):
    """The records of a JSONL file and whether its last line is torn (a kill while appending);
    a torn last line is not a record. Returns (records, torn, bad): bad counts lines that do not
    parse other than the last one (those are damage)."""
    if not path.exists():
        return [], False, 0
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    records, torn, bad = [], False, 0
    for n, line in enumerate(lines):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if n == len(lines) - 1:
                torn = True
            else:
                bad += 1
    return records, torn, bad


def chunk_names(run):
    replay = run / "replay"
    if not replay.exists():
        return []
    return sorted(p.name for p in replay.iterdir() if p.name.startswith("chunk-") and p.name.endswith(".rpl"))


def check_run(run, strict):
    """Problems found in a training run directory (an empty list when it is sound)."""
    problems = []
    records = read_records(run / "games.jsonl")[0]
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


def train_command(s, run, config="tiny.yaml"):
    return [s.poppy, "train", "--config", str(s.out / config), "--run-dir", str(run)]


def iteration_of(run):
    path = run / "state.json"
    return json.loads(path.read_text())["iteration"] if path.exists() else 0


def finish_iteration(s, run, log, config="tiny.yaml"):
    """Resumes the run until it has done one more iteration; returns the exit code."""
    cmd = train_command(s, run, config) + ["--iterations", str(iteration_of(run) + 1)]
    return subprocess.run(cmd, stdout=log, stderr=log).returncode


def models_load(s, run):
    """Failures for the models of a run that `poppy match` cannot play one game with."""
    failures = []
    for m in sorted((run / "models").glob("gen-*.model")):
        r = subprocess.run([s.poppy, "match", "--variant", "micro", "--a", f"model:{m}:4", "--b", "random",
                            "--games", "1", "--records", "none", "--summary", "none"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"model {m.name} does not load: {r.stderr.strip()}")
    return failures


def phase_train(s, seconds, min_gap, max_gap, phase="train", config="tiny.yaml", run_name="run"):
    run = s.out / run_name
    log = s.log(phase + ".log")
    train = train_command(s, run, config)
    failures, kills, hung = [], {name: 0 for name, _ in SIGNALS}, 0
    started = time.time()
    while time.time() - started < seconds:
        proc = subprocess.Popen(train, stdout=log, stderr=log)
        gap = s.rng.uniform(min_gap, max_gap)
        try:
            code = proc.wait(timeout=gap)
            failures.append(f"the trainer exited by itself with {code} (see {s.out / (phase + '.log')})")
            break
        except subprocess.TimeoutExpired:
            pass
        name, signum = s.rng.choice(SIGNALS)
        code, was_hung = stop(proc, signum)
        kills[name] += 1
        hung += was_hung
        if was_hung:
            failures.append(f"the trainer did not stop within 120 s of {name}")
        problems = check_run(run, strict=False)
        total = sum(kills.values())
        games = len(read_records(run / "games.jsonl")[0])
        s.event(phase, stop=total, signal=name, after_s=round(gap, 1), exit=code, games=games, problems=problems)
        failures += [f"after stop {total} ({name}): {p}" for p in problems]
        left = seconds - (time.time() - started)
        progress(f"{phase}: stop {total}: {name} after {gap:4.1f} s, exit {code}, {games} games, "
                 f"{len(problems)} problems, {max(left, 0):.0f} s left")
    print()
    # One last resume, left to finish its iteration: it must succeed and leave a sound run.
    code = finish_iteration(s, run, log, config)
    if code != 0:
        failures.append(f"the final resume exited with {code} (see {s.out / (phase + '.log')})")
    failures += [f"at the end: {p}" for p in check_run(run, strict=True)]
    failures += models_load(s, run)
    games = len(read_records(run / "games.jsonl")[0])
    models = len(list((run / "models").glob("gen-*.model")))
    s.event(phase, final_exit=code, games=games, models=models)
    return {"stops": sum(kills.values()), **kills, "hung": hung, "games": games, "models": models,
            "failures": failures}


# ---------------------------------------------------------------------------------------- match

def game_number(record):
    """A match record's game number: ids are match-<start time>-<number>, and the start time
    changes with each resume, so the number is what must not repeat."""
    return record.get("id", "").rsplit("-", 1)[-1]


def check_match(records_path, summary_path, clean_stop):
    """Problems in a stopped match's files; clean_stop: the match ended on SIGINT/SIGTERM, so
    its summary must count exactly the records."""
    problems = []
    records, torn, bad = read_records(records_path)
    if bad:
        problems.append(f"{bad} lines of the records other than the last do not parse")
    numbers = [game_number(r) for r in records]
    if len(set(numbers)) != len(numbers):
        problems.append("a game number appears twice in the records")
    if clean_stop:
        if torn:
            problems.append("the records end in a torn line after a clean stop")
        try:
            summary = json.loads(summary_path.read_text())
            if summary["games"] != len(records):
                problems.append(f"the summary counts {summary['games']} games, the records {len(records)}")
        except (OSError, ValueError, KeyError) as e:
            problems.append(f"no readable summary after a clean stop: {e}")
    return problems, len(records)


def phase_match(s, seconds, games, player_a):
    records, summary = s.out / "match.jsonl", s.out / "match.summary.json"
    log = s.log("match.log")
    match = [s.poppy, "match", "--variant", "micro", "--a", player_a, "--b", "random", "--games", str(games),
             "--parallel", "4", "--records", str(records), "--summary", str(summary), "--resume"]
    failures, kills, hung, restarts = [], {name: 0 for name, _ in SIGNALS}, 0, 0
    started = time.time()
    finished = False
    while time.time() - started < seconds and not finished:
        proc = subprocess.Popen(match, stdout=log, stderr=log)
        restarts += 1
        gap = s.rng.uniform(0.3, max(1.0, min(8.0, seconds / 6)))
        try:
            code = proc.wait(timeout=gap)
            finished = True  # it played all its games before the stop came: checked below
            break
        except subprocess.TimeoutExpired:
            pass
        name, signum = s.rng.choice(SIGNALS)
        code, was_hung = stop(proc, signum, grace=60)
        kills[name] += 1
        hung += was_hung
        if was_hung:
            failures.append(f"the match did not stop within 60 s of {name}")
        clean = name != "SIGKILL" and not was_hung
        if clean and code != 0:
            failures.append(f"the match exited with {code} on {name} (0 expected)")
        problems, played = check_match(records, summary, clean)
        total = sum(kills.values())
        s.event("match", stop=total, signal=name, after_s=round(gap, 1), exit=code, games=played, problems=problems)
        failures += [f"after stop {total} ({name}): {p}" for p in problems]
        progress(f"match: stop {total}: {name} after {gap:4.1f} s, exit {code}, {played}/{games} games, "
                 f"{len(problems)} problems")
    print()
    # Left to finish: exactly the games asked for, each once, and the summary agrees.
    code = subprocess.run(match, stdout=log, stderr=log, timeout=600).returncode if not finished else code
    if code != 0:
        failures.append(f"the final resume of the match exited with {code} (see {s.out / 'match.log'})")
    problems, played = check_match(records, summary, True)
    failures += [f"at the end: {p}" for p in problems]
    if played != games:
        failures.append(f"at the end: {played} games recorded, {games} asked for")
    try:
        if not json.loads(summary.read_text()).get("finished"):
            failures.append("at the end: the summary does not say finished")
    except (OSError, ValueError) as e:
        failures.append(f"at the end: no summary: {e}")
    s.event("match", final_exit=code, games=played)
    return {"stops": sum(kills.values()), **kills, "hung": hung, "starts": restarts, "games": played,
            "failures": failures}


# --------------------------------------------------------------------------------------- damage

def damage_cases(run):
    """(name, the file damaged relative to the run, function that damages a copy) for each way
    a run directory can be found damaged."""
    chunks = chunk_names(run)
    best_model = "models/" + (run / "best").read_text().strip() + ".model"

    def truncate(rel, keep=0.5):
        def f(d):
            p = d / rel
            p.write_bytes(p.read_bytes()[: int(p.stat().st_size * keep)])
        return f

    def write(rel, data):
        def f(d):
            (d / rel).write_bytes(data)
        return f

    def flip_middle(rel):
        def f(d):
            b = bytearray((d / rel).read_bytes())
            for i in range(len(b) // 2, min(len(b), len(b) // 2 + 64)):
                b[i] ^= 0x5A
            (d / rel).write_bytes(bytes(b))
        return f

    def append(rel, data):
        def f(d):
            with open(d / rel, "ab") as out:
                out.write(data)
        return f

    cases = [
        ("truncated state.json", "state.json", truncate("state.json")),
        ("garbage state.json", "state.json", write("state.json", b"\x00\xffnot json{{{")),
        ("missing state.json", "state.json", lambda d: (d / "state.json").unlink()),
        ("truncated best model", best_model, truncate(best_model)),
        ("corrupt best model", best_model, flip_middle(best_model)),
        ("corrupt candidate.ckpt", "candidate.ckpt", flip_middle("candidate.ckpt")),
        ("empty candidate.ckpt", "candidate.ckpt", write("candidate.ckpt", b"")),
        ("best names no model", "best", write("best", b"gen-9999\n")),
        ("torn games.jsonl", "games.jsonl", append("games.jsonl", b'{"id":"chunk-99999')),
    ]
    if chunks:
        cases += [("truncated replay chunk", "replay/" + chunks[-1], truncate("replay/" + chunks[-1], 0.3)),
                  ("corrupt replay chunk", "replay/" + chunks[0], flip_middle("replay/" + chunks[0]))]
    return cases


def phase_damage(s, seconds):
    run = s.out / "run"
    log = s.log("damage.log")
    failures, outcomes = [], {}
    if not (run / "state.json").exists():  # the train phase did not run: make a run to damage
        progress("damage: training one iteration to have a run directory")
        if finish_iteration(s, run, log) != 0:
            print()
            return {"cases": 0, "failures": [f"could not make a run to damage (see {s.out / 'damage.log'})"]}
    original = file_hashes(run / "models")
    cases = damage_cases(run)
    per_case = max(60.0, seconds / max(1, len(cases)))
    for n, (name, rel, damage) in enumerate(cases, 1):
        copy = s.out / "damaged"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(run, copy)
        damage(copy)
        before = file_hashes(copy / "models")
        # One more iteration: a start that recovers must also load and train on what it found.
        cmd = train_command(s, copy) + ["--iterations", str(iteration_of(run) + 1)]
        progress(f"damage {n}/{len(cases)}: {name}")
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=per_case)
            code, err = r.returncode, r.stderr.strip()
            log.write(f"=== {name}: exit {code}\n{r.stdout}{r.stderr}".encode())
        except subprocess.TimeoutExpired:
            code, err = None, ""
        problems = []
        if code is None:
            problems.append(f"hung (no exit within {per_case:.0f} s)")
        elif code < 0:
            problems.append(f"died of signal {-code}")
        elif code != 0:
            if not err:
                problems.append("exit non-zero without a message")
            elif Path(rel).name not in err and rel not in err:
                problems.append(f"the message does not name {Path(rel).name}: {err.splitlines()[-1][:200]}")
        else:
            found = check_run(copy, strict=False)
            # Poppy goes on from state.json's best and leaves a damaged `best` as it found it
            # (reported, not failed: nothing is lost, and the next promotion rewrites it).
            if rel == "best":
                found = [p for p in found if not p.startswith("best names")]
            problems += [f"recovered to an unsound run: {p}" for p in found]
        after = file_hashes(copy / "models")
        rewritten = [m for m in before if m in after and after[m] != before[m]]
        gone = [m for m in before if m not in after and m not in rel]
        if rewritten or gone:
            problems.append(f"models rewritten or removed: {rewritten + gone}")
        outcome = "hung" if code is None else ("recovered" if code == 0 else f"refused (exit {code})")
        message = err.splitlines()[-1][:300] if err else ""
        outcomes[name] = {"outcome": outcome, "message": message}
        s.event("damage", case=name, file=rel, exit=code, message=message, problems=problems)
        failures += [f"{name}: {p}" for p in problems]
        shutil.rmtree(copy, ignore_errors=True)
    if file_hashes(run / "models") != original:
        failures.append("the original run's models changed")
    print()
    for name, o in outcomes.items():
        print(f"  damage: {name}: {o['outcome']}" + (f": {o['message'][:90]}" if o["message"] else ""))
    return {"cases": len(cases), "recovered": sum(o["outcome"] == "recovered" for o in outcomes.values()),
            "refused": sum(o["outcome"].startswith("refused") for o in outcomes.values()),
            "outcomes": outcomes, "failures": failures}


# ------------------------------------------------------------------------------------------ usi

def hostile_usi_line(rng):
    """One line of hostile input for a USI engine, as bytes (without the newline)."""
    junk = "".join(rng.choice("abcxyz0123456789+*/-. ") for _ in range(rng.randint(0, 40)))
    moves = " ".join(rng.choice(["1d1c", "9z9z", "P*5e", "4e3d", "0000", "resign", "1a1a+", junk])
                     for _ in range(rng.randint(1, 30)))
    huge = str(rng.choice([10**30, 2**63, 2**64 + 1, -(2**63) - 1, -1, 0]))
    kinds = [
        lambda: bytes(rng.randrange(256) for _ in range(rng.randint(1, 300))).replace(b"\n", b" "),
        lambda: ("x" * rng.randint(10_000, 200_000)).encode(),
        lambda: f"position sfen {junk}".encode(),
        lambda: f"position sfen {junk} b - 1 moves {moves}".encode(),
        lambda: f"position startpos moves {moves}".encode(),
        lambda: b"position",
        lambda: b"position sfen",
        lambda: f"position startpos moves {' '.join(['4e3d', '3a2b', '3d4e', '2b3a'] * 500)}".encode(),
        lambda: f"go nodes {huge}".encode(),
        lambda: f"go {junk}".encode(),
        lambda: f"go btime {huge} wtime {junk} byoyomi {huge}".encode(),
        lambda: f"go movetime {rng.choice(['abc', '-5', '0', '1'])}".encode(),
        lambda: f"go depth {huge}".encode(),
        lambda: b"go mate " + huge.encode(),
        lambda: b"stop",
        lambda: b"ponderhit",
        lambda: b"usinewgame",
        lambda: f"setoption name {rng.choice(['Playouts', 'MultiPV', 'Threads', 'MoveOverhead', 'Book', junk])} "
                f"value {rng.choice([huge, junk, ''])}".encode(),
        lambda: f"setoption name UCI_Variant value {rng.choice([junk, '../../etc/passwd', ''])}".encode(),
        lambda: f"setoption name ModelFile value {rng.choice(['/nonexistent/x.model', junk, '/dev/null'])}".encode(),
        lambda: b"setoption",
        lambda: f"{junk} isready".encode(),
        lambda: b"gameover " + junk.encode(),
        lambda: b"",
        lambda: b"   \t  ",
    ]
    return rng.choice(kinds)()


def start_reader(stream):
    """A thread that puts each line the engine writes on a queue (None at end of output)."""
    lines = queue.Queue()

    def read():
        for line in stream:
            lines.put(line.decode("utf-8", "replace").rstrip("\r\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def wait_for(lines, prefix, timeout):
    """Reads the engine's lines until one starts with prefix; returns it, or None when the
    engine said nothing like it within timeout (or ended)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.time()))
        except queue.Empty:
            return None
        if line is None:
            return None
        if line.startswith(prefix):
            return line
    return None


def phase_usi(s, seconds):
    log = s.log("usi.log")
    proc = subprocess.Popen([s.poppy, "usi", "--variant", "micro", "--playouts", "50"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=log)
    lines = start_reader(proc.stdout)
    failures, sent, readies = [], 0, 0

    def send(data):
        proc.stdin.write(data + b"\n")
        proc.stdin.flush()

    try:
        send(b"usi")
        if wait_for(lines, "usiok", 30) is None:
            failures.append("no usiok")
        started = time.time()
        while not failures and time.time() - started < seconds:
            for _ in range(s.rng.randint(1, 8)):
                line = hostile_usi_line(s.rng)
                send(line)
                sent += 1
                s.event("usi", sent=line[:200].decode("utf-8", "replace"))
            send(b"isready")
            readies += 1
            if wait_for(lines, "readyok", 30) is None:
                failures.append(f"no readyok within 30 s after {sent} hostile lines (see soak.jsonl); "
                                f"engine {'ended with ' + str(proc.poll()) if proc.poll() is not None else 'alive'}")
            progress(f"usi: {sent} hostile lines, {readies} isready answered")
        print()
        if not failures:
            # Back to a known state, then a real search: it must answer a legal move.
            for line in [b"stop", b"setoption name UCI_Variant value micro", b"setoption name ModelFile value",
                         b"usinewgame", b"isready"]:
                send(line)
            if wait_for(lines, "readyok", 60) is None:
                failures.append("no readyok after the reset")
            # A search still running is stopped above, but its bestmove may come after readyok:
            # skip what the engine says until it has been quiet for a moment.
            while wait_for(lines, "", 1.0) is not None:
                pass
            send(b"position startpos")
            send(b"go nodes 50")
            best = wait_for(lines, "bestmove", 60)
            move = best.split()[1] if best and len(best.split()) > 1 else ""
            if not re.fullmatch(r"[1-4][a-e][1-4][a-e]\+?|[A-Z]\*[1-4][a-e]", move):
                failures.append(f"the final search answered {best!r}, not a legal move")
            s.event("usi", final=best)
    except (BrokenPipeError, OSError) as e:
        failures.append(f"the engine went away after {sent} hostile lines: {e} (exit {proc.poll()})")
    finally:
        try:
            proc.stdin.write(b"quit\n")
            proc.stdin.close()
        except OSError:
            pass
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
            failures.append("the engine did not quit within 30 s of `quit`")
        if code is not None and code < 0 and code != -signal.SIGKILL:
            failures.append(f"the engine died of signal {-code}")
    return {"inputs": sent, "isready": readies, "failures": failures}


# ------------------------------------------------------------------------------------------ web

def http(port, raw, timeout=8):
    """Sends raw bytes to the server; returns (status or None, body). None: closed unanswered."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as c:
        try:
            c.sendall(raw)
        except OSError:
            pass  # the server may close while a huge body is still being sent; read its answer
        data = b""
        try:
            while True:
                part = c.recv(65536)
                if not part:
                    break
                data += part
                head, _, body = data.partition(b"\r\n\r\n")
                m = re.search(rb"content-length:\s*(\d+)", head, re.I)
                if m and len(body) >= int(m.group(1)):
                    break
        except (socket.timeout, ConnectionResetError):
            pass
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return (int(m.group(1)) if m else None), data.partition(b"\r\n\r\n")[2]


def request(method, path, body=b"", headers=None):
    """An HTTP/1.1 request as bytes, with Connection: close."""
    body = body.encode() if isinstance(body, str) else (body or b"")
    head = {"Host": "127.0.0.1", "Connection": "close", "Content-Type": "application/json"}
    if body:
        head["Content-Length"] = str(len(body))
    head.update(headers or {})
    text = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items() if v is not None)
    return text.encode() + b"\r\n" + body


def api(port, method, path, obj=None):
    status, body = http(port, request(method, path, json.dumps(obj) if obj is not None else b""))
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


def hostile_requests(rng, game):
    """(label, raw bytes, may_close) for one hostile request; may_close: the server may close
    the connection without answering (not HTTP, or too big)."""
    junk = "".join(rng.choice("abc{}[]\":,0123456789 \\") for _ in range(rng.randint(0, 60)))
    huge = rng.choice(["1e400", "99999999999999999999999", "-1", "0", "null", "\"x\"", "[]", "{}", "true"])
    ids = [game, "", "abc", "-1", "g0-0", "99999999999999999999", "../../etc/passwd", "%00", "g1-" + "9" * 50]
    gid = rng.choice(ids)
    moves = ["9z9z", "", "1d1c", "P*1a", "4e3d+", "resign", "0000", junk, "1d1c" * 100]
    paths = ["/", "/api/new", "/api/move", "/api/state", "/api/nope", "/../../etc/passwd",
             "/%2e%2e/%2e%2e/etc/passwd", "/api/board", "/api/openings", "/api/analysis", "/api/undo",
             "/api/engine-move", "/index.html?" + junk, "/api/variants", "/x" * 3000]
    cases = [
        ("unknown path", request("GET", rng.choice(paths)), False),
        ("wrong method", request(rng.choice(["DELETE", "PUT", "PATCH", "OPTIONS", "TRACE", "FOO"]),
                                 rng.choice(paths), "{}"), False),
        ("bad JSON", request("POST", rng.choice(["/api/new", "/api/move", "/api/undo", "/api/engine-move"]),
                             junk), False),
        ("JSON of the wrong shape", request("POST", rng.choice(["/api/new", "/api/move", "/api/undo"]),
                                            rng.choice(["[]", "null", "3", "\"s\"", '{"game": 5}',
                                                        '{"game": {"a": 1}, "move": []}'])), False),
        ("new with junk fields", request("POST", "/api/new", json.dumps(
            {"variant": rng.choice(["micro", junk, "../../etc/passwd", "", "chu"]),
             "side": rng.choice(["sente", "gote", "both", junk, 5]),
             "sfen": rng.choice([None, junk, "k3/4/4/4/K3 b - 1", "x" * 5000]),
             "clock": rng.choice([None, junk, "5m/30s", "99999999m", "-1s"])})), False),
        ("illegal or junk move", request("POST", "/api/move",
                                         json.dumps({"game": gid, "move": rng.choice(moves)})), False),
        ("invalid game id", request("GET", f"/api/state?game={gid}"), False),
        ("analysis with junk", request("GET", f"/api/analysis?game={gid}&playouts={rng.choice(['-1', 'x', '0', '5', huge])}"), False),
        ("engine move with junk", request("POST", "/api/engine-move",
                                          json.dumps({"game": gid, "playouts": rng.choice([-1, 0, 5, 10**12, "x"])})), False),
        ("undo", request("POST", "/api/undo", json.dumps({"game": gid})), False),
        ("board with junk", request("GET", f"/api/board?variant={rng.choice(['micro', junk])}&sfen={junk}&move={rng.choice(moves)}"), False),
        ("openings with junk", request("GET", f"/api/openings?variant=micro&sfen={junk}&playouts={rng.choice(['3', '-1', 'x'])}"), False),
        ("bad content type", request("POST", "/api/new", "{}", {"Content-Type": rng.choice(["text/plain", junk, None])}), False),
        ("bad content length", request("POST", "/api/new", "{}", {"Content-Length": rng.choice(["-5", "abc", "1", "", "99999999999999999999"])}), True),
        ("huge body", request("POST", "/api/new", b"{" + b" " * rng.choice([100_000, 3_000_000]) + b"}"), True),
        ("huge declared body", request("POST", "/api/new", b"{}", {"Content-Length": str(10**12)})[:-2], True),
        ("chunked body", request("POST", "/api/new", None, {"Transfer-Encoding": "chunked"})
         + b"2\r\n{}\r\n0\r\n\r\n", True),
        ("huge header", request("GET", "/api/variants", b"", {"X-Junk": "y" * rng.choice([10_000, 200_000])}), True),
        ("many headers", request("GET", "/api/variants", b"", {f"X-{i}": "z" for i in range(2000)}), True),
        ("binary garbage", bytes(rng.randrange(256) for _ in range(rng.randint(1, 2000))), True),
        ("not HTTP", rng.choice([b"\r\n\r\n", b"GET /\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                                 b"get / http/1.1\r\n\r\n", b"GET " + b"/" * 100_000 + b" HTTP/1.1\r\n\r\n"]), True),
        ("half a request", b"POST /api/new HTTP/1.1\r\nContent-Length: 50\r\n\r\n{\"var", True),
    ]
    return rng.choice(cases)


def phase_web(s, seconds):
    log = s.log("web.log")
    proc = subprocess.Popen([s.poppy, "serve", "--port", "0", "--host", "127.0.0.1", "--playouts", "20",
                             "--max-search-seconds", "2"], stdout=subprocess.PIPE, stderr=log)
    lines = start_reader(proc.stdout)
    failures, sent, answers = [], 0, {}
    listening = wait_for(lines, "poppy serve: listening", 30)
    port = int(re.search(r":(\d+)/", listening).group(1)) if listening else None
    if port is None:
        proc.kill()
        proc.wait()
        return {"inputs": 0, "failures": ["poppy serve did not say where it listens"]}
    threading.Thread(target=lambda: [log.write((l or "").encode() + b"\n") for l in iter(lines.get, None)],
                     daemon=True).start()
    try:
        status, state = api(port, "POST", "/api/new", {"variant": "micro", "side": "sente"})
        game = state["game"] if status == 200 and state else "g1-1"
        started = time.time()
        while time.time() - started < seconds and proc.poll() is None:
            label, raw, may_close = hostile_requests(s.rng, game)
            try:
                # Input the server may drop gets a shorter wait: it may wait for the rest of it.
                status, body = http(port, raw, timeout=3 if may_close else 8)
            except OSError as e:
                status, body = None, str(e).encode()
            sent += 1
            key = f"{label}: {status}"
            answers[key] = answers.get(key, 0) + 1
            bad = (status is None and not may_close) or (status is not None and not (200 <= status < 300 or 400 <= status < 500))
            if b"root:x:" in body:
                bad = True
            if bad:
                failures.append(f"{label} got {status or 'no answer'}: {raw[:120]!r}")
            s.event("web", label=label, status=status, sent=raw[:200].decode("latin-1"), ok=not bad)
            alive, _ = api(port, "GET", "/api/variants")
            if alive != 200:
                failures.append(f"the server stopped answering after {label}: {raw[:120]!r} (exit {proc.poll()})")
                break
            progress(f"web: {sent} hostile requests, {len(failures)} failures")
        print()
        # A normal game still works: a new game, then a legal move.
        status, state = api(port, "POST", "/api/new", {"variant": "micro", "side": "sente"})
        if status != 200 or not state or not state.get("legal_moves"):
            failures.append(f"the final /api/new answered {status}")
        else:
            move = state["legal_moves"][0]["usi"]
            status, after = api(port, "POST", "/api/move", {"game": state["game"], "move": move})
            if status != 200 or not after or after.get("ply") != state.get("ply", 0) + 1:
                failures.append(f"the final /api/move {move} answered {status}")
            s.event("web", final_move=move, status=status)
    except OSError as e:
        failures.append(f"the server went away: {e} (exit {proc.poll()})")
    finally:
        code = proc.poll()
        if code is not None:
            failures.append(f"the server ended by itself with {code}")
        else:
            code, was_hung = stop(proc, signal.SIGTERM, grace=30)
            if was_hung:
                failures.append("the server did not stop within 30 s of SIGTERM")
    return {"inputs": sent, "answers": dict(sorted(answers.items())), "failures": failures}


# ----------------------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=30, help="total time, shared by the phases")
    ap.add_argument("--phases", default=",".join(PHASES), help="comma-separated, of " + ",".join(PHASES))
    ap.add_argument("--quick", action="store_true", help="about 90 seconds in all (for CI)")
    ap.add_argument("--match-games", type=int, default=200)
    ap.add_argument("--poppy", default="build/poppy")
    ap.add_argument("--out", default="/tmp/poppy-soak", help="scratch directory (emptied first)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    phases = [p for p in a.phases.split(",") if p]
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        ap.error(f"unknown phases {unknown}; known: {PHASES}")
    # --quick: the kill phases get short budgets (the final iteration and damage cases take the
    # rest); a cheaper match player so that the match can finish in its budget.
    total = 60 if a.quick else a.minutes * 60
    games = 100 if a.quick else a.match_games
    player = "rollout:32" if a.quick else "rollout:64"
    poppy = str(Path(a.poppy).resolve())
    out = Path(a.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    (out / "tiny.yaml").write_text(TINY_CONFIG)
    (out / "tiny-async.yaml").write_text(TINY_ASYNC_CONFIG)
    s = Soak(poppy, out, a.seed)
    share = sum(SHARES[p] for p in phases) or 1
    budget = {p: total * SHARES[p] / share for p in phases}

    started = time.time()
    results = {}
    for p in phases:
        t = time.time()
        print(f"soak: phase {p} ({budget[p]:.0f} s)", flush=True)
        if p in ("train", "train-async"):
            gaps = (2, 8) if a.quick else (3, min(30, max(4, budget[p] / 4)))
            if p == "train":
                results[p] = phase_train(s, budget[p], *gaps)
            else:
                results[p] = phase_train(s, budget[p], *gaps, phase=p, config="tiny-async.yaml", run_name="run-async")
        elif p == "match":
            results[p] = phase_match(s, budget[p], games, player)
        elif p == "damage":
            results[p] = phase_damage(s, budget[p])
        elif p == "usi":
            results[p] = phase_usi(s, budget[p])
        else:
            results[p] = phase_web(s, budget[p])
        results[p]["seconds"] = round(time.time() - t, 1)
    failures = [f"{p}: {f}" for p in phases for f in results[p]["failures"]]
    summary = {"phases": results, "minutes": round((time.time() - started) / 60, 1), "seed": a.seed,
               "failures": len(failures)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    for p, r in results.items():
        figures = ", ".join(f"{k} {v}" for k, v in r.items() if isinstance(v, (int, float)))
        print(f"soak {p}: {figures}; {len(r['failures'])} failures")
    for f in failures:
        print("  " + f)
    print(f"soak: {'passed' if not failures else 'FAILED'} in {summary['minutes']} min")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
