// `clustersim run --trace` on a service: the engine iterations of each replica on a track of its own, as many as
// the run counted, never overlapping on one replica, each named by what it holds.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "sim/api/clustersim.hpp"

namespace cs {
namespace {

TEST(ServiceTrace, EveryIterationOnItsReplicasTrack) {
  const Scenario sc = api::load({.path = std::string(CS_SOURCE_DIR) + "/scenarios/mixtral-8x7b-serving-8xh100-chunked.yaml",
                                 .text = {}, .set = {{"serving.duration", "10s"}}, .profile = ""});
  std::string json;
  const RunResult r = api::run(sc, {.observers = {}, .cancel = nullptr, .trace_json = &json});
  ASSERT_TRUE(r.serving);
  const auto trace = nlohmann::json::parse(json);
  std::map<int, double> last_end;
  std::int64_t iterations = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++iterations;
    const int replica = e["pid"].get<int>();
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    EXPECT_GT(dur, 0);
    EXPECT_GE(ts + 1e-6, last_end[replica]) << "overlapping iterations on replica " << replica;
    last_end[replica] = ts + dur;
    const std::string name = e["name"];
    EXPECT_TRUE(name == "decode" || name == "prefill" || name == "prefill + decode") << name;
    EXPECT_EQ(name.find("prefill") != std::string::npos, e["args"]["prefill_chunks"].get<int>() > 0);
  }
  EXPECT_EQ(iterations, r.serving->iterations);
  EXPECT_EQ(static_cast<int>(last_end.size()), sc.serving->deployment.replicas);
}

TEST(ServiceTrace, ADisaggregatedServiceHasPrefillThenDecodeTracks) {
  const Scenario sc = api::load(
      {.path = std::string(CS_SOURCE_DIR) + "/scenarios/llama3-70b-serving-disaggregated-16xh100.yaml",
       .text = {}, .set = {{"serving.duration", "10s"}}, .profile = ""});
  std::string json;
  const RunResult r = api::run(sc, {.observers = {}, .cancel = nullptr, .trace_json = &json});
  ASSERT_TRUE(r.serving);
  const auto trace = nlohmann::json::parse(json);
  std::map<int, std::string> names;
  std::map<int, std::int64_t> prefills, decodes;
  std::int64_t iterations = 0;
  for (const auto& e : trace["traceEvents"]) {
    const int track = e["pid"].get<int>();
    if (e["ph"] == "M") names[track] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    ++iterations;
    prefills[track] += e["args"]["prefill_chunks"].get<std::int64_t>();
    decodes[track] += e["args"]["decodes"].get<std::int64_t>();
  }
  // 3 prefill replicas (tracks 1-3) that only prefill, then the decode replica (track 4) that only decodes.
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[1], "prefill replica 0");
  EXPECT_EQ(names[4], "decode replica 0");
  for (int t = 1; t <= 3; ++t) {
    EXPECT_GT(prefills[t], 0) << t;
    EXPECT_EQ(decodes[t], 0) << t;
  }
  EXPECT_EQ(prefills[4], 0);
  EXPECT_GT(decodes[4], 0);
  EXPECT_EQ(iterations, r.serving->iterations);
}

}  // namespace
}  // namespace cs
