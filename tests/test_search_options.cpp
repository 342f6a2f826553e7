// The declaration of the search settings (mcts/search_options.h): one name per place, the values
// each takes, and its field. Expected texts and ranges are written here by hand from the table's
// purpose (the ranges a config accepted before the table existed), not read back from it.
#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>

#include "mcts/play_time_search.h"
#include "mcts/search_options.h"

namespace poppy {
namespace {

using mcts::SearchOption;

TEST(SearchOptions, EachNameIsUsedOnceInEachPlace) {
  std::set<std::string> keys, flags, usiNames;
  for (const SearchOption& o : mcts::searchOptions()) {
    EXPECT_TRUE(keys.insert(o.key).second) << o.key;
    EXPECT_NE(o.where, 0u) << o.key << " is settable nowhere";
    if (o.where & SearchOption::kMatch) {
      ASSERT_NE(o.flag, nullptr) << o.key;
      EXPECT_EQ(std::string(o.flag).rfind("--", 0), 0u) << o.flag;
      EXPECT_TRUE(flags.insert(o.flag).second) << o.flag;
    }
    if (o.where & SearchOption::kUsi) {
      ASSERT_NE(o.usiName, nullptr) << o.key;
      EXPECT_EQ(std::string(o.usiName).find(' '), std::string::npos) << "USI names here have no spaces: " << o.usiName;
      EXPECT_TRUE(usiNames.insert(o.usiName).second) << o.usiName;
    }
    const int fields = (o.real != nullptr) + (o.integer != nullptr) + (o.wide != nullptr) + (o.boolean != nullptr);
    EXPECT_EQ(fields, 1) << o.key << " must set exactly one field";
    EXPECT_LE(o.min, o.max) << o.key;
  }
  // The settings the three readers had before the table, each still there.
  for (const char* k : {"playouts", "cpuct", "fpu_reduction", "policy_temperature", "leaves_per_tree", "solver",
                        "leaf_mate_plies", "root_mate_plies", "root_mate_nodes", "repetition_contempt", "gumbel_actions"})
    EXPECT_NE(mcts::searchOptionByKey(k), nullptr) << k;
  EXPECT_EQ(mcts::searchOptionByKey("nonsense"), nullptr);
}

TEST(SearchOptions, UsiNamesMatchWithoutRegardToCase) {
  const SearchOption* a = mcts::searchOptionByUsiName("cpuct");
  const SearchOption* b = mcts::searchOptionByUsiName("CPUCT");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_STREQ(a->key, "cpuct");
  EXPECT_STREQ(mcts::searchOptionByUsiName("batchsize")->key, "leaves_per_tree");  // the GUI word for it
  EXPECT_EQ(mcts::searchOptionByUsiName("Playouts"), nullptr) << "usi's Playouts is the go budget, not this table's";
  EXPECT_EQ(mcts::searchOptionByUsiName("CPuctX"), nullptr);
}

TEST(SearchOptions, ValuesOutsideTheRangeOrOfTheWrongKindAreRefused) {
  const SearchOption& cpuct = *mcts::searchOptionByKey("cpuct");
  EXPECT_FALSE(cpuct.whyNot(0.01));
  EXPECT_FALSE(cpuct.whyNot(100));
  EXPECT_TRUE(cpuct.whyNot(0.005));
  EXPECT_TRUE(cpuct.whyNot(100.5));
  EXPECT_TRUE(cpuct.whyNot(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_EQ(cpuct.values(), "a number in [0.01, 100]");

  const SearchOption& leaves = *mcts::searchOptionByKey("leaves_per_tree");
  EXPECT_FALSE(leaves.whyNot(256));
  EXPECT_TRUE(leaves.whyNot(257));
  EXPECT_TRUE(leaves.whyNot(0));
  EXPECT_TRUE(leaves.whyNot(2.5)) << "a whole number";
  EXPECT_EQ(leaves.values(), "a whole number in [1, 256]");

  // Mates are odd plies: a leaf mate search of 2 plies finds nothing 1 does not.
  const SearchOption& leafMate = *mcts::searchOptionByKey("leaf_mate_plies");
  for (int ok : {0, 1, 3}) EXPECT_FALSE(leafMate.whyNot(ok)) << ok;
  EXPECT_TRUE(leafMate.whyNot(2));
  EXPECT_TRUE(leafMate.whyNot(5));
  EXPECT_EQ(leafMate.values(), "0, 1 or 3");
  EXPECT_NE(leafMate.whyNot(2)->find("odd"), std::string::npos) << *leafMate.whyNot(2);

  const SearchOption& solver = *mcts::searchOptionByKey("solver");
  EXPECT_EQ(solver.values(), "true or false");
  EXPECT_TRUE(solver.whyNot(2));
}

TEST(SearchOptions, SetAndGetReachTheSearchParamsFields) {
  mcts::SearchParams p;
  mcts::searchOptionByKey("cpuct")->set(p, 2.5);
  EXPECT_FLOAT_EQ(p.cpuct, 2.5f);
  mcts::searchOptionByKey("policy_temperature")->set(p, 1.6);
  EXPECT_FLOAT_EQ(p.policyTemperature, 1.6f);
  mcts::searchOptionByKey("leaves_per_tree")->set(p, 16);
  EXPECT_EQ(p.leavesPerTree, 16);
  mcts::searchOptionByKey("root_mate_nodes")->set(p, 50000000);
  EXPECT_EQ(p.rootMateNodes, 50000000);
  mcts::searchOptionByKey("solver")->set(p, 0);
  EXPECT_FALSE(p.solver);
  mcts::searchOptionByKey("gumbel_actions")->set(p, 8);
  EXPECT_EQ(p.gumbelConsidered, 8);
  mcts::searchOptionByKey("cpuct_growth")->set(p, 0.45);
  EXPECT_FLOAT_EQ(p.cpuctGrowth, 0.45f);
  mcts::searchOptionByKey("cpuct_base")->set(p, 1000);
  EXPECT_FLOAT_EQ(p.cpuctBase, 1000.0f);
  mcts::searchOptionByKey("material_weight")->set(p, 0.5);
  EXPECT_FLOAT_EQ(p.materialWeight, 0.5f);
  mcts::searchOptionByKey("material_scale")->set(p, 0.2);
  EXPECT_FLOAT_EQ(p.materialScale, 0.2f);
  mcts::searchOptionByKey("repetition_contempt")->set(p, 0.3);
  EXPECT_FLOAT_EQ(p.repetitionContempt, 0.3f);
  EXPECT_DOUBLE_EQ(mcts::searchOptionByKey("leaves_per_tree")->get(p), 16);
  EXPECT_EQ(mcts::searchOptionByKey("solver")->text(p), "false");
  EXPECT_EQ(mcts::searchOptionByKey("cpuct")->text(p), "2.5");
  // The play-time default of the policy temperature (tuned: docs/experiments/play-time-search.md).
  EXPECT_EQ(mcts::searchOptionByKey("policy_temperature")->text(mcts::playTimeSearchParams()), "3.2");
}

}  // namespace
}  // namespace poppy
