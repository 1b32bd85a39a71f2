#include "sim/serving/replica.hpp"

#include <algorithm>

namespace cs {

Replica::Replica(const EngineConfig& engine, const IterationCost& cost, std::int64_t blocks,
                 std::vector<Request>& requests, ReplicaRole role)
    : engine_(engine), role_(role), cost_(cost), requests_(requests), total_blocks_(blocks) {
  stats_.blocks = blocks;
}

bool Replica::grow(Request& r, std::int64_t tokens) {
  const std::int64_t need = blocks_for(tokens) - r.blocks;
  if (need <= 0) return true;
  if (need > free_blocks()) return false;
  r.blocks += need;
  used_blocks_ += need;
  return true;
}

void Replica::release(Request& r) {
  used_blocks_ -= r.blocks;
  r.blocks = 0;
}

bool Replica::enqueue(int id) {
  Request& r = requests_[static_cast<std::size_t>(id)];
  const bool whole_prompts = engine_.batching != Batching::chunked_prefill;
  // A prefill replica holds a prompt's cache only; its first decode step runs on a decode replica.
  const std::int64_t held = role_ == ReplicaRole::prefill ? r.prompt : r.prompt + r.output;
  if ((whole_prompts && r.prompt - r.prefix_hit > engine_.max_batched_tokens) || !can_hold(held)) {
    r.state = RequestState::rejected;
    return false;
  }
  r.state = RequestState::waiting;
  r.target = r.prompt;
  waiting_.push_back(id);
  return true;
}

int Replica::preempt_newest() {
  const int id = running_.back();
  running_.pop_back();
  Request& r = requests_[static_cast<std::size_t>(id)];
  ++r.preemptions;
  ++stats_.preemptions;
  if (engine_.preemption == Preemption::swap) {
    transfer_ += cost_.swap_time(r.blocks);
    used_blocks_ -= r.blocks;  // r.blocks stays: what swapping in takes back
    r.state = RequestState::swapped;
    swapped_.push_back(id);
  } else {
    release(r);
    r.computed = 0;
    r.target = r.prompt + r.generated;
    r.state = RequestState::waiting;
    waiting_.push_front(id);
  }
  return id;
}

void Replica::schedule_prefill(int id, std::int64_t tokens) {
  const Request& r = requests_[static_cast<std::size_t>(id)];
  scheduled_.push_back({id, tokens, false});
  batch_.prefills.push_back({tokens, r.computed, r.computed + tokens == r.target});
}

void Replica::schedule_decode(int id) {
  scheduled_.push_back({id, 1, true});
  ++batch_.decodes;
  batch_.decode_context += requests_[static_cast<std::size_t>(id)].computed;
}

void Replica::swap_in() {
  while (!swapped_.empty() && running_.size() < static_cast<std::size_t>(engine_.max_seqs)) {
    Request& r = requests_[static_cast<std::size_t>(swapped_.front())];
    // Room for its blocks and, beside other running requests, its next token's (alone it may take them all).
    if (r.blocks + (running_.empty() ? 0 : 1) > free_blocks()) return;
    used_blocks_ += r.blocks;
    transfer_ += cost_.swap_time(r.blocks);
    r.state = RequestState::running;
    running_.push_back(swapped_.front());
    swapped_.pop_front();
  }
}

std::int64_t Replica::schedule_decodes(std::int64_t limit) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < running_.size() && n < limit; ++i) {
    const int id = running_[i];
    Request& r = requests_[static_cast<std::size_t>(id)];
    if (r.prefilling()) continue;
    bool self = false;
    while (!self && !grow(r, r.computed + 1)) self = preempt_newest() == id;
    if (self) break;  // it was the newest: nothing after it is left to decode
    schedule_decode(id);
    ++n;
  }
  return n;
}

void Replica::admit(int id, std::vector<int>& into, std::int64_t tokens) {
  Request& r = requests_[static_cast<std::size_t>(id)];
  waiting_.pop_front();
  r.state = RequestState::running;
  r.computed = r.prefix_hit;
  into.push_back(id);
  schedule_prefill(id, tokens);
}

void Replica::admit_whole_prompts(std::vector<int>& into, bool reserve_output) {
  std::int64_t tokens = 0;
  while (!waiting_.empty() && into.size() < static_cast<std::size_t>(engine_.max_seqs)) {
    const int id = waiting_.front();
    Request& r = requests_[static_cast<std::size_t>(id)];
    const std::int64_t work = r.target - r.prefix_hit;
    // The first prompt always goes (a recomputed one may exceed the limit), later ones while they fit.
    if (tokens > 0 && tokens + work > engine_.max_batched_tokens) break;
    if (!grow(r, reserve_output ? r.prompt + r.output : r.target)) break;
    admit(id, into, work);
    tokens += work;
  }
}

void Replica::form_static() {
  if (static_batch_.empty()) {
    admit_whole_prompts(static_batch_, true);  // each sequence's whole cache reserved up front
    static_context_ = 0;
    for (const int id : static_batch_) static_context_ += requests_[static_cast<std::size_t>(id)].prompt;
    return;
  }
  for (const int id : static_batch_) {
    if (!requests_[static_cast<std::size_t>(id)].done()) scheduled_.push_back({id, 1, true});
  }
  // Finished sequences stay in the batch as padding: every step decodes all of them.
  batch_.decodes = static_cast<std::int64_t>(static_batch_.size());
  batch_.decode_context = static_context_;
  static_context_ += batch_.decodes;
}

