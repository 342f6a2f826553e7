#include "nn/encoder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>


namespace poppy::nn {

Encoder::Encoder(game::VariantPtr variant) : variant_(std::move(variant)) {
  const int faces = int(variant_->faces.size());
  const int kinds = int(variant_->handKinds.size());
  const int players = variant_->numPlayers;
  planes_ = players == 2 ? 2 * faces + 2 * kinds + 3 + (variant_->checksToWin ? 2 : 0) : players * playerPlanes() + 2;
  const int n = variant_->numSquares();
  bool twoLegs = false;  // two-leg moves, or powers (whose skips and igui are two-leg moves)
  for (const game::Face& f : variant_->faces) {
    for (const game::SpecialMove& sm : f.special) twoLegs = twoLegs || sm.twoLegs;
    twoLegs = twoLegs || f.hasPowers();
  }
  if (players > 2 && (n > 81 || twoLegs))
    throw std::invalid_argument(variant_->name + ": four players are encoded on boards up to 9x9 without multi-leg moves");
  if (n <= 81 && !twoLegs) {
    policySize_ = 2 * n * n + faces * n;
    return;
  }
  buildSpatialPlanes();
  policyPlanes_ = int(planeKinds_.size());
  policySize_ = policyPlanes_ * n;
}

// Collects every displacement any face can make (on the rotated board, so from the mover's
// side) and every two-leg step pair, with the flip where the face can flip, and drops.
void Encoder::buildSpatialPlanes() {
  const game::Variant& v = *variant_;
  std::set<std::tuple<int, int, int, int, int, int>> kinds;  // (type, flip, dr, dc, dr2, dc2) / face
  std::set<bool> burnFlips;  // flips a burn can make
  std::set<int> burnMasks;   // sets of one or two of the eight neighbours a burn can take
  auto addStep = [&](int dx, int dy, bool flip) {
    // Betza's forward (dy > 0) is towards rank a for the mover on the rotated board.
    const int dc = dx, dr = -dy;
    if ((dc || dr) && std::abs(dc) < v.files && std::abs(dr) < v.ranks) kinds.insert({0, flip, dr, dc, 0, 0});
  };
  auto addRide = [&](int dx, int dy, int from, int range, bool flip) {
    const int limit = range == 0 ? std::max(v.files, v.ranks) : range;
    for (int k = from; k <= limit; ++k) addStep(dx * k, dy * k, flip);
  };
  for (const game::Face& f : v.faces) {
    // Which faces can turn over on a move: in a promotion zone only unpromoted ones; where
    // pieces flip on captures or every move (micro, kyoto), both sides.
    const bool canFlip = f.flipTo >= 0 && v.promotion != game::PromotionKind::kNone &&
                         (v.promotion != game::PromotionKind::kZone || !f.promoted);
    for (const bool flip : {false, true}) {
      if (flip && !canFlip) continue;
      for (const game::MoveVector& mv : f.moves) addRide(mv.dx, mv.dy, 1, mv.range, flip);
      for (const game::SpecialMove& sm : f.special) {
        const game::Leg& a = sm.first;
        if (!sm.twoLegs) {
          // Hoppers and skipping slides land anywhere along their line.
          const bool line = a.range != 1 || a.path == game::LegPath::kHop || a.path == game::LegPath::kGrasshop;
          addRide(a.dx, a.dy, 1, line && a.range == 1 ? 0 : a.range, flip);
          continue;
        }
        const game::Leg& b = sm.second;
        kinds.insert({1, flip, -a.dy, a.dx, -b.dy, b.dx});
        addStep(a.dx + b.dx, a.dy + b.dy, flip);  // through an empty square it is a plain move
      }
      // Powers (game/powers.h). Area moves are steps to anywhere within `areaSteps` king steps;
      // a turn skip and an igui of one piece are two-leg moves out and back.
      for (int dy = -f.areaSteps; dy <= f.areaSteps; ++dy)
        for (int dx = -f.areaSteps; dx <= f.areaSteps; ++dx) addStep(dx, dy, flip);
      if (f.areaSteps > 0 || f.iguiCount > 0)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy) kinds.insert({1, flip, -dy, dx, dy, -dx});
      // Burns and double igui: which flips and which sets of burned neighbours occur.
      if (f.burnCount > 0 || f.iguiCount >= 2) burnFlips.insert(flip);
      for (int mask = 1; mask < 256; ++mask) {
        const int bits = __builtin_popcount(unsigned(mask));
        if (bits <= f.burnCount || (bits == 2 && f.iguiCount >= 2)) burnMasks.insert(mask);
      }
    }
  }
  // A burn is read at its destination: one plane per (burner slot, flip, burned neighbours).
  countBurnSlots();
  for (int slot = 0; slot < burnSlots_; ++slot)
    for (const bool flip : burnFlips)
      for (const int mask : burnMasks) kinds.insert({3, flip, slot, mask, 0, 0});
  if (v.dropsEnabled)
    for (size_t face = 0; face < v.faces.size(); ++face)
      if (v.faces[face].handKind >= 0) kinds.insert({2, 0, int(face), 0, 0, 0});

