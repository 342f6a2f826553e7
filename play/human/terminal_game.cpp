#include "play/human/terminal_game.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "common/text_trim.h"
#include "play/engines/time_manager.h"
#include "selfplay/selfplay_runner.h"

namespace poppy::play {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5.1f%%", 100.0 * x);
  return buf;
}

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

std::string joined(const std::vector<std::string>& words, size_t limit = SIZE_MAX) {
  std::string s;
  for (size_t i = 0; i < words.size() && i < limit; ++i) s += (i ? " " : "") + words[i];
  return s;
}

// MoveError texts read 'move "X" in position SFEN: why'; the person only needs the why.
std::string reasonOf(const std::string& message) {
  const size_t at = message.find(" in position ");
  if (at == std::string::npos) return message;
  const size_t colon = message.find(": ", at);
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool isRank(char c) { return c >= 'a' && c <= 'z'; }

// Reads "<1-2 digits><rank letter>" at s[i].
bool readSquare(const std::string& s, size_t& i) {
  const size_t start = i;
  while (i < s.size() && isDigit(s[i]) && i - start < 2) ++i;
  if (i == start || i >= s.size() || !isRank(s[i])) return false;
  ++i;
  return true;
}

// Every "<file><rank>" in a USI-shaped move lies on the board.
bool squaresOnBoard(const game::Variant& v, const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    if (!isDigit(text[i])) {
      ++i;
      continue;
    }
    int file = 0;
    while (i < text.size() && isDigit(text[i])) file = file * 10 + (text[i++] - '0');
    const int rank = i < text.size() ? text[i] - 'a' : -1;
    if (file < 1 || file > v.files || rank < 0 || rank >= v.ranks) return false;
  }
  return true;
}

std::string timeText(std::time_t now, const char* format) {
  std::tm local{};
  localtime_r(&now, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &local);
  return buf;
}

game::Position startPosition(const PlaySettings& s) {
  return s.startSfen.empty() ? game::Position(s.variant) : game::Position::fromSfen(s.variant, s.startSfen);
}

mcts::SearchParams searchWithCap(mcts::SearchParams p, int plyCap) {
  p.plyCap = plyCap;
  return p;
}

}  // namespace

std::string timeStamp(std::time_t now) { return timeText(now, "play-%Y%m%d-%H%M%S"); }

std::string defaultSavePath(std::time_t now) { return "games/" + timeStamp(now) + ".jsonl"; }

int parseSide(const std::string& text) {
  const std::string t = lower(text);
  if (t == "sente" || t == "black" || t == "b") return 0;
  if (t == "gote" || t == "white" || t == "w") return 1;
  return -1;
}

bool looksLikeUsiMove(const std::string& text) {
  size_t i = 0;
  const size_t star = text.find('*');
  if (star != std::string::npos) {
    if (i < text.size() && text[i] == '+') ++i;
    if (i >= text.size() || !std::isalpha(static_cast<unsigned char>(text[i])) || star != i + 1) return false;
    i = star + 1;
    return readSquare(text, i) && i == text.size();
  }
  if (!readSquare(text, i) || !readSquare(text, i)) return false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  return i == text.size();
}

TerminalGame::TerminalGame(PlaySettings settings, mcts::Evaluator* evaluator, std::istream& in, std::ostream& out)
    : settings_(std::move(settings)),
      in_(in),
      out_(out),
      pos_(startPosition(settings_)),
      startSfen_(pos_.sfen()),
      analyzer_(settings_.variant, evaluator, searchWithCap(settings_.search, settings_.plyCap), settings_.seed) {
  analyzer_.setThreads(settings_.searchThreads);
  analyzer_.setTreeReuse(true);  // each move's search starts from the last one's subtree
  if (settings_.gameId.empty()) {
    settings_.gameId = timeStamp(std::time(nullptr)) + "-human-" + colorName(settings_.human);
  }
  flipped_ = settings_.human == 1;  // the person's side at the bottom
  if (timed()) clock_ = common::GameClock(settings_.clock);
}

