// `poppy model export`: a model's network as ONNX and as TorchScript, read back in Python
// (scripts/poppy_model.py, PyTorch from Debian's python3-torch) and compared with what Poppy's own
// LibTorch network computes for the same planes. The reference numbers come from Poppy's C++
// forward pass, the exported file is run by PyTorch's (TorchScript) or checked by ONNX's checker
// (ONNX: there is no ONNX runtime in Debian 12; the network it was exported from is run instead).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "nn/model_file.h"
#include "nn/network.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

namespace fs = std::filesystem;
using testing::shellQuote;

const std::string kModel = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v4.model";

std::string python() { return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

struct Ran {
  int code = -1;
  std::string output;
};

Ran run(const std::string& command, const fs::path& dir) {
  const fs::path out = dir / "output.txt";
  Ran r;
  r.code = testing::exitCodeOf(std::system((command + " > " + shellQuote(out.string()) + " 2>&1").c_str()));
  std::ifstream in(out);
  r.output.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

TEST(ModelExport, OnnxAndTorchScriptGivePoppysOutputs) {
  const fs::path dir = testing::freshTempDir("poppy-export", "match");
  if (run(shellQuote(python()) + " -c 'import torch, onnx'", dir).code != 0)
    GTEST_SKIP() << "python3-torch or python3-onnx is not installed (scripts/setup.sh installs both)";

  // Poppy's outputs for 6 inputs of random 0/1 planes (the network is a function of its planes;
  // any planes test the same arithmetic).
  nn::ModelInfo info;
  nn::PolicyValueNet net = nn::loadModel(kModel, &info, nullptr, 0);
  net->eval();
  const nn::NetworkShape& s = info.shape;
  std::mt19937 rng(7);
  torch::Tensor planes = torch::zeros({6, s.planes, s.height, s.width});
  float* p = planes.data_ptr<float>();
  for (int64_t i = 0; i < planes.numel(); ++i) p[i] = float(rng() % 4 == 0);
  torch::NoGradGuard noGrad;
  const auto [policy, value] = net->forward(planes);
  auto list = [](const torch::Tensor& t) {
    const torch::Tensor c = t.contiguous();
    return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  };
  const fs::path cases = dir / "cases.json";
  std::ofstream(cases) << nlohmann::json{{"planes", list(planes)}, {"policy", list(policy)}, {"value", list(value)}}.dump();

  const std::string script = std::string(POPPY_SOURCE_DIR) + "/scripts/poppy_model.py";
  for (const char* format : {"onnx", "torchscript"}) {
    SCOPED_TRACE(format);
    const fs::path out = dir / (std::string("micro-v4.") + (std::string(format) == "onnx" ? "onnx" : "pt"));
    const Ran exported = run(shellQuote(POPPY_BINARY) + " model export " + shellQuote(kModel) + " --format " + format +
                                 " --out " + shellQuote(out.string()),
                             dir);
    ASSERT_EQ(exported.code, 0) << exported.output;
    EXPECT_NE(exported.output.find("input planes [batch, 29, 5, 4]"), std::string::npos) << exported.output;
    ASSERT_TRUE(fs::exists(out));
    const Ran checked = run(shellQuote(python()) + " " + shellQuote(script) + " check " + shellQuote(out.string()) +
                                " --model " + shellQuote(kModel) + " --cases " + shellQuote(cases.string()),
                            dir);
    EXPECT_EQ(checked.code, 0) << checked.output;
    EXPECT_NE(checked.output.find("matches Poppy's outputs"), std::string::npos) << checked.output;
  }
  fs::remove_all(dir);
}

// A damaged model is refused by name before Python starts; so is an unknown format.
TEST(ModelExport, BadInputIsNamed) {
  const fs::path dir = testing::freshTempDir("poppy-export", "bad");
  std::string bytes;
  {
    std::ifstream in(kModel, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() - 100] ^= 0x10;
  const fs::path broken = dir / "broken.model";
  std::ofstream(broken, std::ios::binary) << bytes;
  const Ran r = run(shellQuote(POPPY_BINARY) + " model export " + shellQuote(broken.string()), dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("broken.model: checksum mismatch"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "broken.onnx"));
  const Ran format = run(shellQuote(POPPY_BINARY) + " model export " + shellQuote(kModel) + " --format tflite", dir);
  EXPECT_EQ(format.code, 2) << format.output;
  EXPECT_NE(format.output.find("--format"), std::string::npos) << format.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace poppy
