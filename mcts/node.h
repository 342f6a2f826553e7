// One node of a search tree. Nodes live in one array per tree; the children of a node are one
// contiguous block of that array, created all at once when the node is expanded, so selection
// scans them without pointer chasing and a tree costs no allocation per node.
#pragma once
#include <cstdint>

#include "game/types.h"

namespace poppy::mcts {

struct Node {
  enum State : uint8_t {
    kNew,       // never reached: nothing known beyond its move and prior
    kPending,   // legal moves generated, children allocated, waiting for the network
    kExpanded,  // priors set: selection descends through it
    kTerminal,  // the game is over here; its value is exact (valueSum / visits)
  };

  game::Move move;       // the move from the parent that leads here
  float prior = 0.0f;
  float valueSum = 0.0f;  // sum of W - L from the view of the side to move at this node
  float drawSum = 0.0f;   // sum of D (so the WDL can be rebuilt from means)
  int32_t visits = 0;
  int32_t inFlight = 0;  // virtual loss: descents through here still waiting for a value
  int32_t parent = -1;
  int32_t firstChild = -1;
  uint16_t numChildren = 0;
  State state = kNew;
  // MCTS-solver proof, from the view of the side to move here: 0 unknown; n + 1 > 0 a forced
  // win in n plies; -(n + 1) a forced loss in n plies. n = 0 is a game end here (lost when
  // mated; won when the opponent's last move lost, as a perpetual check does). Stored in one byte so the node keeps
  // its 36 bytes; longer mates saturate at 126 plies (the length only orders proven moves).
  int8_t proof = 0;

  bool provenWin() const { return proof > 0; }
  bool provenLoss() const { return proof < 0; }
  int proofPlies() const { return (proof > 0 ? proof : -proof) - 1; }
  static int8_t winIn(int plies) { return int8_t(plies < 126 ? plies + 1 : 127); }
  static int8_t lossIn(int plies) { return int8_t(-winIn(plies)); }
};
static_assert(sizeof(Node) == 36, "Node grew: trees hold millions of them");

}  // namespace poppy::mcts
