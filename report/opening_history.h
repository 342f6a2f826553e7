// How a run's preference for each opening move changed across its checkpoints: the numbers that
// `poppy openings history` gathers (visit share and prior of each move at the start position and
// after the top first moves, per checkpoint) and their charts, JSON and CSV. No LibTorch here:
// the command does the searching and fills OpeningHistory.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/svg_chart.h"

namespace poppy::report {

struct MoveStat {
  int visits = 0;
  double share = 0;  // of the root visits
  double prior = 0;  // network policy
};

// The root moves of one search, keyed by USI.
using PositionStats = std::map<std::string, MoveStat>;

struct CheckpointOpenings {
  int generation = 0;  // gen-NNNN
  std::string model;   // file name
  int64_t step = 0;    // training steps behind the weights
  PositionStats first;  // at the start position
  std::map<std::string, PositionStats> second;  // after each followed first move
};

struct OpeningHistory {
  std::string runDir, variant, startSfen;
  int playouts = 0;
  // First moves whose replies were searched: the latest checkpoint's favourites, best first.
  std::vector<std::string> followed;
  std::vector<CheckpointOpenings> checkpoints;  // ascending generation
};

// "gen-0012.model" -> 12; -1 for any other name.
int checkpointGeneration(const std::string& fileName);

// Moves whose share reaches minShare at some checkpoint, at most maxLines of them (highest peak
// first, ties by name), ordered by their share at the last checkpoint (then name).
std::vector<std::string> prominentMoves(const std::vector<const PositionStats*>& perCheckpoint, double minShare,
                                        size_t maxLines);

// x = generation, y = visit share; one line per prominent first move plus "other moves".
LineChart firstMoveChart(const OpeningHistory& h, double minShare);
// The same for the replies to h.followed.front() (no series when nothing was followed).
LineChart secondMoveChart(const OpeningHistory& h, double minShare);

// Everything gathered, for other tools.
std::string historyJson(const OpeningHistory& h);
// One row per (checkpoint, position, move): generation,model,step,after,move,visits,share,prior
// ("after" is empty for the start position, else the first move played).
std::string historyCsv(const OpeningHistory& h);

}  // namespace poppy::report
