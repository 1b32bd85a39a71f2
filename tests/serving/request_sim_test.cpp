// Hand-worked serving runs: every expected time is a sum of IterationCost::price over the iterations the
// scheduler must form, written out beside the assertion, so these check the simulator's logic exactly.
#include "sim/serving/request_sim.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "serving_fixtures.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/serving_runner.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

using testing::h100_cost;
using testing::llama_1b5;

/// A trace-driven config: requests exactly where the test puts them.
ServingConfig traced(Batching batching) {
  ServingConfig c;
  c.load.arrivals = ArrivalKind::trace;
  c.load.prompt.kind = LengthKind::trace;
  c.load.output.kind = LengthKind::trace;
  c.engine.batching = batching;
  return c;
}

ReplicaMemory blocks(std::int64_t n, std::int64_t block_size = 16) {
  ReplicaMemory m;
  m.blocks = n;
  m.block_size = block_size;
  return m;
}

struct Fixture {
  explicit Fixture(const ServingConfig& c)
      : config(c), comm(testing::nvlink_ring(1)), cost(llama_1b5(), c.deployment, c.engine, h100_cost(), comm) {}
  ServingConfig config;
  AlphaBetaComm comm;
  IterationCost cost;

  [[nodiscard]] Time prefill(std::int64_t tokens, std::int64_t cached = 0, bool samples = true) const {
    BatchShape b;
    b.prefills.push_back({tokens, cached, samples});
    return cost.price(b);
  }
  [[nodiscard]] Time prefills(std::vector<PrefillChunk> chunks) const {
    BatchShape b;
    b.prefills = std::move(chunks);
    return cost.price(b);
  }
  [[nodiscard]] Time decode(std::int64_t seqs, std::int64_t context) const {
    BatchShape b;
    b.decodes = seqs;
    b.decode_context = context;
    return cost.price(b);
  }
  [[nodiscard]] ServingRun run(const std::string& trace_text, const ReplicaMemory& memory) const {
    const auto trace = parse_request_trace(trace_text, "trace.csv");
    return simulate_serving(config, cost, memory, &trace);
  }
};

TEST(RequestSim, OneRequestThroughPrefillAndDecodes) {
  const Fixture f(traced(Batching::continuous));
  // Arrives at 0.5 s with 100 prompt tokens and 5 output tokens: one prefill (sampling the first token), then
  // four decodes against 100, 101, 102 and 103 cached tokens.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0.5,100,5\n", blocks(1000));
  ASSERT_EQ(run.requests.size(), 1u);
  const Request& r = run.requests[0];
  const Time first = Time::ms(500) + f.prefill(100);
  EXPECT_EQ(r.first_token, first);
  EXPECT_EQ(r.finish, first + f.decode(1, 100) + f.decode(1, 101) + f.decode(1, 102) + f.decode(1, 103));
  EXPECT_EQ(run.result.finished, 1);
  EXPECT_EQ(run.result.iterations, 5);
  // TTFT = the prefill; TPOT = the four decodes over four tokens.
  EXPECT_DOUBLE_EQ(run.result.ttft.p50_s, (first - Time::ms(500)).seconds());
  EXPECT_DOUBLE_EQ(run.result.tpot.p50_s, (r.finish - first).seconds() / 4.0);
  EXPECT_EQ(r.blocks, 0);  // released when it finished
}

TEST(RequestSim, TwoRequestsContinuousJoinAtTheNextIteration) {
  const Fixture f(traced(Batching::continuous));
  // r1 at 0 (100 prompt, 4 out), r2 at 1 ms (50 prompt, 3 out), during r1's prefill.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,100,4\n0.001,50,3\n", blocks(1000));
  const Request &r1 = run.requests[0], &r2 = run.requests[1];
  const Time t1 = f.prefill(100);       // r1's prefill
  const Time t2 = t1 + f.prefill(50);   // r2's prefill: prompts go first, r1's decode waits
  const Time t3 = t2 + f.decode(2, 150);  // both decode: r1 holds 100 tokens, r2 50
  const Time t4 = t3 + f.decode(2, 152);  // r2's third token: done
  const Time t5 = t4 + f.decode(1, 102);  // r1's fourth token: done
  EXPECT_EQ(r1.first_token, t1);
  EXPECT_EQ(r2.first_token, t2);
  EXPECT_EQ(r2.finish, t4);
  EXPECT_EQ(r1.finish, t5);
}

