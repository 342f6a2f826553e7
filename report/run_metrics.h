// What `poppy train` left in a run directory, read back for reports: the events of
// metrics.jsonl (selfplay, train, gate), the game records of games.jsonl grouped by iteration,
// state.json and the gate threshold of config.yaml. Bad lines are skipped and reported as
// "FILE:LINE: what is wrong"; a directory that is not a run is refused with RunDirError.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/reference_elo.h"
#include "report/svg_chart.h"  // kMissing

namespace poppy::report {

class RunDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One self-play phase (several when a run was stopped and resumed inside one).
struct SelfplayEvent {
  int line = 0;  // in metrics.jsonl
  int iteration = 0;
  double time = 0;     // wall clock (seconds since 1970) at the end of the phase
  double seconds = 0;  // length of the phase
  int games = 0;
  int64_t totalGames = 0;  // games of the run after this phase
  double gamesPerHour = kMissing, avgPlies = kMissing, decisive = kMissing, evalsPerSecond = kMissing;
  // Ran from its first game to its last: not stopped, not resumed ("complete": false in the
  // file; files written before the key existed count as complete).
  bool complete = true;
};

struct TrainEvent {
  int line = 0;
  int iteration = 0;
  double time = 0;
  int64_t step = 0;  // trainer steps after the phase
  int steps = 0;     // steps in this phase
  double seconds = kMissing;
  // Means over the phase's steps. total = policy + value when the run did not log it (the
  // trainer weighs the value loss 1).
  double policyLoss = kMissing, valueLoss = kMissing, totalLoss = kMissing;
  double learningRate = kMissing, samplesPerSecond = kMissing;
  int64_t window = 0;
};

// The network's losses on the games just played, before it trained on them (a held-out
// check of the value head, training/train_loop.cpp), and the loss of the best constant guess
// of their results.
struct FreshEvent {
  int line = 0;
  int iteration = 0;
  double time = 0;
  int64_t step = 0;  // trainer steps so far: the network measured
  int samples = 0;
  double policyLoss = kMissing, valueLoss = kMissing, constantValueLoss = kMissing;
};

struct GateEvent {
  int line = 0;
  int iteration = 0;
  double time = 0;
  int64_t step = 0;
  int games = 0, wins = 0, draws = 0, losses = 0;  // of the candidate
  double score = kMissing, eloDiff = kMissing, eloMargin = kMissing;
  double threshold = kMissing;  // logged by newer runs; else RunMetrics::gateThreshold
  bool promoted = false;
  std::string opponent, newBest;  // newBest: "gen-NNNN" when promoted
  double bestElo = kMissing;      // Elo of the new best model (gen-0000 = 0), when promoted
  // Four players (yonin): the candidate sat in one seat against the best in the others; score
  // is its share of the points (an equal player's is 1 / players) and there is no Elo.
  int players = 2;
};

// The game records of one iteration's self-play.
struct IterationGames {
  int iteration = 0;
  int games = 0, senteWins = 0, draws = 0, goteWins = 0;
  int seatWins[4] = {0, 0, 0, 0};  // four players: south, west, north, east
  int64_t plies = 0;
  double averagePlies() const { return games ? double(plies) / games : kMissing; }
};

struct ParsedMetrics {
  std::vector<SelfplayEvent> selfplay;
  std::vector<TrainEvent> train;
  std::vector<GateEvent> gate;
  std::vector<FreshEvent> fresh;
  // "steps" events: the mean losses of every training.log_every_steps steps inside a phase (the
  // fields of a TrainEvent; `steps` is how many steps the means cover, `step` the trainer's count
  // after them; no window).
  std::vector<TrainEvent> steps;
  int unknownEvents = 0;              // events of kinds this reader does not know (newer runs)
  std::vector<std::string> problems;  // "FILE:LINE: what is wrong", the line skipped
  bool empty() const { return selfplay.empty() && train.empty() && gate.empty(); }
};

// Parses the text of a metrics.jsonl; `fileName` is what problems are reported against.
ParsedMetrics parseMetrics(const std::string& text, const std::string& fileName);

struct RunMetrics {
  std::string runDir;
  ParsedMetrics metrics;
  std::vector<IterationGames> iterations;  // from games.jsonl, ascending iteration
  int64_t gameRecords = 0;
  bool haveGameRecords = false;
  // From state.json (missing values when it could not be read).
  int iteration = 0;
  std::string phase;
  int64_t totalGames = 0, totalSamples = 0;
  int generation = 0;
  double bestElo = kMissing, secondsTrained = kMissing;
  // From config.yaml.
  std::string variant;
  double gateThreshold = 0.55;  // the trainer's default when config.yaml does not say
  std::vector<std::string> problems;  // of every file read, "FILE:LINE: ..." or "FILE: ..."
  // Matches of generations against fixed opponents (RUN_DIR/reference, report/reference_elo.h).
  std::vector<ReferenceResult> references;
  // When the run began: the start of its first logged phase (wall clock seconds).
  double startTime() const;
  // 4 for a four-player run (its gates or games say so), else 2.
  int players() const;
};

// Reads RUN_DIR. Throws RunDirError when it is missing, not a directory, not a run (no
// state.json), or has no metrics events yet.
RunMetrics loadRunMetrics(const std::string& runDir);

// Assigns games.jsonl records (in file order) to iterations: an iteration's last selfplay event
// says how many games the run had after it. Records after the last event belong to
// `currentIteration` (self-play in progress).
struct GameResultLite {
  std::string result;  // sente, gote, draw
  int plies = 0;
};
std::vector<IterationGames> groupGamesByIteration(const std::vector<GameResultLite>& games,
                                                  const std::vector<SelfplayEvent>& selfplay, int currentIteration);

}  // namespace poppy::report