int64_t TerminalGame::now() const {
  if (settings_.nowMs) return settings_.nowMs();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string TerminalGame::clockLine() const {
  const int64_t t = now();
  std::string line = "Clock:";
  for (game::Color c = 0; c < 2; ++c) {
    const int64_t main = clock_.mainLeftMs(c, t);
    line += std::string(c ? " · " : " ") + colorName(c) + " " +
            (main > 0 || settings_.clock.byoyomiMs == 0 ? common::formatClockMs(main)
                                                         : "byoyomi " + common::formatClockMs(clock_.byoyomiLeftMs(c, t)));
  }
  return line + " (" + common::clockText(settings_.clock) + ")";
}

bool TerminalGame::chargeMove(int64_t nowMs) {
  if (!timed()) return true;
  const game::Color mover = game::Color(clock_.running());
  if (!clock_.moved(nowMs)) {
    flagged_ = mover;
    return false;
  }
  return true;
}

std::string TerminalGame::sideName(game::Color c) const {
  return colorName(c) + (c == settings_.human ? " (you)" : " (Poppy)");
}

selfplay::GameRecord TerminalGame::run() {
  const game::Variant& v = pos_.variant();
  out_ << "Poppy play: " << v.name << " (" << v.files << "x" << v.ranks << "), you are "
       << colorName(settings_.human) << ".\n";
  std::string budget;
  if (settings_.limits.playouts > 0 || settings_.limits.seconds <= 0) {
    budget = std::to_string(settings_.limits.playouts > 0 ? settings_.limits.playouts : settings_.search.playouts) +
             " playouts";
  }
  if (settings_.limits.seconds > 0) {
    budget += (budget.empty() ? "" : ", at most ") + fixed(settings_.limits.seconds, 1) + " s";
  }
  if (analyzer_.usesNetwork()) {
    out_ << "Poppy plays with the model " << settings_.modelName << " (" << budget << " per move).\n";
  } else {
    out_ << "No model given: Poppy plays with the rollout MCTS (random playouts, no network; " << budget
         << " per move). Give --model PATH for a trained network.\n";
  }
  out_ << "Sente's pieces are upper case (K, +B); gote's are lower case behind a 'v' (vk, v+b).\n";
  out_ << "Type a move in USI notation (like " << exampleMoves() << ") or 'help'. The game is saved to "
       << settings_.savePath << " when the session ends.\n";
  if (timed()) out_ << "On a clock: " << common::clockText(settings_.clock) << " each; no take-backs.\n";
  out_ << "\n";

  for (;;) {
    if (flagged_ >= 0) {
      const game::Color winner = pos_.opponent(flagged_);
      out_ << sideName(flagged_) << " ran out of time. " << sideName(winner) << " wins.\n";
      return finish(colorName(winner), "timeout");
    }
    const game::Outcome o = pos_.outcome(settings_.plyCap);
    if (o.over()) {
      drawBoard();
      announceOutcome(o);
      selfplay::GameRecord record;
      record.moves = moves_;
      selfplay::finishRecord(record, o, 2);
      return finish(record.result, record.reason);
    }
    if (interrupted()) {
      out_ << "\nInterrupted.\n";
      return finish("draw", "unfinished");
    }
    if (timed() && clock_.running() != pos_.sideToMove()) clock_.start(pos_.sideToMove(), now());
    if (pos_.sideToMove() != settings_.human) {
      engineTurn();
      continue;
    }
    const Step step = humanTurn();
    if (step == Step::kResign) {
      const game::Color winner = pos_.opponent(settings_.human);
      out_ << "You resign. " << sideName(winner) << " wins.\n";
      return finish(colorName(winner), "resign");
    }
    if (step == Step::kQuit) {
      out_ << "Game left unfinished after " << moves_.size() << (moves_.size() == 1 ? " ply.\n" : " plies.\n");
      return finish("draw", "unfinished");
    }
  }
}

TerminalGame::Step TerminalGame::humanTurn() {
  if (!boardShown_) drawBoard();
  if (timed()) out_ << clockLine() << "\n";
  out_ << "your move> " << std::flush;
  std::string line;
  if (!std::getline(in_, line)) {
    out_ << (interrupted() ? "\nInterrupted.\n" : "\n(end of input)\n");
    return Step::kQuit;
  }
  if (settings_.echoInput) out_ << line << "\n";
  // Whatever is typed after the flag fell, the game is lost on time (run() says so).
  if (timed() && clock_.flagged(settings_.human, now())) {
    flagged_ = settings_.human;
    return Step::kContinue;
  }
  return handleLine(line);
}

TerminalGame::Step TerminalGame::handleLine(const std::string& raw) {
  const std::string text = common::trimmed(raw);
  const std::string word = lower(text);
  if (text.empty()) {
    drawBoard();
  } else if (word == "help" || word == "?") {
    help();
  } else if (word == "quit" || word == "exit") {
    return Step::kQuit;
  } else if (word == "resign") {
    return Step::kResign;
  } else if (word == "undo") {
    undo();
  } else if (word == "hint") {
    hint();
  } else if (word == "flip") {
    flipped_ = !flipped_;
    drawBoard();
  } else if (word == "sfen") {
    out_ << pos_.sfen() << "\n";
  } else if (word == "moves") {
    listMoves();
  } else {
    game::Move m;
    try {
      m = pos_.parseUsi(text);
    } catch (const game::MoveError& e) {
      rejectMove(text, reasonOf(e.what()));
      return Step::kContinue;
    }
    if (!chargeMove(now())) return Step::kContinue;  // too late: run() ends the game on time
    playMove(m);
  }
  return Step::kContinue;
}

void TerminalGame::playMove(game::Move m) {
  const std::string usi = pos_.moveToUsi(m);  // before the move: the suffix depends on the face
  pos_.makeMove(m);
  moves_.push_back(usi);
  boardShown_ = false;
}

void TerminalGame::engineTurn() {
  out_ << "Poppy (" << colorName(pos_.sideToMove()) << ") is thinking..." << std::flush;
  SearchLimits limits = settings_.limits;
  if (timed()) {
    // As `poppy usi` would think with this much time left.
    const game::Color side = pos_.sideToMove();
    const double budget = double(std::max<int64_t>(
                              1, clockBudgetMs(clock_.mainLeftMs(side, now()), settings_.clock.incrementMs,
                                               settings_.clock.byoyomiMs, TimeSettings{}))) /
                          1000.0;
    limits.seconds = limits.seconds > 0 ? std::min(limits.seconds, budget) : budget;
  }
  const Analysis a = analyzer_.analyze(pos_, limits, settings_.interrupted);
  if (interrupted()) return;  // run() ends the session
  if (a.moves.empty()) throw std::runtime_error("the search returned no move in position " + pos_.sfen());
  if (!chargeMove(now())) {
    out_ << " too late.\n";
    return;
  }
  const MoveInfo& best = a.moves.front();
  out_ << " plays " << best.usi << "  (win rate " << fixed(100.0 * best.winRate, 1) << "% for Poppy, "
       << a.playouts << " playouts, " << fixed(a.seconds, 1) << " s)\n";
  playMove(best.move);
}

void TerminalGame::undo() {
  if (timed()) {
    out_ << "No take-backs in a game on a clock.\n";
    return;
  }
  // Take back plies until the person's latest move is gone: then it is their turn again. The
  // mover of ply i is the start side for even i, the other side for odd i (two players).
  const game::Color startSide = int(moves_.size()) % 2 == 0 ? pos_.sideToMove() : pos_.opponent(pos_.sideToMove());
  int target = -1;
  for (int i = int(moves_.size()) - 1; i >= 0; --i) {
    const game::Color mover = i % 2 == 0 ? startSide : pos_.opponent(startSide);
    if (mover == settings_.human) {
      target = i;
      break;
    }
  }
  if (target < 0) {
    out_ << "Nothing to take back: you have not moved yet.\n";
    return;
  }
  std::vector<std::string> taken(moves_.begin() + target, moves_.end());
  while (int(moves_.size()) > target) {
    pos_.unmakeMove();
    moves_.pop_back();
  }
  out_ << "Took back " << joined(taken) << ".\n";
  drawBoard();
}

void TerminalGame::hint() {
  out_ << "Thinking about your move..." << std::flush;
  const Analysis a = analyzer_.analyze(pos_, settings_.limits, settings_.interrupted);
  out_ << "\n";
  if (a.moves.empty()) {
    out_ << "No hint: there is no move to make.\n";
    return;
  }
  out_ << "Hint (" << (a.network ? "model" : "rollout MCTS") << ", " << a.playouts << " playouts): your win rate "
       << fixed(100.0 * a.winRate, 1) << "%\n";
  out_ << "      move    share   win rate   line\n";
  const size_t n = std::min(a.moves.size(), size_t(std::max(1, settings_.hintMoves)));
  for (size_t i = 0; i < n; ++i) {
    const MoveInfo& m = a.moves[i];
    char head[64];
    std::snprintf(head, sizeof head, "  %2zu. %-7s", i + 1, m.usi.c_str());
    out_ << head << percent(m.share) << "   " << percent(m.winRate) << "   " << joined(m.pv, 6) << "\n";
  }
}

void TerminalGame::help() {
  const game::Variant& v = pos_.variant();
  out_ << "Moves are USI: the square a piece leaves, then the square it goes to, like 2e2d.\n"
          "  Files are numbered 1-"
       << v.files << " from sente's right, ranks lettered a-" << char('a' + v.ranks - 1)
       << " from gote's side.\n"
          "  Add + to turn a piece to its promoted face, - to turn it back (micro, kyoto);\n"
          "  where the flip is forced the suffix may be left out.\n";
  if (v.dropsEnabled) out_ << "  A drop from the hand is P*3c (or +G*3c to drop it flipped, where allowed).\n";
  out_ << "Commands:\n"
          "  help    this text\n"
          "  moves   list the legal moves\n"
          "  hint    the engine's top moves for you, with visit shares and win rates\n"
          "  undo    take back your last move (and Poppy's reply)\n"
          "  flip    turn the board around\n"
          "  sfen    print the position as SFEN\n"
          "  resign  give up the game\n"
          "  quit    stop (the game is saved as unfinished); end of input does the same\n"
          "  (empty line: draw the board again)\n";
}

void TerminalGame::listMoves() {
  game::MoveList legal;
  pos_.generateLegal(legal);
  std::vector<std::string> usi;
  for (const game::Move& m : legal) usi.push_back(pos_.moveToUsi(m));
  std::sort(usi.begin(), usi.end());
  out_ << usi.size() << " legal moves:";
  size_t column = 80;  // start a new line at once
  for (const std::string& u : usi) {
    if (column + u.size() + 1 > 78) {
      out_ << "\n ";
      column = 1;
    }
    out_ << " " << u;
    column += u.size() + 1;
  }
  out_ << "\n";
}

std::string TerminalGame::exampleMoves() const {
  // Examples that fit this variant: the first legal board move here, and a drop onto the centre.
  const game::Variant& v = pos_.variant();
  game::MoveList legal;
  pos_.generateLegal(legal);
  std::string text = legal.size() > 0 && !legal[0].isDrop() ? pos_.moveToUsi(legal[0]) : "2e2d";
  if (v.dropsEnabled && !v.handKinds.empty()) {
    text += ", or a drop like " + v.faces[v.handKinds.back().setupFace].letterToken() + "*" +
            pos_.squareName(v.square(v.files / 2, v.ranks / 2));
  }
  return text;
}

void TerminalGame::rejectMove(const std::string& text, const std::string& why) {
  game::MoveList legal;
  pos_.generateLegal(legal);
  std::string boardExample, dropExample;
  for (const game::Move& m : legal) {
    std::string& slot = m.isDrop() ? dropExample : boardExample;
    if (slot.empty()) slot = pos_.moveToUsi(m);
  }
  const game::Variant& v = pos_.variant();
  if (looksLikeUsiMove(text) && !squaresOnBoard(v, text)) {
    out_ << "'" << text << "' names a square off the " << v.files << "x" << v.ranks << " board (files 1-" << v.files
         << ", ranks a-" << char('a' + v.ranks - 1) << ").\n";
  } else if (looksLikeUsiMove(text)) {
    out_ << "'" << text << "' is not legal here: " << why << ".\n";
  } else {
    out_ << "'" << text << "' is not a command or a move in USI notation. A move names two squares, like "
         << (boardExample.empty() ? "2e2d" : boardExample);
    if (pos_.variant().dropsEnabled) out_ << ", or drops a piece, like " << (dropExample.empty() ? "P*3c" : dropExample);
    out_ << ". Type 'help' for the commands.\n";
  }
  std::vector<std::string> some;
  for (int i = 0; i < legal.size() && i < 8; ++i) some.push_back(pos_.moveToUsi(legal[i]));
  out_ << "Legal moves here include: " << joined(some) << (legal.size() > 8 ? " ..." : "") << " ('moves' lists all "
       << legal.size() << ").\n";
}

void TerminalGame::drawBoard() {
  BoardStyle style;
  style.flipped = flipped_;
  style.color = settings_.color;
  style.names = {sideName(0), sideName(1)};
  out_ << "\n" << renderBoard(pos_, style);
  out_ << "Move " << pos_.moveNumber() << ", " << sideName(pos_.sideToMove()) << " to move.";
  if (!moves_.empty()) {
    out_ << "  Last move: " << moves_.back() << " by " << sideName(pos_.opponent(pos_.sideToMove())) << ".";
  }
  out_ << "\n";
  if (pos_.inCheck()) out_ << "Check! " << sideName(pos_.sideToMove()) << " is in check.\n";
  boardShown_ = true;
}

void TerminalGame::announceOutcome(const game::Outcome& o) {
  switch (o.reason) {
    case game::EndReason::kNoLegalMove:
      out_ << (pos_.inCheck() ? "Checkmate. " : "No legal move, which loses here (as in shogi). ");
      break;
    case game::EndReason::kRepetition:
      out_ << "Repetition (sennichite): the same position occurred " << pos_.variant().repetitionCount
           << " times. ";
      break;
    case game::EndReason::kPerpetualCheck:
      out_ << "Perpetual check: the same position repeated and every move of one side gave check; that side loses. ";
      break;
    case game::EndReason::kPlyCap:
      out_ << "Ply cap: " << settings_.plyCap << " plies played. ";
      break;
    case game::EndReason::kRoyalsCaptured:
      out_ << "Every royal piece of " << sideName(pos_.sideToMove()) << " has been captured. ";
      break;
    case game::EndReason::kBareKing:
      out_ << "Bare king: one side has nothing left but its royal piece. ";
      break;
    case game::EndReason::kBareKings:
      out_ << "Both sides have nothing left but their royal pieces. ";
      break;
    case game::EndReason::kStalemate:
      out_ << "Stalemate: no legal move, and not in check. ";
      break;
    case game::EndReason::kSecondMate:
      out_ << "A second army mated: the winner now controls three of the four. ";
      break;
    case game::EndReason::kChecks:
      out_ << sideName(o.winner) << " has given check " << pos_.variant().checksToWin << " times. ";
      break;
    case game::EndReason::kPerpetualAttack:
      out_ << "Perpetual attack: the same position repeated and every move of one side checked or attacked a piece; "
              "that side loses. ";
      break;
    case game::EndReason::kNone:
      return;
  }
  if (o.draw()) {
    out_ << "The game is drawn.\n";
  } else {
    out_ << sideName(o.winner) << " wins" << (o.winner == settings_.human ? ". Well played!\n" : ".\n");
  }
}

selfplay::GameRecord TerminalGame::finish(const std::string& result, const std::string& reason) {
  selfplay::GameRecord r;
  r.id = settings_.gameId;
  r.variant = pos_.variant().name;
  r.start = startSfen_;
  r.moves = moves_;
  r.result = result;
  r.reason = reason;
  r.plies = int(moves_.size());
  r.model = settings_.modelName.empty() ? "rollout" : settings_.modelName;
  try {
    const std::filesystem::path parent = std::filesystem::path(settings_.savePath).parent_path();
    std::error_code ec;  // a failure here shows up as the append's error, which names the file
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    selfplay::appendGameRecords(settings_.savePath, {r});
  } catch (const selfplay::GameRecordError&) {
    // Keep the game on the screen so it is not lost with the file.
    out_ << "Could not save the game. Start: " << r.start << "\nMoves: " << joined(r.moves) << "\n" << std::flush;
    throw;
  }
  out_ << "Game saved to " << settings_.savePath << " (" << r.plies << (r.plies == 1 ? " ply" : " plies") << ", result " << r.result << ", "
       << r.reason << ").\n"
       << std::flush;
  return r;
}

}  // namespace poppy::play
