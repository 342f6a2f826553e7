#include "selfplay/game_record.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

namespace poppy::selfplay {
namespace {

using Json = nlohmann::ordered_json;  // keeps the documented key order in the file

const char* const kResults[] = {"sente", "gote", "draw", "south", "west", "north", "east"};
const char* const kReasons[] = {"checkmate", "repetition", "perpetual_check", "ply_cap",      "royals_captured",
                                "bare_king", "bare_kings", "stalemate",       "resign",       "illegal_move",
                                "timeout",   "crash",      "unfinished",      "impasse",      "second_checkmate",
                                "rule_disagreement", "adjudication", "checks", "perpetual_attack"};

template <size_t N>
bool oneOf(const std::string& s, const char* const (&set)[N]) {
  return std::any_of(std::begin(set), std::end(set), [&](const char* v) { return s == v; });
}

void validate(const GameRecord& r) {
  if (!oneOf(r.result, kResults)) {
    throw GameRecordError("result '" + r.result + "' is not sente, gote, draw, or (four players) south, west, north or east");
  }
  if (!oneOf(r.reason, kReasons)) {
    throw GameRecordError("reason '" + r.reason +
                          "' is not checkmate, repetition, perpetual_check, ply_cap, royals_captured, bare_king, "
                          "bare_kings, stalemate, resign, illegal_move, timeout, crash, unfinished, impasse, "
                          "second_checkmate, rule_disagreement, adjudication or checks");
  }
  if (r.plies < 0) throw GameRecordError("plies is negative");
  if (r.samples > r.plies) throw GameRecordError("samples exceed the plies");
  if (!r.adjudicated.empty() && r.adjudicated != "sente" && r.adjudicated != "gote")
    throw GameRecordError("adjudicated '" + r.adjudicated + "' is not sente or gote");
  if (!r.adjudicated.empty() && (r.result != "draw" || r.reason != "ply_cap"))
    throw GameRecordError("adjudicated is set on a game that did not end drawn at the ply cap");
}

std::string errnoText() { return std::strerror(errno); }

// Writes all of `data` at the end of `fd` (opened O_APPEND).
bool writeAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += size_t(n);
  }
  return true;
}

// If the file does not end with a newline, an append was interrupted: keep the unterminated
// line if it is a whole record (only its newline was lost), otherwise cut it off.
void repairTail(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) throw GameRecordError(path + ": cannot stat: " + errnoText());
  const off_t size = st.st_size;
  if (size == 0) return;
  char last = 0;
  if (::pread(fd, &last, 1, size - 1) != 1) throw GameRecordError(path + ": cannot read: " + errnoText());
  if (last == '\n') return;
  // Find the last newline, reading backwards in blocks.
  std::string tail;
  off_t pos = size;
  off_t cut = 0;
  char buffer[4096];
  while (pos > 0) {
    const off_t start = std::max<off_t>(0, pos - off_t(sizeof buffer));
    const ssize_t n = ::pread(fd, buffer, size_t(pos - start), start);
    if (n != pos - start) throw GameRecordError(path + ": cannot read: " + errnoText());
    const char* nl = static_cast<const char*>(memrchr(buffer, '\n', size_t(n)));
    if (nl) {
      cut = start + (nl - buffer) + 1;
      tail.insert(0, nl + 1, size_t(buffer + n - nl - 1));
      break;
    }
    tail.insert(0, buffer, size_t(n));
    pos = start;
  }
  try {
    gameRecordFromJson(tail);
    if (!writeAll(fd, "\n")) throw GameRecordError(path + ": cannot write: " + errnoText());
  } catch (const GameRecordError&) {
    std::cerr << "poppy: warning: " << path << ": dropping an incomplete last line ("
              << tail.size() << " bytes, an interrupted append)" << std::endl;
    if (::ftruncate(fd, cut) != 0) throw GameRecordError(path + ": cannot truncate: " + errnoText());
  }
}

}  // namespace

std::string gameRecordToJson(const GameRecord& r) {
  validate(r);
  Json j;
  j["id"] = r.id;
  j["variant"] = r.variant;
  j["start"] = r.start;
  j["moves"] = r.moves;
  j["result"] = r.result;
  j["reason"] = r.reason;
  j["plies"] = r.plies;
  j["model"] = r.model;
  if (!r.detail.empty()) j["detail"] = r.detail;
  if (r.samples >= 0) j["samples"] = r.samples;
  if (!r.adjudicated.empty()) j["adjudicated"] = r.adjudicated;
  try {
    return j.dump();  // escapes control characters, so always one line
  } catch (const Json::exception& e) {
    throw GameRecordError(std::string("cannot encode game record '") + r.id + "': " + e.what());
  }
}

