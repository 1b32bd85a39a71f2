// `clustersim schema` and references checked when a scenario loads, as a user meets them.
#include <gtest/gtest.h>

#include "run_cli.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

namespace fs = std::filesystem;

using cs::e2e::Outcome;
using cs::e2e::run_cli;

TEST(SchemaCli, PrintsAJsonSchemaForEveryInputKind) {
  for (const char* kind : {"scenario", "topology", "profile", "sweep", "schedule", "framework"}) {
    const Outcome o = run_cli(std::string("schema ") + kind, false);
    ASSERT_EQ(o.status, 0) << kind;
    const auto j = nlohmann::json::parse(o.output);
    EXPECT_EQ(j["$schema"], "https://json-schema.org/draft/2020-12/schema");
    EXPECT_EQ(j["type"], "object");
    EXPECT_FALSE(j["properties"].empty()) << kind;
  }
  EXPECT_EQ(run_cli("schema recipe").status, 2);
}

TEST(SchemaCli, AMisspeltPriceIdIsALocatedErrorNotATableOfZeroDollars) {
  // The flagship with facility.prices.electricity misspelt: before the fix `tco` printed $0 rows and exited 0.
  std::ifstream in(std::string(CS_SOURCE_DIR) + "/scenarios/gpt3-175b-1024xh100.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(text.find("\nfacility:"), std::string::npos) << "the test adds the section";
  text += "\nfacility:\n  prices: {electricity: eia-us-industrail-2025}\n";
  const fs::path file = fs::temp_directory_path() / ("cs_misspelt_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << text;
  for (const char* cmd : {"tco ", "run "}) {
    const Outcome o = run_cli(cmd + file.string());
    EXPECT_EQ(o.status, 2) << cmd << o.output;
    EXPECT_NE(o.output.find("facility.prices.electricity"), std::string::npos) << o.output;
    EXPECT_NE(o.output.find("eia-us-industrail-2025"), std::string::npos) << o.output;
    EXPECT_EQ(o.output.find("$0"), std::string::npos) << o.output;
  }
  fs::remove(file);
}

}  // namespace
