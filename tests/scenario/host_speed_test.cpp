// The calibration hosts' speed on Transformer Engine issue #2053's yardstick (workload/parallel_plan.hpp,
// calibration_host_linear_forward of profiles/frameworks/pytorch-eager.yaml) against the pool hosts' measurements (calibrate/studies/host_linear_study.py).
#include <gtest/gtest.h>

#include <string>

#include "measured_steps.hpp"

namespace cs {
namespace {

// The calibration hosts' figure on Transformer Engine issue #2053's yardstick (pytorch-eager.yaml's calibration_host_linear_forward) is the
// mean of the pool hosts measured with calibrate/studies/host_linear_study.py (one torch.nn.Linear forward with
// autograd on, as the script): H100 run 9's two hosts and run 15's.
TEST(HostSpeed, CalibrationYardstickIsTheMeanOfThePoolHosts) {
  double sum = 0;
  int hosts = 0;
  for (const char* file : {"run9-host-linear/host_linear.json", "run9-host-linear/second-host/host_linear.json",
                           "run15-mcore-host-1x128/host_linear.json"}) {
    for (const auto& r : testing::measured_results(std::string("h100-calibration/") + file)) {
      if (r["name"] != "linear_forward_autograd") continue;
      sum += r["host_us_per_call_median"].get<double>();
      ++hosts;
    }
  }
  ASSERT_EQ(hosts, 3);
  EXPECT_NEAR(sum / hosts, find_framework_profile("pytorch-eager").costs.calibration_host_linear_forward.seconds() * 1e6,
              0.05);
}

}  // namespace
}  // namespace cs
