// Disaggregated prefill and decode worked by hand: the KV cache's flows on a small topology whose route and
// bandwidth are known (two PCIe hops of 10 GB/s and 1 us each between any two GPUs), and requests whose times are
// sums of IterationCost::price over the iterations each pool must run, plus their transfers.
#include "sim/serving/disaggregated_sim.hpp"

#include <gtest/gtest.h>

#include "serving_fixtures.hpp"
#include "sim/serving/replica_memory.hpp"
#include "sim/topology/router.hpp"

namespace cs {
namespace {

using testing::h100_cost;
using testing::llama_1b5;

/// `gpus` GPUs straight on one root complex, PCIe links of 10 GB/s and 1 us: GPU a to GPU b is two channels of
/// 10 GB/s and 2 us in all.
Topology pcie_pair_topology(int gpus) {
  NodeSpec n;
  n.name = "test node";
  n.gpus = gpus;
  n.pcie.generation = "test";
  n.pcie.gpu_link = LinkSpec{Bandwidth{10e9}, Time::us(1)};
  n.pcie.switches = 0;
  n.pcie.root_complexes = 1;
  n.nic_spec.count = 1;
  n.nic_spec.link = LinkSpec{Bandwidth{1e9}, Time::zero()};
  n.nic_spec.host_link = LinkSpec{Bandwidth{1e15}, Time::zero()};
  n.nic_spec.attach = PcieAttach::cpu;
  n.nics = 1;
  n.nic = n.nic_spec.link;
  return build_topology("pcie", n, FabricSpec{}, 1);
}

/// The 1.5B model's cache per token on one GPU at TP1: 16 layers x 8 KV heads x 64 (head dim: hidden 2048 over 32
/// heads) x 2 (K and V) x 2 B = 32,768 B.
constexpr double kKvPerToken = 16.0 * 8 * 64 * 2 * 2;
/// 1,000 tokens of it over 10 GB/s: 32.768 MB / 10 GB/s = 3.2768 ms, after the route's 2 us.
const Time kThousandTokens = Time::us(2) + Time::ns(3'276'800);

ReplicaMemory pool_memory(std::int64_t blocks) {
  ReplicaMemory m;
  m.blocks = blocks;
  m.block_size = 16;
  m.kv_per_token = Bytes{kKvPerToken};
  return m;
}

ServingConfig disaggregated(int prefill, int decode) {
  ServingConfig c;
  c.load.arrivals = ArrivalKind::trace;
  c.load.prompt.kind = LengthKind::trace;
  c.load.output.kind = LengthKind::trace;
  c.deployment.prefill = {prefill, 1};
  c.deployment.decode = {decode, 1};
  return c;
}

struct DisaggregatedFixture {
  DisaggregatedFixture(int prefill, int decode, std::int64_t decode_blocks = 100000)
      : config(disaggregated(prefill, decode)),
        comm(testing::nvlink_ring(1)),
        cost(llama_1b5(), config.deployment.pool(PoolRole::prefill), config.engine, h100_cost(), comm),
        prefill_memory(pool_memory(100000)),
        decode_memory(pool_memory(decode_blocks)),
        topology(pcie_pair_topology(prefill + decode)) {}
  ServingConfig config;
  AlphaBetaComm comm;
  IterationCost cost;  // both pools are TP1 replicas of the same model: one price list
  ReplicaMemory prefill_memory, decode_memory;
  Topology topology;

