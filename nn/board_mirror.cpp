#include "nn/board_mirror.h"

#include <algorithm>
#include <utility>

namespace poppy::nn {

namespace {

// Whether a face's moves are their own reflection: every (dx, dy, range) has its (-dx, dy, range).
bool movesAsItsReflection(const game::Face& face) {
  for (const game::MoveVector& m : face.moves) {
    const game::MoveVector reflected{-m.dx, m.dy, m.range};
    if (std::find(face.moves.begin(), face.moves.end(), reflected) == face.moves.end()) return false;
  }
  return true;
}

}  // namespace

std::optional<BoardMirror> BoardMirror::forEncoder(const Encoder& encoder, std::string* whyNot) {
  const game::Variant& v = encoder.variant();
  auto refuse = [&](const std::string& why) -> std::optional<BoardMirror> {
    if (whyNot) *whyNot = v.name + ": " + why;
    return std::nullopt;
  };
  if (v.numPlayers != 2) return refuse("the mirror is for two players");
  if (encoder.policyPlanes() > 0) return refuse("the mirror is for the dense policy layout (boards up to 9x9 without multi-leg moves)");
  if (v.specialFaces() != 0) return refuse("a piece has XBetza or other special powers");
  for (const game::Face& f : v.faces) {
    if (f.hasPowers()) return refuse("the " + f.name + " has special powers");
    if (!movesAsItsReflection(f)) return refuse("the " + f.name + " (" + f.betza + ") does not move as its own mirror image");
  }
  return BoardMirror(encoder);
}

// The dense layout (nn/encoder.h): board moves (from * n + to) * 2 + flip, drops 2n^2 + face * n
// + to, squares on the mover's board. Turning gote's board 180 degrees and reflecting it commute,
// so the reflection on the mover's board is the reflection on the real one.
BoardMirror::BoardMirror(const Encoder& encoder)
    : planes_(encoder.planes()), files_(encoder.width()), ranks_(encoder.height()) {
  const game::Variant& v = encoder.variant();
  const int n = v.numSquares();
  auto reflect = [&](int square) { return v.square(v.files - 1 - v.colOf(square), v.rankOf(square)); };
  reflectedIndex_.resize(size_t(encoder.policySize()));
  for (int index = 0; index < encoder.policySize(); ++index) {
    if (index < 2 * n * n) {
      const int flip = index % 2, from = index / 2 / n, to = index / 2 % n;
      reflectedIndex_[size_t(index)] = (reflect(from) * n + reflect(to)) * 2 + flip;
    } else {
      const int rest = index - 2 * n * n;
      reflectedIndex_[size_t(index)] = 2 * n * n + rest - rest % n + reflect(rest % n);
    }
  }
}

void BoardMirror::reflectPlanes(float* planes) const {
  for (int row = 0; row < planes_ * ranks_; ++row) std::reverse(planes + row * files_, planes + (row + 1) * files_);
}

void BoardMirror::reflectPolicy(float* policy) const {
  for (size_t i = 0; i < reflectedIndex_.size(); ++i)
    if (size_t(reflectedIndex_[i]) > i) std::swap(policy[i], policy[reflectedIndex_[i]]);
}

}  // namespace poppy::nn
