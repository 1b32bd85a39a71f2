#include "sim/facility/reliability_model.hpp"

#include <gtest/gtest.h>

#include "small_cluster.hpp"

namespace cs {
namespace {

TEST(Reliability, YoungAndDalyIntervals) {
  // delta = 14 s, M = 1e6 s: Young sqrt(2 x 14 x 1e6) = 5291.503 s.
  EXPECT_NEAR(young_interval(Time::from_seconds(14), Time::from_seconds(1e6)).seconds(), 5291.503, 1e-3);
  // Daly: x = 14 / 2e6 = 7e-6; 5291.503 x (1 + sqrt(7e-6)/3 + 7e-6/9) - 14 = 5291.503 x 1.00088269 - 14 = 5282.173 s.
  EXPECT_NEAR(daly_interval(Time::from_seconds(14), Time::from_seconds(1e6)).seconds(), 5282.173, 1e-3);
  // delta >= 2M: checkpoint every M.
  EXPECT_EQ(daly_interval(Time::from_seconds(300), Time::from_seconds(100)), Time::from_seconds(100));
}

TEST(Reliability, DalyGoodputWithoutFailuresCostIsOnlyTheCheckpoint) {
  // M -> infinity: T_wall/T_solve -> (tau + delta) / tau; tau = 100 s, delta = 1 s -> goodput 100/101.
  EXPECT_NEAR(daly_goodput(Time::from_seconds(100), Time::from_seconds(1), Time::zero(), Time::from_seconds(1e12)),
              100.0 / 101.0, 1e-6);
}

TEST(Reliability, PoissonQuantile) {
  EXPECT_EQ(poisson_quantile(0.0, 0.99), 0);
  // mean 1: P(<=2) = e^-1 (1 + 1 + 1/2) = 0.9197, P(<=3) = 0.9810, P(<=4) = 0.9963 -> 4 at 99%.
  EXPECT_EQ(poisson_quantile(1.0, 0.99), 4);
  EXPECT_EQ(poisson_quantile(1.0, 0.95), 3);
}

TEST(Reliability, OneNodeRatesCheckpointAndGoodput) {
  const FacilityConfig c = test::small_config();
  const ReliabilityReport r =
      compute_reliability(c.reliability, test::small_inventory(), test::small_run(), Time::from_seconds(1.0));
  // Rates per hour: 2 GPUs / 1000 h + 1 node / 2000 h + 2 links / 4000 h + 1 node / 4000 h
  //               = 0.002 + 0.0005 + 0.0005 + 0.00025 = 0.00325 -> M = 307.692 h.
  EXPECT_NEAR(r.gpu_failures_per_hour, 0.002, 1e-12);
  EXPECT_NEAR(r.link_failures_per_hour, 0.0005, 1e-12);
  EXPECT_NEAR(r.mtbf.seconds() / 3600.0, 307.6923, 1e-4);
  // Checkpoint 1e9 x 14 B = 14 GB; write at 1 GB/s = 14 s; restore at 2 GB/s = 7 s; R = 300 + 7 = 307 s.
  EXPECT_DOUBLE_EQ(r.checkpoint_size.value(), 14e9);
  EXPECT_EQ(r.checkpoint_write, Time::from_seconds(14));
  EXPECT_EQ(r.restart_time, Time::from_seconds(307));
  // Young sqrt(2 x 14 x 1,107,692.3) = 5569.146 s; Daly 5559.816 s.
  EXPECT_NEAR(r.young_interval.seconds(), 5569.146, 1e-3);
  EXPECT_NEAR(r.daly_interval.seconds(), 5559.816, 1e-3);
  // Goodput tau / (M e^(R/M) (e^((tau + delta)/M) - 1)) = 0.994705.
  EXPECT_NEAR(r.goodput, 0.994705, 1e-6);
  // 10,000 steps of 1 s = 10,000 s ideal; / 0.994705 = 10,053.23 s.
  EXPECT_NEAR(r.ideal_train_time.seconds(), 1e4, 1e-6);
  EXPECT_NEAR(r.effective_train_time.seconds(), 1e4 / 0.9947049979, 1e-3);
  // Nodes down: hardware rate 0.003 /h x 24 h repair = 0.072.
  EXPECT_NEAR(r.expected_nodes_down, 0.072, 1e-12);
  EXPECT_EQ(r.spare_nodes, 0);  // configured
}

TEST(Reliability, SparesSizedFromTheFailureRateWhenNotGiven) {
  FacilityConfig c = test::small_config();
  c.reliability.spare_nodes.reset();
  const ReliabilityReport r =
      compute_reliability(c.reliability, test::small_inventory(), test::small_run(), Time::from_seconds(1.0));
  // P(Poisson(0.072) = 0) = e^-0.072 = 0.9305 < 0.99; P(<= 1) = 0.9305 x 1.072 = 0.9975 -> 1 spare.
  EXPECT_EQ(r.spare_nodes, 1);
}

TEST(Reliability, DefaultRatesReproduceLlama3Interruptions) {
  // Llama 3 405B: 16,384 GPUs, 2,048 nodes, 1,296 h; 417 attributed unexpected interruptions.
  ClusterInventory inv = test::small_inventory();
  inv.node_count = 2048;
  inv.node.gpus_per_node = 8;
  inv.node.nics_per_node = 8;
  const ReliabilityReport r =
      compute_reliability(ReliabilityConfig{}, inv, test::small_run(), Time::from_seconds(1.0));
  const double per_hour = r.gpu_failures_per_hour + r.node_failures_per_hour + r.link_failures_per_hour +
                          r.software_failures_per_hour;
  EXPECT_NEAR(per_hour * 1296.0, 417.0, 1e-6);  // 268 + 46 + 42 + 61
}

}  // namespace
}  // namespace cs
