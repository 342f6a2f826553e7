// Model file headers without LibTorch (nn/model_header.h) and the checked JSON integers behind
// them (common/json_integer.h). These run in the sanitizer builds too: a float too large for int
// in a header field was undefined behaviour there (found by fuzz/fuzz_model_header).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/json_integer.h"
#include "nn/model_header.h"

using namespace poppy;
namespace fs = std::filesystem;

namespace {

// Expected values by hand: int holds -2^31 .. 2^31-1, uint32_t 0 .. 2^32-1.
TEST(JsonInteger, TakesOnlyIntegersThatFit) {
  int i = 7;
  EXPECT_TRUE(common::jsonToInteger(nlohmann::json(2147483647), i));
  EXPECT_EQ(i, 2147483647);
  EXPECT_TRUE(common::jsonToInteger(nlohmann::json(-2147483647 - 1), i));
  EXPECT_EQ(i, -2147483647 - 1);
  for (const char* bad : {"2147483648", "-2147483649", "10000000000", "1e36", "2.5", "-0.5", "\"5\"", "null",
                          "[1]", "true", "18446744073709551615"}) {
    i = 7;
    EXPECT_FALSE(common::jsonToInteger(nlohmann::json::parse(bad), i)) << bad;
    EXPECT_EQ(i, 7) << bad << ": the target was changed";
  }
  uint32_t u = 0;
  EXPECT_TRUE(common::jsonToInteger(nlohmann::json::parse("4294967295"), u));
  EXPECT_EQ(u, 4294967295u);
  EXPECT_FALSE(common::jsonToInteger(nlohmann::json::parse("4294967296"), u));
  EXPECT_FALSE(common::jsonToInteger(nlohmann::json::parse("-1"), u));
  size_t z = 0;
  EXPECT_TRUE(common::jsonToInteger(nlohmann::json::parse("18446744073709551615"), z));
  EXPECT_EQ(z, SIZE_MAX);
  EXPECT_FALSE(common::jsonToInteger(nlohmann::json::parse("-1"), z));
}

TEST(JsonInteger, IntegerAtNamesTheKey) {
  const auto doc = nlohmann::json::parse(R"({"width": 1e36, "height": 5})");
  EXPECT_EQ(common::integerAt<int>(doc, "height"), 5);
  try {
    common::integerAt<int>(doc, "width");
    ADD_FAILURE() << "1e36 was taken as an int";
  } catch (const nlohmann::json::type_error& e) {
    EXPECT_NE(std::string(e.what()).find("\"width\" must be an integer"), std::string::npos) << e.what();
  }
  EXPECT_THROW(common::integerAt<int>(doc, "depth"), nlohmann::json::out_of_range);
}

class ModelHeader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("poppy_model_header_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    info_.variant = "micro";
    info_.encoderVersion = 1;
    info_.shape = {29, 5, 4, 980, 4, 32, 32};
    info_.step = 100;
    info_.id = "gen-0001";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& bytes) {
    const std::string path = (dir_ / ("m" + std::to_string(serial_++) + ".model")).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  // The header line of a file of these weights with `field` set to the JSON text `value`.
  std::string withField(const std::string& field, const std::string& value) {
    std::string bytes = nn::modelFileBytes(info_, "weights");
    const size_t at = bytes.find("\"" + field + "\":");
    EXPECT_NE(at, std::string::npos) << field;
    const size_t start = at + field.size() + 3, end = bytes.find_first_of(",}", start);
    return bytes.replace(start, end - start, value);
  }

  fs::path dir_;
  nn::ModelInfo info_;
  int serial_ = 0;
};

TEST_F(ModelHeader, WrittenFileReadsBack) {
  const std::string path = write(nn::modelFileBytes(info_, "weights"));
  const nn::ModelFileContents c = nn::readModelFile(path, true);
  EXPECT_EQ(c.payload, "weights");
  EXPECT_EQ(c.info.shape.width, 4);
  EXPECT_EQ(c.info.id, "gen-0001");
  EXPECT_EQ(nn::readModelInfo(path).step, 100);
}

// A four-player network's value head (five outputs) is recorded; older files, without the
// field, have three; a size no variant has is refused.
TEST_F(ModelHeader, ValueOutputsAreRecorded) {
  EXPECT_EQ(nn::modelFileBytes(info_, "weights").find("value_outputs"), std::string::npos);
  info_.shape.valueOutputs = 5;
  const std::string path = write(nn::modelFileBytes(info_, "weights"));
  EXPECT_EQ(nn::readModelInfo(path).shape.valueOutputs, 5);
  EXPECT_THROW(nn::readModelInfo(write(withField("value_outputs", "9"))), nn::ModelError);
  info_.shape.valueOutputs = 3;
  EXPECT_EQ(nn::readModelInfo(write(nn::modelFileBytes(info_, "weights"))).shape.valueOutputs, 3);
}

// Auxiliary heads are recorded (and named where a network is described); older files, without
// the field, have none; a value that is not a boolean is refused. Two networks that differ in
// them alone are not the same network (weights of one do not load into the other).
TEST_F(ModelHeader, AuxiliaryHeadsAreRecorded) {
  EXPECT_EQ(nn::modelFileBytes(info_, "weights").find("auxiliary_heads"), std::string::npos);
  EXPECT_FALSE(nn::readModelInfo(write(nn::modelFileBytes(info_, "weights"))).shape.auxiliaryHeads);
  nn::NetworkShape plain = info_.shape;
  info_.shape.auxiliaryHeads = true;
  const std::string path = write(nn::modelFileBytes(info_, "weights"));
  EXPECT_TRUE(nn::readModelInfo(path).shape.auxiliaryHeads);
  EXPECT_EQ(nn::describeNetwork(info_.shape), "4 blocks x 32 channels, value head 32 wide, auxiliary heads");
  EXPECT_FALSE(nn::sameNetwork(plain, info_.shape));
  EXPECT_THROW(nn::readModelInfo(write(withField("auxiliary_heads", "1"))), nn::ModelError);
}

// Numbers that are not integers of the field's type are refused with ModelError naming the
// file and the field, by the header reader and by the full read alike.
TEST_F(ModelHeader, FieldsThatAreNotFittingIntegersAreRefused) {
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"width", "922222222222222222222222222222222222"},  // the fuzzer's input: a float > INT_MAX
      {"width", "1e36"},
      {"width", "3000000000"},
      {"height", "2.5"},
      {"planes", "-1e300"},
      {"step", "1e30"},
      {"payload_bytes", "-7"},
      {"payload_bytes", "1e20"},
      {"crc32", "4294967296"},
      {"crc32", "\"abc\""}};
  for (const auto& [field, value] : edits) {
    const std::string path = write(withField(field, value));
    for (bool withPayload : {false, true}) {
      try {
        nn::readModelFile(path, withPayload);
        ADD_FAILURE() << field << " = " << value << " was accepted (withPayload " << withPayload << ")";
      } catch (const nn::ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("\"" + field + "\""), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
