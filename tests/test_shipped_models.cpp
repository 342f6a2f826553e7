// The shipped models (models/shipped.yaml, play/shipped_models.h): every entry is a model of its
// variant, every model folder has an entry, a broken file is named; and, with the poppy command,
// `play`, `usi`, `serve` and `match` play the variant's shipped model when no model is named, say
// which, and play without a network on `--model none`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/model_header.h"
#include "play/shipped_models.h"
#include "support/scratch_files.h"

namespace {

namespace fs = std::filesystem;
using poppy::testing::freshTempDir;
using poppy::testing::shellQuote;
using poppy::testing::slurp;
using poppy::testing::spit;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const kScratch = "poppy_test_shipped_";
::testing::Environment* const kCleanup = poppy::testing::removeScratchRootAtExit(kScratch);

// Sets POPPY_MODELS_DIR for one test and restores it after.
class ModelsDirFor {
 public:
  explicit ModelsDirFor(const fs::path& dir) {
    if (const char* old = std::getenv("POPPY_MODELS_DIR")) old_ = old;
    ::setenv("POPPY_MODELS_DIR", dir.c_str(), 1);
  }
  ~ModelsDirFor() {
    if (old_.empty())
      ::unsetenv("POPPY_MODELS_DIR");
    else
      ::setenv("POPPY_MODELS_DIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

// The first two-player variant Poppy knows that has no shipped model ("" if every one has).
std::string aVariantWithoutAModel() {
  std::set<std::string> shipped;
  for (const auto& [name, path] : poppy::play::shippedModels()) shipped.insert(name);
  for (const auto& name : poppy::game::knownVariants())
    if (!shipped.count(name) && poppy::game::loadVariant(name)->numPlayers == 2) return name;
  return "";
}

TEST(ShippedModels, EveryEntryIsAModelOfItsVariantsRules) {
  const auto models = poppy::play::shippedModels();
  ASSERT_FALSE(models.empty()) << poppy::play::shippedModelsFile();
  for (const auto& [variant, path] : models) {
    SCOPED_TRACE(variant + ": " + path);
    ASSERT_TRUE(fs::is_regular_file(path));
    const poppy::nn::ModelInfo info = poppy::nn::readModelInfo(path);
    EXPECT_EQ(info.variant, variant);
    const auto rules = poppy::game::loadVariant(variant);
    EXPECT_NO_THROW(poppy::nn::checkModelFits(info, path, rules.get(), 0));
    EXPECT_EQ(poppy::play::shippedModel(variant), path);
  }
}

// A folder of models/ that holds a trained model has its entry (a model shipped but never played
// by default would be a card no command reads), and the entry is one of that folder's files.
TEST(ShippedModels, EveryModelFolderHasItsEntry) {
  const fs::path models = fs::path(POPPY_SOURCE_DIR) / "models";
  int folders = 0;
  for (const auto& dir : fs::directory_iterator(models)) {
    if (!dir.is_directory()) continue;
    bool hasModel = false;
    for (const auto& f : fs::directory_iterator(dir.path())) hasModel = hasModel || f.path().extension() == ".model";
    if (!hasModel) continue;
    ++folders;
    const std::string variant = dir.path().filename().string();
    const std::string path = poppy::play::shippedModel(variant);
    ASSERT_FALSE(path.empty()) << variant << " has models but no line in models/shipped.yaml";
    EXPECT_TRUE(fs::equivalent(fs::path(path).parent_path(), dir.path())) << path;
  }
  EXPECT_GT(folders, 0);
}

TEST(ShippedModels, AVariantNotListedHasNone) {
  EXPECT_EQ(poppy::play::shippedModel("no-such-variant"), "");
}

TEST(ShippedModels, ABrokenListIsNamedWithWhatIsWrong) {
  const fs::path dir = freshTempDir(kScratch, "broken");
  const ModelsDirFor use(dir);
  const std::string file = (dir / "shipped.yaml").string();
  auto errorOf = [] {
    try {
      poppy::play::shippedModels();
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  spit(file, "micro: [micro-v4.model\n");
  EXPECT_THAT(errorOf(), HasSubstr(file + ": not valid YAML"));
  spit(file, "- micro\n- chu\n");
  EXPECT_THAT(errorOf(), HasSubstr(file + ": must map variant names to model files"));
  spit(file, "micro: micro/micro-v4.model\nchu: [a, b]\n");
  EXPECT_THAT(errorOf(), HasSubstr(file + ": line 2: expected 'VARIANT: FILE'"));
  // An empty list ships nothing; paths are taken relative to the list's folder.
  spit(file, "# nothing yet\n");
  EXPECT_TRUE(poppy::play::shippedModels().empty());
  spit(file, "micro: m/x.model\n");
  EXPECT_EQ(poppy::play::shippedModel("micro"), (dir / "m" / "x.model").string());
  fs::remove_all(dir);
}

#ifdef POPPY_BINARY
struct CommandRun {
  int code = -1;
  std::string out, err;
};

// Runs the poppy command with `input` on stdin (30 s at most).
CommandRun poppy(const std::vector<std::string>& args, const std::string& input = "") {
  const fs::path dir = freshTempDir(kScratch, "run");
  spit(dir / "in", input);
  std::string cmd = "timeout -k 5 30 " + shellQuote(POPPY_BINARY);
  for (const auto& a : args) cmd += " " + shellQuote(a);
  cmd += " <" + shellQuote((dir / "in").string()) + " >" + shellQuote((dir / "out").string()) + " 2>" +
         shellQuote((dir / "err").string());
  CommandRun r;
  r.code = poppy::testing::exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  fs::remove_all(dir);
  return r;
}

std::string fileName(const std::string& path) { return fs::path(path).filename().string(); }

// `poppy play` with `args`, quitting at once; its record goes to a scratch file.
CommandRun play(std::vector<std::string> args) {
  const fs::path dir = freshTempDir(kScratch, "play");
  args.insert(args.begin(), "play");
  for (const char* a : {"--playouts", "8", "--save"}) args.push_back(a);
  args.push_back((dir / "game.jsonl").string());
  CommandRun r = poppy(args, "quit\n");
  fs::remove_all(dir);
  return r;
}

TEST(ShippedModelsCli, PlayWithoutAModelPlaysTheVariantsShippedModel) {
  const std::string micro = fileName(poppy::play::shippedModel("micro"));
  ASSERT_FALSE(micro.empty());
  const CommandRun shipped = play({});
  EXPECT_EQ(shipped.code, 0) << shipped.err;
  EXPECT_THAT(shipped.err, HasSubstr("micro plays the shipped model"));
  EXPECT_THAT(shipped.out, HasSubstr("Poppy plays with the model"));
  EXPECT_THAT(shipped.out, HasSubstr(micro));

  const CommandRun none = play({"--model", "none"});
  EXPECT_EQ(none.code, 0) << none.err;
  EXPECT_THAT(none.err, Not(HasSubstr("shipped")));
  EXPECT_THAT(none.out, Not(HasSubstr(micro)));

  const std::string other = aVariantWithoutAModel();
  ASSERT_FALSE(other.empty());
  const CommandRun without = play({"--variant", other});
  EXPECT_EQ(without.code, 0) << without.err;
  EXPECT_THAT(without.err, HasSubstr(other + " has no shipped model"));
}

TEST(ShippedModelsCli, UsiFollowsTheVariantWithItsShippedModel) {
  const std::string micro = fileName(poppy::play::shippedModel("micro"));
  const std::string other = aVariantWithoutAModel();
  std::string whale;
  for (const auto& [name, path] : poppy::play::shippedModels())
    if (name != "micro" && poppy::game::loadVariant(name)->numPlayers == 2 && whale.empty()) whale = name;
  ASSERT_FALSE(whale.empty());
  const CommandRun r = poppy({"usi"}, "usi\nisready\nsetoption name UCI_Variant value " + whale +
                                   "\nisready\nsetoption name UCI_Variant value " + other +
                                   "\nisready\nsetoption name ModelFile value none\nsetoption name UCI_Variant value micro\n"
                                   "isready\nposition startpos\ngo nodes 16\nquit\n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("option name ModelFile type string default shipped"));
  EXPECT_THAT(r.err, HasSubstr("micro plays the shipped model"));
  // `auto` says what runs the network: Eigen (the kernel this CPU picked) for small calls, LibTorch above.
  EXPECT_THAT(r.out, HasSubstr(micro + " loaded on cpu (inference auto: Eigen, kernel "));
  EXPECT_THAT(r.out, HasSubstr(" positions, LibTorch on cpu above) (micro's shipped model"));
  EXPECT_THAT(r.out, HasSubstr(fileName(poppy::play::shippedModel(whale)) + " loaded on cpu (inference auto: "));
  EXPECT_THAT(r.out, HasSubstr(") (" + whale + "'s shipped model"));
  EXPECT_THAT(r.out, HasSubstr("info string " + other + " has no shipped model"));
  EXPECT_THAT(r.out, HasSubstr("bestmove "));
  // ModelFile none: micro again, without its model this time.
  EXPECT_EQ(r.out.find("loaded", r.out.rfind(other + " has no shipped model")), std::string::npos) << r.out;
}

// build/poppy-usi, the program a shogi GUI registers: `poppy usi` with no arguments at all; and
// build/poppy-usi-shogi, the same for standard shogi (GUIs that know no other variant never set
// UCI_Variant, so the program's name must choose it).
TEST(ShippedModelsCli, PoppyUsiIsTheUsiEngineWithoutArguments) {
  for (const std::string variant : {"micro", "shogi"}) {
    const std::string name = variant == "micro" ? "poppy-usi" : "poppy-usi-" + variant;
    const fs::path program = fs::path(POPPY_BINARY).parent_path() / name;
    ASSERT_TRUE(fs::exists(program)) << program;
    const fs::path dir = freshTempDir(kScratch, name);
    spit(dir / "in", "usi\nisready\nposition startpos\ngo nodes 32\nquit\n");
    const std::string cmd = "cd / && timeout -k 5 60 " + shellQuote(program.string()) + " <" +
                            shellQuote((dir / "in").string()) + " >" + shellQuote((dir / "out").string()) + " 2>" +
                            shellQuote((dir / "err").string());
    EXPECT_EQ(poppy::testing::exitCodeOf(std::system(cmd.c_str())), 0) << name << ": " << slurp(dir / "err");
    const std::string out = slurp(dir / "out");
    EXPECT_THAT(out, HasSubstr("id name Poppy"));
    EXPECT_THAT(out, HasSubstr("option name ModelFile type string default shipped"));
    EXPECT_THAT(out, HasSubstr("option name UCI_Variant type combo default " + variant + " "));
    const std::string shipped = poppy::play::shippedModel(variant);
    if (shipped.empty())  // no shipped model: the search without a network, and it says so
      EXPECT_THAT(out, HasSubstr("info string " + variant + " has no shipped model"));
    else {
      EXPECT_THAT(out, HasSubstr(fileName(shipped) + " loaded on cpu (inference auto: "));
      EXPECT_THAT(out, HasSubstr(") (" + variant + "'s shipped model"));
    }
    // The move is one of the variant's legal moves from its start (Poppy's own generator here;
    // test_usi checks Poppy's moves against Fairy-Stockfish's).
    const size_t at = out.find("bestmove ");
    ASSERT_NE(at, std::string::npos) << out;
    const std::string move = out.substr(at + 9, out.find_first_of(" \n", at + 9) - at - 9);
    const poppy::game::Position start(poppy::game::loadVariant(variant));
    poppy::game::MoveList legal;
    start.generateLegal(legal);
    bool found = false;
    for (int i = 0; i < legal.size(); ++i) found = found || start.moveToUsi(legal[i]) == move;
    EXPECT_TRUE(found) << name << " answered '" << move << "', not a legal " << variant << " move";
    fs::remove_all(dir);
  }
}

TEST(ShippedModelsCli, MatchPlaysTheShippedPlayerAndRefusesItWhereThereIsNone) {
  const fs::path dir = freshTempDir(kScratch, "match");
  const CommandRun r = poppy({"match", "--a", "shipped:16", "--b", "random", "--games", "2", "--records", "none", "--summary",
                       (dir / "s.json").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("player 'shipped:16' is "));
  EXPECT_THAT(r.err, HasSubstr(fileName(poppy::play::shippedModel("micro"))));
  EXPECT_TRUE(fs::is_regular_file(dir / "s.json"));

  const std::string other = aVariantWithoutAModel();
  const CommandRun none = poppy({"match", "--variant", other, "--a", "shipped", "--b", "random", "--games", "2", "--records",
                          "none", "--summary", "none"});
  EXPECT_EQ(none.code, 2) << none.err;
  EXPECT_THAT(none.err, HasSubstr("player 'shipped': " + other + " has no shipped model"));
  fs::remove_all(dir);
}

TEST(ShippedModelsCli, ABrokenShippedListStopsTheCommandAndIsNamed) {
  const fs::path dir = freshTempDir(kScratch, "cli-broken");
  spit(dir / "shipped.yaml", "micro: [\n");
  const ModelsDirFor use(dir);
  const CommandRun r = play({});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr((dir / "shipped.yaml").string() + ": not valid YAML"));
  spit(dir / "shipped.yaml", "micro: micro/missing.model\n");
  const CommandRun missing = play({});
  EXPECT_EQ(missing.code, 2) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr((dir / "micro" / "missing.model").string()));
  fs::remove_all(dir);
}
#endif

}  // namespace
