// A replica's engine: its waiting queue, the requests it runs, its paged KV cache and the scheduler that turns
// them into one iteration at a time (the three batching kinds of EngineConfig). The simulator asks it to start
// an iteration when it is idle and work arrives, and to apply the iteration when it ends: one event per
// iteration, none per token.
//
// Scheduling, per iteration (vLLM's and Sarathi-Serve's, simplified):
//   static           when no batch runs: take waiting requests in order while max_seqs and max_batched_tokens
//                    allow and the cache can hold each one's prompt and output; prefill them, then decode the
//                    whole batch (finished sequences pad it) until its longest output is done.
//   continuous       swapped requests come back first (their blocks copied in); then, with none left swapped,
//                    waiting requests are admitted in order while max_seqs, max_batched_tokens and free blocks
//                    for their prompts allow, and the iteration prefills them; with none admitted it decodes
//                    every running request.
//   chunked-prefill  swapped requests come back first; every decoding request takes one token of the budget,
//                    then prefills in progress take chunks, then waiting requests are admitted with chunks
//                    while the budget, max_seqs and free blocks allow.
// A decode that needs a block when none is free preempts the newest running request (itself if it is the
// newest): recompute drops its cache and puts it at the head of the queue; swap copies its blocks to the host
// (their copy time added to the iteration) and parks it until blocks are free.
//
// Disaggregated serving gives a replica a role. A prefill replica hands a request off when its prefill samples
// the first token: the request leaves its batch but its blocks stay held until the KV cache has been sent
// (release_handoff). A decode replica takes handed-off requests in order as its free blocks can hold each one's
// prompt (admit_arrivals: the cache is then sent into those blocks) and decodes them once received; a request it
// preempts by recompute prefills again on the decode replica itself.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "sim/serving/iteration_cost.hpp"
#include "sim/serving/request.hpp"
#include "sim/serving/serving_config.hpp"

namespace cs {

struct ReplicaStats {
  Time busy;                       ///< time running iterations
  Time prefill_busy;               ///< time running iterations that hold a prompt chunk
  std::int64_t decode_rows = 0;    ///< decodes over all iterations (their mean batch: / decode iterations)
  std::int64_t decode_iterations = 0;
  double block_seconds = 0;        ///< KV blocks in use, integrated over the iterations
  std::int64_t max_blocks = 0;     ///< most blocks in use in one iteration
  std::int64_t preemptions = 0;
  std::int64_t iterations = 0;
  std::int64_t blocks = 0;         ///< the replica's KV-cache blocks
  int gpus = 1;                    ///< its GPUs, weighting it in a deployment's busy time (set by the simulator)
};

/// What a replica does with the requests it holds: all of their work, or one side of a disaggregated deployment.
enum class ReplicaRole { colocated, prefill, decode };

class Replica {
 public:
  /// `requests` (indexed by request id) and `cost` must outlive the replica.
  Replica(const EngineConfig& engine, const IterationCost& cost, std::int64_t blocks, std::vector<Request>& requests,
          ReplicaRole role = ReplicaRole::colocated);

  /// Queues request `id`; false (and the request rejected) when it can never run here: a prompt longer than
  /// max_batched_tokens (static, continuous) or a prompt and output the whole cache cannot hold (a prefill
  /// replica: a prompt).
  bool enqueue(int id);
  /// Whether the whole cache could ever hold `tokens` tokens of one request.
  [[nodiscard]] bool can_hold(std::int64_t tokens) const noexcept { return blocks_for(tokens) <= total_blocks_; }

  // Disaggregated serving (prefill role).
  /// Requests whose prefill ended in the last iteration and that now wait for their KV cache to be sent; their
  /// blocks stay held here. Empties the list.
  [[nodiscard]] std::vector<int> take_handoffs();
  /// Frees the blocks of handed-off request `id` (its cache has been sent).
  void release_handoff(int id);

