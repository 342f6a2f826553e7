#!/usr/bin/env python3
"""Makes a book of balanced openings for `poppy match --openings` and `poppy ladder`.

Random lines of --plies moves from the start position, kept when a USI engine (Fairy-Stockfish) searching --depth plies scores the position
within --max-cp centipawns of even and finds no mate. Lines that reach a position already kept
(another move order) are skipped. Balanced openings make equal-time matches say more: from a
lost opening both players lose with the same colour and the colour-swapped pair splits 1-1
whatever their strength.

Each move is drawn uniformly from the legal moves written without a suffix or a drop: no
promotion, no flip (micro shogi's captures always flip) and no drop, so the lines read the same in
Poppy's notation and in Fairy-Stockfish's, which names micro's double-faced pieces by their other
face (play/engines/usi_notation.h). --keep-suffixes keeps the moves with a promotion or flip
suffix where both programs write them alike: kyoto shogi, whose every move but the king's flips.

  scripts/make_openings.py --engine /path/to/fairy-stockfish --variant micro --plies 4 \\
      --count 200 --depth 14 --max-cp 100 --seed 20261128 --out configs/openings/micro-balanced.txt

Progress goes to stderr (candidates tried, kept, the last score). The file is written at the end,
atomically (a temporary file renamed over OUT), with a header saying how it was made, and each
line carries the engine's score as a comment. Exit status: 0 when --count lines were found, 1
when the engine failed or --max-tries candidates were not enough, 2 on bad arguments.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time


class EngineError(RuntimeError):
    pass


class UsiEngine:
    """A USI engine driven line by line (Fairy-Stockfish's USI mode)."""

    def __init__(self, path, variant, hash_mb=16):
        try:
            self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as e:
            raise EngineError(f"cannot start engine '{path}': {e.strerror}")
        self.path = path
        self.name = path
        variants = None
        for line in self.exchange("usi", "usiok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
            words = line.split()
            # Fairy-Stockfish lists the variants it plays: "option name UCI_Variant type combo
            # default ... var 3check var 5check ..." (USI_Variant in newer builds).
            if words[:3] in (["option", "name", "UCI_Variant"], ["option", "name", "USI_Variant"]):
                variants = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "var"]
        # An engine that does not know the variant keeps its default one (minishogi) without a
        # word, and the book would be of the wrong game.
        if variants is None:
            raise EngineError(f"engine '{path}' has no UCI_Variant option: not Fairy-Stockfish?")
        if variant not in variants:
            raise EngineError(f"engine '{path}' does not play variant '{variant}' (it plays {len(variants)} others; "
                              "Fairy-Stockfish plays boards larger than 8x8, shogi's among them, only when "
                              "built with largeboards=yes)")
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("setoption name Threads value 1")
        self.send(f"setoption name USI_Hash value {hash_mb}")
        self.exchange("isready", "readyok")

    def send(self, command):
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise EngineError(f"engine '{self.path}' exited (while sending '{command}')")

    def exchange(self, command, until):
        """Sends command and returns the lines up to the one starting with `until` (included)."""
        self.send(command)
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise EngineError(f"engine '{self.path}' exited before answering '{command}'")
            line = line.strip()
            lines.append(line)
            if line.startswith(until):
                return lines

    def set_position(self, moves):
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))

    def legal_moves(self, moves):
        self.set_position(moves)
        # One "move: 1" line per legal move, then the total (perft may run on a search thread, so
        # `isready` is no marker of its end).
        lines = self.exchange("go perft 1", "Nodes searched")
        return [line.split(":")[0] for line in lines if line.count(":") == 1 and line.split(":")[1].strip() == "1"]

    def position_key(self, moves):
        """The position's SFEN without its move number (transpositions compare equal)."""
        self.set_position(moves)
        self.send("d")
        for line in self.exchange("isready", "readyok"):
            if line.startswith("Sfen:"):
                return " ".join(line[len("Sfen:"):].split()[:3])
        raise EngineError(f"engine '{self.path}' printed no 'Sfen:' line for 'd'")

    def score(self, moves, depth):
        """(kind, value) from the side to move's view: ('cp', centipawns) or ('mate', plies)."""
        self.set_position(moves)
        result = None
        for line in self.exchange(f"go depth {depth}", "bestmove"):
            words = line.split()
            if words[:1] == ["info"] and "score" in words:
                i = words.index("score")
                if i + 2 < len(words) and words[i + 1] in ("cp", "mate"):
                    result = (words[i + 1], int(words[i + 2]))
        if result is None:
            raise EngineError(f"engine '{self.path}' gave no score for 'position startpos moves {' '.join(moves)}'")
        return result

    def close(self):
        try:
            self.send("quit")
            self.process.wait(timeout=5)
        except (EngineError, subprocess.TimeoutExpired):
            self.process.kill()


def plain(move, keep_suffixes=False):
    """A board move (with no promotion or flip suffix unless keep_suffixes): the same text in
    Poppy's notation."""
    return "*" not in move and (keep_suffixes or not move.endswith(("+", "-")))


