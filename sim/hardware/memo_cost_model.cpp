#include "sim/hardware/memo_cost_model.hpp"

namespace cs {

MemoCostModel::GemmKey MemoCostModel::key_of(const GemmShape& s) {
  return {s.m, s.n, s.k, static_cast<int>(s.dtype), s.batch, static_cast<int>(s.layout)};
}

MemoCostModel::AttentionKey MemoCostModel::key_of(const AttentionShape& s) {
  return {s.batch, s.heads, s.kv_heads, s.seq_q, s.seq_kv, s.head_dim, s.causal, s.backward, static_cast<int>(s.dtype),
          s.window, s.fp8, static_cast<int>(s.kernel)};
}

template <class Key, class Value, class Ask>
Value MemoCostModel::remember(std::map<Key, Entry>& memo, const Key& key, std::optional<Value> Entry::*slot,
                              Ask ask) const {
  {
    const std::lock_guard lock(mu_);
    if (const auto it = memo.find(key); it != memo.end() && (it->second.*slot).has_value()) {
      ++hits_;
      return *(it->second.*slot);
    }
  }
  const Value v = ask();  // outside the lock: other threads keep looking up meanwhile
  const std::lock_guard lock(mu_);
  ++misses_;
  memo[key].*slot = v;
  return v;
}

KernelLoad MemoCostModel::gemm_load(const GemmShape& s) const {
  return remember(gemms_, key_of(s), &Entry::load, [&] { return inner_.gemm_load(s); });
}

Time MemoCostModel::gemm(const GemmShape& s) const {
  return remember(gemms_, key_of(s), &Entry::alone, [&] { return inner_.gemm(s); });
}

KernelLoad MemoCostModel::attention_load(const AttentionShape& s) const {
  return remember(attention_, key_of(s), &Entry::load, [&] { return inner_.attention_load(s); });
}

Time MemoCostModel::attention(const AttentionShape& s) const {
  return remember(attention_, key_of(s), &Entry::alone, [&] { return inner_.attention(s); });
}

std::size_t MemoCostModel::hits() const {
  const std::lock_guard lock(mu_);
  return hits_;
}

std::size_t MemoCostModel::misses() const {
  const std::lock_guard lock(mu_);
  return misses_;
}

}  // namespace cs
