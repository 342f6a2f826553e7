// Game files in the formats shogi players use, beside Poppy's JSONL records
// (selfplay/game_record.h): KIF (play/game_files/kif_format.h) and CSA (play/game_files/csa_format.h). What the
// two formats share: errors, the players of a record, text encodings, and reading any of the
// three by file name.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "selfplay/game_record.h"

namespace poppy::play {

// A game file that cannot be read: the message names the file, the line where there is one,
// and what is wrong.
class GameFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class GameFormat { kJsonl, kKif, kCsa };

// By extension: .kif/.kifu -> KIF, .csa -> CSA, anything else -> Poppy's JSONL.
GameFormat gameFormatOf(const std::string& path);
// "kif" or "csa" (the --format of `poppy records export`); throws std::invalid_argument.
GameFormat gameFormatNamed(const std::string& name);

struct GamePlayers {
  std::string sente, gote;
};
// A record's players: "A vs B" (a match) is sente A and gote B; anything else plays both sides
// (self-play).
GamePlayers playersOf(const selfplay::GameRecord& record);
// The record's model field for these players (the inverse of playersOf).
std::string modelOf(const GamePlayers& players);

// The text as UTF-8: kept when it already is, otherwise read as Shift_JIS (CP932). Throws
// GameFileError naming `source` when it is neither.
std::string toUtf8(const std::string& bytes, const std::string& source);

// Every game of a file: JSONL records (each malformed line reported on stderr, as
// selfplay::readGameRecords does), or the one game of a KIF or CSA file. `variantName` is
// used where a KIF or CSA file does not name its variant. Throws GameFileError.
std::vector<selfplay::GameRecord> readGameFile(const std::string& path, const std::string& variantName = "");

}  // namespace poppy::play
