// Self-play's reading of a game that reached the ply cap. The rules call it a draw, and the
// game record keeps that; but in a long game (chu shogi: 300 plies of weak play rarely end in
// a royal capture) a value head that learns only from results learns almost nothing. With a
// margin m > 0, the side whose material (game/material.h) exceeds the other's by at least m x
// one side's material at the start is credited with the win in the training samples, and the
// record says so ("adjudicated"). Matches, gates and play never adjudicate.
#pragma once
#include "game/material.h"

namespace poppy::selfplay {

class PlyCapAdjudicator {
 public:
  // margin 0 turns it off (winner() always -1).
  PlyCapAdjudicator(const game::VariantPtr& variant, double margin);
  bool enabled() const { return margin_ > 0; }
  // The colour credited with the win of a game that ended at the ply cap in `pos`, or -1.
  int winner(const game::Position& pos) const;
  // The material difference (sente minus gote) as a fraction of one side's start material.
  double balance(const game::Position& pos) const;

 private:
  double margin_;
  std::vector<double> values_;
  double startMaterial_ = 1;
};

}  // namespace poppy::selfplay
