#include "report/match_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include "common/atomic_file.h"

namespace poppy::report {
namespace {

std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  if (out.size() > 40) out.resize(40);
  return out.empty() ? "player" : out;
}

std::string baseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string duration(double s) {
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", int(s / 3600), int(std::fmod(s, 3600) / 60));
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s / 60), int(std::fmod(s, 60)));
  else std::snprintf(buf, sizeof buf, "%.0fs", s);
  return buf;
}

nlohmann::ordered_json side(const MatchSideInfo& s) {
  return {{"player", s.player}, {"nodes", s.nodes}, {"movetime_ms", s.movetimeMs}, {"book", s.book}};
}

}  // namespace

std::string shortPlayerName(const std::string& d) {
  if (d.rfind("model:", 0) == 0) {
    std::string path = d.substr(6), playouts;
    const size_t colon = path.rfind(':');
    if (colon != std::string::npos && colon + 1 < path.size() &&
        path.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      playouts = path.substr(colon + 1);
      path.resize(colon);
    }
    std::string stem = baseName(path);
    if (stem.size() > 6 && stem.compare(stem.size() - 6, 6, ".model") == 0) stem.resize(stem.size() - 6);
    return safe(stem + (playouts.empty() ? "" : "-" + playouts));
  }
  if (d.rfind("usi:", 0) == 0) {
    std::string command = d.substr(4);
    const size_t start = command.find_first_not_of(" \"'");
    command = start == std::string::npos ? "" : command.substr(start);
    return safe(baseName(command.substr(0, command.find_first_of(" \"'"))));
  }
  std::string s;
  for (char c : d)
    if (c != ':') s += c;
  return safe(s);
}

std::string defaultMatchFileStem(const std::string& a, const std::string& b) {
  return "match-" + shortPlayerName(a) + "-vs-" + shortPlayerName(b);
}

std::map<std::string, int> endReasons(const selfplay::MatchResult& r) {
  std::map<std::string, int> reasons;
  for (const auto& rec : r.records) ++reasons[rec.reason];
  return reasons;
}

std::map<std::string, int> forfeitsOf(const selfplay::MatchResult& r, bool sideA) {
  std::map<std::string, int> forfeits;
  for (size_t i = 0; i < r.records.size(); ++i) {
    const auto& rec = r.records[i];
    // A detail says why a game ended off the board; an adjudication is no forfeit.
    if (rec.detail.empty() || rec.result == "draw" || rec.reason == selfplay::kAdjudication) continue;
    const bool senteLost = rec.result == "gote";
    const bool aLost = senteLost == bool(r.aWasSente[i]);
    if (aLost == sideA) ++forfeits[rec.reason];
  }
  return forfeits;
}

int forfeitCount(const selfplay::MatchResult& r) {
  int n = 0;
  for (const bool sideA : {true, false})
    for (const auto& [reason, count] : forfeitsOf(r, sideA)) n += count;
  return n;
}

double averagePlies(const selfplay::MatchResult& r) {
  long plies = 0;
  for (const auto& rec : r.records) plies += rec.plies;
  return r.games() ? double(plies) / r.games() : 0.0;
}

nlohmann::ordered_json matchSummary(const MatchInfo& info, const selfplay::MatchResult& r, double seconds,
                                    bool finished) {
  using Json = nlohmann::ordered_json;
  const auto [lo, hi] = r.eloInterval95();
  Json j;
  j["format"] = "poppy-match-summary";
  j["version"] = 1;
  j["finished"] = finished;
  j["variant"] = info.variant;
  j["a"] = side(info.a);
  j["b"] = side(info.b);
  j["games_wanted"] = info.gamesWanted;
  j["games"] = r.games();
  j["wins"] = r.winsA;
  j["draws"] = r.draws;
  j["losses"] = r.lossesA;
  j["score"] = r.score();
  j["elo"] = r.elo();
  j["elo_low"] = lo;
  j["elo_high"] = hi;
  j["a_as_sente"] = {{"wins", r.winsAAsSente}, {"draws", r.drawsAAsSente}, {"losses", r.lossesAAsSente}};
  j["a_as_gote"] = {{"wins", r.winsA - r.winsAAsSente},
                    {"draws", r.draws - r.drawsAAsSente},
                    {"losses", r.lossesA - r.lossesAAsSente}};
  const std::map<std::string, int> reasons = endReasons(r);
  j["reasons"] = reasons;
  j["forfeits"] = {{"a", forfeitsOf(r, true)}, {"b", forfeitsOf(r, false)}};
  j["adjudicated"] = reasons.count(selfplay::kAdjudication) ? reasons.at(selfplay::kAdjudication) : 0;
  if (!info.idPrefix.empty()) {
    const Pentanomial pairs = pentanomialOf(r, info.idPrefix);
    j["pentanomial"] = pairs.counts;
    if (info.sprt) {
      const SprtStatus st = sprtStatus(pairs, *info.sprt);
      j["sprt"] = {{"elo0", info.sprt->elo0}, {"elo1", info.sprt->elo1}, {"alpha", info.sprt->alpha},
                   {"beta", info.sprt->beta},  {"min_pairs", info.sprt->minPairs}, {"llr", st.llr}, {"lower", st.lower},
                   {"upper", st.upper},        {"verdict", sprtVerdictText(st.verdict)}};
    }
  }
  j["los"] = likelihoodOfSuperiority(r);
  j["average_plies"] = averagePlies(r);
  j["seconds"] = seconds;  // of this session
  j["resumed_games"] = info.resumedGames;
  j["games_per_hour"] = seconds > 0 ? (r.games() - info.resumedGames) * 3600.0 / seconds : 0.0;
  j["openings"] = info.openings;
  j["openings_count"] = info.openingsCount;
  j["records"] = info.records;
  j["settings"] = {{"parallel", info.parallel},          {"ply_cap", info.plyCap},
                   {"seed", info.seed},                  {"tactics", info.tactics},
                   {"leaf_mate_plies", info.leafMatePlies}, {"root_mate_plies", info.rootMatePlies},
                   {"opening_plies", info.openingPlies},  {"gumbel_actions", info.gumbelActions},
                   {"clock", info.clock},                {"adjudication", info.adjudication}};
  return j;
}

