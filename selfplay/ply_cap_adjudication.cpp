#include "selfplay/ply_cap_adjudication.h"

#include <algorithm>
#include <cmath>

namespace poppy::selfplay {

PlyCapAdjudicator::PlyCapAdjudicator(const game::VariantPtr& variant, double margin)
    : margin_(margin), values_(game::mobilityValues(*variant)), startMaterial_(game::startMaterial(variant, values_)) {}

double PlyCapAdjudicator::balance(const game::Position& pos) const {
  return (game::material(pos, 0, values_) - game::material(pos, 1, values_)) / startMaterial_;
}

int PlyCapAdjudicator::winner(const game::Position& pos) const {
  if (!enabled()) return -1;
  const double b = balance(pos);
  if (std::abs(b) < margin_) return -1;
  return b > 0 ? 0 : 1;
}

}  // namespace poppy::selfplay