  stepPlane_.assign(size_t(2 * (2 * v.ranks - 1) * (2 * v.files - 1)), -1);
  twoLegPlane_.assign(2 * 81, -1);
  dropPlane_.assign(v.faces.size(), -1);
  if (burnSlots_ > 0) burnPlane_.assign(size_t(burnKey(burnSlots_, false, 0)), -1);
  for (const auto& [type, flip, a, b, c, d] : kinds) {
    const int plane = int(planeKinds_.size());
    PlaneKind k;
    k.flip = flip;
    if (type == 0) {
      k.type = PlaneKind::kStep;
      k.dr = a, k.dc = b;
      stepPlane_[size_t(stepSlot(flip, b, a))] = plane;
    } else if (type == 1) {
      k.type = PlaneKind::kTwoLeg;
      k.dr = a, k.dc = b, k.dr2 = c, k.dc2 = d;
      twoLegPlane_[size_t(twoLegSlot(flip, b, a, d, c))] = plane;
    } else if (type == 3) {
      k.type = PlaneKind::kBurn;
      k.slot = a, k.mask = b;
      burnPlane_[size_t(burnKey(a, flip, b))] = plane;
    } else {
      k.type = PlaneKind::kDrop;
      k.face = a;
      dropPlane_[size_t(a)] = plane;
    }
    planeKinds_.push_back(k);
  }
}

// A burning piece's slot must tell apart every burner the mover can have. Pieces never appear
// out of nothing, so the start position's pieces that burn or can come to (by a flip, or by
// being captured and dropped as another face) bound it, both sides' together (a captured
// burner is dropped by its captor).
void Encoder::countBurnSlots() {
  const game::Variant& v = *variant_;
  const int faces = int(v.faces.size());
  burns_.assign(size_t(faces), false);
  for (int f = 0; f < faces; ++f) burns_[size_t(f)] = v.faces[size_t(f)].burnCount > 0 || v.faces[size_t(f)].iguiCount >= 2;
  auto canBurn = [&](int face) {
    std::vector<bool> seen(size_t(faces), false);
    std::vector<int> todo{face};
    while (!todo.empty()) {
      const int f = todo.back();
      todo.pop_back();
      if (f < 0 || seen[size_t(f)]) continue;
      if (burns_[size_t(f)]) return true;
      seen[size_t(f)] = true;
      todo.push_back(v.faces[size_t(f)].flipTo);
      const int kind = v.faces[size_t(f)].handKind;
      if (kind >= 0) {
        todo.push_back(v.handKinds[size_t(kind)].setupFace);
        todo.push_back(v.handKinds[size_t(kind)].otherFace);
      }
    }
    return false;
  };
  const game::Position start(variant_);
  burnSlots_ = 0;
  for (game::Square s = 0; s < v.numSquares(); ++s)
    if (start.at(s) && canBurn(game::faceOf(start.at(s)))) ++burnSlots_;
  for (game::Color c = 0; c < 2; ++c)
    for (size_t kind = 0; kind < v.handKinds.size(); ++kind)
      if (canBurn(v.handKinds[kind].setupFace)) burnSlots_ += start.handCount(c, int(kind));
}

