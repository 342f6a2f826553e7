// Perft counts from lishogi's shogiops (an independent TypeScript implementation of the rules),
// for tests/test_shogiops_perft.cpp.
//   node perft.mjs RULES DEPTH SFEN     RULES: shogi, minishogi or annanshogi
// Prints the counts at depth 1..DEPTH, one per line. With SFEN "-" it reads SFENs from stdin,
// one per line, and prints each one's counts on one line, separated by spaces.
// Exits 2 on bad arguments or a refused SFEN.
import { readFileSync } from 'node:fs';
import { perft } from 'shogiops/debug';
import { parseSfen } from 'shogiops/sfen';

const [rules, depthText, ...sfenParts] = process.argv.slice(2);
const depth = Number(depthText);
if (!['shogi', 'minishogi', 'annanshogi'].includes(rules) || !Number.isInteger(depth) || depth < 1 || sfenParts.length === 0) {
  console.error('usage: node perft.mjs shogi|minishogi|annanshogi DEPTH SFEN|-');
  process.exit(2);
}
function parse(sfen) {
  const parsed = parseSfen(rules, sfen, true);
  if (parsed.isErr) {
    console.error(`shogiops refuses the SFEN "${sfen}": ${parsed.error.message}`);
    process.exit(2);
  }
  return parsed.value;
}
const sfen = sfenParts.join(' ');
if (sfen === '-') {
  for (const line of readFileSync(0, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const pos = parse(line.trim());
    const counts = [];
    for (let d = 1; d <= depth; ++d) counts.push(perft(pos, d));
    console.log(counts.join(' '));
  }
} else {
  const pos = parse(sfen);
  for (let d = 1; d <= depth; ++d) console.log(perft(pos, d));
}
