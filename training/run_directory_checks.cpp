#include "training/run_directory_checks.h"

#include <filesystem>
#include <vector>

#include "nn/network_growth.h"
#include "selfplay/replay_window.h"

namespace poppy::training {
namespace fs = std::filesystem;

void refuseRunWithoutState(const std::string& runDir) {
  const fs::path dir(runDir);
  if (!fs::is_directory(dir) || fs::exists(dir / "state.json")) return;
  std::vector<std::string> found;
  if (fs::exists(dir / "candidate.ckpt")) found.push_back("candidate.ckpt");
  if (fs::exists(dir / "games.jsonl")) found.push_back("games.jsonl");
  int models = 0;
  if (fs::is_directory(dir / "models"))
    for (const auto& e : fs::directory_iterator(dir / "models")) models += e.path().extension() == ".model";
  if (models > 0) found.push_back(std::to_string(models) + " model" + (models == 1 ? "" : "s") + " in models/");
  if (fs::is_directory(dir / "replay")) {
    if (selfplay::nextChunkSequence((dir / "replay").string()) > 0) found.push_back("replay chunks");
  }
  if (found.empty()) return;
  std::string list;
  for (const std::string& f : found) list += (list.empty() ? "" : ", ") + f;
  throw RunDirectoryError("run directory " + runDir + " has no state.json but holds a run (" + list +
                          "): starting afresh there would overwrite it. Restore state.json (or move the run's "
                          "files away), or use another --run-dir");
}

void refuseChangedNetwork(const std::string& bestModelPath, const nn::NetworkShape& configured,
                          const std::string& configPath) {
  const nn::ModelInfo best = nn::readModelInfo(bestModelPath);
  if (nn::sameNetwork(best.shape, configured)) return;
  throw RunDirectoryError("the run's network is " + nn::describeNetwork(best.shape) + " (" + bestModelPath + "), but " +
                          configPath + " configures " + nn::describeNetwork(configured) +
                          ": a run keeps its network; restore the network settings, or start a new run (another "
                          "--run-dir, with --init-model to start from a model of the new shape)");
}

nn::ModelInfo checkInitModel(const std::string& modelPath, const game::Variant& variant, int encoderVersion,
                             const nn::NetworkShape& configured, const std::string& configPath, bool grow) {
  if (!fs::is_regular_file(modelPath)) throw RunDirectoryError("--init-model " + modelPath + ": no such file");
  const nn::ModelInfo info = nn::readModelInfo(modelPath);  // ModelError names the file
  nn::checkModelFits(info, modelPath, &variant, encoderVersion);
  if (nn::sameNetwork(info.shape, configured)) return info;
  const std::string growth = nn::growthRefusal(info.shape, configured);
  const std::string mismatch = "--init-model " + modelPath + " is " + nn::describeNetwork(info.shape) + ", but " +
                               configPath + " configures " + nn::describeNetwork(configured);
  if (grow && !growth.empty()) throw RunDirectoryError(mismatch + ", and --grow cannot make one into the other: " + growth);
  if (!grow)
    throw RunDirectoryError(mismatch + ": set the config's network to the model's, start from random weights" +
                            (growth.empty() ? std::string(", or add --grow to grow the model into the configured network")
                                            : std::string()));
  return info;
}

}  // namespace poppy::training
