// How a run's preference for each opening move changed across its checkpoints: the numbers that
// `poppy openings history` gathers (visit share and prior of each move at the start position,
// after the top first moves and at one chosen position, per checkpoint; and what self-play
// actually played, per generation) and their charts (stacked areas of the shares, the divergence
// between checkpoints), table, JSON and CSV. No LibTorch here: the command does the searching
// and fills OpeningHistory.
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
  PositionStats chosen;  // at OpeningHistory::position, when one was chosen
};

// What self-play played: the first moves of the games of one generation (the records' model).
struct PlayedOpenings {
  int generation = 0;
  int64_t games = 0;
  PositionStats first;  // visits = games that opened with the move, share = of the generation's games
};

struct OpeningHistory {
  std::string runDir, variant, startSfen;
  int playouts = 0;
  // First moves whose replies were searched: the latest checkpoint's favourites, best first.
  std::vector<std::string> followed;
  std::vector<CheckpointOpenings> checkpoints;  // ascending generation
  // A position deeper in the tree (moves from the start) searched by every checkpoint too;
  // empty: none.
  std::vector<std::string> position;
  std::vector<PlayedOpenings> played;  // ascending generation; empty when the run has no games
};

// "gen-0012.model" -> 12; -1 for any other name.
int checkpointGeneration(const std::string& fileName);

// Moves whose share reaches minShare at some checkpoint, at most maxLines of them (highest peak
// first, ties by name), ordered by their share at the last checkpoint (then name).
std::vector<std::string> prominentMoves(const std::vector<const PositionStats*>& perCheckpoint, double minShare,
                                        size_t maxLines);

// Stacked areas, x = generation, y = visit share: one band per prominent first move plus "other
// moves" (the bands add up to 1 at every checkpoint).
LineChart firstMoveChart(const OpeningHistory& h, double minShare);
// The same for the replies to h.followed.front() (no series when nothing was followed).
LineChart secondMoveChart(const OpeningHistory& h, double minShare);
// The same at h.position (no series when none was chosen).
LineChart positionChart(const OpeningHistory& h, double minShare);
// The same for the first moves self-play played, x = the generation that played them; moves that
// firstMoveChart also shows come first, in its order, so each keeps its colour.
LineChart playedChart(const OpeningHistory& h, double minShare);

// The Jensen-Shannon divergence of two move distributions (shares, each renormalised to sum 1),
// in bits: 0 for the same distribution, 1 for distributions with no move in common.
double jensenShannon(const PositionStats& p, const PositionStats& q);
// How far the preferences moved: per checkpoint, the divergence of its first-move shares from the
// previous checkpoint's ("first: vs previous") and from the last checkpoint's ("first: vs last"),
// and with h.position, of the chosen position's from the previous checkpoint's.
LineChart divergenceChart(const OpeningHistory& h);

// A text table, one row per checkpoint: its step, top first moves and the top two-ply lines
// (first share x reply share, over the followed first moves), with the played first moves of
// that generation when known.
std::string historyTable(const OpeningHistory& h, int top = 3);

// Everything gathered, for other tools.
std::string historyJson(const OpeningHistory& h);
// One row per (checkpoint, position, move): generation,model,step,after,move,visits,share,prior
// ("after" is empty for the start position, else the moves played to reach it, space separated).
std::string historyCsv(const OpeningHistory& h);

}  // namespace poppy::report
