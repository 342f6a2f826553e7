// `poppy serve`: a local web page where a person plays any variant against a model (or the
// rollout MCTS). The game logic is play::WebApi; this file loads the model, serves web/ and
// passes /api/* requests to WebApi::route on httplib's thread pool.
//
// The page (web/index.html, poppy.js, poppy.css) is served from disk, from the first
// of $POPPY_WEB_DIR, ./web and the source tree's web/ that holds index.html (the way variants
// are found), so a built binary serves the page of its own checkout and nothing is downloaded.
#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <stdexcept>

#include "apps/commands.h"
#include "program/inference_option.h"
#include "program/model_choice.h"
#include "common/atomic_file.h"
#include "common/data_dirs.h"
#include "game/variant_loader.h"
#include "nn/model_header.h"
#include "nn/network_backend.h"
#include "play/shipped_models.h"
#include "play/human/web_api.h"

namespace poppy::apps {

namespace {

constexpr size_t kMaxRequestBytes = 64 * 1024;  // request bodies: a move or a new game, never more

// Why binding failed, as far as can be told: a host that does not resolve is named as such;
// otherwise the port is taken or the address is not this machine's.
std::string whyNotListening(const std::string& host) {
  addrinfo hints{};
  hints.ai_flags = AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0) return "'" + host + "' is not a host name or address (" + ::gai_strerror(rc) + ")";
  ::freeaddrinfo(found);
  return "the port is in use, or " + host + " is not an address of this machine";
}

// The JSON "error" of an HTTP error that no handler explained (httplib's own refusals included).
std::string httpErrorText(int status, const httplib::Request& req) {
  switch (status) {
    case 404: return "no page " + req.path;
    case 405: return "method " + req.method + " is not allowed on " + req.path + " (GET and POST are)";
    case 413: return "request body over " + std::to_string(kMaxRequestBytes) + " bytes";
    case 400: return "malformed HTTP request";
    default: return "HTTP error " + std::to_string(status) + " on " + req.method + " " + req.path;
  }
}

struct ServeOptions {
  int port = 8080;
  std::string host = "127.0.0.1";
  std::string model;
  std::string variant;
  std::string device = "cpu";
  nn::Inference inference = nn::Inference::kAuto;
  std::string book;
  std::string webDir;
  int playouts = 800;
  int plyCap = 200;
  int searchThreads = 1;
  double maxSearchSeconds = 10;
};

std::filesystem::path findWebDir(const std::string& given) {
  std::vector<std::filesystem::path> dirs;
  if (!given.empty()) {
    dirs.push_back(given);
  } else {
    if (const char* env = std::getenv("POPPY_WEB_DIR")) dirs.push_back(env);
    dirs.push_back("web");
    for (const auto& d : common::dataPaths("web")) dirs.push_back(d);
  }
  std::string tried;
  for (const auto& d : dirs) {
    if (std::filesystem::is_regular_file(d / "index.html")) return d;
    tried += (tried.empty() ? "" : ", ") + d.string();
  }
  throw std::runtime_error("the web page (index.html) is in none of: " + tried + " (set POPPY_WEB_DIR or --web-dir)");
}

struct StaticFile {
  std::string path, type, file;
};

// A request under way on its own thread; `abandoned` stops its search (play::WebApi::route).
struct PendingRequest {
  std::atomic<bool> abandoned{false};
  std::future<play::ApiReply> reply;  // its destructor waits for the thread
};

// Most requests answer at once and are sent whole, with their status. One that is still
// searching after kQuickReply (a long analysis, or one waiting for the engine) is answered 200
// now and streamed: a space every kHeartbeat, then the JSON (which may begin with whitespace).
// cpp-httplib 0.11 tells a handler nothing of a closed connection, but a write to one fails
// within two heartbeats: that sets `abandoned`, and the search stops instead of holding the
// engine for the others (issue 16, item 9). An error found after the 200 comes as {"error"} in
// the body, which the page treats as an error. The content type is not exactly
// "application/json" so that httplib does not gzip the stream (the compressor would hold the
// heartbeats back, and a closed connection would go unseen).
constexpr auto kQuickReply = std::chrono::milliseconds(300);
constexpr auto kHeartbeat = std::chrono::milliseconds(100);

void answerWatchingTheClient(play::WebApi& api, const std::string& method, const std::string& path,
                             std::map<std::string, std::string> query, const std::string& body,
                             httplib::Response& res) {
  auto pending = std::make_shared<PendingRequest>();
  std::atomic<bool>* abandoned = &pending->abandoned;  // lives as long as the future waits for the thread
  pending->reply = std::async(std::launch::async, [&api, method, path, query = std::move(query), body, abandoned] {
    return api.route(method, path, query, body, abandoned);
  });
  if (pending->reply.wait_for(kQuickReply) == std::future_status::ready) {
    const play::ApiReply reply = pending->reply.get();
    res.status = reply.status;
    res.set_content(reply.body.dump(), "application/json");
    return;
  }
  res.status = 200;
  res.set_chunked_content_provider(
      "application/json; charset=utf-8",
      [pending](size_t, httplib::DataSink& sink) {
        while (pending->reply.wait_for(kHeartbeat) != std::future_status::ready) {
          if (!sink.write(" ", 1)) {
            pending->abandoned = true;
            return false;
          }
        }
        const std::string json = pending->reply.get().body.dump();
        if (!sink.write(json.data(), json.size())) return false;
        sink.done();
        return true;
      },
      [pending](bool success) {
        if (!success) pending->abandoned = true;  // e.g. the connection failed before the first write
      });
}

void serve(const ServeOptions& o) {
  nn::setNetworkThreads(nn::kPlayTimeNetworkThreads);
  const std::filesystem::path webDir = findWebDir(o.webDir);
  std::vector<StaticFile> files = {{"/", "text/html; charset=utf-8", "index.html"},
                                   {"/poppy.js", "text/javascript; charset=utf-8", "poppy.js"},
                                   {"/poppy.css", "text/css; charset=utf-8", "poppy.css"}};
  for (auto& f : files) {
    f.file = (webDir / f.file).string();  // the file's path; read at each request
    if (!std::filesystem::is_regular_file(f.file)) throw std::runtime_error("missing page file " + f.file);
  }

  // Every variant found, plus the one named on the command line (it may be a file).
  std::vector<game::VariantPtr> variants;
  play::WebApiOptions api;
  if (!o.variant.empty()) {
    variants.push_back(game::loadVariant(o.variant));
    api.defaultVariant = variants.back()->name;
  }
  for (const auto& name : game::knownVariants()) variants.push_back(game::loadVariant(name));

  // The networks: --model's for its variant, and every other variant's shipped model
  // (models/shipped.yaml); `--model none`: none at all.
  std::vector<std::unique_ptr<mcts::Evaluator>> evaluators;
  std::string engines;  // for the start-up line
  auto addModel = [&](const std::string& path, bool named) {
    nn::ModelInfo info;
    auto evaluator = nn::loadModelEvaluator(path, nullptr, o.device, o.inference, &info);
    // The model plays the variant of its name here: refuse it if that variant's rules differ.
    try {
      for (const auto& v : variants)
        if (v->name == info.variant) nn::checkModelFits(info, path, v.get(), 0);
    } catch (const nn::ModelError& e) {
      if (named) throw;
      std::fprintf(stderr, "poppy serve: %s (without a network for %s)\n", e.what(), info.variant.c_str());
      return;
    }
    api.models[info.variant] = {evaluator.get(), std::filesystem::path(path).filename().string()};
    evaluators.push_back(std::move(evaluator));
    engines += "model " + path + " for " + info.variant + ", ";
    if (named && o.variant.empty()) api.defaultVariant = info.variant;
  };
  const bool noModel = program::namesNoModel(o.model);
  if (!noModel && !o.model.empty()) addModel(o.model, true);
  if (!noModel)
    for (const auto& [name, path] : play::shippedModels())
      if (!api.models.count(name)) addModel(path, false);
  std::unique_ptr<play::OpeningBook> book;
  if (!o.book.empty()) {
    // The book's own variant decides which positions it serves.
    book = std::make_unique<play::OpeningBook>(play::OpeningBook::load(o.book, game::loadVariant(api.defaultVariant)));
    api.book = book.get();
  }
  api.playouts = o.playouts;
  api.plyCap = o.plyCap;
  api.searchThreads = o.searchThreads;
  api.maxSearchSeconds = o.maxSearchSeconds;
  play::WebApi webApi(std::move(variants), api);

  httplib::Server server;
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with which a second server
  // would silently share a port that is in use instead of being refused.
  server.set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  // API requests are a few hundred bytes: a larger body is refused (413) from its
  // Content-Length, before it is read.
  server.set_payload_max_length(kMaxRequestBytes);
  for (const auto& f : files) {
    // Read at each request, so an edited page shows on reload without a restart.
    server.Get(f.path, [&f](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-store");
      res.set_content(common::readWholeFile(f.file), f.type.c_str());
    });
  }
  auto apiHandler = [&webApi](const httplib::Request& req, httplib::Response& res) {
    std::map<std::string, std::string> query;
    for (const auto& [k, v] : req.params) query.emplace(k, v);
    res.set_header("Cache-Control", "no-store");
    answerWatchingTheClient(webApi, req.method, req.path, std::move(query), req.body, res);
  };
  server.Get(R"(/api/.*)", apiHandler);
  server.Post(R"(/api/.*)", apiHandler);
  // Last line of defence: a handler that throws still answers, and the server lives on.
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content(nlohmann::json{{"error", what}}.dump(), "application/json");
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // the API already wrote its JSON error
    res.set_content(nlohmann::json{{"error", httpErrorText(res.status, req)}}.dump(), "application/json");
  });
  // Before any body is read: a chunked body's length is known only once it has all arrived, so
  // the length limit above cannot stop it (a 300 MB chunked body was read and kept in memory):
  // every body must say its length. API bodies are JSON: another type is refused here rather
  // than parsed as a form (httplib's 8 KB form limit answered with a misleading 413).
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.has_header("Transfer-Encoding")) {
      res.status = 411;
      res.set_header("Connection", "close");  // the body that may follow is not read
      res.set_content(nlohmann::json{{"error", "request bodies must come with a Content-Length (at most " +
                                                   std::to_string(kMaxRequestBytes) +
                                                   " bytes); Transfer-Encoding is not accepted"}}.dump(),
                      "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    // A Content-Length that is not a number, or is absurd, is answered before the body: httplib
    // would take a malformed one for 0, and read and discard the whole announced body first (a
    // client that said 10^12 bytes and sent none got no answer at all).
    if (req.has_header("Content-Length")) {
      const std::string length = req.get_header_value("Content-Length");
      const bool digits = !length.empty() && length.find_first_not_of("0123456789") == std::string::npos;
      // Up to 64 MB httplib reads and discards the body, then answers 413 (a client still
      // writing its body could not read an earlier answer); beyond, it would wait for bytes a
      // client may never send.
      constexpr unsigned long long kMostBytesDiscarded = 64ull << 20;
      const bool tooBig = digits && (length.size() > 12 || std::stoull(length) > kMostBytesDiscarded);
      if (!digits || tooBig) {
        res.status = digits ? 413 : 400;
        res.set_header("Connection", "close");  // the body that may follow is not read
        res.set_content(nlohmann::json{{"error", tooBig ? "request body over " + std::to_string(kMaxRequestBytes) + " bytes"
                                                         : "Content-Length '" + length.substr(0, 40) +
                                                               "' is not a number of bytes"}}.dump(),
                        "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    const std::string type = req.get_header_value("Content-Type");
    if (req.method == "POST" && !type.empty() && type.rfind("application/json", 0) != 0) {
      res.status = 415;
      res.set_content(nlohmann::json{{"error", "request bodies are JSON: send Content-Type: application/json, not " +
                                                   type}}.dump(),
                      "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Other methods are answered 405 naming the allowed ones (httplib would say 404).
  auto notAllowed = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "GET, POST");
  };
  server.Delete(R"(/.*)", notAllowed);
  server.Put(R"(/.*)", notAllowed);
  server.Patch(R"(/.*)", notAllowed);

  const int port = o.port == 0 ? server.bind_to_any_port(o.host) : (server.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0) throw std::runtime_error("cannot listen on " + o.host + ":" + std::to_string(o.port) + ": " + whyNotListening(o.host));
  // Tests read this line to find the port: keep its shape.
  std::printf("poppy serve: listening on http://%s:%d/\n", o.host.c_str(), port);
  std::fflush(stdout);
  std::fprintf(stderr, "poppy serve: page from %s; engine: %s; %d playouts per move; Ctrl-C stops\n",
               webDir.string().c_str(),
               (engines + (engines.empty() ? "" : "else ") + "rollout MCTS for two players, the uniform network for four")
                   .c_str(),
               o.playouts);
  if (!server.listen_after_bind()) throw std::runtime_error("the server stopped unexpectedly");
}

}  // namespace

void addServeCommand(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "A local web page to play any variant against a model");
  cmd->add_option("--port", o->port, "TCP port (0: pick a free one and print it)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--host", o->host, "Address to listen on (127.0.0.1: this machine only)")->capture_default_str();
  cmd->add_option("--model", o->model,
                  "Model file for its variant (the others: their shipped models, models/shipped.yaml); none: no network at all")
      ->check(CLI::ExistingFile | CLI::IsMember({play::kNoModel}));
  cmd->add_option("--variant", o->variant,
                  "Variant the page starts with (name or file; default: the model's variant, else micro)");
  cmd->add_option("--device", o->device, "cpu, cuda or cuda:N")->capture_default_str();
  program::addInferenceOption(cmd, o->inference);
  cmd->add_option("--playouts", o->playouts, "Playouts per engine move and analysis")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--ply-cap", o->plyCap, "Plies after which a game is adjudicated (as in self-play)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--search-threads", o->searchThreads, "Threads searching each engine move and analysis together (with a model)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--max-search-seconds", o->maxSearchSeconds,
                  "Longest one search may hold the engine (others wait meanwhile; a search whose client left stops at once); 0: no limit")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--book", o->book, "Opening book (JSON) to show in the opening explorer")->check(CLI::ExistingFile);
  cmd->add_option("--web-dir", o->webDir, "Folder with index.html, poppy.js, poppy.css (default: found)");
  cmd->callback([o] { serve(*o); });
}

}  // namespace poppy::apps
