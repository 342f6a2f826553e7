// Perft counts from lishogi's shogiops (an independent TypeScript implementation of the rules),
// for tests/test_shogiops_perft.cpp.
//   node perft.mjs RULES DEPTH SFEN     RULES: shogi or minishogi
// Prints the counts at depth 1..DEPTH, one per line; exits 2 on bad arguments or a refused SFEN.
import { perft } from 'shogiops/debug';
import { parseSfen } from 'shogiops/sfen';

const [rules, depthText, ...sfenParts] = process.argv.slice(2);
const depth = Number(depthText);
if (!['shogi', 'minishogi'].includes(rules) || !Number.isInteger(depth) || depth < 1 || sfenParts.length === 0) {
  console.error('usage: node perft.mjs shogi|minishogi DEPTH SFEN');
  process.exit(2);
}
const sfen = sfenParts.join(' ');
const parsed = parseSfen(rules, sfen, true);
if (parsed.isErr) {
  console.error(`shogiops refuses the SFEN "${sfen}": ${parsed.error.message}`);
  process.exit(2);
}
for (let d = 1; d <= depth; ++d) console.log(perft(parsed.value, d));
