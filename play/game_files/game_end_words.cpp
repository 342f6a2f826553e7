#include "play/game_files/game_end_words.h"

namespace poppy::play {
namespace {

// Read in this order; where two words mean one end, the first is the one written.
const GameEnd kEnds[] = {
    {"投了", "%TORYO", "resign", GameEnd::kOpponent},
    {"詰み", "%TSUMI", "checkmate", GameEnd::kOpponent},
    {"千日手", "%SENNICHITE", "repetition", GameEnd::kDraw},
    {"持将棋", "%JISHOGI", "impasse", GameEnd::kDraw},
    {"入玉勝ち", "%KACHI", "impasse", GameEnd::kSideToMove},
    {"切れ負け", "%TIME_UP", "timeout", GameEnd::kOpponent},
    {"反則勝ち", "", "illegal_move", GameEnd::kSideToMove},
    {"反則負け", "%ILLEGAL_MOVE", "illegal_move", GameEnd::kOpponent},
    {"中断", "%CHUDAN", "unfinished", GameEnd::kDraw},
    {"時間切れ", "", "timeout", GameEnd::kOpponent},
    {"封じ手", "", "unfinished", GameEnd::kDraw},
    {"不詰", "%FUZUMI", "unfinished", GameEnd::kDraw},
    {"", "%HIKIWAKE", "unfinished", GameEnd::kDraw},
    {"", "%MATTA", "illegal_move", GameEnd::kOpponent},
    {"", "%ERROR", "unfinished", GameEnd::kDraw},
};

const GameEnd& endNamed(const char* kif) {
  for (const GameEnd& e : kEnds)
    if (std::string(kif) == e.kif) return e;
  return kEnds[8];  // 中断
}

}  // namespace

const GameEnd* gameEndFromKif(const std::string& word) {
  for (const GameEnd& e : kEnds)
    if (*e.kif && word == e.kif) return &e;
  return nullptr;
}

const GameEnd* gameEndFromCsa(const std::string& word) {
  for (const GameEnd& e : kEnds)
    if (*e.csa && word == e.csa) return &e;
  return nullptr;
}

GameEndText gameEndOf(const selfplay::GameRecord& r, int sideToMove) {
  const int winner = r.result == "sente" ? 0 : r.result == "gote" ? 1 : -1;
  const bool moverWins = winner == sideToMove;
  const GameEnd* e = &endNamed("中断");
  if (r.reason == "resign") e = &endNamed("投了");
  else if (r.reason == "checkmate") e = &endNamed("詰み");
  else if (r.reason == "timeout" && winner >= 0 && !moverWins) e = &endNamed("切れ負け");
  else if ((r.reason == "impasse" || r.reason == "ply_cap") && winner < 0) e = &endNamed("持将棋");
  else if (r.reason == "impasse" && moverWins) e = &endNamed("入玉勝ち");
  else if (r.reason == "repetition" && winner < 0) e = &endNamed("千日手");
  else if (winner >= 0 && (r.reason == "illegal_move" || r.reason == "perpetual_check" || r.reason == "perpetual_attack" || r.reason == "crash" ||
                           r.reason == "repetition" || r.reason == "timeout"))
    e = &endNamed(moverWins ? "反則勝ち" : "反則負け");
  GameEndText t;
  t.kif = e->kif;
  t.csa = e->csa;
  // CSA names the side that broke a rule, where the loser is not the side to move.
  if (t.csa.empty()) t.csa = winner == 0 ? "%-ILLEGAL_ACTION" : "%+ILLEGAL_ACTION";
  if (winner >= 0) t.summary = winner == 0 ? "先手の勝ち" : "後手の勝ち";
  else if (e->reason == std::string("repetition")) t.summary = "千日手";
  else if (e->reason == std::string("impasse")) t.summary = "持将棋";
  else t.summary = "中断";
  return t;
}

}  // namespace poppy::play
