// Legal moves from lishogi's shogiops, for the comparisons of tests/test_annan_shogi.cpp.
//   node moves.mjs RULES      RULES: shogi, minishogi or annanshogi
// Reads SFENs from stdin, one per line, and prints each one's legal moves in USI on one line,
// separated by spaces (an empty line for none), listed as shogiops's own perft counts them.
// Exits 2 on bad arguments or a refused SFEN.
import { readFileSync } from 'node:fs';
import { parseSfen } from 'shogiops/sfen';
import { makeUsi } from 'shogiops/util';
import { pieceCanPromote, pieceForcePromote } from 'shogiops/variant/util';

const [rules] = process.argv.slice(2);
if (!['shogi', 'minishogi', 'annanshogi'].includes(rules)) {
  console.error('usage: node moves.mjs shogi|minishogi|annanshogi < SFENs');
  process.exit(2);
}
for (const line of readFileSync(0, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const parsed = parseSfen(rules, line.trim(), true);
  if (parsed.isErr) {
    console.error(`shogiops refuses the SFEN "${line.trim()}": ${parsed.error.message}`);
    process.exit(2);
  }
  const pos = parsed.value;
  const moves = [];
  for (const [from, dests] of pos.allMoveDests()) {
    const piece = pos.board.get(from);
    for (const to of dests) {
      if (pieceCanPromote(rules)(piece, from, to, pos.board.get(to))) {
        moves.push(makeUsi({ from, to, promotion: true }));
        if (!pieceForcePromote(rules)(piece, to)) moves.push(makeUsi({ from, to, promotion: false }));
      } else moves.push(makeUsi({ from, to, promotion: false }));
    }
  }
  for (const [pieceName, dests] of pos.allDropDests()) {
    const role = pieceName.split(' ')[1];
    for (const to of dests) moves.push(makeUsi({ role, to }));
  }
  console.log(moves.join(' '));
}
