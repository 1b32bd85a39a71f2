// A published model name without dimensions finds its preset only when exactly one preset's name, in letters
// and digits, appears in it.
#include <gtest/gtest.h>

#include "sim/workload/model_zoo.hpp"

namespace cs {
namespace {

TEST(PresetByName, FindsTheOnePresetTheNameSpellsOut) {
  const auto gpt = match_preset_by_name("GPT3-20B");
  ASSERT_TRUE(gpt.has_value());
  EXPECT_EQ(gpt->first, "gpt3-20b");
  // NeMo-Framework-Launcher conf/training/gpt3/20b.yaml
  EXPECT_EQ(gpt->second.layers, 44);
  EXPECT_EQ(gpt->second.hidden, 6144);
  EXPECT_EQ(gpt->second.heads, 48);
  EXPECT_EQ(gpt->second.ffn_hidden, 4 * 6144);

  const auto llama = match_preset_by_name("Llama 3.1 405B (MLPerf)");
  ASSERT_TRUE(llama.has_value());
  EXPECT_EQ(llama->first, "llama3.1-405b");
  const auto qwen = match_preset_by_name("Qwen3_30B_a3B");
  ASSERT_TRUE(qwen.has_value());
  EXPECT_EQ(qwen->first, "qwen3-30b-a3b");
}

TEST(PresetByName, NoneWhenTheNameDoesNotDecide) {
  EXPECT_FALSE(match_preset_by_name("GPT 20B").has_value());        // not "GPT-3 20B"
  EXPECT_FALSE(match_preset_by_name("Llama 70B").has_value());      // Llama 2 or Llama 3
  EXPECT_FALSE(match_preset_by_name("Llama 3.1 70B").has_value());  // no such preset
  EXPECT_FALSE(match_preset_by_name("").has_value());
}

}  // namespace
}  // namespace cs