def random_line(engine, plies, rng, keep_suffixes=False):
    """A line of `plies` plain moves, each drawn uniformly from the legal plain ones; None where
    there is none or the game is over at the end."""
    moves = []
    for _ in range(plies):
        legal = sorted(m for m in engine.legal_moves(moves) if plain(m, keep_suffixes))
        if not legal:
            return None
        moves.append(rng.choice(legal))
    return moves if engine.legal_moves(moves) else None


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".make_openings.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--engine", required=True, help="USI engine (Fairy-Stockfish) that lists moves and scores positions")
    p.add_argument("--variant", default="micro", help="UCI_Variant (default micro)")
    p.add_argument("--plies", type=int, default=4, help="moves in each line (default 4)")
    p.add_argument("--count", type=int, default=200, help="lines to keep (default 200)")
    p.add_argument("--depth", type=int, default=14, help="the engine's search depth per candidate (default 14)")
    p.add_argument("--max-cp", type=int, default=100, help="largest |score| kept, centipawns (default 100)")
    p.add_argument("--seed", type=int, default=1, help="random seed (the same seed and engine give the same book)")
    p.add_argument("--max-tries", type=int, default=0, help="candidates to try at most (default 20 x --count)")
    p.add_argument("--keep-suffixes", action="store_true",
                   help="also draw moves with a promotion or flip suffix (kyoto: both programs write them alike)")
    p.add_argument("--out", required=True, help="openings file to write")
    a = p.parse_args()
    for name in ("plies", "count", "depth"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.max_cp < 0:
        p.error("--max-cp must not be negative")
    max_tries = a.max_tries or 20 * a.count

    rng = random.Random(a.seed)
    try:
        engine = UsiEngine(a.engine, a.variant)
    except EngineError as e:
        print(f"make_openings: {e}", file=sys.stderr)
        return 1
    kept, seen, scores = [], set(), []
    tries, rejected_score, rejected_mate, repeated = 0, 0, 0, 0
    start = time.monotonic()
    try:
        while len(kept) < a.count and tries < max_tries:
            tries += 1
            moves = random_line(engine, a.plies, rng, a.keep_suffixes)
            if moves is None:
                continue
            key = engine.position_key(moves)
            if key in seen:
                repeated += 1
                continue
            seen.add(key)
            kind, value = engine.score(moves, a.depth)
            # The score is the side to move's; the book states it from sente's (the first player's) view.
            sente = value if a.plies % 2 == 0 else -value
            if kind == "mate":
                rejected_mate += 1
            elif abs(value) > a.max_cp:
                rejected_score += 1
            else:
                kept.append((moves, sente))
                scores.append(sente)
            if tries % 10 == 0 or len(kept) == a.count:
                elapsed = time.monotonic() - start
                print(f"make_openings: {tries} tried, {len(kept)}/{a.count} kept, {rejected_score} over "
                      f"{a.max_cp} cp, {rejected_mate} mates, {repeated} transpositions; {elapsed:.0f} s",
                      file=sys.stderr, flush=True)
    except EngineError as e:
        print(f"make_openings: {e}", file=sys.stderr)
        return 1
    finally:
        engine.close()
    if len(kept) < a.count:
        print(f"make_openings: only {len(kept)} of {a.count} lines within {a.max_cp} cp after {tries} candidates "
              f"(--max-tries {max_tries}); nothing written", file=sys.stderr)
        return 1

    mean = sum(scores) / len(scores)
    if a.keep_suffixes:
        drawn_from = [f"# from the start position, each move drawn uniformly from the legal ones without a drop",
                      f"# (seed {a.seed}; promotions and flips kept: --keep-suffixes), kept where"]
    else:
        # Micro's captures always flip, so its lines hold no capture either: say so there only.
        why = "; no captures in micro, whose captures flip" if a.variant == "micro" else ""
        drawn_from = [f"# from the start position, each move drawn uniformly from the legal ones without a promotion, flip or",
                      f"# drop (seed {a.seed}{why}), kept where"]
    header = [
        f"# {a.variant} openings for `poppy match --openings` and `poppy ladder`: {a.count} lines of {a.plies} plies",
        *drawn_from,
        f"# {engine.name} at depth {a.depth} scores the position within {a.max_cp} cp of even, no mate, and no",
        f"# line reaches a position another reached. Made by scripts/make_openings.py --engine ENGINE",
        f"# --variant {a.variant} --plies {a.plies} --count {a.count} --depth {a.depth} --max-cp {a.max_cp} "
        f"--seed {a.seed}{' --keep-suffixes' if a.keep_suffixes else ''}: {tries} candidates,",
        f"# {rejected_score} over {a.max_cp} cp, {rejected_mate} mates, {repeated} transpositions. Mean score "
        f"{mean:+.1f} cp (sente's view).",
        "# The comment on each line: the engine's score from sente's view, centipawns.",
    ]
    body = [f"startpos moves {' '.join(moves)}  # {score:+d}" for moves, score in kept]
    write_atomically(a.out, "\n".join(header + body) + "\n")
    print(f"make_openings: wrote {a.out} ({a.count} lines, mean {mean:+.1f} cp)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
