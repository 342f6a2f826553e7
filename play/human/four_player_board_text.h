// A four-player position (yonin shogi) drawn as text from one player's seat: the board turned so
// that seat's side is at the bottom, every piece written with its army's letter (s south, w
// west, n north, e east: "sK", "w+P"; a mated army's turned king "nX"), so the armies read apart
// without colour; the USI coordinates of the squares around the board (file numbers or rank
// letters, whichever runs along that edge after the turn); the last move's squares in
// brackets; and under the board each player's hand and who controls each army.
//
//       a     b     c    ...             (west at the bottom: ranks run along the top)
//   +-----+-----+-----+
//   |  .  |  nS |  .  | 1
//   ...
#pragma once
#include <string>

#include "game/position.h"

namespace poppy::play {

// "south", "west", "north", "east".
std::string seatName(game::Color seat);
// Parses a seat ("south", "s", ...); -1 when it is none.
int parseSeat(const std::string& text);
// A side's name: sente or gote between two players, the seat among four.
std::string sideName(const game::Variant& v, game::Color c);

// "sK", "w+P", "nX"; "." for an empty square.
std::string fourPlayerPieceText(const game::Variant& variant, game::Piece piece);

// The board from `seat`'s side, then the hands and the armies' controllers.
std::string renderFourPlayerBoard(const game::Position& pos, game::Color seat);

}  // namespace poppy::play