int Encoder::burnerSlot(const game::Position& pos, game::Square from) const {
  int slot = 0;
  for (int o = 0; o < orient(pos, from); ++o) {
    const game::Piece p = pos.at(orient(pos, o));
    slot += p && game::colorOf(p) == pos.sideToMove() && burns_[size_t(game::faceOf(p))];
  }
  return std::min(slot, burnSlots_ - 1);
}

int Encoder::burnerSquare(const game::Position& pos, int slot) const {
  for (int o = 0; o < variant_->numSquares(); ++o) {
    const game::Square s = orient(pos, o);
    const game::Piece p = pos.at(s);
    if (p && game::colorOf(p) == pos.sideToMove() && burns_[size_t(game::faceOf(p))] && slot-- == 0) return s;
  }
  return -1;
}

void Encoder::encode(const game::Position& pos, float* out) const {
  const game::Variant& v = *variant_;
  const int n = v.numSquares();
  const int faces = int(v.faces.size());
  const int kinds = int(v.handKinds.size());
  const game::Color us = pos.sideToMove();
  std::memset(out, 0, sizeof(float) * size_t(inputSize()));
  auto fill = [&](int plane, float value) { std::fill(out + plane * n, out + (plane + 1) * n, value); };
  if (v.numPlayers > 2) {
    // Four players: for the mover and then the others clockwise, each army's pieces, its
    // player's hand, and who controls the army (one of four filled planes: itself while in the
    // game, the mater's seat once mated).
    const int players = v.numPlayers;
    auto relative = [&](game::Color c) { return (c - us + players) % players; };
    for (game::Square s = 0; s < n; ++s)
      if (const game::Piece p = pos.at(s))
        out[(relative(game::colorOf(p)) * playerPlanes() + game::faceOf(p)) * n + toView(pos, s)] = 1.0f;
    for (game::Color c = 0; c < players; ++c) {
      const int base = relative(c) * playerPlanes();
      for (int k = 0; k < kinds; ++k) fill(base + faces + k, pos.handCount(c, k) / 8.0f);
      fill(base + faces + kinds + relative(pos.controllerOf(c)), 1.0f);
    }
    fill(players * playerPlanes(), std::min(pos.repetitionsSoFar(), 3) / 3.0f);
    fill(players * playerPlanes() + 1, 1.0f);
    return;
  }
  for (game::Square s = 0; s < n; ++s) {
    const game::Piece p = pos.at(s);
    if (!p) continue;
    const int plane = (game::colorOf(p) == us ? 0 : faces) + game::faceOf(p);
    out[plane * n + orient(pos, s)] = 1.0f;
  }
  for (int k = 0; k < kinds; ++k) {
    fill(2 * faces + k, pos.handCount(us, k) / 8.0f);
    fill(2 * faces + kinds + k, pos.handCount(pos.opponent(us), k) / 8.0f);
  }
  const int base = 2 * faces + 2 * kinds;
  fill(base, std::min(pos.repetitionsSoFar(), 3) / 3.0f);
  fill(base + 1, us == 0 ? 0.0f : 1.0f);
  fill(base + 2, 1.0f);
  if (v.checksToWin) {
    fill(base + 3, float(pos.checksGiven(us)) / float(v.checksToWin));
    fill(base + 4, float(pos.checksGiven(pos.opponent(us))) / float(v.checksToWin));
  }
}

int Encoder::moveIndex(const game::Position& pos, game::Move m) const {
  if (policyPlanes_) return spatialIndex(pos, m);
  const int n = variant_->numSquares();
  if (m.isDrop()) return 2 * n * n + m.dropFace() * n + toView(pos, m.to);
  return (toView(pos, m.from) * n + toView(pos, m.to)) * 2 + (m.isFlip() ? 1 : 0);
}

