#include "selfplay/selfplay_runner.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "selfplay/replay_window.h"

namespace poppy::selfplay {

std::string reasonName(game::EndReason reason) {
  switch (reason) {
    case game::EndReason::kNoLegalMove: return "checkmate";
    case game::EndReason::kRepetition: return "repetition";
    case game::EndReason::kPerpetualCheck: return "perpetual_check";
    case game::EndReason::kPlyCap: return "ply_cap";
    case game::EndReason::kRoyalsCaptured: return "royals_captured";
    case game::EndReason::kBareKing: return "bare_king";
    case game::EndReason::kBareKings: return "bare_kings";
    case game::EndReason::kStalemate: return "stalemate";
    case game::EndReason::kSecondMate: return "second_checkmate";
    case game::EndReason::kChecks: return "checks";
    case game::EndReason::kPerpetualAttack: return "perpetual_attack";
    case game::EndReason::kNone: break;
  }
  return "none";
}

std::string winnerName(int players, game::Color winner) {
  if (winner < 0) return "draw";
  if (players == 2) return winner == 0 ? "sente" : "gote";
  static const char* const kSeats[] = {"south", "west", "north", "east"};
  return kSeats[winner];
}

void finishRecord(GameRecord& record, const game::Outcome& outcome, int players) {
  record.result = winnerName(players, outcome.winner);
  record.reason = reasonName(outcome.reason);
  record.plies = int(record.moves.size());
}

void saveFinishedGame(const std::string& dir, uint64_t sequence, const ChunkInfo& info,
                      const std::vector<Sample>& samples, GameRecord& record) {
  const std::string chunk = chunkFileName(sequence);
  writeReplayChunk(dir + "/replay/" + chunk, info, samples);
  record.id = chunk.substr(0, chunk.find('.'));
  appendGameRecords(dir + "/games.jsonl", {record});
}

namespace {

struct PendingSample {
  Sample sample;
  game::Color mover;
  size_t ply;  // moves of the game played before this position
};

struct Slot {
  std::unique_ptr<mcts::Tree> tree;
  std::vector<PendingSample> samples;
  GameRecord record;
  bool active = false;
  bool fullSearch = true;  // this move: a full search that is trained on, or a fast one
};

}  // namespace

SelfPlayRunner::SelfPlayRunner(game::VariantPtr variant, const nn::Encoder& encoder, mcts::Evaluator& evaluator,
                               SelfPlaySettings settings, mcts::EvalCache* cache)
    : variant_(std::move(variant)),
      encoder_(encoder),
      settings_(std::move(settings)),
      driver_(evaluator, encoder, settings_.parallelGames * settings_.search.leavesPerTree, cache),
      adjudicator_(variant_, settings_.plyCapAdjudication) {
  settings_.search.rootNoise = true;
  if (!(settings_.fullSearchFraction > 0 && settings_.fullSearchFraction <= 1))
    throw std::invalid_argument("SelfPlaySettings: fullSearchFraction must be in (0, 1], not " +
                                std::to_string(settings_.fullSearchFraction));
  if (settings_.fastPlayouts < 1 || settings_.fastPlayouts > settings_.search.playouts)
    throw std::invalid_argument("SelfPlaySettings: fastPlayouts must be in [1, playouts = " +
                                std::to_string(settings_.search.playouts) + "], not " +
                                std::to_string(settings_.fastPlayouts));
  if (settings_.plyCapAdjudication > 0 && variant_->numPlayers > 2)
    throw std::invalid_argument("SelfPlaySettings: plyCapAdjudication is for two players (" + variant_->name + " has " +
                                std::to_string(variant_->numPlayers) + ")");
  if (!(settings_.plyCapAdjudication >= 0 && settings_.plyCapAdjudication <= 1))
    throw std::invalid_argument("SelfPlaySettings: plyCapAdjudication must be in [0, 1], not " +
                                std::to_string(settings_.plyCapAdjudication));
}

void SelfPlayRunner::switchModel(mcts::Evaluator& evaluator, const std::string& modelId) {
  driver_.setEvaluator(evaluator);
  settings_.modelId = modelId;
}

void SelfPlayRunner::play(int games, const GameCallback& onGame, const ProgressCallback& progress,
                          const std::function<bool()>& stop, const std::function<bool()>& startMore) {
  const auto start = std::chrono::steady_clock::now();
  std::mt19937 rng(uint32_t(settings_.seed * 7919 + gamesStarted_));
  std::vector<Slot> slots(std::min(settings_.parallelGames, games));
  std::bernoulli_distribution fullSearch(settings_.fullSearchFraction);
  // Draws whether the slot's next move is searched fully; set before the tree reaches the
  // position, so that root noise goes only into full searches.
  auto chooseSearch = [&](Slot& s) {
    s.fullSearch = settings_.fullSearchFraction >= 1 || fullSearch(rng);
    s.tree->setRootNoise(s.fullSearch);
  };
  auto visitTarget = [&](const Slot& s) {
    return s.fullSearch ? settings_.search.playouts : settings_.fastPlayouts;
  };
  int started = 0, finished = 0;
  int64_t positions = 0;
  const game::Position startPos(variant_);

  auto startGame = [&](Slot& s) {
    const uint64_t id = gamesStarted_++;
    s.tree = std::make_unique<mcts::Tree>(startPos, settings_.search, settings_.seed * 1000003 + id);
    s.samples.clear();
    s.record = GameRecord{};
    s.record.id = std::to_string(settings_.seed) + "-" + std::to_string(id);
    s.record.variant = variant_->name;
    s.record.start = startPos.sfen();
    s.record.model = settings_.modelId;
    s.active = true;
    chooseSearch(s);
    ++started;
  };
  for (Slot& s : slots) startGame(s);

  std::vector<float> planes(size_t(encoder_.inputSize()));
  std::vector<float> policy(size_t(encoder_.policySize()));
  std::vector<int> indices;
  std::vector<float> weights;
  // The training sample of a full search: its position and visit distribution.
  auto recordSample = [&](const mcts::Tree& tree, Slot& s) {
    const game::Position& pos = tree.rootPosition();
    PendingSample ps;
    ps.mover = pos.sideToMove();
    ps.ply = s.record.moves.size();
    encoder_.encode(pos, planes.data());
    ps.sample.planes = quantizePlanes(planes.data(), planes.size());
    tree.visitPolicy(encoder_, policy.data());
    indices.clear();
    weights.clear();
    for (int i = 0; i < encoder_.policySize(); ++i)
      if (policy[size_t(i)] > 0) {
        indices.push_back(i);
        weights.push_back(policy[size_t(i)]);
      }
    ps.sample.policy = sparsePolicy(indices.data(), weights.data(), indices.size(), encoder_.policySize());
    ps.sample.rootValue = tree.rootValue();
    s.samples.push_back(std::move(ps));
  };
  std::vector<mcts::Tree*> trees;
  std::vector<int> targets;
  while (finished < games) {
    if (stop && stop()) return;
    if (beforeRound_) {
      beforeRound_();
      // A game not yet moved is played by the model of now (a switch may just have come).
      for (Slot& s : slots)
        if (s.active && s.record.moves.empty()) s.record.model = settings_.modelId;
    }
    trees.clear();
    targets.clear();
    for (Slot& s : slots)
      if (s.active) {
        trees.push_back(s.tree.get());
        targets.push_back(visitTarget(s));
      }
    if (trees.empty()) break;
    // One batched round; then every game whose tree has its playouts moves at once.
    driver_.round(trees, targets);

    for (Slot& s : slots) {
      if (!s.active || (s.tree->rootVisits() < visitTarget(s) && !s.tree->rootIsProven())) continue;
      mcts::Tree& tree = *s.tree;
      const game::Position& pos = tree.rootPosition();
      if (s.fullSearch) recordSample(tree, s);
      const int ply = pos.gamePly();
      const game::Move move = tree.pickMove(ply < settings_.temperatureMoves ? 1.0f : 0.0f, rng);
      s.record.moves.push_back(pos.moveToUsi(move));
      chooseSearch(s);
      tree.advance(move);
      ++positions;

      const game::Outcome outcome = tree.rootPosition().outcome(settings_.search.plyCap);
      if (!outcome.over()) continue;
      // Game over: every sample learns the result from its mover's view (a game at the ply
      // cap, the adjudicated one where that is on).
      int winner = outcome.winner;
      if (outcome.reason == game::EndReason::kPlyCap && winner < 0 && adjudicator_.enabled()) {
        winner = adjudicator_.winner(tree.rootPosition());
        if (winner >= 0) s.record.adjudicated = winner == 0 ? "sente" : "gote";
      }
      std::vector<Sample> done;
      done.reserve(s.samples.size());
      const int players = variant_->numPlayers;
      const size_t plies = s.record.moves.size();
      for (size_t i = 0; i < s.samples.size(); ++i) {
        PendingSample& p = s.samples[i];
        // The auxiliary targets' data (nn/network.h): how far the end is, and whether the next
        // sample is the position the opponent answered from (not when a fast search lay between).
        p.sample.pliesLeft = uint16_t(std::min<size_t>(plies - p.ply, 65535));
        p.sample.replyFollows = i + 1 < s.samples.size() && s.samples[i + 1].ply == p.ply + 1 &&
                                plies - p.ply <= 65535;
        // Two players: +1, 0, -1 from the mover's view; more: the winner's place clockwise
        // from the mover, or -1 for a draw (selfplay/sample.h).
        if (players == 2) p.sample.result = int8_t(winner < 0 ? 0 : (winner == p.mover ? 1 : -1));
        else p.sample.result = int8_t(winner < 0 ? -1 : (winner - p.mover + players) % players);
        done.push_back(std::move(p.sample));
      }
      finishRecord(s.record, outcome, players);
      s.record.samples = int(done.size());
      ++finished;
      onGame(std::move(done), std::move(s.record));
      if (started < games && (!startMore || startMore())) startGame(s);
      else s.active = false;
    }
    if (progress) {
      SelfPlayProgress p;
      p.gamesFinished = finished;
      p.gamesWanted = games;
      p.positions = positions;
      p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      p.search = &driver_.stats();
      progress(p);
    }
  }
}

}  // namespace poppy::selfplay
