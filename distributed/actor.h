// An actor of `poppy train --distributed` (every rank but 0): plays self-play games with the
// newest model the learner sent and sends each finished game (its replay chunk and record) to
// the learner. It needs no run directory: the configuration and the models come from the
// learner and live in a scratch directory of its own while it runs. A new model is taken at the
// next game: the games under way finish with the model they began with, then the workers start
// again with the new one. It stops when the learner says so, or on SIGINT/SIGTERM (games under
// way are then dropped), and says goodbye either way.
#pragma once
#include <string>

#include "distributed/mpi_link.h"

namespace poppy::distributed {

struct ActorOptions {
  bool quiet = false;
  double statusSeconds = 30;  // a progress line this often
};

// Returns when the learner has told it to stop. Throws std::runtime_error when the run failed
// (the learner's reason) or when this actor cannot play (having told the learner why).
void runActor(MpiSession& session, const ActorOptions& options);

}  // namespace poppy::distributed
