// `--inference auto|torch|eigen` (nn/inference.h) for every command that loads a model to
// search with.
#pragma once
#include <CLI/CLI.hpp>

#include "nn/inference.h"

namespace poppy::program {

// A bad value is a usage error naming it ("--inference: unknown inference 'x' (use auto, torch
// or eigen)"), exit 2 like every other.
CLI::Option* addInferenceOption(CLI::App* cmd, nn::Inference& inference);

}  // namespace poppy::program
