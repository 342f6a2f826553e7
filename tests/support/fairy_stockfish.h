// A Fairy-Stockfish process kept open over two pipes, for differential perft tests.
#pragma once
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace poppy::testing {

class FairyStockfish {
 public:
  static constexpr const char* kPath = "/usr/games/fairy-stockfish";

  FairyStockfish() {
    int toChild[2], fromChild[2];
    if (pipe(toChild) != 0 || pipe(fromChild) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(toChild[0], 0);
      dup2(fromChild[1], 1);
      close(toChild[1]);
      close(fromChild[0]);
      execl(kPath, kPath, static_cast<char*>(nullptr));
      _exit(127);
    }
    close(toChild[0]);
    close(fromChild[1]);
    in_ = fdopen(toChild[1], "w");
    out_ = fdopen(fromChild[0], "r");
    send("usi\nsetoption name Threads value 1\nsetoption name Hash value 1\nisready");
    readUntil("readyok");
  }
  ~FairyStockfish() {
    if (in_) {
      std::fputs("quit\n", in_);
      std::fclose(in_);
    }
    if (out_) std::fclose(out_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }
  FairyStockfish(const FairyStockfish&) = delete;
  FairyStockfish& operator=(const FairyStockfish&) = delete;

  void setVariant(const std::string& variant) {
    send("setoption name UCI_Variant value " + variant + "\nisready");
    readUntil("readyok");
  }

  // Divide lines (move -> count) and the total of `go perft depth` after `moves` from `sfen`.
  std::map<std::string, long long> divide(const std::string& sfen, const std::vector<std::string>& moves, int depth,
                                          long long* total = nullptr) {
    std::string cmd = "position sfen " + sfen;
    if (!moves.empty()) {
      cmd += " moves";
      for (const auto& m : moves) cmd += " " + m;
    }
    send(cmd + "\ngo perft " + std::to_string(depth));
    std::map<std::string, long long> out;
    char line[4096];
    while (std::fgets(line, sizeof line, out_)) {
      long long n;
      char move[64];
      if (std::sscanf(line, "Nodes searched: %lld", &n) == 1) {
        if (total) *total = n;
        return out;
      }
      if (std::sscanf(line, "%63[^:]: %lld", move, &n) == 2) out[move] = n;
    }
    throw std::runtime_error("fairy-stockfish stopped answering");
  }

 private:
  void send(const std::string& text) {
    std::fputs((text + "\n").c_str(), in_);
    std::fflush(in_);
  }
  void readUntil(const std::string& token) {
    char line[4096];
    while (std::fgets(line, sizeof line, out_))
      if (std::string(line).rfind(token, 0) == 0) return;
    throw std::runtime_error("fairy-stockfish stopped answering");
  }

  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
};

}  // namespace poppy::testing
