// Game records: one JSON object per line (JSONL), appended as self-play games finish:
//   {"id":"...", "variant":"micro", "start":"<SFEN>", "moves":["2e2d", ...],
//    "result":"sente"|"gote"|"draw", "reason":"checkmate"|"repetition"|"perpetual_check"|"ply_cap"|
//    "royals_captured"|"bare_king"|"bare_kings" (royal capture, chu)|"stalemate" (yari)|
//    "checks" (miburi: the winner gave its last check), "perpetual_attack" (chu: a repetition in
//    which the loser attacked with every move),
//    "plies":N, "model":"..."}
// Four players (yonin): "result":"south"|"west"|"north"|"east"|"draw", and the reason
// "second_checkmate" (the winner mated a second army); "stalemate" there is nobody able to move.
// Self-play records also carry "samples":N, the positions trained on (fewer than the plies with
// playout cap randomisation); a record without it trained on every ply. A self-play game drawn
// at the ply cap may carry "adjudicated":"sente"|"gote": the side its training samples were
// credited with the win (selfplay/ply_cap_adjudication.h); its result stays "draw".
// Matches add the reasons "resign", "illegal_move", "timeout" and "crash" (a player forfeits; the
// other side wins) and an optional "detail" string saying what happened, e.g.
//   "detail":"gote (usi:./engine) played 5a5a: illegal move 5a5a in ..."
// and "rule_disagreement" (result "draw"): an XBoard engine refused a move Poppy's rules allow,
// or played one they forbid (selfplay::kRuleDisagreement; play/engines/xboard_client.h), and
// "adjudication" (result the winner or "draw"): ended early on the players' scores
// (selfplay/adjudication.h), the detail saying which rule and scores.
// Games a person plays (`poppy play`) may also end with reason "resign" (result: the winner) or
// "unfinished" (left before the end; result "draw", meaning nobody won). Games read from KIF or
// CSA files (play/game_files/game_file.h) may end with "impasse" (持将棋, a draw; 入玉勝ち, a win).
// Appends write whole lines in one write() under an exclusive flock() and fsync, so several
// processes may append to one file. A crash mid-append can leave an unterminated last line: readers
// ignore it (when it does not parse), and the next append first cuts it off.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace poppy::selfplay {

struct GameRecord {
  std::string id;       // read also from a JSON integer
  std::string variant;  // game::Variant::name
  std::string start;    // SFEN of the start position
  std::vector<std::string> moves;  // USI
  std::string result;   // "sente", "gote" or "draw"; four players: "south", "west", "north", "east" or "draw"
  std::string reason;   // "checkmate", "repetition", "perpetual_check", "ply_cap", "royals_captured",
                        // "bare_king", "bare_kings" (chu), "stalemate" (yari), or a forfeit:
                        // "resign", "illegal_move", "timeout", "crash";
                        // or "unfinished" (a game a person left; result "draw");
                        // or "impasse" (KIF and CSA files: 持将棋, 入玉勝ち)
  int plies = 0;        // moves played
  std::string model;    // the model that played (name or path)
  std::string detail;   // optional (written only when not empty): what ended a forfeited game
  int samples = -1;     // optional (written only when >= 0): training samples the game gave
  std::string adjudicated;  // optional (written only when not empty): "sente" or "gote"

  // The training samples this game gave: `samples`, or every ply when it was not recorded.
  int trainedPositions() const { return samples >= 0 ? samples : plies; }

  bool operator==(const GameRecord& o) const {
    return id == o.id && variant == o.variant && start == o.start && moves == o.moves &&
           result == o.result && reason == o.reason && plies == o.plies && model == o.model &&
           detail == o.detail && samples == o.samples && adjudicated == o.adjudicated;
  }
};

// I/O failures, and records that appendGameRecords refuses (unknown result or reason, negative
// plies). The message names the file.
class GameRecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One line of JSON, without the newline.
std::string gameRecordToJson(const GameRecord& record);
// Parses one line; throws GameRecordError describing what is wrong (no file or line in it).
GameRecord gameRecordFromJson(const std::string& line);

// Appends every record as one line, creating the file if needed, then fsyncs it (and its
// directory when the file was created). Validates all records before writing any.
void appendGameRecords(const std::string& path, const std::vector<GameRecord>& records);

// Checks, before a game is played, that appendGameRecords will be able to write `path`: an
// existing file must be a writable regular file; otherwise its folder (created here if missing)
// must be a writable folder. Throws GameRecordError naming the path and the reason. Creates no
// file, so a session that saves nothing leaves nothing behind.
void requireWritableRecordFile(const std::string& path);

struct GameRecordFile {
  std::vector<GameRecord> records;  // every good line, in file order
  // "PATH:LINE: what is wrong", one per malformed complete line (skipped).
  std::vector<std::string> errors;
  // The last line had no newline and did not parse: an interrupted append, ignored.
  bool truncatedTail = false;
};

// Reads a whole file. Throws GameRecordError only when the file cannot be opened or read.
GameRecordFile readGameRecordFile(const std::string& path);
// The records alone; each malformed line is reported on stderr as "PATH:LINE: ...".
std::vector<GameRecord> readGameRecords(const std::string& path);

}  // namespace poppy::selfplay
