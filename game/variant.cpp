#include "game/variant.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace poppy::game {
namespace {

// Board delta (columns, ranks; ranks grow towards sente) of a move vector for colour c: sente's
// view turned by the colour's quarter turns (Variant::quarterTurns), a quarter clockwise each.
// Two players: gote's pieces are sente's turned by 180 degrees. Four (yonin): west's forward is
// towards file 1, north's towards sente, east's towards file 9.
std::pair<int, int> orient(int quarterTurns, int dx, int dy) {
  int x = dx, y = -dy;
  for (int q = 0; q < quarterTurns; ++q) {
    const int t = x;
    x = -y;
    y = t;
  }
  return {x, y};
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

int Variant::faceIndex(char upperLetter, bool promoted, bool prime) const {
  for (size_t i = 0; i < faces.size(); ++i)
    if (faces[i].letter == upperLetter && faces[i].promoted == promoted && faces[i].prime == prime) return int(i);
  return -1;
}

int Variant::handKindOf(char upperLetter, bool prime) const {
  for (size_t i = 0; i < handKinds.size(); ++i)
    if (handKinds[i].letter == upperLetter && handKinds[i].prime == prime) return int(i);
  return -1;
}

int Variant::royalFace() const {
  for (size_t i = 0; i < faces.size(); ++i)
    if (faces[i].royal) return int(i);
  return -1;
}

int Variant::distanceToFarEdge(Color c, Square s) const {
  switch (quarterTurns(c)) {
    case 0: return rankOf(s);
    case 1: return files - 1 - colOf(s);
    case 2: return ranks - 1 - rankOf(s);
    default: return colOf(s);
  }
}

void Variant::compile() {
  const int n = numSquares();
  const int nf = int(faces.size());
  auto onBoard = [&](int col, int rank) { return col >= 0 && col < files && rank >= 0 && rank < ranks; };

  freezerFaces = 0;
  for (int f = 0; f < nf; ++f)
    if (faces[f].freezes) freezerFaces |= uint64_t(1) << f;
  specialFaces_ = 0;
  for (int f = 0; f < nf; ++f)
    if (!faces[f].special.empty() || faces[f].hasPowers()) specialFaces_ |= uint64_t(1) << f;

  // Every distinct slide direction on the board, over both colours.
  slideDirs_.clear();
  for (const Face& f : faces)
    for (const MoveVector& v : f.moves)
      if (v.range != 1)
        for (Color c = 0; c < numPlayers; ++c) {
          auto d = orient(quarterTurns(c), v.dx, v.dy);
          if (std::find(slideDirs_.begin(), slideDirs_.end(), d) == slideDirs_.end()) slideDirs_.push_back(d);
        }
  auto dirIndex = [&](std::pair<int, int> d) {
    return int(std::find(slideDirs_.begin(), slideDirs_.end(), d) - slideDirs_.begin());
  };
  maxRayLength_ = std::max(files, ranks);

  // Forward tables: where each face of each colour goes from each square.
  moveIndex_.assign(size_t(nf) * numPlayers * n, SquareMoves{});
  leapTargets_.clear();
  rays_.clear();
  raySquares_.clear();
  rayAlsoLeap_.clear();
  leapRayOverlap_ = false;
  dead_.assign(size_t(nf) * numPlayers * n, 0);
  for (int f = 0; f < nf; ++f)
    for (Color c = 0; c < numPlayers; ++c)
      for (Square s = 0; s < n; ++s) {
        SquareMoves sm{uint32_t(leapTargets_.size()), 0, 0, uint32_t(rays_.size())};
        for (const MoveVector& v : faces[f].moves) {
          auto [dc, dr] = orient(quarterTurns(c), v.dx, v.dy);
          if (v.range == 1) {
            int col = colOf(s) + dc, rank = rankOf(s) + dr;
            if (onBoard(col, rank)) {
              leapTargets_.push_back(uint8_t(square(col, rank)));
              ++sm.leapCount;
            }
            continue;
          }
          Ray ray{uint32_t(raySquares_.size()), 0, uint8_t(dirIndex({dc, dr}))};
          int limit = v.range == 0 ? maxRayLength_ : v.range;
          for (int k = 1; k <= limit; ++k) {
            int col = colOf(s) + dc * k, rank = rankOf(s) + dr * k;
            if (!onBoard(col, rank)) break;
            raySquares_.push_back(uint8_t(square(col, rank)));
            ++ray.length;
          }
          if (ray.length > 0) {
            rays_.push_back(ray);
            ++sm.rayCount;
          }
        }
        // A square both a leap and a slide of the face reach (the lion hawk's A leap and its
        // bishop slide) is listed once: the leap, which no piece on the way can block.
        rayAlsoLeap_.resize(raySquares_.size(), 0);
        for (uint32_t r = sm.rayBegin; r < sm.rayBegin + sm.rayCount; ++r)
          for (uint32_t k = rays_[r].begin; k < rays_[r].begin + rays_[r].length; ++k)
            for (uint32_t l = sm.leapBegin; l < sm.leapBegin + sm.leapCount; ++l)
              if (leapTargets_[l] == raySquares_[k]) {
                rayAlsoLeap_[k] = 1;
                leapRayOverlap_ = true;
              }
        moveIndex_[(size_t(f) * numPlayers + c) * n + s] = sm;
        // Special moves count when their first square is on the board (where a piece may never
        // move again decides forced promotion and dead-square drops).
        bool special = faces[f].hasPowers() && (files > 1 || ranks > 1);  // a neighbour exists
        for (const SpecialMove& m : faces[f].special) {
          auto [sc, sr] = orient(quarterTurns(c), m.first.dx, m.first.dy);
          const int skip = m.first.path == LegPath::kSkipFirst ? 2 : 1;
          special = special || onBoard(colOf(s) + sc * skip, rankOf(s) + sr * skip);
        }
        dead_[(size_t(f) * numPlayers + c) * n + s] = (sm.leapCount == 0 && sm.rayCount == 0 && !special);
      }

  // Which faces of colour c slide along direction d far enough to cover `dist` squares.
  slideMasks_.assign(size_t(numPlayers) * slideDirs_.size() * (maxRayLength_ + 1), 0);
  for (int f = 0; f < nf; ++f)
    for (const MoveVector& v : faces[f].moves) {
      if (v.range == 1) continue;
      for (Color c = 0; c < numPlayers; ++c) {
        int d = dirIndex(orient(quarterTurns(c), v.dx, v.dy));
        int limit = v.range == 0 ? maxRayLength_ : std::min(v.range, maxRayLength_);
        for (int k = 1; k <= limit; ++k)
          slideMasks_[(size_t(c) * slideDirs_.size() + d) * (maxRayLength_ + 1) + k] |= uint64_t(1) << f;
      }
    }

  // Reverse tables: for target t and attacking colour c, leap sources and outward rays.
  attackIndex_.assign(size_t(numPlayers) * n, AttackIndex{});
  leapSources_.clear();
  for (Color c = 0; c < numPlayers; ++c)
    for (Square t = 0; t < n; ++t) {
      AttackIndex ai{uint32_t(leapSources_.size()), 0, uint32_t(rays_.size()), 0};
      std::vector<uint64_t> maskFrom(n, 0);
      for (int f = 0; f < nf; ++f)
        for (const MoveVector& v : faces[f].moves) {
          if (v.range != 1) continue;
          auto [dc, dr] = orient(quarterTurns(c), v.dx, v.dy);
          int col = colOf(t) - dc, rank = rankOf(t) - dr;
          if (onBoard(col, rank)) maskFrom[square(col, rank)] |= uint64_t(1) << f;
        }
      for (Square s = 0; s < n; ++s)
        if (maskFrom[s]) {
          leapSources_.push_back(LeapSource{maskFrom[s], uint32_t(s)});
          ++ai.leapCount;
        }
      for (size_t d = 0; d < slideDirs_.size(); ++d) {
        if (!slideMask(c, int(d), 1)) continue;  // colour c has no slider this way
        auto [dc, dr] = slideDirs_[d];
        Ray ray{uint32_t(raySquares_.size()), 0, uint8_t(d)};
        for (int k = 1; k <= maxRayLength_; ++k) {
          int col = colOf(t) - dc * k, rank = rankOf(t) - dr * k;
          if (!onBoard(col, rank)) break;
          raySquares_.push_back(uint8_t(square(col, rank)));
          ++ray.length;
        }
        if (ray.length > 0) {
          rays_.push_back(ray);
          ++ai.rayCount;
        }
      }
      attackIndex_[size_t(c) * n + t] = ai;
    }

  zone_.assign(size_t(numPlayers) * n, 0);
  if (promotion == PromotionKind::kZone)
    for (Color c = 0; c < numPlayers; ++c)
      for (Square s = 0; s < n; ++s) zone_[size_t(c) * n + s] = distanceToFarEdge(c, s) < zoneRanks;

  uint64_t seed = 0x504F505059ULL;  // "POPPY": fixed, so hashes are the same in every run
  zobristBoard_.resize(size_t(numPlayers) * nf * n);
  for (auto& k : zobristBoard_) k = splitmix64(seed);
  zobristHand_.resize(size_t(numPlayers) * handKinds.size() * (kMaxHandCount + 1));
  for (auto& k : zobristHand_) k = splitmix64(seed);
  for (Color c = 0; c < kMaxPlayers; ++c) zobristSide_[c] = splitmix64(seed);
  // Drawn after the others, so that the two-player variants' keys stay as they were.
  for (auto& k : zobristController_) k = splitmix64(seed);
  zobristLionCapture_.resize(n);
  for (auto& k : zobristLionCapture_) k = splitmix64(seed);
}

}  // namespace poppy::game
