// Collective operations as the replay asks for them, and the interface every communication model implements.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/collectives/group_list.hpp"
#include "sim/core/event_engine.hpp"
#include "sim/core/units.hpp"

namespace cs {

enum class CollectiveKind { all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv };

[[nodiscard]] std::string_view to_string(CollectiveKind k) noexcept;

/// How a collective moves its data (NCCL's algorithms plus two classics). `automatic` lets the tuner choose by
/// size and topology, as NCCL does; anything else is an override.
enum class CollectiveAlgorithm {
  automatic,
  ring,              ///< NCCL ring (rail-aligned channels across nodes)
  tree,              ///< NCCL double binary tree across nodes, chain inside a node (all-reduce)
  halving_doubling,  ///< recursive halving (reduce-scatter) then doubling (all-gather), Rabenseifner
  hierarchical,      ///< reduce-scatter over NVLink, all-reduce per rail across nodes, all-gather over NVLink
  nvls,              ///< NVLink SHARP: reduction and multicast in the NVSwitch (Hopper on)
  in_network,        ///< InfiniBand SHARP (NCCL CollNet): reduction in the fabric switches
};
inline constexpr CollectiveAlgorithm kAllAlgorithms[] = {
    CollectiveAlgorithm::ring, CollectiveAlgorithm::tree, CollectiveAlgorithm::halving_doubling,
    CollectiveAlgorithm::hierarchical, CollectiveAlgorithm::nvls, CollectiveAlgorithm::in_network};

[[nodiscard]] std::string_view to_string(CollectiveAlgorithm a) noexcept;
/// Parses "auto", "ring", "tree", "halving_doubling", "hierarchical", "nvls", "in_network"; nullopt otherwise.
[[nodiscard]] std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view s) noexcept;
/// Parses "all_reduce" / "all-reduce", ..., "send_recv"; nullopt otherwise.
[[nodiscard]] std::optional<CollectiveKind> parse_collective_kind(std::string_view s) noexcept;

/// One collective, issued by every group in `groups` at the same moment (the replay exploits symmetry: the
/// data-parallel groups of all TP ranks, say, start the same all-reduce together and share the fabric).
struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::all_reduce;
  /// NCCL's buffer size: all-reduce, broadcast, reduce: the per-rank buffer; all-gather: the gathered output
  /// per rank; reduce-scatter: the input per rank; all-to-all: what each rank sends in total; send/recv: the
  /// message.
  Bytes bytes;
  /// Global GPU ranks of each group; for send/recv each group is {sender, receiver}. Shared, not copied, when
  /// the request is (see group_list.hpp).
  GroupList groups;
  std::string label;  ///< for traces and link statistics, e.g. "dp grad bucket 3"
  /// Algorithm override for this request; `automatic` defers to the model's options and tuner.
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
};

/// Subscribers to a CollectiveModel (algorithm tallies, traces): told of each collective as it starts.
class CollectiveObserver {
 public:
  virtual ~CollectiveObserver() = default;
  /// `algorithm` is what the request's first group of two or more ranks runs with.
  virtual void on_collective_start(const CollectiveRequest& request, CollectiveAlgorithm algorithm) = 0;
};

class FlowNetwork;

class CollectiveModel {
 public:
  virtual ~CollectiveModel() = default;
  /// Starts `req` at engine.now(); `done` runs on the engine when the slowest group has finished.
  virtual void start(const CollectiveRequest& req, std::function<void()> done) = 0;
  /// A one-line description for results, e.g. "analytic (no contention), ring/tree by size".
  [[nodiscard]] virtual std::string describe() const = 0;
  /// Where the model's calibration comes from ("datasheet defaults (...)", "calibration file <path>", ...).
  [[nodiscard]] virtual std::string calibration_source() const { return "none"; }
  /// The flow network the model runs its flows on, for observers of its links; nullptr for a model without
  /// links (the analytic one).
  [[nodiscard]] virtual FlowNetwork* flow_network() noexcept { return nullptr; }

  /// Subscribes `observer` (not owned; it must outlive the model or be removed first).
  void add_observer(CollectiveObserver& observer) { observers_.push_back(&observer); }
  void remove_observer(const CollectiveObserver& observer);

 protected:
  void notify_start(const CollectiveRequest& request, CollectiveAlgorithm algorithm) const {
    for (CollectiveObserver* o : observers_) o->on_collective_start(request, algorithm);
  }

 private:
  std::vector<CollectiveObserver*> observers_;
};

/// Bus bandwidth convention of nccl-tests: the factor that turns algorithm bandwidth (bytes / time) into the
/// bandwidth each link must sustain: all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n, others 1.
[[nodiscard]] double bus_bandwidth_factor(CollectiveKind k, int n) noexcept;

}  // namespace cs
