// The host-issue model (sim/replay/host_issue.hpp) on hand-worked sequences: an eager host that launches each
// kernel after `h` of its own time, a GPU that runs each kernel for its stream time once launched, and host
// synchronisations that make the host wait for the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/replay/host_issue.hpp"

namespace cs {
namespace {

Op op(int launches = 1, bool sync = false) {
  Op o{"k", OpKind::gemm};
  o.launches = launches;
  o.host_sync = sync;
  return o;
}

TEST(HostIssue, GpuBoundRunWaitsOnlyForTheFirstLaunch) {
  // Host 10 us per launch, kernels 50 us: the GPU waits 10 us for the first launch, never again.
  const auto r = HostIssue::of({op(), op(), op()}, {Time::us(50), Time::us(50), Time::us(50)}, Time::us(10));
  EXPECT_EQ(r.wait(), Time::us(10));
}

TEST(HostIssue, LaunchBoundRunRunsAtTheHostsPace) {
  // 4 launches of 30 us host time over 10 us kernels: the last launch leaves the host at 120 us, the GPU has
  // done 30 us of work before it, so the GPU waited 90 us (it ends at 130 us = 40 us of kernels + 90 us idle).
  const auto r = HostIssue::of({op(4)}, {Time::us(40)}, Time::us(30));
  EXPECT_EQ(r.wait(), Time::us(90));
}

TEST(HostIssue, GpuBoundPartLendsTheHostALeadForTheLaunchBoundPartAfterIt) {
  const Time h = Time::us(30);
  const auto gpu_bound = HostIssue::of({op()}, {Time::us(200)}, h);     // 1 launch, 200 us kernel
  const auto launch_bound = HostIssue::of({op(5)}, {Time::us(50)}, h);  // 5 launches of 10 us kernels
  // Alone, the launch-bound part idles the GPU 150 - 40 = 110 us; behind the 200 us kernel its launches are
  // all issued (at 180 us) before the GPU is free (200 us): only the first launch's 30 us is left.
  EXPECT_EQ(launch_bound.wait(), Time::us(110));
  EXPECT_EQ(gpu_bound.then(launch_bound).wait(), Time::us(30));
  // The other order lends nothing: the launch-bound part ends at 160 us (110 us idle), the kernel's launch is
  // issued at 180 us: 20 us more.
  EXPECT_EQ(launch_bound.then(gpu_bound).wait(), Time::us(130));
}

TEST(HostIssue, SynchronisationDrainsTheLeadTheHostHadBuilt) {
  const Time h = Time::us(30);
  // A 200 us kernel, then a synchronised op of 5 launches of 10 us kernels.
  const auto no_sync = HostIssue::of({op(), op(5)}, {Time::us(200), Time::us(50)}, h);
  const auto sync = HostIssue::of({op(), op(5, true)}, {Time::us(200), Time::us(50)}, h);
  EXPECT_EQ(no_sync.wait(), Time::us(30));
  // With the sync the host waits until 230 us, then the 5 launches run at its pace: 150 - 40 = 110 us more.
  EXPECT_EQ(sync.wait(), Time::us(30) + Time::us(110));
  // Composing parts gives what one sequence gives: sync segments close across the boundary.
  const auto a = HostIssue::of({op(), op(5, true)}, {Time::us(200), Time::us(50)}, h);
  const auto b = HostIssue::of({op(2), op(3, true)}, {Time::us(300), Time::us(30)}, h);
  const auto whole = HostIssue::of({op(), op(5, true), op(2), op(3, true)},
                                   {Time::us(200), Time::us(50), Time::us(300), Time::us(30)}, h);
  EXPECT_EQ(a.then(b).wait(), whole.wait());
}

TEST(HostIssue, NativeLoopLaunchesCostTheMeasuredNativeHostTime) {
  // 4 launches of 10 us kernels behind a 30 us operator launch. From a Python loop each launch costs 30 us
  // (90 us idle, as above); from a native loop the further ones cost 15.8 us each (GEMMs: issued at 30, 45.8,
  // 61.6, 77.4 us, the last kernel ends at 87.4 us: 47.4 us idle) or 9.8 us (small kernels: issued at 30, 39.8,
  // 49.6, 59.4 us, each before the GPU is free: only the first launch's 30 us).
  const Time h = Time::us(30);
  const LaunchCosts costs{h, h, Time::us(15.8), Time::us(9.8)};
  Op gemm = op(4), cast = op(4);
  cast.kind = OpKind::memory;
  EXPECT_EQ(HostIssue::of({gemm}, {Time::us(40)}, costs, GroupedLaunch::python).wait(), Time::us(90));
  EXPECT_NEAR(HostIssue::of({gemm}, {Time::us(40)}, costs, GroupedLaunch::native).wait().seconds(), 47.4e-6, 1e-9);
  EXPECT_NEAR(HostIssue::of({cast}, {Time::us(40)}, costs, GroupedLaunch::native).wait().seconds(), 30e-6, 1e-9);
  // Without a host cost (CUDA graphs) a native loop costs nothing either.
  EXPECT_EQ(HostIssue::of({gemm}, {Time::us(40)}, LaunchCosts{}, GroupedLaunch::native).wait(), Time::zero());
}

// A chain of PyTorch operators or a Python loop (Megatron-Core's per-expert bias loop, unfused RoPE) pays the
// eager launch cost per kernel even where Transformer Engine's grouped GEMMs loop natively.
TEST(HostIssue, PythonLaunchesPayTheEagerCostUnderNativeGroupedLaunch) {
  const Time h = Time::us(30);
  Op loop = op(4);
  loop.kind = OpKind::memory;
  loop.python_launches = true;
  EXPECT_EQ(HostIssue::of({loop}, {Time::us(40)}, h, GroupedLaunch::native).wait(), Time::us(90));
  EXPECT_EQ(HostIssue::of({loop}, {Time::us(40)}, h, GroupedLaunch::native).host(), Time::us(120));
}

TEST(HostIssue, HostTimeIsEveryLaunchsCostAcrossSynchronisations) {
  // 1 + 4 native GEMM launches and 2 more after a synchronisation: the host spends its launch costs whatever the
  // GPU does; composing parts sums them, and a synchronisation anywhere marks the whole.
  const Time h = Time::us(30);
  const auto a = HostIssue::of({op(), op(4)}, {Time::us(500), Time::us(40)}, LaunchCosts{h, h, Time::us(15.8), Time::us(9.8)},
                               GroupedLaunch::native);
  const auto b = HostIssue::of({op(2, true)}, {Time::us(20)}, h, GroupedLaunch::python);
  EXPECT_NEAR(a.host().seconds(), 2 * 30e-6 + 3 * 15.8e-6, 1e-9);
  EXPECT_EQ(b.host(), Time::us(60));
  EXPECT_FALSE(a.synced());
  EXPECT_TRUE(b.synced());
  EXPECT_NEAR(a.then(b).host().seconds(), a.host().seconds() + 60e-6, 1e-9);
  EXPECT_TRUE(a.then(b).synced());
  EXPECT_TRUE(b.then(a).synced());
}

TEST(HostIssue, NoLaunchCostNoWait) {
  EXPECT_EQ(HostIssue::of({op(8, true)}, {Time::us(5)}, Time::zero()).wait(), Time::zero());
}

// Each kind of launch costs what LaunchCosts says: an operator's first launch costs `op` (a framework module call),
// a native loop's further GEMMs `native_gemm`, and an operator the framework runs as plain PyTorch operators
// (Op::python_launches) `torch_op` for every launch. A 4-GEMM native loop of 10 us kernels at op 60 us and
// native_gemm 31.6 us issues its kernels at 60, 91.6, 123.2 and 154.8 us: the last ends at 164.8 us, 124.8 us
// of idle; a plain-PyTorch op of 4 launches at torch_op 20 us issues at 20, 40, 60, 80 us (idle 50 us).
TEST(HostIssue, EachKindOfLaunchCostsItsOwn) {
  const LaunchCosts c{Time::us(60), Time::us(20), Time::us(31.6), Time::us(9.8)};
  const auto r = HostIssue::of({op(4)}, {Time::us(40)}, c, GroupedLaunch::native);
  EXPECT_NEAR(r.wait().seconds(), 60e-6 + 3 * 31.6e-6 + 10e-6 - 40e-6, 1e-9);
  EXPECT_NEAR(r.host().seconds(), 60e-6 + 3 * 31.6e-6, 1e-9);
  Op torch_chain = op(4);
  torch_chain.python_launches = true;
  const auto t = HostIssue::of({torch_chain}, {Time::us(40)}, c, GroupedLaunch::native);
  EXPECT_NEAR(t.wait().seconds(), 80e-6 + 10e-6 - 40e-6, 1e-9);
  EXPECT_NEAR(t.host().seconds(), 80e-6, 1e-9);
}

// Ops of a captured CUDA-graph module cost the host one launch (torch_op) per stretch of them, nothing per kernel:
// three captured ops of 4 launches each behind one eager op cost 60 + 20 us of host, not 3 x 60 + 9 x 31.6 us.
TEST(HostIssue, ACapturedStretchCostsOneGraphLaunch) {
  const LaunchCosts c{Time::us(60), Time::us(20), Time::us(31.6), Time::us(9.8)};
  std::vector<Op> ops{op(), op(4), op(4), op(4)};
  for (std::size_t i = 1; i < ops.size(); ++i) ops[i].graph_modules = CudaGraphModules::kAttn;
  const std::vector<Time> stream(4, Time::us(1));
  EXPECT_NEAR(HostIssue::of(ops, stream, c, GroupedLaunch::native, CudaGraphModules::kAttn).host().seconds(), 80e-6,
              1e-12);
  // Not captured (another module's graphs), the same ops pay every launch.
  EXPECT_NEAR(HostIssue::of(ops, stream, c, GroupedLaunch::native, CudaGraphModules::kMlp).host().seconds(),
              4 * 60e-6 + 9 * 31.6e-6, 1e-12);
  // Two captured stretches apart cost a launch each.
  ops[2].graph_modules = 0;
  EXPECT_NEAR(HostIssue::of(ops, stream, c, GroupedLaunch::native, CudaGraphModules::kAttn).host().seconds(),
              60e-6 + 20e-6 + 60e-6 + 3 * 31.6e-6 + 20e-6, 1e-12);
}

// A host that carries on from one run to the next (StepReplay, a stage without pipeline neighbours) starts the
// second run's launches when it has issued the first run's last, while the GPU may still be busy with it. With
// the lead that leaves, the second run waits exactly what composing the two runs into one gives, synchronised or
// not: the replay's unit-by-unit carry is the same model as one long run.
TEST(HostIssue, CarryingTheHostsLeadAcrossRunsIsComposingThem) {
  const Time h = Time::us(30);
  struct Part {
    std::vector<Op> ops;
    std::vector<Time> stream;
  };
  const std::vector<Part> parts = {
      {{op(), op(5)}, {Time::us(200), Time::us(50)}},                          // GPU-bound, then launch-bound
      {{op(6)}, {Time::us(40)}},                                               // launch-bound
      {{op(), op(5, true), op(2)}, {Time::us(300), Time::us(50), Time::us(500)}},  // synchronised, GPU-bound tail
      {{op(2), op(3, true), op(4)}, {Time::us(20), Time::us(30), Time::us(40)}},   // synchronised, launch-bound
      {{op(), op()}, {Time::us(900), Time::us(10)}},                           // GPU-bound
  };
  for (const Part& a : parts) {
    for (const Part& b : parts) {
      const auto ia = HostIssue::of(a.ops, a.stream, h);
      const auto ib = HostIssue::of(b.ops, b.stream, h);
      Time gpu_a = Time::zero();
      for (const Time t : a.stream) gpu_a += t;
      const Time a_end = gpu_a + ia.wait();  // the GPU finishes a; the host finished issuing it at host_span(0)
      const Time lead = std::max(Time::zero(), a_end - ia.host_span(Time::zero()));
      EXPECT_EQ(ia.wait() + ib.wait(lead), ia.then(ib).wait());
    }
  }
  // Without a synchronisation the host is where its launches put it: 6 launches of 30 us begun 100 us early.
  EXPECT_EQ(HostIssue::of(parts[1].ops, parts[1].stream, h).host_span(Time::us(100)), Time::us(80));
  // A lead longer than the run's deficit leaves no wait; a synchronisation drains it (the tail still waits).
  EXPECT_EQ(HostIssue::of(parts[1].ops, parts[1].stream, h).wait(Time::us(500)), Time::zero());
  const auto synced = HostIssue::of(parts[3].ops, parts[3].stream, h);
  EXPECT_EQ(synced.wait(Time::us(500)), synced.wait() - Time::us(50));  // only the head's 50 us idle is covered
}

}  // namespace
}  // namespace cs
