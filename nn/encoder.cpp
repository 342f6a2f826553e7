#include "nn/encoder.h"

#include <algorithm>
#include <cstring>

namespace poppy::nn {

Encoder::Encoder(game::VariantPtr variant) : variant_(std::move(variant)) {
  const int faces = int(variant_->faces.size());
  const int kinds = int(variant_->handKinds.size());
  planes_ = 2 * faces + 2 * kinds + 3;
  const int n = variant_->numSquares();
  policySize_ = 2 * n * n + faces * n;
}

void Encoder::encode(const game::Position& pos, float* out) const {
  const game::Variant& v = *variant_;
  const int n = v.numSquares();
  const int faces = int(v.faces.size());
  const int kinds = int(v.handKinds.size());
  const game::Color us = pos.sideToMove();
  std::memset(out, 0, sizeof(float) * size_t(inputSize()));
  for (game::Square s = 0; s < n; ++s) {
    const game::Piece p = pos.at(s);
    if (!p) continue;
    const int plane = (game::colorOf(p) == us ? 0 : faces) + game::faceOf(p);
    out[plane * n + orient(pos, s)] = 1.0f;
  }
  auto fill = [&](int plane, float value) { std::fill(out + plane * n, out + (plane + 1) * n, value); };
  for (int k = 0; k < kinds; ++k) {
    fill(2 * faces + k, pos.handCount(us, k) / 8.0f);
    fill(2 * faces + kinds + k, pos.handCount(pos.opponent(us), k) / 8.0f);
  }
  const int base = 2 * faces + 2 * kinds;
  fill(base, std::min(pos.repetitionsSoFar(), 3) / 3.0f);
  fill(base + 1, us == 0 ? 0.0f : 1.0f);
  fill(base + 2, 1.0f);
}

int Encoder::moveIndex(const game::Position& pos, game::Move m) const {
  const int n = variant_->numSquares();
  if (m.isDrop()) return 2 * n * n + m.dropFace() * n + orient(pos, m.to);
  return (orient(pos, m.from) * n + orient(pos, m.to)) * 2 + (m.isFlip() ? 1 : 0);
}

game::Move Encoder::indexToMove(const game::Position& pos, int index) const {
  const int n = variant_->numSquares();
  if (index < 0 || index >= policySize_) return game::Move::none();
  if (index >= 2 * n * n) {
    const int rest = index - 2 * n * n;
    return game::Move::drop(rest / n, orient(pos, rest % n));
  }
  const bool flip = index & 1;
  const int pair = index >> 1;
  return game::Move::board(orient(pos, pair / n), orient(pos, pair % n), flip);
}

}  // namespace poppy::nn
