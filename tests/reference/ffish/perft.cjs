// Perft from Fairy-Stockfish (ffish) for the variants Poppy checks against it with a variants
// file beside this one: `node perft.cjs [NAME]` loads NAME.ini (default yari), whose section
// [NAME] defines the game, for tests/test_yari.cpp, tests/test_small_shogi.cpp and
// tests/test_quasi_shogi.cpp. Reads lines from stdin and answers each with one line:
//   perft DEPTH SFEN    ->  the counts at depth 1..DEPTH, separated by spaces
//   divide SFEN         ->  the legal moves in Poppy's USI ("7g7f", "P*5e"), sorted
// SFEN in Poppy's (and shogi's) form; the conversion to Fairy-Stockfish's FEN and back for moves
// is here. The board size is the ini's maxFile and maxRank (9 where it does not say). Exits 2 on
// a line it cannot read or a position Fairy-Stockfish refuses.
delete globalThis.fetch;  // ffish's emscripten loader would fetch() its .wasm in Node >= 18
const ffish = require('ffish');
const fs = require('fs');
const path = require('path');

function fail(message) {
  console.error(message);
  process.exit(2);
}

const VARIANT = process.argv[2] || 'yari';
if (!/^[a-z][a-z0-9]*$/.test(VARIANT)) fail(`not a variant name: "${VARIANT}"`);
const INI = fs.readFileSync(path.join(__dirname, `${VARIANT}.ini`), 'utf8');
function iniNumber(key, fallback) {
  const m = INI.match(new RegExp(`^${key}\\s*=\\s*(\\d+)`, 'm'));
  return m ? Number(m[1]) : fallback;
}
const FILES = iniNumber('maxFile', 9), RANKS = iniNumber('maxRank', 9);

// Check counting (miburi): the checks a side needs to win, from the ini's start FEN ("3+3").
const CHECKS = /checkCounting\s*=\s*true/.test(INI) ? Number(INI.match(/\s(\d+)\+\d+\s/)[1]) : 0;

// "rnnkbbr/7/.../RBBKNNR b 2Pb 1" -> "rnnkbbr/.../RBBKNNR[PPb] w - - 0 1". Board rows and their
// order are the same in both; the hand is written piece by piece, and sente is white. Under
// check counting Poppy's fifth field holds the checks given ("1+0") and Fairy-Stockfish's the
// checks still needed ("2+3").
function toFen(sfen) {
  const [board, side, hand, , given] = sfen.trim().split(/\s+/);
  if (!board || !['b', 'w'].includes(side) || hand === undefined) fail(`not an SFEN: "${sfen}"`);
  let pocket = '';
  if (hand !== '-') {
    for (const m of hand.matchAll(/(\d*)([A-Za-z])/g)) pocket += m[2].repeat(m[1] ? Number(m[1]) : 1);
  }
  let checks = '';
  if (CHECKS) {
    const [bySente, byGote] = (given || '0+0').split('+').map(Number);
    checks = ` ${CHECKS - bySente}+${CHECKS - byGote}`;
  }
  return `${board}[${pocket}] ${side === 'b' ? 'w' : 'b'} - -${checks} 0 1`;
}

// Fairy-Stockfish's "a3a4", "b7b8+", "P@d5" -> Poppy's "7g7f", "6c6b+", "P*4e".
function square(text) {
  const file = FILES - (text.charCodeAt(0) - 97);
  const rank = String.fromCharCode(97 + (RANKS - Number(text.slice(1))));
  return `${file}${rank}`;
}
function toUsi(move) {
  const m = move.match(/^([A-Za-z])@([a-z]\d+)$/);
  if (m) return `${m[1].toUpperCase()}*${square(m[2])}`;
  const b = move.match(/^([a-z]\d+)([a-z]\d+)(\+?)$/);
  if (!b) fail(`unexpected Fairy-Stockfish move "${move}"`);
  return square(b[1]) + square(b[2]) + b[3];
}

function moves(board) {
  return board.legalMoves().split(' ').filter((x) => x);
}
function perft(board, depth) {
  const list = moves(board);
  if (depth === 1) return list.length;
  let n = 0;
  for (const m of list) {
    board.push(m);
    n += perft(board, depth - 1);
    board.pop();
  }
  return n;
}

function board(sfen) {
  const fen = toFen(sfen);
  if (!ffish.validateFen(fen, VARIANT)) fail(`Fairy-Stockfish refuses "${fen}" (from "${sfen}")`);
  return new ffish.Board(VARIANT, fen);
}

ffish.onRuntimeInitialized = () => {
  ffish.loadVariantConfig(INI);
  for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const [command, ...rest] = line.trim().split(/\s+/);
    if (command === 'perft') {
      const depth = Number(rest[0]);
      if (!Number.isInteger(depth) || depth < 1) fail(`bad depth in "${line}"`);
      const b = board(rest.slice(1).join(' '));
      const counts = [];
      for (let d = 1; d <= depth; ++d) counts.push(perft(b, d));
      b.delete();
      console.log(counts.join(' '));
    } else if (command === 'divide') {
      const b = board(rest.join(' '));
      console.log(moves(b).map(toUsi).sort().join(' '));
      b.delete();
    } else {
      fail(`unknown command in "${line}"`);
    }
  }
};