TEST(RequestSim, TwoRequestsStaticRunOneBatchAfterTheOther) {
  const Fixture f(traced(Batching::static_batch));
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,100,4\n0.001,50,3\n", blocks(1000));
  const Request &r1 = run.requests[0], &r2 = run.requests[1];
  // r1's batch (alone: r2 had not arrived when it formed) runs to completion before r2's starts.
  const Time t1 = f.prefill(100);
  const Time end1 = t1 + f.decode(1, 100) + f.decode(1, 101) + f.decode(1, 102);
  const Time t2 = end1 + f.prefill(50);
  EXPECT_EQ(r1.first_token, t1);
  EXPECT_EQ(r1.finish, end1);
  EXPECT_EQ(r2.first_token, t2);
  EXPECT_EQ(r2.finish, t2 + f.decode(1, 50) + f.decode(1, 51));
}

TEST(RequestSim, StaticBatchPadsFinishedSequences) {
  const Fixture f(traced(Batching::static_batch));
  // r0 (one token) keeps the engine busy while r1 (64 prompt, 2 out) and r2 (32 prompt, 4 out) arrive; they
  // then form one batch. r1 is done after one decode, but its slot keeps decoding as padding until r2's last.
  const ServingRun run =
      f.run("arrival_s,prompt_tokens,output_tokens\n0,16,1\n0.000001,64,2\n0.000002,32,4\n", blocks(1000));
  const Time t0 = f.prefill(16);
  const Time t1 = t0 + f.prefills({{64, 0, true}, {32, 0, true}});
  EXPECT_EQ(run.requests[0].finish, t0);
  EXPECT_EQ(run.requests[1].first_token, t1);
  EXPECT_EQ(run.requests[2].first_token, t1);
  EXPECT_EQ(run.requests[1].finish, t1 + f.decode(2, 96));
  EXPECT_EQ(run.requests[2].finish, t1 + f.decode(2, 96) + f.decode(2, 98) + f.decode(2, 100));
}

TEST(RequestSim, CacheFullPreemptsTheNewestAndRecomputesIt) {
  const Fixture f(traced(Batching::continuous));
  // Three blocks of 16 tokens. r1 (16 prompt, 20 out) and r2 (16 prompt, 3 out) each take one block to
  // prefill. In the first decode both need a second block (16 cached tokens fill one); r1 takes the last free
  // one, and r2, the newest, is preempted: it goes back to the queue and, once r1 has finished and freed its
  // blocks, prefills its prompt and its one token again (17 tokens), sampling its second token.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,16,20\n0.000001,16,3\n", blocks(3));
  const Request &r1 = run.requests[0], &r2 = run.requests[1];
  Time t = f.prefill(16);  // r1
  EXPECT_EQ(r1.first_token, t);
  t += f.prefill(16);  // r2, first token
  EXPECT_EQ(r2.first_token, t);
  // r1 decodes alone from 16 cached tokens; r2 cannot come back while r1 holds 2 of the 3 blocks (r2 needs 2).
  // At 32 cached tokens r1 takes its third block; it finishes with 16 + 19 = 35 tokens.
  for (std::int64_t ctx = 16; ctx < 35; ++ctx) t += f.decode(1, ctx);
  EXPECT_EQ(r1.finish, t);
  t += f.prefill(17);  // r2 recomputed: prompt and first token, sampling the second
  t += f.decode(1, 17);
  EXPECT_EQ(r2.finish, t);
  EXPECT_EQ(r2.preemptions, 1);
  EXPECT_EQ(run.result.preemptions, 1);
  EXPECT_DOUBLE_EQ(run.result.kv_occupancy_max, 1.0);
}

TEST(RequestSim, CacheFullSwapsTheNewestOutAndBackIn) {
  ServingConfig c = traced(Batching::continuous);
  c.engine.preemption = Preemption::swap;
  const Fixture f(c);
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,16,20\n0.000001,16,3\n", blocks(3));
  const Request &r1 = run.requests[0], &r2 = run.requests[1];
  Time t = f.prefill(16) + f.prefill(16);
  // r2's one block goes to the host during the first decode; it comes back (one more copy) once two blocks are
  // free - r1 holds three until it finishes - and decodes from its 16 tokens.
  t += f.decode(1, 16) + f.cost.swap_time(1);
  for (std::int64_t ctx = 17; ctx < 35; ++ctx) t += f.decode(1, ctx);
  EXPECT_EQ(r1.finish, t);
  t += f.cost.swap_time(1) + f.decode(1, 16);
  t += f.decode(1, 17);
  EXPECT_EQ(r2.finish, t);
  EXPECT_EQ(run.result.preemptions, 1);
}

