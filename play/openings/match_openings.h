// Opening positions for `poppy match --openings FILE`. One opening per line:
//   startpos                         the variant's start position
//   startpos moves 2e2d 4a4b         ... then these moves
//   sfen <SFEN> [moves ...]          (the word "sfen" is optional; "position" before either is
//   <SFEN> [moves ...]                skipped, so lines can be copied from USI logs)
// Blank lines and everything after '#' are ignored. Every SFEN and move is checked; a line whose
// position is already over (mate, repetition, ply cap) is refused.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "game/position.h"
#include "selfplay/match.h"

namespace poppy::play {

// Every bad line, one per line of the message: "FILE:LINE: what is wrong".
class OpeningsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the text of an openings file; `name` is used in messages. Throws OpeningsError
// listing every bad line (or saying that there is no opening at all).
std::vector<selfplay::MatchOpening> parseOpenings(const std::string& text, const std::string& name,
                                                  const game::VariantPtr& variant, int plyCap);
// Reads and parses a file; a missing or unreadable file is an OpeningsError too.
std::vector<selfplay::MatchOpening> loadOpenings(const std::string& path, const game::VariantPtr& variant, int plyCap);

}  // namespace poppy::play
