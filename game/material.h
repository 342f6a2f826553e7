// A rough material count for any variant, from the variant file alone: a face is worth its
// mobility, the number of squares it reaches on an empty board averaged over every square
// (plain steps, leaps and rides; multi-leg powers add nothing). Royal faces are worth nothing:
// they are the game, not material. Self-play uses it to score games that reach the ply cap
// (selfplay/ply_cap_adjudication.h); nothing in the rules depends on it.
#pragma once
#include <vector>

#include "game/position.h"

namespace poppy::game {

// Per face, as above.
std::vector<double> mobilityValues(const Variant& v);

// The material of colour c: its board pieces at their face's value, its hand pieces at their
// setup face's value. `values` from mobilityValues of the position's variant.
double material(const Position& pos, Color c, const std::vector<double>& values);

// One side's material at the start (the larger side's): the unit in which material leads are
// given as shares of an army. 1 for a start with nothing but royal pieces (any gain counts).
double startMaterial(const VariantPtr& variant, const std::vector<double>& values);

}  // namespace poppy::game
