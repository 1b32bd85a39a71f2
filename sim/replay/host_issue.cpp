#include "sim/replay/host_issue.hpp"

#include <algorithm>

namespace cs {

void HostIssue::Run::launch(double h, double g) {
  host += h;
  deficit = std::max(deficit, host - gpu);
  gpu += g;
}

HostIssue::Run HostIssue::Run::then(const Run& b) const {
  return Run{gpu + b.gpu, host + b.host, std::max(deficit, host - gpu + b.deficit)};
}

HostIssue HostIssue::of(const std::vector<Op>& ops, const std::vector<Time>& stream, const LaunchCosts& costs,
                        GroupedLaunch grouped, unsigned captured) {
  HostIssue r;
  const bool native = grouped == GroupedLaunch::native && costs.op > Time::zero();
  bool in_graph = false;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].host_sync) {
      if (r.synced_) {
        r.closed_ += std::max(0.0, r.tail_.deficit);
        r.closed_gpu_ += r.tail_.gpu;
      }
      r.synced_ = true;
      r.tail_ = Run{};
    }
    Run& run = r.synced_ ? r.tail_ : r.head_;
    // An op of several launches (one GEMM per local expert) feeds the GPU launch by launch.
    const int launches = std::max(1, ops[i].launches);
    const double g = stream[i].seconds() / launches;
    const bool graph = (ops[i].graph_modules & captured) != 0;
    double first = (ops[i].python_launches ? costs.torch_op : costs.op).seconds();
    double further = (!native || ops[i].python_launches ? costs.torch_op
                      : ops[i].kind == OpKind::gemm ? costs.native_gemm
                                                    : costs.native_kernel).seconds();
    if (graph) {  // a captured stretch: one graph launch, then nothing per kernel
      first = in_graph ? 0.0 : costs.torch_op.seconds();
      further = 0.0;
    }
    in_graph = graph;
    for (int k = 0; k < launches; ++k) {
      run.launch(k == 0 ? first : further, g);
      r.host_ += k == 0 ? first : further;
    }
  }
  return r;
}

HostIssue HostIssue::then(const HostIssue& next) const {
  HostIssue r;
  if (!synced_ && !next.synced_) {
    r.head_ = head_.then(next.head_);
  } else if (!synced_) {
    r = next;
    r.head_ = head_.then(next.head_);
  } else if (!next.synced_) {
    r = *this;
    r.tail_ = tail_.then(next.head_);
  } else {
    r = *this;
    r.closed_ = closed_ + std::max(0.0, tail_.then(next.head_).deficit) + next.closed_;
    r.closed_gpu_ = closed_gpu_ + tail_.gpu + next.head_.gpu + next.closed_gpu_;
    r.tail_ = next.tail_;
  }
  r.synced_ = synced_ || next.synced_;
  r.host_ = host_ + next.host_;
  return r;
}

Time HostIssue::wait(Time lead) const {
  double w = std::max(0.0, head_.deficit - lead.seconds());
  if (synced_) w += closed_ + std::max(0.0, tail_.deficit);
  return Time::from_seconds(w);
}

Time HostIssue::host_span(Time lead) const {
  if (!synced_) return Time::from_seconds(head_.host - lead.seconds());
  // The host resumes at each synchronisation when the GPU has drained everything before it.
  const double last_sync = head_.gpu + std::max(0.0, head_.deficit - lead.seconds()) + closed_gpu_ + closed_;
  return Time::from_seconds(last_sync + tail_.host);
}

}  // namespace cs