TEST(RequestSim, ChunkedPrefillSplitsALongPrompt) {
  ServingConfig c = traced(Batching::chunked_prefill);
  c.engine.token_budget = 64;
  const Fixture f(c);
  // 150 prompt tokens in a 64-token budget: chunks of 64, 64 and 22, the last sampling the first token.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,150,2\n", blocks(1000));
  const Time first = f.prefill(64, 0, false) + f.prefill(64, 64, false) + f.prefill(22, 128, true);
  EXPECT_EQ(run.requests[0].first_token, first);
  EXPECT_EQ(run.requests[0].finish, first + f.decode(1, 150));
  EXPECT_EQ(run.result.iterations, 4);
}

TEST(RequestSim, ChunkedPrefillMixesDecodesWithAChunk) {
  ServingConfig c = traced(Batching::chunked_prefill);
  c.engine.token_budget = 64;
  const Fixture f(c);
  // r1 (10 prompt, 4 out) is decoding when r2 (100 prompt) arrives: each iteration holds r1's decode and a
  // 63-token chunk of r2, then r2's last 37 tokens beside r1's last decode.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,10,4\n0.000001,100,2\n", blocks(1000));
  Time t = f.prefill(10);
  BatchShape mixed;
  mixed.decodes = 1;
  mixed.decode_context = 10;
  mixed.prefills = {{63, 0, false}};
  t += f.cost.price(mixed);  // r1's second token, r2's first chunk
  mixed.decode_context = 11;
  mixed.prefills = {{37, 63, true}};
  t += f.cost.price(mixed);  // r1's third token, r2's first token
  EXPECT_EQ(run.requests[1].first_token, t);
  t += f.decode(2, 12 + 100);  // r1's fourth (done) and r2's second (done)
  EXPECT_EQ(run.requests[0].finish, t);
  EXPECT_EQ(run.requests[1].finish, t);
}

TEST(RequestSim, PrefixCacheHitsSkipWholeBlocks) {
  ServingConfig c = traced(Batching::continuous);
  c.engine.prefix_cache_hit_rate = 0.5;
  const Fixture f(c);
  // Half of 100 tokens is 50, whole 16-token blocks of it 48: the prefill computes 52 tokens after 48 cached.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,100,1\n", blocks(1000));
  EXPECT_EQ(run.requests[0].finish, f.prefill(52, 48));
}

TEST(RequestSim, RejectsWhatCanNeverRun) {
  ServingConfig c = traced(Batching::continuous);
  c.engine.max_batched_tokens = 64;
  const Fixture f(c);
  // A 100-token prompt exceeds max_batched_tokens; a 40 + 30 token request needs 5 of the 4 blocks.
  const ServingRun run =
      f.run("arrival_s,prompt_tokens,output_tokens\n0,100,1\n0,40,30\n0,20,1\n", blocks(4));
  EXPECT_EQ(run.requests[0].state, RequestState::rejected);
  EXPECT_EQ(run.requests[1].state, RequestState::rejected);
  EXPECT_EQ(run.requests[2].state, RequestState::finished);
  EXPECT_EQ(run.result.rejected, 2);
}

TEST(RequestSim, RoundRobinAndLeastLoadedRouting) {
  ServingConfig c = traced(Batching::continuous);
  c.deployment.replicas = 2;
  const Fixture f(c);
  const std::string trace = "arrival_s,prompt_tokens,output_tokens\n0,100,500\n0.001,100,2\n0.1,100,2\n";
  const ServingRun rr = f.run(trace, blocks(1000));
  EXPECT_EQ(rr.requests[0].replica, 0);
  EXPECT_EQ(rr.requests[1].replica, 1);
  EXPECT_EQ(rr.requests[2].replica, 0);
  ServingConfig l = c;
  l.deployment.routing = Routing::least_loaded;
  const Fixture g(l);
  // At 0.1 s replica 0 still runs r1 (500 tokens) while r2 has finished on replica 1.
  const ServingRun ll = g.run(trace, blocks(1000));
  EXPECT_EQ(ll.requests[2].replica, 1);
}

