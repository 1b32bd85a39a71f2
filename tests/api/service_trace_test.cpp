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

}  // namespace
}  // namespace cs