void Replica::form_continuous() {
  swap_in();
  if (swapped_.empty()) admit_whole_prompts(running_, false);
  if (scheduled_.empty()) (void)schedule_decodes(engine_.max_seqs);
}

void Replica::form_chunked() {
  swap_in();
  std::int64_t budget = engine_.token_budget;
  budget -= schedule_decodes(budget);
  for (const int id : running_) {
    if (budget == 0) break;
    Request& r = requests_[static_cast<std::size_t>(id)];
    if (!r.prefilling()) continue;
    const std::int64_t room = (r.blocks + free_blocks()) * engine_.block_size - r.computed;
    const std::int64_t chunk = std::min({r.target - r.computed, budget, room});
    if (chunk <= 0) continue;
    (void)grow(r, r.computed + chunk);
    schedule_prefill(id, chunk);
    budget -= chunk;
  }
  while (swapped_.empty() && budget > 0 && !waiting_.empty() &&
         running_.size() < static_cast<std::size_t>(engine_.max_seqs)) {
    const int id = waiting_.front();
    Request& r = requests_[static_cast<std::size_t>(id)];
    // It holds no blocks while it waits: the free ones bound its first chunk.
    const std::int64_t chunk =
        std::min({r.target - r.prefix_hit, budget, free_blocks() * engine_.block_size - r.prefix_hit});
    if (chunk <= 0) break;
    (void)grow(r, r.prefix_hit + chunk);
    admit(id, running_, chunk);
    budget -= chunk;
  }
}

std::optional<Time> Replica::start_iteration() {
  batch_.prefills.clear();
  batch_.decodes = 0;
  batch_.decode_context = 0;
  scheduled_.clear();
  transfer_ = Time::zero();
  switch (engine_.batching) {
    case Batching::static_batch: form_static(); break;
    case Batching::continuous: form_continuous(); break;
    case Batching::chunked_prefill:
      form_chunked();
      // Prefills in progress holding every block, and none of them able to grow: free the newest and retry.
      while (scheduled_.empty() && !running_.empty()) {
        (void)preempt_newest();
        form_chunked();
      }
      break;
  }
  if (batch_.empty() && transfer_ <= Time::zero()) return std::nullopt;
  const Time t = cost_.price(batch_) + transfer_;
  stats_.busy += t;
  if (!batch_.prefills.empty()) stats_.prefill_busy += t;
  if (batch_.decodes > 0) {
    stats_.decode_rows += batch_.decodes;
    ++stats_.decode_iterations;
  }
  stats_.block_seconds += static_cast<double>(used_blocks_) * t.seconds();
  stats_.max_blocks = std::max(stats_.max_blocks, used_blocks_);
  ++stats_.iterations;
  in_flight_ = true;
  return t;
}

void Replica::end_iteration(Time now) {
  in_flight_ = false;
  const bool static_batch = engine_.batching == Batching::static_batch;
  for (const Scheduled& s : scheduled_) {
    Request& r = requests_[static_cast<std::size_t>(s.id)];
    if (r.state != RequestState::running) continue;
    r.computed += s.tokens;
    if (s.decode || r.computed == r.target) {
      ++r.generated;
      r.target = r.computed;
      if (r.first_token == Time::max()) r.first_token = now;
    }
    if (r.done()) {
      r.finish = now;
      r.state = RequestState::finished;
      if (!static_batch) release(r);
    } else if (role_ == ReplicaRole::prefill && !r.prefilling()) {
      // Its first token is out: the cache waits here, in its blocks, to be sent to a decode replica.
      r.state = RequestState::transferring;
      held_.emplace_back(s.id, r.blocks);
      r.blocks = 0;
      handoffs_.push_back(s.id);
    }
  }
  if (static_batch) {
    const auto done = [&](int id) { return requests_[static_cast<std::size_t>(id)].done(); };
    if (std::all_of(static_batch_.begin(), static_batch_.end(), done)) {
      for (const int id : static_batch_) release(requests_[static_cast<std::size_t>(id)]);
      static_batch_.clear();
    }
    return;
  }
  std::erase_if(running_, [&](int id) {
    const RequestState st = requests_[static_cast<std::size_t>(id)].state;
    return st == RequestState::finished || st == RequestState::transferring;
  });
}

std::vector<int> Replica::take_handoffs() {
  std::vector<int> out;
  out.swap(handoffs_);
  return out;
}

void Replica::release_handoff(int id) {
  const auto it = std::find_if(held_.begin(), held_.end(), [id](const auto& h) { return h.first == id; });
  if (it == held_.end()) return;
  used_blocks_ -= it->second;
  held_.erase(it);
}

void Replica::offer(int id) { offered_.push_back(id); }

std::vector<int> Replica::admit_arrivals() {
  std::vector<int> admitted;
  while (!offered_.empty() && running_.size() + static_cast<std::size_t>(receiving_) + waiting_.size() +
                                      swapped_.size() <
                                  static_cast<std::size_t>(engine_.max_seqs)) {
    Request& r = requests_[static_cast<std::size_t>(offered_.front())];
    if (!grow(r, r.computed)) break;  // in order: the head waits for room, and so do those behind it
    admitted.push_back(offered_.front());
    offered_.pop_front();
    ++receiving_;
  }
  return admitted;
}

void Replica::receive(int id) {
  Request& r = requests_[static_cast<std::size_t>(id)];
  --receiving_;
  r.state = RequestState::running;
  running_.push_back(id);
}

}  // namespace cs