GameRecord gameRecordFromJson(const std::string& line) {
  Json j;
  try {
    j = Json::parse(line);
  } catch (const Json::exception& e) {
    throw GameRecordError(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw GameRecordError("not a JSON object");
  auto field = [&](const char* key) -> const Json& {
    const auto it = j.find(key);
    if (it == j.end()) throw GameRecordError(std::string("missing \"") + key + "\"");
    return *it;
  };
  auto text = [&](const char* key) {
    const Json& v = field(key);
    if (!v.is_string()) throw GameRecordError(std::string("\"") + key + "\" is not a string");
    return v.get<std::string>();
  };
  GameRecord r;
  const Json& id = field("id");
  if (id.is_string()) {
    r.id = id.get<std::string>();
  } else if (id.is_number_integer()) {
    r.id = id.dump();
  } else {
    throw GameRecordError("\"id\" is not a string or an integer");
  }
  r.variant = text("variant");
  r.start = text("start");
  const Json& moves = field("moves");
  if (!moves.is_array()) throw GameRecordError("\"moves\" is not an array");
  for (const Json& m : moves) {
    if (!m.is_string()) throw GameRecordError("\"moves\" holds a non-string");
    r.moves.push_back(m.get<std::string>());
  }
  r.result = text("result");
  r.reason = text("reason");
  const Json& plies = field("plies");
  if (!plies.is_number_integer() || plies.get<int64_t>() < 0 || plies.get<int64_t>() > INT32_MAX) {
    throw GameRecordError("\"plies\" is not a non-negative integer");
  }
  r.plies = int(plies.get<int64_t>());
  r.model = text("model");
  if (j.contains("detail")) r.detail = text("detail");
  if (j.contains("samples")) {
    const Json& samples = j["samples"];
    if (!samples.is_number_integer() || samples.get<int64_t>() < 0 || samples.get<int64_t>() > INT32_MAX)
      throw GameRecordError("\"samples\" is not a non-negative integer");  // validate() checks it against plies
    r.samples = int(samples.get<int64_t>());
  }
  if (j.contains("adjudicated")) r.adjudicated = text("adjudicated");
  validate(r);
  return r;
}

void requireWritableRecordFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file(path);
  if (fs::exists(file, ec)) {
    if (!fs::is_regular_file(file, ec)) throw GameRecordError(path + ": cannot save games there: not a regular file");
    if (::access(path.c_str(), W_OK) != 0) throw GameRecordError(path + ": cannot save games there: " + errnoText());
    return;
  }
  const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::exists(parent, ec)) fs::create_directories(parent, ec);
  if (!fs::is_directory(parent, ec))
    throw GameRecordError(path + ": cannot save games there: " + parent.string() + " is not a folder" +
                          (ec ? " (" + ec.message() + ")" : ""));
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    throw GameRecordError(path + ": cannot save games there: folder " + parent.string() + ": " + errnoText());
}

void appendGameRecords(const std::string& path, const std::vector<GameRecord>& records) {
  std::string data;
  for (const GameRecord& r : records) {
    try {
      data += gameRecordToJson(r);
    } catch (const GameRecordError& e) {
      throw GameRecordError(path + ": refusing to append: " + e.what());
    }
    data += '\n';
  }
  bool created = false;
  int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);  // read too: the tail check
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  }
  if (fd < 0) throw GameRecordError(path + ": cannot open for appending: " + errnoText());
  try {
    if (::flock(fd, LOCK_EX) != 0) throw GameRecordError(path + ": cannot lock: " + errnoText());
    repairTail(fd, path);
    if (!writeAll(fd, data)) throw GameRecordError(path + ": cannot write: " + errnoText());
    if (::fsync(fd) != 0) throw GameRecordError(path + ": cannot sync: " + errnoText());
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);  // releases the lock
  if (created) {
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty()) dir = ".";
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || ::fsync(dfd) != 0) {
      const std::string e = errnoText();
      if (dfd >= 0) ::close(dfd);
      throw GameRecordError(path + ": cannot sync its directory: " + e);
    }
    ::close(dfd);
  }
}

GameRecordFile readGameRecordFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw GameRecordError(path + ": cannot open: " + errnoText());
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string e = errnoText();
      ::close(fd);
      throw GameRecordError(path + ": cannot read: " + e);
    }
    if (n == 0) break;
    content.append(buffer, size_t(n));
  }
  ::close(fd);

  GameRecordFile out;
  size_t begin = 0;
  for (size_t lineNo = 1; begin < content.size(); ++lineNo) {
    const size_t nl = content.find('\n', begin);
    const bool terminated = nl != std::string::npos;
    std::string line = content.substr(begin, terminated ? nl - begin : std::string::npos);
    begin = terminated ? nl + 1 : content.size();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank line
    try {
      out.records.push_back(gameRecordFromJson(line));
    } catch (const GameRecordError& e) {
      if (terminated) {
        out.errors.push_back(path + ":" + std::to_string(lineNo) + ": malformed game record: " +
                             e.what());
      } else {
        out.truncatedTail = true;
      }
    }
  }
  return out;
}

std::vector<GameRecord> readGameRecords(const std::string& path) {
  GameRecordFile file = readGameRecordFile(path);
  // The first few malformed lines say what is wrong; a file of junk needs no thousand lines.
  constexpr size_t kShown = 10;
  for (size_t i = 0; i < file.errors.size() && i < kShown; ++i) std::cerr << "poppy: warning: " << file.errors[i] << std::endl;
  if (file.errors.size() > kShown)
    std::cerr << "poppy: warning: " << path << ": " << file.errors.size() - kShown << " more malformed lines not shown ("
              << file.errors.size() << " in all, " << file.records.size() << " good records)" << std::endl;
  if (file.truncatedTail) {
    std::cerr << "poppy: note: " << path
              << ": ignoring an incomplete last line (an interrupted append)" << std::endl;
  }
  return std::move(file.records);
}

}  // namespace poppy::selfplay
