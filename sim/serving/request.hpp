// One request's progress through a replica. A prefill computes `target - computed` tokens (in one go or in
// chunks); the chunk that completes it samples the next token. Each decode step writes the last sampled token's
// keys and values and samples another, so while decoding computed = prompt + generated - 1. A request preempted
// by recompute loses its cache and prefills prompt + generated tokens again, sampling as it completes.
// Disaggregated: after its prefill samples the first token, a request is `transferring` (its KV cache on its way
// from the prefill replica to a decode replica, or waiting for room there) until it runs on the decode replica.
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"

namespace cs {

enum class RequestState { waiting, running, swapped, transferring, finished, rejected };

struct Request {
  Time arrival;
  std::int64_t prompt = 0;
  std::int64_t output = 0;      ///< tokens to generate, the first included (at least 1)
  std::int64_t prefix_hit = 0;  ///< prompt tokens the prefix cache holds: every prefill starts after them
  std::int64_t target = 0;      ///< tokens the cache must hold before the next token is sampled
  std::int64_t computed = 0;    ///< tokens whose keys and values are in the cache
  std::int64_t generated = 0;   ///< tokens sampled so far
  std::int64_t blocks = 0;      ///< KV-cache blocks held
  Time first_token = Time::max();
  Time finish = Time::max();
  int replica = -1;
  int preemptions = 0;
  RequestState state = RequestState::waiting;

  [[nodiscard]] bool prefilling() const noexcept { return computed < target; }
  [[nodiscard]] bool done() const noexcept { return generated >= output; }
};

}  // namespace cs
