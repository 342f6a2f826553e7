// `poppy train --distributed`, run under mpirun (or srun): rank 0 is the learner (the run
// directory, the replay window, training, the gate; training/train_loop.h with an MPI game feed),
// every other rank an actor (distributed/actor.h). See docs/commands/train.md "Distributed training".
#pragma once
#include "training/train_config.h"
#include "training/train_loop.h"

namespace poppy::distributed {

// Returns when the run is over on this rank. Throws on a failure of this rank's part (the
// learner tells the actors why; an actor tells the learner).
void runDistributedTraining(const training::TrainRunConfig& config, training::TrainOptions options);

}  // namespace poppy::distributed