game::Move Encoder::indexToMove(const game::Position& pos, int index) const {
  const int n = variant_->numSquares();
  if (index < 0 || index >= policySize_) return game::Move::none();
  if (policyPlanes_) return spatialMove(pos, index);
  if (index >= 2 * n * n) {
    const int rest = index - 2 * n * n;
    return game::Move::drop(rest / n, fromView(pos, rest % n));
  }
  const bool flip = index & 1;
  const int pair = index >> 1;
  return game::Move::board(fromView(pos, pair / n), fromView(pos, pair % n), flip);
}

int Encoder::toView(const game::Position& pos, game::Square s) const {
  const game::Variant& v = *variant_;
  switch (v.quarterTurns(pos.sideToMove())) {
    case 0: return s;
    case 2: return v.numSquares() - 1 - s;
    // Four players (square boards): west's forward, towards file 1, turned to point up (a
    // quarter turn anticlockwise), east's towards file 9 likewise (clockwise).
    case 1: return v.square(v.rankOf(s), v.files - 1 - v.colOf(s));
    default: return v.square(v.files - 1 - v.rankOf(s), v.colOf(s));
  }
}

game::Square Encoder::fromView(const game::Position& pos, int o) const {
  const game::Variant& v = *variant_;
  switch (v.quarterTurns(pos.sideToMove())) {
    case 0: return o;
    case 2: return v.numSquares() - 1 - o;
    case 1: return v.square(v.files - 1 - v.rankOf(o), v.colOf(o));
    default: return v.square(v.rankOf(o), v.files - 1 - v.colOf(o));
  }
}

// -1 for a move no plane holds (a move no piece of the variant can make).
int Encoder::spatialIndex(const game::Position& pos, game::Move m) const {
  const game::Variant& v = *variant_;
  const int n = v.numSquares();
  if (m.isDrop()) {
    const int plane = dropPlane_[size_t(m.dropFace())];
    return plane < 0 ? -1 : plane * n + orient(pos, m.to);
  }
  const int from = orient(pos, m.from), to = orient(pos, m.to);
  if (m.isBurn()) {
    if (burnPlane_.empty()) return -1;
    const int plane = burnPlane_[size_t(burnKey(burnerSlot(pos, m.from), m.isFlip(), orientMask(pos, m.burnMask())))];
    return plane < 0 ? -1 : plane * n + to;
  }
  int plane;
  if (m.isTwoLeg()) {
    const int mid = orient(pos, m.mid());
    plane = twoLegPlane_[size_t(twoLegSlot(m.isFlip(), v.colOf(mid) - v.colOf(from), v.rankOf(mid) - v.rankOf(from),
                                           v.colOf(to) - v.colOf(mid), v.rankOf(to) - v.rankOf(mid)))];
  } else {
    plane = stepPlane_[size_t(stepSlot(m.isFlip(), v.colOf(to) - v.colOf(from), v.rankOf(to) - v.rankOf(from)))];
  }
  return plane < 0 ? -1 : plane * n + from;
}

game::Move Encoder::spatialMove(const game::Position& pos, int index) const {
  const game::Variant& v = *variant_;
  const int n = v.numSquares();
  const PlaneKind& k = planeKinds_[size_t(index / n)];
  const int sq = index % n;
  if (k.type == PlaneKind::kDrop) return game::Move::drop(k.face, orient(pos, sq));
  auto shifted = [&](int s, int dc, int dr) {
    const int col = v.colOf(s) + dc, rank = v.rankOf(s) + dr;
    return col < 0 || col >= v.files || rank < 0 || rank >= v.ranks ? -1 : v.square(col, rank);
  };
  if (k.type == PlaneKind::kBurn) {
    const int from = burnerSquare(pos, k.slot);
    if (from < 0) return game::Move::none();
    return game::Move::burn(from, orient(pos, sq), orientMask(pos, k.mask), k.flip);
  }
  const int mid = shifted(sq, k.dc, k.dr);
  if (mid < 0) return game::Move::none();
  if (k.type == PlaneKind::kStep) return game::Move::board(orient(pos, sq), orient(pos, mid), k.flip);
  const int to = shifted(mid, k.dc2, k.dr2);
  if (to < 0) return game::Move::none();
  return game::Move::twoLeg(orient(pos, sq), orient(pos, mid), orient(pos, to), k.flip);
}

}  // namespace poppy::nn
