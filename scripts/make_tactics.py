#!/usr/bin/env python3
"""Builds the tactics suite (tests/data/tactics_*.txt) from game records, with Fairy-Stockfish
as the independent judge: Poppy's own search takes no part in choosing or solving positions.

For every position of the given games (JSONL game records, as `poppy match --records` writes),
Fairy-Stockfish searches with `go depth D`; a position is kept when it reports `score mate N`
(N > 0: in USI mode the score counts plies, so a forced mate in N plies) with N <= --max-plies.
For each kept position every legal first move is then checked: after the move, Fairy-Stockfish
must report the defender mated within N - 1 plies (`score mate -K`, K <= N - 1) or the game
over; those moves are the solutions.

Output lines:  variant | start SFEN | moves (USI, Poppy's notation) | mate plies | solutions
Usage: scripts/make_tactics.py --variant micro --records games.jsonl --out tests/data/tactics_micro.txt
"""
import argparse
import json
import random
import subprocess
import sys

ENGINE = "/usr/games/fairy-stockfish"

# Fairy-Stockfish names micro shogi's pieces by their other face: its +R is Poppy's G, R is +G,
# +L is S, L is +S. Board moves are the same squares; flips on capture are forced, so Fairy
# writes no suffix.
TO_FAIRY_DROP = {"G": "+R", "+G": "R", "S": "+L", "+S": "L"}
FROM_FAIRY_DROP = {v: k for k, v in TO_FAIRY_DROP.items()}


def to_fairy_sfen(variant, sfen):
    """Poppy's SFEN in Fairy-Stockfish's letters (micro: G <-> +R, +G <-> R, S <-> +L, +S <-> L)."""
    if variant != "micro":
        return sfen
    board, side, hand, number = sfen.split()
    out, i = "", 0
    while i < len(board):
        promoted = board[i] == "+"
        if promoted:
            i += 1
        c = board[i]
        up = c.upper()
        if up in "GS":
            other = "R" if up == "G" else "L"
            out += ("" if promoted else "+") + (other if c.isupper() else other.lower())
        else:
            out += ("+" if promoted else "") + c
        i += 1
    hand = hand.translate(str.maketrans("GgSs", "RrLl"))
    return " ".join([out, side, hand, number])


def from_fairy(variant, move):
    """Fairy's move text as Poppy parses it. Micro: drops renamed; a board move's flip is forced,
    so its suffix (which Fairy writes from its own faces) is dropped."""
    if variant != "micro":
        return move
    if "*" in move:
        piece, rest = move.split("*")
        return FROM_FAIRY_DROP.get(piece, piece) + "*" + rest
    return move[:-1] if move[-1] in "+-" else move