TEST(RequestSim, SameSeedSameRun) {
  ServingConfig c;
  c.load.rate = 20;
  c.load.prompt = {.kind = LengthKind::lognormal, .max = 4096, .mean = 512, .sigma = 1.0};
  c.load.output = {.kind = LengthKind::uniform, .min = 1, .max = 64};
  c.duration = Time::from_seconds(20);
  const Fixture f(c);
  const ServingRun a = simulate_serving(c, f.cost, blocks(20000));
  const ServingRun b = simulate_serving(c, f.cost, blocks(20000));
  ASSERT_EQ(a.requests.size(), b.requests.size());
  EXPECT_GT(a.requests.size(), 300u);
  EXPECT_EQ(serving_json(a.result).dump(), serving_json(b.result).dump());
  EXPECT_FALSE(a.result.queue.unbounded);
}

TEST(RequestSim, OverloadFinishesAndSaysTheQueueGrewWithoutBound) {
  ServingConfig c;
  c.engine.max_seqs = 4;
  c.load.rate = 100;  // 4 sequences of 64 tokens at a few ms per step serve about 40 requests/s
  c.load.prompt = {.kind = LengthKind::fixed, .value = 256};
  c.load.output = {.kind = LengthKind::fixed, .value = 64};
  c.duration = Time::from_seconds(60);
  c.drain = Time::from_seconds(10);
  const Fixture f(c);
  const ServingRun run = simulate_serving(c, f.cost, blocks(20000));
  const ServingResult& r = run.result;
  EXPECT_TRUE(r.queue.unbounded) << r.queue.message;
  EXPECT_LT(r.queue.since.seconds(), 5.0) << r.queue.message;  // overloaded from the start
  EXPECT_GT(r.queue.growth_per_s, 30.0);
  EXPECT_GT(r.unfinished, 1000);
  EXPECT_EQ(r.makespan, Time::from_seconds(70));  // stopped at the end of the drain
  EXPECT_NE(r.queue.message.find("without bound"), std::string::npos);
  EXPECT_GT(r.gpu_busy, 0.99);
}

TEST(RequestSim, DiurnalLoadFollowsTheHour) {
  ServingConfig c;
  c.load.arrivals = ArrivalKind::diurnal;
  c.load.diurnal.assign(24, 0.0);
  c.load.diurnal[1] = 2.0;  // only between 1 and 2 a.m.
  c.load.prompt = {.kind = LengthKind::fixed, .value = 32};
  c.load.output = {.kind = LengthKind::fixed, .value = 2};
  c.duration = Time::from_seconds(3 * 3600);
  const Fixture f(c);
  const ServingRun run = simulate_serving(c, f.cost, blocks(20000));
  // 7,200 expected arrivals, all in the second hour (Poisson: sd 85).
  EXPECT_NEAR(static_cast<double>(run.requests.size()), 7200.0, 400.0);
  for (const Request& r : run.requests) {
    ASSERT_GE(r.arrival.seconds(), 3600.0);
    ASSERT_LT(r.arrival.seconds(), 7200.0);
  }
  EXPECT_EQ(run.result.finished, run.result.arrived);
}

}  // namespace
}  // namespace cs

namespace cs {
namespace {

TEST(ServingRunner, ReadsTheTraceFileItNames) {
  const auto path = testing::temp_file("serving_trace", ".csv");
  {
    std::ofstream out(path);
    out << "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,100,3\n"
           "2023-11-16 18:15:47.6805900,200,2\n";
  }
  ServingConfig c;
  c.load.arrivals = ArrivalKind::trace;
  c.load.trace = path.string();
  c.load.prompt.kind = c.load.output.kind = LengthKind::trace;
  const auto comm = testing::nvlink_ring(1);
  const ServingRun run = run_serving(c, llama_1b5(), h100_cost(), comm, Bytes{85017493504.0});
  ASSERT_EQ(run.requests.size(), 2u);
  EXPECT_EQ(run.requests[1].arrival, Time::from_seconds(1));
  EXPECT_EQ(run.requests[1].prompt, 200);
  EXPECT_EQ(run.result.finished, 2);
  // 1.5B in bf16 on an H100: 79.2 GiB x 0.9 less 2.8 GiB of weights and the activations leaves ~68 GiB of
  // cache at 32 KiB a token.
  EXPECT_GT(run.result.memory.token_capacity(), 2'000'000);
  c.load.trace = path.string() + ".missing";
  EXPECT_THROW((void)run_serving(c, llama_1b5(), h100_cost(), comm, Bytes{85017493504.0}), InputError);
}

}  // namespace
}  // namespace cs