MatchSummaryTotals readMatchSummary(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read it");
  const nlohmann::json j = nlohmann::json::parse(in);
  if (j.value("format", "") != "poppy-match-summary") throw std::runtime_error("not a poppy match summary");
  MatchSummaryTotals t;
  t.a = j.at("a").at("player").get<std::string>();
  t.b = j.at("b").at("player").get<std::string>();
  t.games = j.at("games").get<int>();
  t.wins = j.at("wins").get<int>();
  t.draws = j.at("draws").get<int>();
  t.losses = j.at("losses").get<int>();
  t.elo = j.at("elo").get<double>();
  t.eloLow = j.at("elo_low").get<double>();
  t.eloHigh = j.at("elo_high").get<double>();
  t.finished = j.at("finished").get<bool>();
  return t;
}

void writeMatchSummary(const std::string& path, const MatchInfo& info, const selfplay::MatchResult& result,
                       double seconds, bool finished) {
  common::writeFileAtomically(path, matchSummary(info, result, seconds, finished).dump(2) + "\n");
}

std::string progressLine(const selfplay::MatchResult& r, int wanted, double seconds, int resumedGames,
                         int gamesAtOnce) {
  const auto [lo, hi] = r.eloInterval95();
  // Called as a game ends, whose slot starts the next game at once: the other slots' games are on
  // average half played. Counting only finished games would, early in a match of 16 games at
  // once, give the rate of the shortest games alone and a time left several times too long.
  const int remaining = std::max(0, wanted - r.games());
  const double halfDone = 0.5 * std::max(0, std::min(gamesAtOnce, remaining) - 1);
  const double rate = seconds > 0 ? (r.games() - resumedGames + halfDone) / seconds : 0;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%d/%d games  +%d =%d -%d  score %.3f  Elo %+.0f (95%%: %+.0f to %+.0f)  %.2f games/s  %s left",
                r.games(), wanted, r.winsA, r.draws, r.lossesA, r.score(), r.elo(), lo, hi, rate,
                rate > 0 ? duration((remaining - halfDone) / rate).c_str() : "?");
  return buf;
}

std::string resultLine(const selfplay::MatchResult& r, const std::string& a, const std::string& b) {
  const auto [lo, hi] = r.eloInterval95();
  char buf[160];
  std::snprintf(buf, sizeof buf, ": %d games, +%d =%d -%d, score %.3f, Elo %+.0f (95%%: %+.0f to %+.0f)", r.games(),
                r.winsA, r.draws, r.lossesA, r.score(), r.elo(), lo, hi);
  return a + " vs " + b + buf;
}

std::string pairsLine(const selfplay::MatchResult& r, const std::string& idPrefix) {
  const Pentanomial p = pentanomialOf(r, idPrefix);
  char buf[200];
  std::snprintf(buf, sizeof buf, "pairs (A's points 0, 0.5, 1, 1.5, 2): %lld %lld %lld %lld %lld; LOS %.1f%%",
                static_cast<long long>(p.counts[0]), static_cast<long long>(p.counts[1]),
                static_cast<long long>(p.counts[2]), static_cast<long long>(p.counts[3]),
                static_cast<long long>(p.counts[4]), 100.0 * likelihoodOfSuperiority(r));
  return buf;
}

std::string sprtProgressText(const SprtStatus& st) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "LLR %.2f (%.2f, %.2f)", st.llr, st.lower, st.upper);
  return buf;
}

std::string sprtLine(const SprtStatus& st, const SprtSettings& s, int games) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "SPRT [%g, %g] alpha %g beta %g: %s, %s after %d games", s.elo0, s.elo1, s.alpha,
                s.beta, sprtProgressText(st).c_str(), sprtVerdictText(st.verdict).c_str(), games);
  return buf;
}

}  // namespace poppy::report
