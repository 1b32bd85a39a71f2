// A cost model that remembers: the kernel loads another model gives, kept per shape. The plan search's screen
// prices the same GEMMs and attention kernels for every plan that shares a layer's shape (tensor parallelism,
// micro-batch), and each fitted price evaluates an efficiency surface (logs, exponentials); remembering them
// turns those repeats into lookups. Safe to share between threads.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "sim/hardware/compute_cost_model.hpp"

namespace cs {

class MemoCostModel final : public ComputeCostModel {
 public:
  /// `inner` must outlive this model.
  explicit MemoCostModel(const ComputeCostModel& inner) : inner_(inner) {}

  /// A kernel alone: its time at the clock it holds by itself (not its load's time at the highest clock).
  [[nodiscard]] Time gemm(const GemmShape& s) const override;
  [[nodiscard]] Time attention(const AttentionShape& s) const override;
  [[nodiscard]] Time memory_bound(Bytes bytes) const override { return inner_.memory_bound(bytes); }
  [[nodiscard]] Time kernel_latency() const override { return inner_.kernel_latency(); }
  [[nodiscard]] KernelLoad gemm_load(const GemmShape& s) const override;
  [[nodiscard]] KernelLoad attention_load(const AttentionShape& s) const override;
  [[nodiscard]] KernelLoad memory_load(Bytes bytes) const override { return inner_.memory_load(bytes); }
  [[nodiscard]] double sustained_clock(std::span<const KernelLoad> loads) const override {
    return inner_.sustained_clock(loads);
  }
  [[nodiscard]] const Provenance& provenance() const override { return inner_.provenance(); }

  /// Lookups answered from memory, and loads asked of the inner model (for tests and benchmarks).
  [[nodiscard]] std::size_t hits() const;
  [[nodiscard]] std::size_t misses() const;

 private:
  using GemmKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, int, std::int64_t, int>;
  using AttentionKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                  bool, bool, int, std::int64_t, bool, int>;
  [[nodiscard]] static GemmKey key_of(const GemmShape& s);
  [[nodiscard]] static AttentionKey key_of(const AttentionShape& s);
  const ComputeCostModel& inner_;
  mutable std::mutex mu_;
  /// Per shape, its load and its time alone, each filled when first asked.
  struct Entry {
    std::optional<KernelLoad> load;
    std::optional<Time> alone;
  };
  template <class Key, class Value, class Ask>
  Value remember(std::map<Key, Entry>& memo, const Key& key, std::optional<Value> Entry::*slot, Ask ask) const;
  mutable std::map<GemmKey, Entry> gemms_;
  mutable std::map<AttentionKey, Entry> attention_;
  mutable std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace cs