  [[nodiscard]] Time prefill(std::vector<PrefillChunk> chunks) const {
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
  [[nodiscard]] ServingRun run(const std::string& trace_text) const {
    const auto trace = parse_request_trace(trace_text, "trace.csv");
    const PoolModel p{cost, prefill_memory, config.deployment.prefill.replicas,
                      pool_placement(config.deployment, PoolRole::prefill)};
    const PoolModel d{cost, decode_memory, config.deployment.decode.replicas,
                      pool_placement(config.deployment, PoolRole::decode)};
    return simulate_disaggregated(config, p, d, topology, &trace);
  }
};

TEST(KvTransfer, TheCachePerTokenIsLayersTimesKvHeadsTimesHeadDimTimesTwoTimesTwoBytes) {
  ServingConfig c;
  const IterationCost cost(llama_1b5(), c.deployment, c.engine, h100_cost(), testing::nvlink_ring(1));
  EXPECT_DOUBLE_EQ(plan_replica_memory(cost.sharded(), c.engine, Bytes{80e9}).kv_per_token.value(), kKvPerToken);
}

TEST(KvTransfer, OneCacheOnAnIdleLinkTakesBytesOverBandwidthPlusLatency) {
  const Topology t = pcie_pair_topology(2);
  Router router(t);
  ASSERT_EQ(router.route(0, 1).latency, Time::us(2));
  const auto flows = kv_transfer_flows({0, 1, 1}, 0, {1, 1, 1}, 0, Bytes{kKvPerToken}, 1000);
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].src_gpu, 0);
  EXPECT_EQ(flows[0].dst_gpu, 1);
  EXPECT_DOUBLE_EQ(flows[0].bytes.value(), 1000 * kKvPerToken);
  EventEngine engine;
  KvTransferNetwork net(engine, t);
  Time done = Time::max();
  net.send(flows, [&] { done = engine.now(); });
  engine.run();
  EXPECT_EQ(done, kThousandTokens);  // 2 us + 32.768 MB / 10 GB/s
}

TEST(KvTransfer, TwoCachesIntoOneGpuShareItsLink) {
  // GPUs 0 and 1 both send 1,000 tokens to GPU 2 at once: the root complex -> GPU 2 channel carries both at
  // 5 GB/s each, so each takes 2 us + 32.768 MB / 5 GB/s = 2 us + 6.5536 ms.
  const Topology t = pcie_pair_topology(3);
  EventEngine engine;
  KvTransferNetwork net(engine, t);
  Time a = Time::max(), b = Time::max();
  net.send(kv_transfer_flows({0, 1, 1}, 0, {2, 1, 1}, 0, Bytes{kKvPerToken}, 1000), [&] { a = engine.now(); });
  net.send(kv_transfer_flows({0, 1, 1}, 1, {2, 1, 1}, 0, Bytes{kKvPerToken}, 1000), [&] { b = engine.now(); });
  engine.run();
  EXPECT_EQ(a, Time::us(2) + Time::ns(6'553'600));
  EXPECT_EQ(b, a);
  EXPECT_DOUBLE_EQ(net.bytes_sent().value(), 2000 * kKvPerToken);
}

TEST(KvTransfer, UnequalTpDegreesSplitEachDecodeGpusShare) {
  // Prefill TP4 (GPUs 0-3) to decode TP2 (GPUs 4-5): n = 4 flows, ranks 0,1 -> decode rank 0 and 2,3 -> rank 1,
  // each carrying half of a decode GPU's share (tp_d / n = 2 / 4).
  const auto wide = kv_transfer_flows({0, 4, 1}, 0, {4, 2, 1}, 0, Bytes{1000}, 10);
  ASSERT_EQ(wide.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(wide[static_cast<std::size_t>(k)].src_gpu, k);
    EXPECT_EQ(wide[static_cast<std::size_t>(k)].dst_gpu, 4 + k / 2);
    EXPECT_DOUBLE_EQ(wide[static_cast<std::size_t>(k)].bytes.value(), 5000);
  }
  // Prefill TP2 (replica 1: GPUs 2-3) to decode TP4 (replica 0 from GPU 4): each prefill GPU feeds two decode
  // GPUs their whole share; with pp 2 the second stage's ranks follow the first's.
  const auto narrow = kv_transfer_flows({0, 2, 2}, 1, {8, 4, 2}, 0, Bytes{1000}, 10);
  ASSERT_EQ(narrow.size(), 8u);
  EXPECT_EQ(narrow[0].src_gpu, 4);  // replica 1 of tp2 x pp2 starts at GPU 4
  EXPECT_EQ(narrow[1].src_gpu, 4);
  EXPECT_EQ(narrow[2].src_gpu, 5);
  EXPECT_EQ(narrow[3].dst_gpu, 11);
  EXPECT_EQ(narrow[4].src_gpu, 6);  // stage 1
  EXPECT_EQ(narrow[4].dst_gpu, 12);
  EXPECT_DOUBLE_EQ(narrow[0].bytes.value(), 10000);
}

TEST(DisaggregatedSim, OneRequestPrefillsTransfersAndDecodes) {
  const DisaggregatedFixture f(1, 1);
  // 1,000 prompt tokens and 3 output tokens at time 0: the prefill replica (GPU 0) samples the first token, the
  // cache goes to GPU 1 (2 us + 3.2768 ms), which decodes the second and third tokens against 1,000 and 1,001
  // cached tokens.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,1000,3\n");
  ASSERT_EQ(run.requests.size(), 1u);
  const Request& r = run.requests[0];
  const Time first = f.prefill({{1000, 0, true}});
  EXPECT_EQ(r.first_token, first);  // TTFT ends with the prefill (DistServe, Splitwise)
  EXPECT_EQ(r.finish, first + kThousandTokens + f.decode(1, 1000) + f.decode(1, 1001));
  ASSERT_TRUE(run.result.disaggregated);
  const DisaggregatedResult& d = *run.result.disaggregated;
  EXPECT_EQ(d.kv_transfer.transfers, 1);
  EXPECT_DOUBLE_EQ(d.kv_transfer.bytes, 1000 * kKvPerToken);
  EXPECT_DOUBLE_EQ(d.kv_transfer.time.p50_s, kThousandTokens.seconds());
  EXPECT_DOUBLE_EQ(d.kv_transfer.wait.p50_s, 0.0);
  EXPECT_EQ(d.prefill.iterations, 1);
  EXPECT_EQ(d.decode.iterations, 2);
  // TPOT: the transfer and the two decodes over the two tokens after the first.
  EXPECT_DOUBLE_EQ(run.result.tpot.p50_s, (r.finish - first).seconds() / 2.0);
}

TEST(DisaggregatedSim, TwoCachesAtOnceShareTheDecodeGpusLink) {
  const DisaggregatedFixture f(2, 1);
  // Two requests at 0 go round-robin to prefill replicas 0 and 1 (GPUs 0 and 1), end their prefills together and
  // both send to the decode replica on GPU 2: the busy link halves each one's rate (2 us + 6.5536 ms). Both caches
  // arrive at the same instant; the first to arrive starts the decode replica's iteration alone (against 1,000
  // cached tokens), and the second joins the next one (1,001 + 1,000), which ends the first.
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,1000,3\n0,1000,3\n");
  const Request &a = run.requests[0], &b = run.requests[1];
  const Time first = f.prefill({{1000, 0, true}});
  const Time sent = first + Time::us(2) + Time::ns(6'553'600);
  EXPECT_EQ(a.first_token, first);
  EXPECT_EQ(b.first_token, first);
  EXPECT_EQ(a.finish, sent + f.decode(1, 1000) + f.decode(2, 2001));
  EXPECT_EQ(b.finish, a.finish + f.decode(1, 1001));
  EXPECT_DOUBLE_EQ(run.result.disaggregated->kv_transfer.time.p99_s, (sent - first).seconds());
  EXPECT_DOUBLE_EQ(run.result.disaggregated->kv_transfer.time.p50_s, (sent - first).seconds());
}

TEST(DisaggregatedSim, TheDecodeReplicaAdmitsACacheOnlyWhenItHasRoom) {
  // The decode replica holds 7 blocks of 16 tokens (112 tokens): request a (100 prompt tokens, 10 out) takes all
  // 7 for its prompt and its 9 decodes still fit. b (100, 3) arrives with it and prefills after it on the one
  // prefill replica; its cache waits there until a finishes and frees the decode replica's blocks, then is sent
  // (100 x 32,768 B / 10 GB/s = 327.68 us + 2 us) and decoded.
  const DisaggregatedFixture f(1, 1, 7);
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,100,10\n0,100,3\n");
  const Request &a = run.requests[0], &b = run.requests[1];
  const Time p = f.prefill({{100, 0, true}});
  const Time transfer = Time::us(2) + Time::ns(327'680);
  Time a_decodes;
  for (int c = 100; c < 109; ++c) a_decodes += f.decode(1, c);
  EXPECT_EQ(a.first_token, p);
  EXPECT_EQ(b.first_token, p + p);
  EXPECT_EQ(a.finish, p + transfer + a_decodes);
  ASSERT_LT(b.first_token, a.finish);  // so b did wait for room
  EXPECT_EQ(b.finish, a.finish + transfer + f.decode(1, 100) + f.decode(1, 101));
  const KvTransferResult& kv = run.result.disaggregated->kv_transfer;
  EXPECT_DOUBLE_EQ(kv.wait.max_s, (a.finish - b.first_token).seconds());
  EXPECT_EQ(run.result.preemptions, 0);
}

TEST(DisaggregatedSim, ARequestTheDecodeCacheCannotHoldIsRejected) {
  const DisaggregatedFixture f(1, 1, 7);
  const ServingRun run = f.run("arrival_s,prompt_tokens,output_tokens\n0,100,20\n");  // 120 tokens > 7 x 16
  EXPECT_EQ(run.result.rejected, 1);
  EXPECT_EQ(run.result.disaggregated->kv_transfer.transfers, 0);
}

/// Poisson load on 4 GPUs split `prefill` : `decode`, with fixed prompt and output lengths.
ServingResult poisson_split(int prefill, int decode, std::int64_t prompt, std::int64_t output, double rate) {
  ServingConfig c = disaggregated(prefill, decode);
  c.load.arrivals = ArrivalKind::poisson;
  c.load.rate = rate;
  c.load.prompt = {.kind = LengthKind::fixed, .value = prompt};
  c.load.output = {.kind = LengthKind::fixed, .value = output};
  c.duration = Time::from_seconds(20);
  const AlphaBetaComm comm = testing::nvlink_ring(1);
  const IterationCost cost(llama_1b5(), c.deployment.pool(PoolRole::prefill), c.engine, h100_cost(), comm);
  const ReplicaMemory memory = pool_memory(100000);
  const Topology t = pcie_pair_topology(4);
  const PoolModel p{cost, memory, prefill, pool_placement(c.deployment, PoolRole::prefill)};
  const PoolModel d{cost, memory, decode, pool_placement(c.deployment, PoolRole::decode)};
  return simulate_disaggregated(c, p, d, t).result;
}

TEST(DisaggregatedSim, LongPromptsMakeThePrefillPoolTheBottleneck) {
  // 4,096-token prompts and 4-token outputs: a prefill is a few thousand times a decode step's work, so one
  // prefill replica saturates (TTFT grows with its queue) while three decode replicas idle; three prefill
  // replicas share the prompts and TTFT falls. The busier pool is the prefill pool in both.
  const double rate = 60;
  const ServingResult one = poisson_split(1, 3, 4096, 4, rate), three = poisson_split(3, 1, 4096, 4, rate);
  ASSERT_TRUE(one.disaggregated && three.disaggregated);
  EXPECT_GT(one.disaggregated->prefill.gpu_busy, one.disaggregated->decode.gpu_busy);
  EXPECT_GT(three.disaggregated->prefill.gpu_busy, three.disaggregated->decode.gpu_busy);
  EXPECT_GT(one.ttft.p99_s, 2 * three.ttft.p99_s);
}

TEST(DisaggregatedSim, LongOutputsMakeTheDecodePoolTheBottleneck) {
  // 64-token prompts and 512-token outputs: the decode pool does nearly all the work; with one decode replica
  // its batches are three times larger and each step reads three times the cache, so TPOT grows, while one
  // prefill replica keeps up with the short prompts.
  const double rate = 40;
  const ServingResult one = poisson_split(3, 1, 64, 512, rate), three = poisson_split(1, 3, 64, 512, rate);
  ASSERT_TRUE(one.disaggregated && three.disaggregated);
  EXPECT_GT(one.disaggregated->decode.gpu_busy, one.disaggregated->prefill.gpu_busy);
  EXPECT_GT(three.disaggregated->decode.gpu_busy, three.disaggregated->prefill.gpu_busy);
  EXPECT_GT(one.tpot.p99_s, three.tpot.p99_s);
  EXPECT_GT(one.disaggregated->decode.mean_decode_batch, 2 * three.disaggregated->decode.mean_decode_batch);
}

TEST(DisaggregatedSim, TheSameInputGivesTheSameJson) {
  // Transfers that start and end at the same instants are ordered by the engine's sequence numbers, not by
  // addresses: two runs agree to the byte.
  const ServingResult a = poisson_split(2, 2, 1024, 64, 30), b = poisson_split(2, 2, 1024, 64, 30);
  ASSERT_GT(a.disaggregated->kv_transfer.transfers, 0);
  EXPECT_EQ(serving_json(a).dump(), serving_json(b).dump());
}

}  // namespace
}  // namespace cs
