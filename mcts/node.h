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
};

}  // namespace poppy::mcts
