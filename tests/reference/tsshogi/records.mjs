// KIF and CSA read and written by tsshogi (the game record library of ShogiHome), the
// independent reference of tests/test_game_files.cpp.
//   node records.mjs read kif|csa  < file text
//     prints "usi: position sfen SFEN moves M1 M2 ..." (the main line) and "end: TYPE" (tsshogi's
//     special move at the end: resign, mate, repetitionDraw, impass, interrupt ... or none)
//   node records.mjs write kif|csa < two lines: "position sfen SFEN moves ..." and an end TYPE
//     prints the file tsshogi writes for that game
import { readFileSync } from "node:fs";
import { Record, exportCSA, exportKIF, importCSA, importKIF } from "tsshogi";

const [mode, format] = process.argv.slice(2);
const input = readFileSync(0, "utf8");
if (mode === "read") {
  const record = format === "kif" ? importKIF(input) : importCSA(input);
  if (record instanceof Error) {
    console.log(`error: ${record.message}`);
    process.exit(1);
  }
  record.goto(Number.MAX_SAFE_INTEGER);
  console.log(`usi: ${record.getUSI({ startpos: false, allMoves: true })}`);
  const last = record.moves[record.moves.length - 1].move;
  console.log(`end: ${"type" in last && last.type !== "start" ? last.type : "none"}`);
} else if (mode === "write") {
  const [usi, end] = input.split("\n");
  const record = Record.newByUSI(usi);
  if (record instanceof Error) {
    console.log(`error: ${record.message}`);
    process.exit(1);
  }
  record.goto(Number.MAX_SAFE_INTEGER);
  if (end && end !== "none") record.append(end);
  process.stdout.write(format === "kif" ? exportKIF(record) : exportCSA(record));
} else {
  console.log("usage: node records.mjs read|write kif|csa");
  process.exit(2);
}
