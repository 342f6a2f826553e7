// How a game ended, in the words of KIF (投了, 詰み, 千日手 ...) and CSA (%TORYO, %TSUMI ...),
// and the game record's reason and result they stand for. Both formats write the end as one
// more "move" by the side to move, so the winner is relative to that side.
#pragma once
#include <string>

#include "selfplay/game_record.h"

namespace poppy::play {

struct GameEnd {
  enum Winner { kSideToMove, kOpponent, kDraw };
  const char* kif;     // "投了"
  const char* csa;     // "%TORYO"
  const char* reason;  // the record's reason: "resign"
  Winner winner;
};

// The end a KIF word or CSA line stands for, or nullptr when it is no such word.
const GameEnd* gameEndFromKif(const std::string& word);
const GameEnd* gameEndFromCsa(const std::string& word);

// The words to write for a record's end, with the side to move after its last move.
struct GameEndText {
  std::string kif, csa;
  std::string summary;  // KIF's last line after "まで N 手で": "先手の勝ち", "千日手", "中断"
};
GameEndText gameEndOf(const selfplay::GameRecord& record, int sideToMove);

}  // namespace poppy::play
