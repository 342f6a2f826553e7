// Engines that name a variant's pieces differently: translates Poppy's SFEN and USI moves into an
// engine's notation and the engine's bestmove back, so that play/engines/usi_client.h can play them.
//
// Fairy-Stockfish names micro shogi's double-faced pieces by their other face (Poppy names every
// physical piece by its setup face, configs/variants/micro.yaml):
//   Poppy G (gold) = FSF +R,   Poppy +G (rook)  = FSF R,
//   Poppy S (silver) = FSF +L, Poppy +S (lance) = FSF L;   K, B, +B, P, +P are the same.
// So its SFEN and drops use the other letters (start "kb+r+l/p3/4/3P/+L+RBK b - 1" for Poppy's
// "kbgs/p3/4/3P/SGBK b - 1"; hands hold R and L for G and S), and on a board move its flip suffix
// is the other one for those two pieces: a silver that captures turns to the lance, "+" for Poppy
// ("1a1b+") and a demotion for Fairy-Stockfish ("1a1b-"). Fairy-Stockfish needs the suffix: it
// does not take a capture of micro shogi without it. Every other variant Poppy shares with
// Fairy-Stockfish (minishogi, kyoto, judkins, gorogoro, shogi) is written the same by both.
#pragma once
#include <string>
#include <vector>

#include "game/position.h"

namespace poppy::play {

// Which notation an engine speaks. kAuto: kFairy when the engine calls itself Fairy-Stockfish
// ("id name Fairy-Stockfish ..."), else kPoppy.
enum class NotationKind { kAuto, kPoppy, kFairy };

// "auto", "poppy", "fairy"; throws std::invalid_argument naming the text.
NotationKind parseNotationKind(const std::string& text);
std::string notationName(NotationKind kind);
// Resolves kAuto by the engine's "id name".
NotationKind resolveNotation(NotationKind kind, const std::string& engineName);

// Fairy-Stockfish's UCI_Variant name of a Poppy variant (kyoto -> kyotoshogi, tori -> torishogi),
// and back; a name spelt alike by both comes back as it is.
std::string fairyVariantName(const std::string& poppyVariant);
std::string poppyVariantName(const std::string& fairyVariant);

// The translation for one variant and notation (kPoppy or kFairy; kAuto must be resolved first).
// Text that is not a move (a garbled bestmove) passes through unchanged, so that the caller's
// parser refuses it by name.
class UsiNotation {
 public:
  UsiNotation() = default;  // Poppy's own: nothing is translated
  UsiNotation(NotationKind kind, const std::string& variant);

  // False when the engine writes exactly what Poppy writes.
  bool translates() const { return !renames_.empty(); }

  // Poppy's SFEN in the engine's letters.
  std::string sfen(const std::string& poppySfen) const;
  // Poppy's move in the engine's notation; `before` is the position the move is played in (the
  // flip suffix depends on the piece that moves). The move need not be legal.
  std::string move(const game::Position& before, const std::string& poppyMove) const;
  // The moves of a game from startSfen in the engine's notation (replays them, so they must be legal).
  std::vector<std::string> moves(const game::VariantPtr& variant, const std::string& startSfen,
                                 const std::vector<std::string>& poppyMoves) const;
  // The engine's move in Poppy's notation, to be checked by Position::parseUsi.
  std::string fromEngine(const game::Position& pos, const std::string& engineMove) const;

 private:
  struct Rename {
    std::string poppy, engine;  // one face each, as in SFEN: "G" and "+R"
  };
  // The token of a face (a letter, '+' in front when promoted) in the other notation; case kept.
  std::string face(const std::string& token, bool toEngine) const;
  // A board move with its flip suffix swapped where the moving piece's faces are swapped (pos:
  // Poppy's position before the move).
  std::string boardMove(const game::Position& pos, const std::string& text) const;

  std::vector<Rename> renames_;
};

}  // namespace poppy::play
