#include "game/material.h"

#include <algorithm>

namespace poppy::game {

std::vector<double> mobilityValues(const Variant& v) {
  std::vector<double> values(v.faces.size(), 0.0);
  const Variant::Ray* rays = v.rays();
  for (size_t f = 0; f < v.faces.size(); ++f) {
    if (v.faces[f].royal) continue;
    double reached = 0;
    for (Square s = 0; s < v.numSquares(); ++s) {
      const Variant::SquareMoves& m = v.movesFrom(int(f), 0, s);
      reached += m.leapCount;
      for (uint32_t r = 0; r < m.rayCount; ++r) {
        const Variant::Ray& ray = rays[m.rayBegin + r];
        for (int i = 0; i < ray.length; ++i)  // a square also leapt to is counted once
          if (!v.leapRayOverlap() || !v.rayAlsoLeap()[ray.begin + uint32_t(i)]) ++reached;
      }
    }
    values[f] = reached / v.numSquares();
  }
  return values;
}

double material(const Position& pos, Color c, const std::vector<double>& values) {
  const Variant& v = pos.variant();
  double sum = 0;
  for (Square s = 0; s < v.numSquares(); ++s) {
    const Piece p = pos.at(s);
    if (p && colorOf(p) == c) sum += values[size_t(faceOf(p))];
  }
  for (size_t k = 0; k < v.handKinds.size(); ++k)
    sum += pos.handCount(c, int(k)) * values[size_t(v.handKinds[k].setupFace)];
  return sum;
}

double startMaterial(const VariantPtr& variant, const std::vector<double>& values) {
  const Position start(variant);
  const double most = std::max(material(start, 0, values), material(start, 1, values));
  return most > 0 ? most : 1;
}

}  // namespace poppy::game
