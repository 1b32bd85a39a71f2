// A layer's unit costs depend on the data-parallel degree only through its TP, CP and EP groups: any DP degree
// that makes a stage a whole number of expert blocks prices the same layer (the plan search's screen lists the
// fewest ranks it can, sim/search/screen_model.cpp). Checked on a DGX H100 fabric, where node boundaries matter.
#include <gtest/gtest.h>

#include <numeric>
#include <tuple>

#include "tiny_moe.hpp"
#include "sim/collectives/analytic_collectives.hpp"
#include "sim/replay/unit_costs.hpp"
#include "sim/topology/topology.hpp"

namespace cs {
namespace {

TEST(UnitCostsGroups, LayerCostsAreTheSameForEveryDpOfWholeExpertBlocks) {
  const Topology topo = load_topology("dgx-h100", 2048);
  EventEngine engine;
  const AnalyticCollectives fabric(engine, topo);
  testing::FixedCostModel compute;
  const auto estimate = [&](const CollectiveRequest& r) { return fabric.duration(r); };
  ModelSpec m = testing::tiny_moe(4);
  m.experts = 64;  // room for EP 64
  m.top_k = 4;
  for (const auto& [tp, cp, ep, dispatcher] : {std::tuple{2, 2, 8, MoeDispatcher::alltoall}, std::tuple{1, 4, 16, MoeDispatcher::flex},
                                              std::tuple{4, 2, 32, MoeDispatcher::flex}, std::tuple{2, 1, 64, MoeDispatcher::alltoall}}) {
    TrainingConfig t;
    t.micro_batch = 1;
    t.seq_len = m.seq_len;
    t.moe_dispatcher = dispatcher;
    ParallelPlan p;
    p.tp = tp;
    p.cp = cp;
    p.ep = ep;
    p.pp = 2;
    p.sequence_parallel = tp > 1;
    const int block = p.etp() * ep;
    p.dp = block / std::gcd(block, tp * cp);  // the fewest
    const UnitCosts fewest(m, p, t, compute, estimate, 132, 8);
    p.dp = ep * 4;  // more than the screen used to list
    const UnitCosts more(m, p, t, compute, estimate, 132, 8);
    for (int s = 0; s < 2; ++s) {
      EXPECT_EQ(fewest.forward(s, 0).total(), more.forward(s, 0).total()) << "tp" << tp << " cp" << cp << " ep" << ep;
      EXPECT_EQ(fewest.backward(s, 0).total(), more.backward(s, 0).total()) << "tp" << tp << " cp" << cp << " ep" << ep;
      EXPECT_GT(fewest.forward(s, 0).ep_comm, Time::zero());
    }
  }
}

}  // namespace
}  // namespace cs
