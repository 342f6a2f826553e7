// Chu shogi perft from lishogi's shogiops (its chushogi rules), for tests/test_chu_perft.cpp
// and `poppy bench perft`.
//
// shogiops lists a lion's (and a horned falcon's or soaring eagle's) moves by path: a step to
// each middle square and a step from there, so a square two away is reached by up to three
// moves, and a pass by one move for each empty neighbour. Poppy lists each resulting position
// once (game/types.h Move). So this script counts distinct children: at every node the moves
// are played and the resulting positions (SFEN, with lishogi's lion-capture field) told apart.
// `raw` mode counts as shogiops' own perft does, for timing.
//
//   node chu_perft.mjs distinct DEPTH            SFENs on stdin, one per line; prints, per
//                                                 SFEN, the counts at depths 1..DEPTH
//   node chu_perft.mjs divide DEPTH SFEN          distinct children with their counts, as
//                                                 "count<TAB>usi<TAB>child SFEN" lines
//   node chu_perft.mjs raw DEPTH SFEN             shogiops' own perft at DEPTH, and seconds
//   node chu_perft.mjs random N PLIES SEED        N positions after random games of up to PLIES
// Exits 2 on bad arguments or an SFEN shogiops refuses.
import { readFileSync } from 'node:fs';
import { perft } from 'shogiops/debug';
import { makeSfen, parseSfen } from 'shogiops/sfen';
import { makeUsi } from 'shogiops/util';
import { Chushogi, secondLionStepDests } from 'shogiops/variant/chushogi';
import { pieceCanPromote, pieceForcePromote } from 'shogiops/variant/util';

const lionPowered = ['lion', 'lionpromoted', 'eagle', 'falcon'];

function parse(sfen) {
  const parsed = parseSfen('chushogi', sfen, false);
  if (parsed.isErr) {
    console.error(`shogiops refuses the SFEN "${sfen}": ${parsed.error.message}`);
    process.exit(2);
  }
  return parsed.value;
}

// Every move of pos, as shogiops' perft enumerates them (chu has no drops).
function moves(pos) {
  const out = [];
  for (const [from, dests] of pos.allMoveDests()) {
    const piece = pos.board.get(from);
    for (const to of dests) {
      if (pieceCanPromote('chushogi')(piece, from, to, pos.board.get(to))) {
        out.push({ from, to, promotion: true });
        if (!pieceForcePromote('chushogi')(piece, to)) out.push({ from, to, promotion: false });
      } else out.push({ from, to, promotion: false });
      if (lionPowered.includes(piece.role))
        for (const mid of secondLionStepDests(pos, from, to)) out.push({ from, to: mid, midStep: to });
    }
  }
  return out;
}

// The distinct children of pos: SFEN -> [usi, position].
function children(pos) {
  const seen = new Map();
  for (const move of moves(pos)) {
    const child = pos.clone();
    child.play(move);
    const key = makeSfen(child);
    if (!seen.has(key)) seen.set(key, [makeUsi(move), child]);
  }
  return seen;
}

// A side without a royal has lost (royal capture): the game is over and has no moves, though
// shogiops would still list its pieces' moves.
const ended = (pos) => pos.kingsOf('sente').isEmpty() || pos.kingsOf('gote').isEmpty();

function distinct(pos, depth) {
  if (depth === 0) return 1;
  if (ended(pos)) return 0;
  const kids = children(pos);
  if (depth === 1) return kids.size;
  let n = 0;
  for (const [, [, child]] of kids) n += distinct(child, depth - 1);
  return n;
}

// A small deterministic generator, so a seed names the same positions on every machine.
function rng(seed) {
  let s = BigInt(seed) & 0xffffffffffffffffn;
  return () => {
    s = (s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return Number((z ^ (z >> 31n)) >> 11n) / 2 ** 53;
  };
}

const [mode, a, b, c] = process.argv.slice(2);
const usage = () => {
  console.error('usage: node chu_perft.mjs distinct DEPTH < sfens | divide DEPTH SFEN | raw DEPTH SFEN | random N PLIES SEED');
  process.exit(2);
};
const depth = Number(a);
if (mode === 'distinct' && Number.isInteger(depth) && depth >= 1) {
  for (const line of readFileSync(0, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const pos = parse(line.trim());
    const counts = [];
    for (let d = 1; d <= depth; ++d) counts.push(distinct(pos, d));
    console.log(counts.join(' '));
  }
} else if (mode === 'divide' && Number.isInteger(depth) && depth >= 1 && b) {
  const pos = parse(process.argv.slice(4).join(' '));
  for (const [sfen, [usi, child]] of children(pos)) console.log(`${distinct(child, depth - 1)}\t${usi}\t${sfen}`);
} else if (mode === 'raw' && Number.isInteger(depth) && depth >= 1 && b) {
  const pos = parse(process.argv.slice(4).join(' '));
  const start = process.hrtime.bigint();
  const n = perft(pos, depth);
  console.log(`${n} ${Number(process.hrtime.bigint() - start) / 1e9}`);
} else if (mode === 'random' && Number.isInteger(depth) && depth >= 1 && Number.isInteger(Number(b)) && c !== undefined) {
  const random = rng(Number(c));
  for (let i = 0; i < depth; ++i) {
    let pos = Chushogi.default();
    const plies = Math.floor(random() * (Number(b) + 1));
    for (let p = 0; p < plies && !pos.isEnd(); ++p) {
      const list = moves(pos);
      if (list.length === 0) break;
      const child = pos.clone();
      child.play(list[Math.floor(random() * list.length)]);
      if (child.kingsOf('sente').isEmpty() || child.kingsOf('gote').isEmpty()) break;
      pos = child;
    }
    console.log(makeSfen(pos));
  }
} else usage();
