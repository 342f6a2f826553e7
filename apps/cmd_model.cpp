// `poppy model info FILE...`: what a model file holds, read from its header without LibTorch:
// the variant and rules it was trained for (and whether this checkout's variant file still has
// those rules), the encoder, the network, the training step, and the file's checksum.
// `poppy model export FILE --format onnx|torchscript`: the network for other programs, written by
// scripts/poppy_model.py with Debian's PyTorch.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "common/data_dirs.h"
#include "game/rules_fingerprint.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/model_header.h"

namespace poppy::apps {
namespace {

struct ModelInfoArgs {
  std::vector<std::string> files;
  bool json = false;
};

// Whether the rules the model was trained for are the rules this checkout plays.
std::string rulesVerdict(const nn::ModelInfo& info) {
  game::VariantPtr variant;
  try {
    variant = game::loadVariant(info.variant);
  } catch (const std::exception&) {
    return "no variant file named " + info.variant + " here";
  }
  if (!info.rules) return "not recorded (a file older than rules fingerprints)";
  if (info.rules == variant->fingerprint) return "the same as " + variant->sourcePath;
  return "differ from " + variant->sourcePath + " (" + game::fingerprintHex(variant->fingerprint) +
         "): the variant file was edited since";
}

void printInfo(const std::string& file, bool asJson) {
  const nn::ModelFileContents model = nn::readModelFile(file, /*withPayload=*/true);  // checks the CRC
  const nn::ModelInfo& i = model.info;
  const nn::NetworkShape& s = i.shape;
  const double mflop = nn::flopsPerPosition(s) / 1e6;
  const uintmax_t bytes = std::filesystem::file_size(file);
  const bool encoderFits = i.encoderVersion == nn::Encoder::kVersion;
  if (asJson) {
    nlohmann::json j;
    nn::modelInfoToJson(i, j);
    j["file"] = file;
    j["file_bytes"] = bytes;
    j["checksum_ok"] = true;
    j["mflop_per_position"] = mflop;
    j["rules_here"] = rulesVerdict(i);
    j["encoder_here"] = nn::Encoder::kVersion;
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("%s\n", file.c_str());
  std::printf("  variant   %s, rules %s: %s\n", i.variant.c_str(),
              i.rules ? game::fingerprintHex(i.rules).c_str() : "?", rulesVerdict(i).c_str());
  std::printf("  encoder   version %d (%s)\n", i.encoderVersion,
              encoderFits ? "this poppy's" : ("this poppy reads version " + std::to_string(nn::Encoder::kVersion)).c_str());
  std::printf("  network   %s, %d value outputs; input %d planes of %dx%d, %d policy moves (%s)\n",
              nn::describeNetwork(s).c_str(), s.valueOutputs, s.planes, s.width, s.height, s.policySize,
              s.policyPlanes > 0 ? (std::to_string(s.policyPlanes) + " spatial planes").c_str() : "dense head");
  std::printf("  cost      %.2f MFLOP per position\n", mflop);
  std::printf("  training  step %lld, saved as %s\n", static_cast<long long>(i.step), i.id.empty() ? "?" : i.id.c_str());
  std::printf("  file      %ju bytes, checksum OK\n", bytes);
}

namespace fs = std::filesystem;

struct ModelExportArgs {
  std::string model, format = "onnx", out;
};

// Debian's Python first: its python3-torch and python3-onnx are what scripts/setup.sh installs, and
// a python3 earlier on PATH (pyenv, a venv) may lack them. POPPY_PYTHON names another.
std::string pythonCommand() {
  if (const char* p = std::getenv("POPPY_PYTHON"); p && *p) return p;
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The network as TorchScript or ONNX for other programs, written by scripts/poppy_model.py
// (PyTorch reads LibTorch's weights; the C++ side checks the file first, so a wrong file is
// named here without starting Python).
void exportModel(const ModelExportArgs& a) {
  nn::readModelFile(a.model, true);  // a missing, damaged or foreign file stops here, named
  std::string script;
  for (const fs::path& p : common::dataPaths("scripts/poppy_model.py"))
    if (script.empty() && fs::exists(p)) script = p.string();
  if (script.empty()) throw std::runtime_error("scripts/poppy_model.py is in neither the installed data nor the source tree");
  std::string out = a.out;
  if (out.empty()) out = (fs::path(a.model).replace_extension(a.format == "onnx" ? ".onnx" : ".pt")).string();
  if (fs::absolute(out) == fs::absolute(a.model)) throw std::runtime_error("--out " + out + " is the model file itself");
  const std::string command = shellQuote(pythonCommand()) + " " + shellQuote(script) + " export " + shellQuote(a.model) +
                              " " + shellQuote(out) + " --format " + shellQuote(a.format);
  std::fflush(stdout);
  const int status = std::system(command.c_str());
  if (status == -1) throw std::runtime_error("cannot run " + pythonCommand());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("the export of " + a.model + " failed (" + pythonCommand() + " " + script +
                             " said why above; Debian's python3-torch and python3-onnx are needed)");
}

}  // namespace

void addModelCommands(CLI::App& app) {
  CLI::App* model = app.add_subcommand("model", "Look at model files");
  model->require_subcommand(1);
  auto a = std::make_shared<ModelInfoArgs>();
  CLI::App* info = model->add_subcommand(
      "info", "What a model file holds: variant and rules, encoder, network, training step; checks its checksum");
  info->add_option("files", a->files, "Model files")->required()->check(CLI::ExistingFile);
  info->add_flag("--json", a->json, "One JSON object per file instead of text");
  info->callback([a] {
    for (const std::string& f : a->files) printInfo(f, a->json);
  });

  auto e = std::make_shared<ModelExportArgs>();
  CLI::App* exportCmd = model->add_subcommand(
      "export", "Write a model's network as ONNX or TorchScript for other programs (needs python3-torch, python3-onnx)");
  exportCmd->add_option("model", e->model, "Model file")->required()->check(CLI::ExistingFile);
  exportCmd->add_option("--format", e->format, "onnx or torchscript")
      ->check(CLI::IsMember({"onnx", "torchscript"}))
      ->capture_default_str();
  exportCmd->add_option("--out", e->out, "File to write (default: the model's name with .onnx or .pt)");
  exportCmd->callback([e] { exportModel(*e); });
}

}  // namespace poppy::apps
