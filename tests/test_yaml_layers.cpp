// Settings files with a base (`base: FILE`, common/yaml_layers.h): the file's keys over its base's,
// mapping by mapping, through loadTrainConfig as `poppy train` reads them, and every refusal
// naming the file and the key. The expected values are read off the YAML written in each test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/yaml_layers.h"
#include "common/yaml_reader.h"
#include "support/scratch_files.h"
#include "training/train_config.h"

namespace poppy {
namespace {

namespace fs = std::filesystem;
using testing::spit;

const ::testing::Environment* const kScratch = testing::removeScratchRootAtExit("poppy_test_yaml_layers_");

// A small but complete run configuration, the base of the tests' files.
const char* const kBase =
    "variant: micro\n"
    "network: {blocks: 2, channels: 16, value_hidden: 16}\n"
    "selfplay: {games_per_iteration: 8, parallel_games: 4, playouts: 32}\n"
    "training:\n"
    "  batch_size: 64\n"
    "  window: 5000\n"
    "  min_samples: 500\n"
    "  lr_schedule: [[0, 0.02], [1000, 0.01], [2000, 0.005]]\n"
    "gate: {games: 0}\n";

class ConfigBase : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::freshTempDir("poppy_test_yaml_layers_", ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  std::string write(const std::string& name, const std::string& yaml) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    spit(p, yaml);
    return p.string();
  }
  // Loading `path` is refused with a ConfigError whose message holds every one of `mentions`.
  static void expectRefused(const std::string& path, const std::vector<std::string>& mentions) {
    try {
      training::loadTrainConfig(path);
      ADD_FAILURE() << path << " loaded";
    } catch (const common::ConfigError& e) {
      for (const std::string& m : mentions)
        EXPECT_NE(std::string(e.what()).find(m), std::string::npos) << "no '" << m << "' in: " << e.what();
    }
  }
  fs::path dir_;
};

TEST_F(ConfigBase, AKeyReplacesItselfAndKeepsTheBasesOtherKeys) {
  write("base.yaml", kBase);
  const std::string child = write("child.yaml", "base: base.yaml\ntraining: {window: 9000}\nnetwork: {blocks: 3}\n");
  const training::TrainRunConfig c = training::loadTrainConfig(child);
  EXPECT_EQ(c.window, 9000);      // the child's
  EXPECT_EQ(c.batchSize, 64);     // the base's, beside it in training:
  EXPECT_EQ(c.minSamples, 500);
  EXPECT_EQ(c.blocks, 3);         // the child's
  EXPECT_EQ(c.channels, 16);      // the base's
  EXPECT_EQ(c.selfplaySearch.values.playouts, 32);
  EXPECT_EQ(c.gamesPerIteration, 8);
  ASSERT_EQ(c.lrSchedule.size(), 3u);
  EXPECT_EQ(c.lrSchedule[2].first, 2000);
  EXPECT_EQ(c.sourcePath, child);
}

TEST_F(ConfigBase, AListOrAValueReplacesTheBasesWhole) {
  write("base.yaml", kBase);
  const std::string child = write("child.yaml", "base: base.yaml\ntraining: {lr_schedule: [[0, 0.004]]}\nvariant: minishogi\n");
  const training::TrainRunConfig c = training::loadTrainConfig(child);
  ASSERT_EQ(c.lrSchedule.size(), 1u);
  EXPECT_DOUBLE_EQ(c.lrSchedule[0].second, 0.004);
  EXPECT_EQ(c.variant, "minishogi");
}

TEST_F(ConfigBase, BasesChainAndArePathsFromTheirOwnFolder) {
  write("shared/base.yaml", kBase);
  write("shared/middle.yaml", "base: base.yaml\nselfplay: {playouts: 64}\ntraining: {batch_size: 128}\n");
  const std::string child = write("runs/child.yaml", "base: ../shared/middle.yaml\ntraining: {batch_size: 32}\n");
  const training::TrainRunConfig c = training::loadTrainConfig(child);
  EXPECT_EQ(c.batchSize, 32);                          // child over middle
  EXPECT_EQ(c.selfplaySearch.values.playouts, 64);     // middle over base
  EXPECT_EQ(c.gamesPerIteration, 8);                   // base
  EXPECT_EQ(c.window, 5000);                           // base
  const common::LayeredYaml layered = common::loadLayeredYaml(child);
  ASSERT_EQ(layered.layers.size(), 3u);
  EXPECT_EQ(layered.layers[2].path, (dir_ / "runs" / "../shared/middle.yaml").parent_path().string() + "/base.yaml");
}

// yaml-cpp nodes are shared: merging must not write the child's values into the base's tree.
TEST_F(ConfigBase, MergingLeavesEachFilesOwnTreeAsRead) {
  write("base.yaml", kBase);
  const std::string child = write("child.yaml", "base: base.yaml\ntraining: {window: 9000}\n");
  const common::LayeredYaml layered = common::loadLayeredYaml(child);
  ASSERT_EQ(layered.layers.size(), 2u);
  EXPECT_EQ(layered.layers[1].root["training"]["window"].as<int>(), 5000);
  EXPECT_EQ(layered.layers[0].root["training"]["window"].as<int>(), 9000);
  EXPECT_FALSE(layered.layers[0].root["training"]["batch_size"]);
  EXPECT_EQ(layered.merged["training"]["window"].as<int>(), 9000);
  EXPECT_EQ(layered.merged["training"]["batch_size"].as<int>(), 64);
  EXPECT_FALSE(layered.merged["base"]);
}

// What a run directory keeps (config.yaml): without a base the file's own bytes, comments too;
// with one the merged settings, which load to the same configuration and name no base.
TEST_F(ConfigBase, SettingsTextStandsAlone) {
  const std::string base = write("base.yaml", std::string("# a comment kept\n") + kBase);
  EXPECT_EQ(training::loadTrainConfig(base).settingsText, testing::slurp(base));
  const std::string child = write("child.yaml", "base: base.yaml\ntraining: {window: 9000}\nselfplay: {playouts: 48}\n");
  const training::TrainRunConfig c = training::loadTrainConfig(child);
  EXPECT_EQ(c.settingsText.find("base:"), std::string::npos) << c.settingsText;
  const std::string alone = (dir_ / "elsewhere" / "config.yaml").string();
  fs::create_directories(fs::path(alone).parent_path());
  spit(alone, c.settingsText);
  const training::TrainRunConfig again = training::loadTrainConfig(alone);
  EXPECT_EQ(again.window, 9000);
  EXPECT_EQ(again.batchSize, 64);
  EXPECT_EQ(again.selfplaySearch.values.playouts, 48);
  EXPECT_EQ(again.gamesPerIteration, 8);
  EXPECT_EQ(again.blocks, 2);
  ASSERT_EQ(again.lrSchedule.size(), 3u);
  EXPECT_DOUBLE_EQ(again.lrSchedule[1].second, 0.01);
  EXPECT_EQ(again.settingsText, testing::slurp(alone));
}

TEST_F(ConfigBase, BadBasesAreRefusedNamingTheFile) {
  const std::string missing = write("missing.yaml", "base: nowhere.yaml\n");
  expectRefused(missing, {missing, "'base'", "nowhere.yaml", "no such file", "line 1"});
  const std::string list = write("list.yaml", "base: [a.yaml, b.yaml]\n");
  expectRefused(list, {list, "'base'", "must be the name of a settings file"});
  const std::string empty = write("empty.yaml", "base: ''\n");
  expectRefused(empty, {empty, "'base'"});
  const std::string a = write("a.yaml", "base: b.yaml\n");
  write("b.yaml", "base: a.yaml\n");
  expectRefused(a, {"b.yaml", "'base'", "a.yaml", "loop"});
  const std::string self = write("self.yaml", "base: self.yaml\n");
  expectRefused(self, {self, "loop"});
  write("ok.yaml", kBase);
  const std::string nestedOk = write("nested-ok.yaml", "base: ok.yaml\ntraining: {base: x.yaml}\n");
  expectRefused(nestedOk, {nestedOk, "training.base", "unknown key"});
}

// An error in a key a file takes from its base names the base's file and line, and the file.
TEST_F(ConfigBase, AnErrorInTheBaseNamesTheBaseAndItsLine) {
  const std::string base = write("base.yaml", "variant: micro\ntraining:\n  batch_size: 64\n  momentum: 1.5\n");
  const std::string child = write("child.yaml", "base: base.yaml\nselfplay: {playouts: 16}\n");
  expectRefused(child, {base, "training.momentum", "(line 4)", "is the base of " + child});
  // The same key set in the file itself: the file's own line, no base named.
  const std::string fixed = write("fixed.yaml", "base: base.yaml\n\ntraining: {momentum: 0.99}\nselfplay: {playouts: 0}\n");
  expectRefused(fixed, {fixed, "selfplay.playouts", "(line 4)"});
  const std::string unknown = write("unknown.yaml", "base: ok.yaml\ntraining: {windw: 10}\n");
  write("ok.yaml", kBase);
  expectRefused(unknown, {unknown, "training.windw", "unknown key", "(line 2)"});
}

TEST_F(ConfigBase, ADuplicatedKeyInAnyFileOfTheChainIsRefused) {
  const std::string base = write("base.yaml", "variant: micro\ntraining:\n  window: 10\n  window: 20\n");
  const std::string child = write("child.yaml", "base: base.yaml\n");
  expectRefused(child, {base, "training.window", "twice", "lines 3 and 4"});
  write("good.yaml", kBase);
  const std::string twice = write("twice.yaml", "base: good.yaml\nseed: 1\nseed: 2\n");
  expectRefused(twice, {twice, "'seed'", "twice"});
}

// Settings on the command line (`poppy train --set KEY=VALUE`): one more layer, over the file and
// its bases; values are YAML, so lists and mappings can be given too.
TEST_F(ConfigBase, CommandLineSettingsGoOverTheFileAndItsBases) {
  write("base.yaml", kBase);
  const std::string child = write("child.yaml", "base: base.yaml\ntraining: {window: 9000}\n");
  const training::TrainRunConfig c = training::loadTrainConfig(
      child, {"training.window=7000", "selfplay.playouts=24", "training.lr_schedule=[[0, 0.003]]", "network={blocks: 5}"});
  EXPECT_EQ(c.window, 7000);                        // over the file's 9000
  EXPECT_EQ(c.selfplaySearch.values.playouts, 24);  // over the base's 32
  EXPECT_EQ(c.gamesPerIteration, 8);                // the base's, beside it
  ASSERT_EQ(c.lrSchedule.size(), 1u);
  EXPECT_DOUBLE_EQ(c.lrSchedule[0].second, 0.003);
  EXPECT_EQ(c.blocks, 5);
  EXPECT_EQ(c.channels, 16);  // a mapping merges too
  // The merged text names the settings and loads alone to the same configuration.
  EXPECT_NE(c.settingsText.find("--set training.window=7000"), std::string::npos) << c.settingsText;
  const std::string alone = (dir_ / "alone.yaml").string();
  spit(alone, c.settingsText);
  const training::TrainRunConfig again = training::loadTrainConfig(alone);
  EXPECT_EQ(again.window, 7000);
  EXPECT_EQ(again.selfplaySearch.values.playouts, 24);
  EXPECT_EQ(again.batchSize, 64);
  // A file without a base takes them as well.
  const std::string plain = write("plain.yaml", kBase);
  EXPECT_EQ(training::loadTrainConfig(plain, {"seed=7"}).seed, 7u);
  EXPECT_EQ(training::loadTrainConfig(plain).seed, 1u);
}

TEST_F(ConfigBase, BadCommandLineSettingsAreRefusedNamingTheSetting) {
  const std::string plain = write("plain.yaml", kBase);
  const auto refused = [&](const std::vector<std::string>& settings, const std::vector<std::string>& mentions) {
    SCOPED_TRACE(settings.front());
    try {
      training::loadTrainConfig(plain, settings);
      ADD_FAILURE() << "accepted";
    } catch (const common::ConfigError& e) {
      for (const std::string& m : mentions)
        EXPECT_NE(std::string(e.what()).find(m), std::string::npos) << "no '" << m << "' in: " << e.what();
    }
  };
  refused({"training.window"}, {plain, "--set training.window", "KEY=VALUE"});
  refused({"training.window="}, {"no value"});
  refused({"training..window=3"}, {"is not a key"});
  refused({"=3"}, {"is not a key"});
  refused({"training.win dow=3"}, {"is not a key"});
  refused({"training.window=[1, 2"}, {"not valid YAML"});
  refused({"seed=1", "seed=2"}, {"--set seed=2", "twice"});
  refused({"training={window: 10}", "training.window=20"}, {"beside training"});
  refused({"base=other.yaml"}, {"named in the file"});
  // Values are checked as a file's are, and the message says they came from --set.
  refused({"training.window=0"}, {plain, "training.window", "(from --set)", "out of range"});
  refused({"training.windw=5"}, {"training.windw", "(from --set)", "unknown key"});
  refused({"selfplay.playouts=many"}, {"selfplay.playouts", "(from --set)", "whole number"});
}

// Each shipped config that names a base (configs/train/micro-continue.yaml and the others)
// loads, and its base is one of the shipped configs.
TEST(ShippedConfigBases, EveryBaseIsAShippedConfig) {
  int withBase = 0;
  for (const auto& entry : fs::directory_iterator(std::string(POPPY_SOURCE_DIR) + "/configs/train")) {
    if (entry.path().extension() != ".yaml") continue;
    const common::LayeredYaml layered = common::loadLayeredYaml(entry.path().string());
    if (!layered.merges()) continue;
    ++withBase;
    for (const common::YamlLayer& l : layered.layers)
      EXPECT_EQ(fs::weakly_canonical(l.path).parent_path(), fs::weakly_canonical(entry.path()).parent_path()) << l.path;
  }
  EXPECT_GE(withBase, 5);  // micro-continue, -grow, -grow8, -aux, -async
}

}  // namespace
}  // namespace poppy
