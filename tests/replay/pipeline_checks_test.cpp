// The pipeline schedules against what their papers and repositories publish (data/checks/pipeline_schedules.csv,
// each row with its source): bubble rates and activation memory at the unit times the sources assume, replayed
// with fixed unit times (UnitCosts' FixedUnitTimes, free transfers). Targets as issue 45 sets them: a bubble rate
// within 3 points, memory within 5%. A row marked known_miss is one the simulator does not meet (docs/validation.md
// says why); the test checks that it still misses, so that a change that fixes it updates the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixed_cost_model.hpp"
#include "tiny_gpt.hpp"
#include "sim/input/csv_table.hpp"
#include "sim/replay/step_replay.hpp"
#include "sim/workload/pipeline_schedule.hpp"
#include "sim/workload/workload_params.hpp"

namespace cs {
namespace {

class FreeTransfers final : public CollectiveModel {
 public:
  explicit FreeTransfers(EventEngine& e) : e_(e) {}
  void start(const CollectiveRequest&, std::function<void()> done) override { e_.schedule_in(Time::zero(), std::move(done)); }
  [[nodiscard]] std::string describe() const override { return "free"; }

 private:
  EventEngine& e_;
};

PipelineSchedule schedule_named(const std::string& name) {
  if (const auto s = schedule_names().find(name)) return *s;
  throw std::invalid_argument("unknown schedule " + name);
}

struct CheckRun {
  double bubble = 0;  ///< the busiest rank's wait, in units of one F
  double work = 0;    ///< its units' time, in the same units
  double peak_chunks = 0;
  double peak_stages = 0;  ///< the most loaded rank's activations in whole stages' micro-batches
};

/// `s` on `pp` ranks with `m` micro-batches, F, B and W at t_f, t_b, t_w milliseconds each (per piece).
CheckRun run_check(PipelineSchedule s, int pp, int m, int t_f, int t_b, int t_w) {
  ModelSpec model = testing::tiny_gpt();
  model.layers = 2 * pp;
  ParallelPlan p;
  p.pp = pp;
  p.schedule = s;
  TrainingConfig t = testing::tiny_training();
  t.global_batch = m;
  testing::FixedCostModel compute;
  const UnitCosts costs(p, t, compute, FixedUnitTimes{Time::ms(t_f), Time::ms(t_b), Time::ms(t_w), Time::zero()});
  EventEngine engine;
  FreeTransfers fabric(engine);
  StepReplay replay(model, p, t, costs, fabric, engine);
  const StepResult r = replay.run();
  CheckRun c;
  c.bubble = r.busiest.pipeline_wait.seconds() * 1e3 / t_f;
  c.work = (r.step_time - r.busiest.pipeline_wait).seconds() * 1e3 / t_f;
  const auto orders = pipeline_orders(p, m, false, costs.unit_times());
  for (const auto& order : orders) {
    c.peak_chunks = std::max(c.peak_chunks, held_activations_peak(order, std::vector<double>(static_cast<std::size_t>(p.chunks()), 1.0)));
  }
  // A V's piece is half a stage; DualPipe-V's too.
  c.peak_stages = c.peak_chunks / (p.chunks() == 2 ? 2.0 : 1.0);
  return c;
}

TEST(PipelineChecks, PublishedBubblesAndMemory) {
  const CsvTable table = CsvTable::load(std::string(CS_SOURCE_DIR) + "/data/checks/pipeline_schedules.csv");
  ASSERT_FALSE(table.rows().empty());
  int met = 0, missed = 0;
  for (const auto& row : table.rows()) {
    const std::string id = table.cell(row, "check_id"), metric = table.cell(row, "metric");
    const int pp = std::stoi(table.cell(row, "pp")), m = std::stoi(table.cell(row, "micro_batches"));
    const int tf = std::stoi(table.cell(row, "t_f")), tb = std::stoi(table.cell(row, "t_b")), tw = std::stoi(table.cell(row, "t_w"));
    const double published = std::stod(table.cell(row, "published")), tolerance = std::stod(table.cell(row, "tolerance"));
    const bool known_miss = !table.cell(row, "known_miss").empty();
    const CheckRun run = run_check(schedule_named(table.cell(row, "schedule")), pp, m, tf, tb, tw);
    double ours = 0, error = 0;
    if (metric == "bubble_rate") {
      ours = run.bubble / run.work;
      error = std::fabs(ours - published);
    } else if (metric == "bubble_units") {
      ours = run.bubble;
      error = std::fabs(ours - published) / run.work;
    } else if (metric == "activation_chunks") {
      ours = run.peak_chunks;
      error = std::fabs(ours / published - 1.0);
    } else if (metric == "activation_vs_baseline") {
      const CheckRun base = run_check(schedule_named(table.cell(row, "baseline")), pp, m, tf, tb, tw);
      ours = run.peak_stages / base.peak_stages;
      error = std::fabs(ours / published - 1.0);
    } else {
      ADD_FAILURE() << id << ": unknown metric " << metric;
      continue;
    }
    std::printf("%-40s %-24s published %8.4f ours %8.4f error %.4f%s\n", id.c_str(), metric.c_str(), published, ours, error,
                error <= tolerance ? "" : "  MISS");
    if (known_miss) {
      EXPECT_GT(error, tolerance) << id << " now meets its source: clear known_miss in the file and docs/validation.md";
      ++missed;
    } else {
      EXPECT_LE(error, tolerance) << id << ": published " << published << ", ours " << ours;
      ++met;
    }
  }
  std::printf("%d rows met, %d known misses\n", met, missed);
}

}  // namespace
}  // namespace cs
