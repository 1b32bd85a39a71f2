#include "sim/facility/run_profile.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace cs {

StepStateFractions fractions_from_times(Time compute, Time memory, Time communication, Time idle) {
  const Time total = compute + memory + communication + idle;
  if (total <= Time::zero()) throw InputError({}, "run", "a step must spend some time in some state");
  return {compute / total, memory / total, communication / total, idle / total};
}

void validate(const RunProfile& run) {
  const auto fail = [](const std::string& m) { throw InputError({}, "run", m); };
  const StepStateFractions& f = run.fractions;
  if (f.compute < 0 || f.memory < 0 || f.communication < 0 || f.idle < 0) fail("step state fractions must not be negative");
  const double sum = f.compute + f.memory + f.communication + f.idle;
  if (std::fabs(sum - 1.0) > 1e-6) fail("step state fractions sum to " + std::to_string(sum) + ", not 1");
  if (run.step_time <= Time::zero()) fail("step time must be positive");
  if (run.tokens_per_step <= 0 || run.token_budget <= 0) fail("tokens per step and token budget must be positive");
  if (run.parameter_count <= 0) fail("parameter count must be positive");
  if (run.gpu.tdp.value() <= 0 || run.gpu.idle_power.value() < 0 || run.gpu.idle_power > run.gpu.tdp) {
    fail("GPU needs a positive TDP and an idle power between 0 and the TDP");
  }
}

}  // namespace cs