class Fairy:
    def __init__(self, variant):
        self.p = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.variant = variant
        self.cache = {}
        self.send("usi")
        self.wait("usiok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 64")
        self.send("setoption name UCI_Variant value " + variant)
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def wait(self, token):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("fairy-stockfish ended unexpectedly")
            lines.append(line.strip())
            if line.startswith(token):
                return lines

    def fairy_line(self, start, moves):
        """Poppy's moves in Fairy's text. Micro: each move is matched against Fairy's own legal
        moves (Fairy's flip suffix depends on its faces: a Poppy gold or silver that flips is a
        Fairy piece flipping back, written '-'); elsewhere the texts agree."""
        if self.variant != "micro":
            return list(moves)
        line = []
        for m in moves:
            wanted = m if "*" in m else from_fairy("micro", m)
            found = [f for f in self.fairy_legal(start, line) if from_fairy("micro", f) == wanted]
            if len(found) != 1:
                sys.exit("cannot translate move %s after %s %s" % (m, start, " ".join(moves)))
            line.append(found[0])
        return line

    def fairy_legal(self, start, fairy_moves):
        key = (start, tuple(fairy_moves))
        if key not in self.cache:
            cmd = "position sfen " + to_fairy_sfen(self.variant, start)
            if fairy_moves:
                cmd += " moves " + " ".join(fairy_moves)
            self.send(cmd)
            self.send("go perft 1")
            out = []
            for line in self.wait("Nodes searched"):
                if ":" in line and not line.startswith("Nodes"):
                    out.append(line.split(":")[0].strip())
            self.cache[key] = out
        return self.cache[key]

    def position(self, start, moves):
        cmd = "position sfen " + to_fairy_sfen(self.variant, start)
        if moves:
            cmd += " moves " + " ".join(self.fairy_line(start, moves))
        self.send(cmd)

    def legal(self, start, moves):
        """Legal moves after Poppy's `moves`, in Poppy's text."""
        return [from_fairy(self.variant, f) for f in self.fairy_legal(start, self.fairy_line(start, moves))]

    def mate_score(self, start, moves, depth):
        """Fairy-Stockfish's last reported mate score (plies; negative: side to move is mated),
        None without one."""
        self.position(start, moves)
        self.send("go depth %d" % depth)
        score = None
        for line in self.wait("bestmove"):
            if " score mate " in line:
                score = int(line.split(" score mate ")[1].split()[0])
            elif " score cp " in line:
                score = None
        return score


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", required=True)
    ap.add_argument("--records", required=True, nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--depth", type=int, default=14)
    ap.add_argument("--max-plies", type=int, default=5)
    ap.add_argument("--per-length", type=int, default=12, help="positions kept per mate length")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    fairy = Fairy(args.variant)
    games = []
    for path in args.records:
        with open(path) as f:
            games += [json.loads(line) for line in f if line.strip()]
    candidates = [(g["start"], g["moves"][:k]) for g in games for k in range(len(g["moves"]))]
    random.Random(args.seed).shuffle(candidates)

    # Mates to give (1, 3, 5 plies) and mates to suffer (-2, -4: every move of the side to move
    # loses within that many plies), each confirmed move by move.
    kept = {p: [] for p in list(range(1, args.max_plies + 1, 2)) + list(range(-2, -args.max_plies, -2))}
    seen = set()
    for start, moves in candidates:
        if all(len(v) >= args.per_length for v in kept.values()):
            break
        key = (start, tuple(moves))
        if key in seen:
            continue
        seen.add(key)
        score = fairy.mate_score(start, moves, args.depth)
        if score is None or score == 0 or score not in kept or len(kept[score]) >= args.per_length:
            continue
        plies = score
        if plies < 0:
            # Lost: after every legal move Fairy must see its mate within -plies - 1 plies.
            replies = []
            for fm in fairy.legal(start, moves):
                after = fairy.mate_score(start, moves + [fm], args.depth)
                replies.append(after is not None and 0 < after <= -plies - 1)
            if not replies or not all(replies):
                continue
            kept[plies].append((start, moves, plies, ["-"]))
            print("mated in %d plies: %s moves %s" % (-plies, start, " ".join(moves)), file=sys.stderr)
            continue
        solutions = []
        for fm in fairy.legal(start, moves):
            pm = fm  # already Poppy's text
            after = fairy.mate_score(start, moves + [pm], args.depth)
            legal_after = fairy.legal(start, moves + [pm])
            if not legal_after or (after is not None and after < 0 and -after <= plies - 1):
                solutions.append(pm)
        if not solutions:
            continue  # Fairy's mate could not be confirmed move by move: leave it out
        kept[plies].append((start, moves, plies, solutions))
        print("mate in %d plies: %s moves %s -> %s" % (plies, start, " ".join(moves), " ".join(solutions)),
              file=sys.stderr)

    with open(args.out, "w") as f:
        f.write("# Forced mates found by Fairy-Stockfish (go depth %d) in positions of %s games;\n" %
                (args.depth, args.variant))
        f.write("# generated by scripts/make_tactics.py. Fields: variant | start SFEN | moves | mate plies |\n")
        f.write("# every first move that mates within that many plies (Fairy-Stockfish, move by move).\n")
        f.write("# Negative plies: the side to move is mated within that many plies whatever it plays ('-').\n")
        for plies in sorted(kept, key=lambda p: (p < 0, abs(p))):
            for start, moves, p, solutions in kept[plies]:
                f.write("%s | %s | %s | %d | %s\n" % (args.variant, start, " ".join(moves), p, " ".join(solutions)))
    print("wrote %s: %s" % (args.out, {p: len(v) for p, v in kept.items()}), file=sys.stderr)


if __name__ == "__main__":
    main()