  // Disaggregated serving (decode role).
  /// Queues handed-off request `id` (its prompt's cache still on the prefill replica) for admission.
  void offer(int id);
  /// Admits offered requests in order while max_seqs and the free blocks allow, taking blocks for each one's
  /// prompt: their caches may now be sent here. Returns their ids.
  [[nodiscard]] std::vector<int> admit_arrivals();
  /// Request `id`, admitted earlier, has received its cache: it decodes from the next iteration.
  void receive(int id);
  /// Forms the next iteration from the queue and the running requests: its time, or nullopt when there is
  /// nothing to run (or nothing fits).
  [[nodiscard]] std::optional<Time> start_iteration();
  /// Applies the iteration started last, ending at `now`: chunks and decodes done, tokens sampled, requests
  /// finished and their blocks freed.
  void end_iteration(Time now);

  [[nodiscard]] bool in_flight() const noexcept { return in_flight_; }
  /// Requests waiting for a first or a new prefill, swapped out, or (decode role) waiting for room for their cache.
  [[nodiscard]] std::size_t queued() const noexcept { return waiting_.size() + swapped_.size() + offered_.size(); }
  /// Requests queued, running or (decode role) receiving their cache.
  [[nodiscard]] std::size_t load() const noexcept {
    return queued() + running_.size() + static_batch_.size() + static_cast<std::size_t>(receiving_);
  }
  [[nodiscard]] std::int64_t free_blocks() const noexcept { return total_blocks_ - used_blocks_; }
  [[nodiscard]] const ReplicaStats& stats() const noexcept { return stats_; }
  /// The shape of the iteration in flight (for tests).
  [[nodiscard]] const BatchShape& batch() const noexcept { return batch_; }

 private:
  struct Scheduled {
    int id;
    std::int64_t tokens;  ///< prompt tokens of a chunk, or 1 for a decode
    bool decode;
  };
  [[nodiscard]] std::int64_t blocks_for(std::int64_t tokens) const noexcept {
    return (tokens + engine_.block_size - 1) / engine_.block_size;
  }
  /// Takes blocks so that `r` can hold `tokens`; false (nothing taken) when not enough are free.
  bool grow(Request& r, std::int64_t tokens);
  void release(Request& r);
  /// Preempts the newest running request (by recompute or swap, as configured); returns its id.
  int preempt_newest();
  void schedule_prefill(int id, std::int64_t tokens);
  /// Moves the waiting head `id` into `into`, its prefill starting after its prefix hits with `tokens` tokens.
  void admit(int id, std::vector<int>& into, std::int64_t tokens);
  /// Admits waiting requests in order, each with its whole prompt, while max_seqs, max_batched_tokens and the
  /// free blocks allow: blocks for the prompt (or with `reserve_output`, the prompt and the whole output).
  void admit_whole_prompts(std::vector<int>& into, bool reserve_output);
  void schedule_decode(int id);
  /// Brings swapped requests back while blocks allow (before any new admission).
  void swap_in();
  /// Decodes of running requests, oldest first, preempting the newest where a block is missing; stops after
  /// `limit` decodes. Returns the decodes scheduled.
  std::int64_t schedule_decodes(std::int64_t limit);
  void form_static();
  void form_continuous();
  void form_chunked();

  EngineConfig engine_;
  ReplicaRole role_;
  const IterationCost& cost_;
  std::vector<Request>& requests_;
  std::int64_t total_blocks_;
  std::int64_t used_blocks_ = 0;
  std::deque<int> waiting_;
  std::deque<int> swapped_;
  std::vector<int> running_;       ///< admission order, oldest first (continuous, chunked)
  std::vector<int> static_batch_;  ///< the static batch in flight
  std::int64_t static_context_ = 0;  ///< its sequences' cache length, summed (finished ones pad it)
  BatchShape batch_;
  std::vector<Scheduled> scheduled_;
  Time transfer_;                  ///< swap copies added to this iteration
  std::vector<int> handoffs_;      ///< prefill role: handed off by the last iteration, not yet taken
  /// Prefill role: (request, blocks) whose cache waits or is being sent; a few at a time, searched linearly.
  std::vector<std::pair<int, std::int64_t>> held_;
  std::deque<int> offered_;        ///< decode role: handed off to this replica, waiting for room
  int receiving_ = 0;              ///< decode role: admitted, their caches on the way
  bool in_flight_ = false;
  ReplicaStats stats_;
};

}  // namespace cs
