// A game of shogi played through a USI client that Poppy did not write: OpenShogiLib's
// osl::search::UsiProxy (Debian's libosl-dev, from the GPS Shogi team) starts the engine, sends
// `usi`, `setoption`, `isready`, `position sfen ... moves` and `go byoyomi`, and reads `info
// score` and `bestmove`, the way its own programs drive gpsfish. OpenShogiLib's rules then check
// every move the engine chose, so the game also compares Poppy's shogi with an independent rules
// engine. tests/test_usi_external_client.cpp runs it on build/poppy-usi-shogi.
//
//   osl_usi_game ENGINE PLIES BYOYOMI_MS
//
// Plays the engine against itself from the start position for PLIES plies (or until the side to
// move has no legal move), one line per ply on stdout: "ply N MOVE value V" (V: the engine's
// score as OpenShogiLib read it, from sente's view). Exit status: 0 when every move came and was
// legal; 1 when the engine gave no move or an illegal one (stderr names it); 2 on bad arguments or
// an engine that cannot be started.
//
// Built only where libosl-dev and the Boost headers are installed (tests/CMakeLists.txt), with
// OSL_SMP defined as Debian's libosl was built: without it the library's classes have another
// layout and the hash table crashes in its destructor.
#include <osl/checkmate/dualDfpn.h>
#include <osl/container/moveStack.h>
#include <osl/numEffectState.h>
#include <osl/search/moveWithComment.h>
#include <osl/search/searchRecorder.h>
#include <osl/search/simpleHashTable.h>
#include <osl/search/usiProxy.h>
#include <osl/usi.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

namespace {

int usage(const char* why) {
  std::cerr << "osl_usi_game: " << why << "\nusage: osl_usi_game ENGINE PLIES BYOYOMI_MS\n";
  return 2;
}

osl::MoveVector legalMoves(const osl::NumEffectState& state) {
  osl::MoveVector moves;
  // Every legal move: generateLegal leaves out the non-promotions that never pay (a bishop
  // entering the zone unpromoted), which the rules allow and a weak engine may play.
  state.generateWithFullUnpromotions(moves);
  return moves;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return usage("three arguments expected");
  const std::string engine = argv[1];
  const int plies = std::atoi(argv[2]);
  const int byoyomiMs = std::atoi(argv[3]);
  if (plies < 1 || byoyomiMs < 1) return usage("PLIES and BYOYOMI_MS must be positive numbers");
  // setUp checks that the program exists; the proxy starts it on the first search and keeps it for
  // the next ones (a pool), as a GUI keeps its engine between moves.
  if (!osl::search::UsiProxy::setUp(engine)) {
    std::cerr << "osl_usi_game: cannot start the USI engine " << engine << "\n";
    return 2;
  }
  osl::NumEffectState state;  // the start position (hirate)
  osl::MoveStack history;
  for (int ply = 0; ply < plies; ++ply) {
    const osl::MoveVector legal = legalMoves(state);
    if (legal.empty()) {
      std::cout << "game over at ply " << ply << ": no legal move\n";
      return 0;
    }
    osl::checkmate::DualDfpn checker;
    osl::search::SimpleHashTable table(100000);
    osl::search::CountRecorder recorder;
    osl::search::UsiProxy proxy(state, checker, &table, recorder);
    proxy.setHistory(history);
    osl::search::MoveWithComment info;
    osl::Move move;
    try {
      // The limits are alpha-beta depths the proxy does not use; the time is sent as byoyomi.
      move = proxy.computeBestMoveIteratively(1000, 200, 400, 100000,
                                              osl::search::TimeAssigned(osl::milliseconds(byoyomiMs)), &info);
    } catch (const std::exception& e) {
      std::cerr << "osl_usi_game: ply " << ply << ": the engine's reply could not be read: " << e.what() << "\n";
      return 1;
    }
    if (!move.isNormal()) {
      std::cerr << "osl_usi_game: ply " << ply << ": the engine gave no move (resign or nothing) in "
                << osl::usi::show(state) << "\n";
      return 1;
    }
    // OpenShogiLib's legal moves: pseudo-legality, king safety, and drop rules (nifu, no pawn
    // drop mate). isValidMove alone would not check that the king is left safe.
    if (std::find(legal.begin(), legal.end(), move) == legal.end()) {
      std::cerr << "osl_usi_game: ply " << ply << ": the engine's move " << osl::usi::show(move)
                << " is not legal in " << osl::usi::show(state) << "\n";
      return 1;
    }
    std::cout << "ply " << ply << " " << osl::usi::show(move) << " value " << info.value << std::endl;
    state.makeMove(move);
    history.push(move);
  }
  return 0;
}
