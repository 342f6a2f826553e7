#include "distributed/distributed_train.h"

#include <cstdio>
#include <stdexcept>

#include "distributed/actor.h"
#include "distributed/mpi_game_feed.h"
#include "distributed/mpi_link.h"
#include "nn/network_backend.h"

namespace poppy::distributed {

void runDistributedTraining(const training::TrainRunConfig& config, training::TrainOptions options) {
  MpiSession session;
  if (session.size() < 2)
    throw std::runtime_error("--distributed needs at least 2 MPI processes (rank 0 learns, the others play): run it "
                             "under mpirun, e.g. `mpirun -np 3 poppy train --distributed ...`");
  if (session.rank() != 0) {
    ActorOptions actor;
    actor.quiet = options.quiet;
    runActor(session, actor);
    return;
  }
  if (!options.quiet)
    std::fprintf(stderr, "learner (rank 0 of %d): %d actors\n", session.size(), session.size() - 1);
  MpiGameFeed feed(session.size(), options.quiet);
  options.feed = &feed;
  try {
    nn::networkBackend().train(config, options);
  } catch (const std::exception& e) {
    feed.finish(config.actorTimeout, e.what());  // nothing when the training loop has told them already
    throw;
  }
}

}  // namespace poppy::distributed
