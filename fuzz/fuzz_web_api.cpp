// The web game API behind `poppy serve` (play/human/web_api.h) on arbitrary requests. The input is one
// request a line: "METHOD PATH[?key=value&...] BODY", the body being the rest of the line; "$G"
// in a query value or a body stands for the id of the latest game created (ids are random).
// Promises: route() never throws; it answers 200, or a 4xx status with {"error": "..."}; every
// reply can be sent (dump() does not throw, as cmd_serve.cpp calls it); a state's SFEN is valid.
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_support.h"
#include "game/position.h"
#include "play/human/web_api.h"

using namespace poppy;

namespace {

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  play::WebApiOptions options;
  options.playouts = 2;  // rollout searches: a few playouts keep each input quick
  options.maxPlayouts = 8;
  options.plyCap = 40;
  options.maxGames = 3;  // small, so that forgetting the oldest game is reached too
  play::WebApi api(fuzz::shippedVariants(), options);

  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string lastGame = "none";
  int requests = 0;
  for (std::string line; std::getline(in, line) && requests < 16; ++requests) {
    line = replaceAll(line, "$G", lastGame);
    const size_t space = line.find(' ');
    const std::string method = line.substr(0, space);
    std::string target = space == std::string::npos ? "" : line.substr(space + 1);
    const size_t space2 = target.find(' ');
    const std::string body = space2 == std::string::npos ? "" : target.substr(space2 + 1);
    target = target.substr(0, space2);
    const size_t question = target.find('?');
    const std::string path = target.substr(0, question);
    std::map<std::string, std::string> query;
    if (question != std::string::npos) {
      std::istringstream params(target.substr(question + 1));
      for (std::string kv; std::getline(params, kv, '&');) {
        const size_t eq = kv.find('=');
        query.emplace(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
      }
    }

    const play::ApiReply reply = api.route(method, path, query, body);
    std::string sent;
    try {
      sent = reply.body.dump();
    } catch (const nlohmann::json::exception& e) {
      fuzz::fail(std::string("a reply that cannot be sent: ") + e.what());
    }
    if (reply.status != 200) {
      fuzz::check(reply.status >= 400 && reply.status < 500, "status " + std::to_string(reply.status) + ": " + sent);
      fuzz::check(reply.body.contains("error") && reply.body["error"].is_string(), "an error without a message: " + sent);
      continue;
    }
    const nlohmann::json& state = reply.body.contains("state") ? reply.body["state"] : reply.body;
    if (state.contains("game")) lastGame = state["game"].get<std::string>();
    if (state.contains("sfen") && state.contains("variant")) {
      const std::string variant = state["variant"].get<std::string>();
      for (const auto& v : fuzz::shippedVariants())
        if (v->name == variant) game::Position::fromSfen(v, state["sfen"].get<std::string>());  // throws if invalid
    }
  }
  return 0;
}
