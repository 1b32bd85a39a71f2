// Golden-output regression tests: the full JSON result of shipped scenarios, compared field by field with
// tests/golden/<scenario>.json (numbers to a relative 1e-9, everything else exactly). After an intended change
// of the models, regenerate with:  CS_UPDATE_GOLDEN=1 ctest --preset release -R Golden  and review the diff.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/core/atomic_file.hpp"
#include "sim/report/json_result.hpp"
#include "sim/scenario/runner.hpp"

namespace cs {
namespace {

using Json = nlohmann::ordered_json;

void compare(const Json& want, const Json& got, const std::string& path) {
  if (want.is_number() && got.is_number()) {
    const double a = want.get<double>(), b = got.get<double>();
    EXPECT_LE(std::fabs(a - b), 1e-9 * std::max(std::fabs(a), std::fabs(b)) + 1e-15) << path << ": " << a << " -> " << b;
    return;
  }
  ASSERT_EQ(want.type(), got.type()) << path;
  if (want.is_object()) {
    for (auto it = want.begin(); it != want.end(); ++it) {
      ASSERT_TRUE(got.contains(it.key())) << path << "." << it.key() << " disappeared";
      compare(it.value(), got[it.key()], path + "." + it.key());
    }
    for (auto it = got.begin(); it != got.end(); ++it) EXPECT_TRUE(want.contains(it.key())) << path << "." << it.key() << " is new";
  } else if (want.is_array()) {
    ASSERT_EQ(want.size(), got.size()) << path;
    for (std::size_t i = 0; i < want.size(); ++i) compare(want[i], got[i], path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(want, got) << path;
  }
}

/// `j` with the source directory taken out of every string: a message naming a data file (the price book) names
/// it by its absolute path, which differs from clone to clone.
void strip_source_dir(Json& j) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    const std::string dir = std::string(CS_SOURCE_DIR) + "/";
    for (std::size_t at = s.find(dir); at != std::string::npos; at = s.find(dir, at)) s.erase(at, dir.size());
    j = s;
  } else if (j.is_structured()) {
    for (auto& v : j) strip_source_dir(v);
  }
}

class Golden : public ::testing::TestWithParam<const char*> {};

TEST_P(Golden, ResultMatchesTheRecordedOne) {
  const std::string name = GetParam();
  std::filesystem::current_path(CS_SOURCE_DIR);  // scenario paths in the result stay relative and stable
  const Scenario sc = load_scenario("scenarios/" + name + ".yaml");
  Json got = to_json(sc, run_scenario(sc));
  strip_source_dir(got);
  const std::string golden = std::string(CS_SOURCE_DIR) + "/tests/golden/" + name + ".json";
  const char* update = std::getenv("CS_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_file_atomically(golden, got.dump(2) + "\n");
    GTEST_SKIP() << "updated " << golden;
  }
  std::ifstream in(golden);
  ASSERT_TRUE(in) << golden << " missing: run with CS_UPDATE_GOLDEN=1 to record it";
  compare(Json::parse(in), got, name);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Golden,
                         ::testing::Values("gpt3-175b-1024xh100", "gpt3-1.3b-8xh100-dp", "gpt3-13b-32xh100-one-switch",
                                           "gpt-1.3b-1xh200", "qwen3-moe-6layer-1xh200-eager", "deepseek-v3-1024xh100",
                                           "qwen3-235b-256xh100", "deepseek-v3-2048xh800"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string s = i.param;
                           for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return s;
                         });

}  // namespace
}  // namespace cs
