#include "play/game_files/game_file.h"

#include <iconv.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "play/game_files/csa_format.h"
#include "play/game_files/kif_format.h"

namespace poppy::play {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool validUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

}  // namespace

GameFormat gameFormatOf(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".kif" || ext == ".kifu") return GameFormat::kKif;
  if (ext == ".csa") return GameFormat::kCsa;
  return GameFormat::kJsonl;
}

GameFormat gameFormatNamed(const std::string& name) {
  if (name == "kif") return GameFormat::kKif;
  if (name == "csa") return GameFormat::kCsa;
  throw std::invalid_argument("unknown game format '" + name + "' (kif or csa)");
}

GamePlayers playersOf(const selfplay::GameRecord& record) {
  const size_t vs = record.model.find(" vs ");
  if (vs == std::string::npos) return {record.model, record.model};
  return {record.model.substr(0, vs), record.model.substr(vs + 4)};
}

std::string modelOf(const GamePlayers& players) {
  return players.sente == players.gote ? players.sente : players.sente + " vs " + players.gote;
}

std::string toUtf8(const std::string& bytes, const std::string& source) {
  if (validUtf8(bytes)) return bytes;
  iconv_t cd = iconv_open("UTF-8", "CP932");
  if (cd == iconv_t(-1)) throw GameFileError(source + ": not UTF-8, and this system cannot read Shift_JIS (iconv has no CP932)");
  std::string out(bytes.size() * 3 + 16, '\0');
  char* in = const_cast<char*>(bytes.data());
  size_t inLeft = bytes.size();
  char* o = out.data();
  size_t outLeft = out.size();
  const size_t rc = iconv(cd, &in, &inLeft, &o, &outLeft);
  const int error = errno;
  iconv_close(cd);
  if (rc == size_t(-1)) {
    throw GameFileError(source + ": neither UTF-8 nor Shift_JIS text (byte " + std::to_string(bytes.size() - inLeft) +
                        (error == EILSEQ ? " starts no character)" : " cuts a character)"));
  }
  out.resize(out.size() - outLeft);
  return out;
}

std::vector<selfplay::GameRecord> readGameFile(const std::string& path, const std::string& variantName) {
  const GameFormat format = gameFormatOf(path);
  if (format == GameFormat::kJsonl) {
    try {
      return selfplay::readGameRecords(path);
    } catch (const selfplay::GameRecordError& e) {
      throw GameFileError(e.what());
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GameFileError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw GameFileError(path + ": read error");
  if (format == GameFormat::kKif) return {kifToGame(text.str(), path, variantName)};
  return {csaToGame(text.str(), path, variantName)};
}

}  // namespace poppy::play
