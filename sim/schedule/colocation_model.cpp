#include "sim/schedule/colocation_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"

namespace cs {

const EnumTable<Isolation>& isolation_names() {
  static const EnumTable<Isolation> t{{Isolation::nodes, "nodes"},
                                      {Isolation::gpus, "gpus"},
                                      {Isolation::mig, "mig"},
                                      {Isolation::mps, "mps"},
                                      {Isolation::time_slicing, "time-slicing"}};
  return t;
}

const ParamTable<ColocationParams>& colocation_params() {
  static const ParamTable<ColocationParams> t = [] {
    ParamTable<ColocationParams> p("colocation", "Measured constants of the co-location model (docs/schedule.md).");
    p.field("measured_on", &ColocationParams::measured_on, {.help = "the GPU and the run the constants come from"});
    p.field("quantum", &ColocationParams::quantum,
            {.help = "time-slicing: how long one context runs while another waits", .positive = true});
    p.field("context_switch", &ColocationParams::context_switch,
            {.help = "time-slicing: GPU time lost at each switch between contexts", .min = 0.0});
    p.field("graph_gpu_share", &ColocationParams::graph_gpu_share,
            {.help = "a CUDA-graph decode iteration's kernel time over its wall time", .max = 1.0, .positive = true});
    p.field("eager_gpu_share", &ColocationParams::eager_gpu_share,
            {.help = "an eagerly launched decode iteration's kernel time over its wall time", .max = 1.0,
             .positive = true});
    p.field("mps_kernel_stretch", &ColocationParams::mps_kernel_stretch,
            {.help = "mps: an inference iteration's extra time per unit of its kernel time (SMs held by the "
                     "training job's tiles)",
             .min = 0.0});
    p.field("mps_eager_hiding", &ColocationParams::mps_eager_hiding,
            {.help = "mps: share of that stretch an eager launch still pays (its kernels trickle in)", .min = 0.0,
             .max = 1.0});
    p.field("mps_training_loss", &ColocationParams::mps_training_loss,
            {.help = "mps: the training job's slowdown per unit of the replica's GPU-time share", .min = 0.0});
    p.field("mps_limit_clock_gain", &ColocationParams::mps_limit_clock_gain,
            {.help = "mps with an SM limit: the clock gained as the board draws less", .min = 1.0});
    p.field("mps_limited_interference", &ColocationParams::mps_limited_interference,
            {.help = "mps with an SM limit: the replica's slowdown per unit of the training job's SM share",
             .min = 0.0});
    p.field("mig_slices", &ColocationParams::mig_slices, {.help = "compute slices of a whole GPU", .positive = true});
    return p;
  }();
  return t;
}

ColocationParams load_colocation_params(const std::string& path) {
  const InputNode root = InputNode::load_file(path);
  ColocationParams c;
  colocation_params().read(root, c);
  return c;
}

const ColocationParams& ColocationParams::shipped() {
  static const ColocationParams p = load_colocation_params(data_path("data/colocation.yaml"));
  return p;
}

namespace {

double gpu_share(const IterationShape& it, const ColocationParams& p) {
  return it.cuda_graphs ? p.graph_gpu_share : p.eager_gpu_share;
}

CoLocation time_sliced(const IterationShape& it, const ColocationParams& p) {
  const double t = it.wall.seconds();
  const double q = p.quantum.seconds(), s = p.context_switch.seconds();
  const double g = gpu_share(it, p) * t;
  double wall = 0, waits = 0;
  if (it.cuda_graphs) {
    waits = std::ceil(std::max(g, 1e-12) / q);
    wall = g + waits * (q + s);
  } else {
    waits = std::max(1.0, t / (q + s));
    wall = t + waits * (q + s);
  }
  const double train = std::clamp(1.0 - (g + 2 * waits * s) / wall, 0.0, 1.0);
  return {wall / t, train,
          fmt::format("time-slicing: {:.2f} quantum waits per iteration", waits)};
}

}  // namespace

CoLocation colocate(Isolation isolation, const IterationShape& it, const ColocationParams& p, double mps_limit,
                    int mig_slices) {
  const double t = it.wall.seconds();
  if (t <= 0) return {1, 1, "no iteration"};
  switch (isolation) {
    case Isolation::time_slicing: return time_sliced(it, p);
    case Isolation::mps: {
      if (mps_limit > 0 && mps_limit < 1) {
        // As on a GPU of that share of the SMs: a memory-bound decode keeps most of its speed (its bandwidth is
        // shared, not partitioned), the training job runs on the rest at the clock the lower power allows.
        // The replica keeps its SM share but still contends for memory bandwidth and L2 with the training job on
        // the rest (a measured slowdown per unit of the training job's share); the training job runs on the rest
        // of the SMs at the clock the lower board power allows.
        const double replica = 1.0 + p.mps_limited_interference * (1.0 - mps_limit);
        const double train = std::min(1.0, (1.0 - mps_limit) * p.mps_limit_clock_gain);
        return {replica, train, fmt::format("mps: {:.0f}% of the SMs for the replica", 100 * mps_limit)};
      }
      const double g = gpu_share(it, p) * t;
      const double wall = t + g * p.mps_kernel_stretch * (it.cuda_graphs ? 1.0 : p.mps_eager_hiding);
      const double share = g / wall;
      const double train = 1.0 / (1.0 + p.mps_training_loss * share);
      return {wall / t, train, fmt::format("mps: the replica's kernels stretched x{:.2f} by SMs held by training",
                                           1 + p.mps_kernel_stretch * (it.cuda_graphs ? 1.0 : p.mps_eager_hiding))};
    }
    case Isolation::mig: {
      const int slices = std::clamp(mig_slices, 1, p.mig_slices);
      // The training job keeps the other slices as if it ran across them: NCCL does not span MIG instances, so a
      // real gang could not; its rate here is an upper bound (docs/schedule.md).
      return {static_cast<double>(p.mig_slices) / slices, static_cast<double>(p.mig_slices - slices) / p.mig_slices,
              "mig: the replica on " + std::to_string(slices) + "/" + std::to_string(p.mig_slices) +
                  " of the SMs and bandwidth; the training job's rate on the rest is an upper bound (NCCL does not "
                  "span MIG instances)"};
    }
    case Isolation::nodes:
    case Isolation::gpus: return {1, 1, "not shared"};
  }
  return {1, 1, ""};
}

double time_sliced_pair_rate(const ColocationParams& p) {
  const double q = p.quantum.seconds(), s = p.context_switch.seconds();
  return q / (2 * (q + s));
}

double time_sliced_replicas_slowdown(Time a, Time b, const ColocationParams& p) {
  const double g = p.graph_gpu_share;
  const double wall = g * (a.seconds() + b.seconds()) + 2 * p.context_switch.seconds();
  return std::max(1.0, wall / a.seconds());
}

}  // namespace cs
