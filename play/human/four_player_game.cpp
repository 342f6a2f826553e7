#include "play/human/four_player_game.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "common/text_trim.h"
#include "mcts/player_scores.h"
#include "mcts/search.h"
#include "nn/encoder.h"
#include "play/human/four_player_board_text.h"
#include "selfplay/selfplay_runner.h"

namespace poppy::play {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

FourPlayerGame::FourPlayerGame(PlaySettings settings, mcts::Evaluator* evaluator, std::istream& in, std::ostream& out)
    : settings_(std::move(settings)),
      evaluator_(evaluator),
      in_(in),
      out_(out),
      pos_(settings_.startSfen.empty() ? game::Position(settings_.variant)
                                       : game::Position::fromSfen(settings_.variant, settings_.startSfen)) {
  if (settings_.clock.enabled()) throw std::invalid_argument("--clock is for two-player games (yonin has four players)");
  if (settings_.human < 0 || settings_.human >= settings_.variant->numPlayers)
    throw std::invalid_argument("the person's seat must be south, west, north or east");
  if (!evaluator_) {
    const nn::Encoder encoder(settings_.variant);
    uniform_ = std::make_unique<mcts::UniformEvaluator>(encoder.policySize(), encoder.valueSize());
    evaluator_ = uniform_.get();
  }
  startSfen_ = pos_.sfen();
  if (settings_.gameId.empty())
    settings_.gameId = timeStamp(std::time(nullptr)) + "-human-" + seatName(settings_.human);
}

void FourPlayerGame::drawBoard() {
  out_ << renderFourPlayerBoard(pos_, settings_.human);
  if (!moves_.empty()) out_ << "  Last move: " << moves_.back() << ".";
  out_ << "  " << seatName(pos_.sideToMove()) << " to move" << (pos_.inCheck() ? ", in check" : "") << ".\n";
  boardShown_ = true;
}

void FourPlayerGame::help() {
  out_ << "Moves are USI, the squares of the whole board (files 1-9 from south's right, ranks a-i from "
          "north's side): 5g5f, 8h2b+, P*5e. Your pieces carry your army's letter ("
       << seatName(settings_.human)[0] << "), and so do any army you take over.\n"
       << "Commands: moves (your legal moves), board, undo (back to your previous turn), help, quit.\n";
}

void FourPlayerGame::playMove(game::Move m) {
  moves_.push_back(pos_.moveToUsi(m));
  movers_.push_back(pos_.sideToMove());
  pos_.makeMove(m);
  boardShown_ = false;
}

void FourPlayerGame::undo() {
  // Back to the person's previous turn: its last move and every move after it.
  size_t last = movers_.size();
  for (size_t i = movers_.size(); i-- > 0;)
    if (movers_[i] == settings_.human) {
      last = i;
      break;
    }
  if (last == movers_.size()) {
    out_ << "Nothing to take back: you have not moved yet.\n";
    return;
  }
  const size_t back = moves_.size() - last;
  while (moves_.size() > last) {
    pos_.unmakeMove();
    moves_.pop_back();
    movers_.pop_back();
  }
  out_ << "Took back " << back << (back == 1 ? " move.\n" : " moves.\n");
  boardShown_ = false;
}

void FourPlayerGame::engineTurn() {
  const nn::Encoder encoder(settings_.variant);
  mcts::SearchDriver driver(*evaluator_, encoder, std::max(1, settings_.search.leavesPerTree));
  mcts::SearchParams params = settings_.search;
  params.rootNoise = false;
  params.plyCap = settings_.plyCap;
  mcts::Tree tree(pos_, params, settings_.seed * 7919 + searches_++);
  const int playouts = int(settings_.limits.playouts > 0 ? settings_.limits.playouts : params.playouts);
  driver.search({&tree}, playouts);
  std::mt19937 rng(uint32_t(settings_.seed + searches_));
  const game::Move m = tree.pickMove(0.0f, rng);
  const std::string mover = seatName(pos_.sideToMove());
  const auto wdl = tree.rootWdl();
  out_ << mover << " (Poppy) plays " << pos_.moveToUsi(m) << "  (its win chance " << int(wdl[0] * 100 + 0.5)
       << "%, draw " << int(wdl[1] * 100 + 0.5) << "%)\n";
  playMove(m);
}

FourPlayerGame::Step FourPlayerGame::humanTurn() {
  if (!boardShown_) drawBoard();
  out_ << "your move (" << seatName(settings_.human) << ")> " << std::flush;
  std::string line;
  if (!std::getline(in_, line)) {
    out_ << (interrupted() ? "\nInterrupted.\n" : "\n(end of input)\n");
    return Step::kQuit;
  }
  if (settings_.echoInput) out_ << line << "\n";
  const std::string text = common::trimmed(line), word = lower(text);
  if (word == "quit" || word == "exit") return Step::kQuit;
  if (text.empty() || word == "board") {
    drawBoard();
  } else if (word == "help" || word == "?") {
    help();
  } else if (word == "undo") {
    undo();
  } else if (word == "moves") {
    game::MoveList list;
    pos_.generateLegal(list);
    out_ << list.size() << " legal moves:";
    for (const game::Move& m : list) out_ << " " << pos_.moveToUsi(m);
    out_ << "\n";
  } else {
    try {
      playMove(pos_.parseUsi(text));
    } catch (const game::MoveError& e) {
      out_ << "Not a legal move: " << e.what() << "\nType 'moves' for the legal moves, 'help' for the commands.\n";
    }
  }
  return Step::kContinue;
}

selfplay::GameRecord FourPlayerGame::run() {
  out_ << "Poppy play: " << settings_.variant->name << " (four players), you are " << seatName(settings_.human)
       << "; Poppy plays the other three seats "
       << (uniform_ ? "with the uniform network (no model given: it sees only the game ends in its search)"
                    : "with the model " + settings_.modelName)
       << ".\nEach piece shows its army's letter: s south, w west, n north, e east (sK, w+P); a mated king "
          "turns over (nX).\nType a move in USI (like 5g5f) or 'help'. The game is saved to "
       << settings_.savePath << " when the session ends.\n\n";
  bool outAnnounced = false;
  for (;;) {
    const game::Outcome o = pos_.outcome(settings_.plyCap);
    if (o.over()) {
      drawBoard();
      selfplay::GameRecord record;
      selfplay::finishRecord(record, o, settings_.variant->numPlayers);
      if (o.winner >= 0)
        out_ << seatName(o.winner) << (o.winner == settings_.human ? " (you)" : "") << " wins: "
             << (o.reason == game::EndReason::kSecondMate ? "it has mated a second army.\n" : "\n");
      else
        out_ << "The game is drawn (" << record.reason << ").\n";
      return finish(record.result, record.reason);
    }
    if (interrupted()) {
      out_ << "\nInterrupted.\n";
      return finish("draw", "unfinished");
    }
    if (pos_.isOut(settings_.human) && !outAnnounced) {
      out_ << "You have been mated: " << seatName(pos_.controllerOf(settings_.human))
           << " moves your pieces now. Poppy plays the game out.\n";
      outAnnounced = true;
    }
    if (pos_.sideToMove() != settings_.human) {
      engineTurn();
      continue;
    }
    if (humanTurn() == Step::kQuit) {
      out_ << "Game left unfinished after " << moves_.size() << (moves_.size() == 1 ? " ply.\n" : " plies.\n");
      return finish("draw", "unfinished");
    }
  }
}

selfplay::GameRecord FourPlayerGame::finish(const std::string& result, const std::string& reason) {
  selfplay::GameRecord r;
  r.id = settings_.gameId;
  r.variant = settings_.variant->name;
  r.start = startSfen_;
  r.moves = moves_;
  r.result = result;
  r.reason = reason;
  r.plies = int(moves_.size());
  r.model = uniform_ ? "uniform" : settings_.modelName;
  const std::filesystem::path parent = std::filesystem::path(settings_.savePath).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  try {
    selfplay::appendGameRecords(settings_.savePath, {r});
  } catch (const selfplay::GameRecordError&) {
    out_ << "Could not save the game. Start: " << r.start << "\nMoves:";
    for (const std::string& m : r.moves) out_ << " " << m;
    out_ << "\n" << std::flush;
    throw;
  }
  out_ << "Game saved to " << settings_.savePath << " (" << r.plies << (r.plies == 1 ? " ply" : " plies")
       << ", result " << r.result << ", " << r.reason << ").\n"
       << std::flush;
  return r;
}

}  // namespace poppy::play
