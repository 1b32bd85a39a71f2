#include "sim/schedule/measured_service.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/input/csv_table.hpp"
#include "sim/serving/arrival_process.hpp"

namespace cs {

const EnumTable<RequestDistribution>& request_distribution_names() {
  static const EnumTable<RequestDistribution> t{{RequestDistribution::poisson, "poisson"},
                                                {RequestDistribution::constant, "constant"}};
  return t;
}

namespace {

/// 1-based column where the `field`-th comma-separated cell of `line` starts (quotes respected).
int latency_csv_column(const std::string& line, std::size_t field) {
  bool quoted = false;
  std::size_t seen = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (seen == field) return static_cast<int>(i) + 1;
    if (line[i] == '"') quoted = !quoted;
    if (line[i] == ',' && !quoted) ++seen;
  }
  return static_cast<int>(line.size()) + 1;
}

/// The text of a whole-number or real cell, or nullopt.
std::optional<double> latency_csv_number(const std::string& s) {
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

std::vector<LatencyPoint> read_latency_csv(const std::string& path) {
  const CsvTable t = CsvTable::load(path);
  std::vector<std::string> lines;
  {
    std::ifstream in(path, std::ios::binary);
    for (std::string l; std::getline(in, l);) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(std::move(l));
    }
  }
  const auto raw = [&](int line) -> const std::string& {
    static const std::string none;
    return line >= 1 && line <= static_cast<int>(lines.size()) ? lines[static_cast<std::size_t>(line - 1)] : none;
  };
  int header_line = 1;
  while (header_line <= static_cast<int>(lines.size()) && raw(header_line).starts_with("#")) ++header_line;
  const std::vector<std::string> columns{"batch", "latency_s"};
  for (std::size_t k = 0; k < t.header().size(); ++k) {
    if (std::find(columns.begin(), columns.end(), t.header()[k]) == columns.end()) {
      throw InputError({path, header_line, latency_csv_column(raw(header_line), k)}, t.header()[k],
                       "unknown column; a latency table has the columns batch, latency_s (seconds)");
    }
  }
  t.require_columns(columns);
  const std::size_t batch_col = *t.column("batch"), latency_col = *t.column("latency_s");
  std::vector<LatencyPoint> out;
  for (const auto& row : t.rows()) {
    const auto at = [&](std::size_t col) {
      return SourceLocation{path, row.line, latency_csv_column(raw(row.line), col)};
    };
    const std::string& b = row.cells[batch_col];
    const auto batch = latency_csv_number(b);
    if (!batch || *batch < 1 || *batch != std::floor(*batch) || *batch > 1e9) {
      throw InputError(at(batch_col), "batch", "must be a positive whole number, got \"" + b + "\"");
    }
    if (!out.empty() && static_cast<int>(*batch) <= out.back().batch) {
      throw InputError(
          at(batch_col), "batch",
          "must be above the previous row's " + std::to_string(out.back().batch) + " (batches ascending, each once)");
    }
    if (out.empty() && *batch != 1) {
      throw InputError(at(batch_col), "batch",
                       "the table must start at batch 1 (a lone request is a batch of 1; latency is not extrapolated)");
    }
    const std::string& l = row.cells[latency_col];
    const auto latency = latency_csv_number(l);
    if (!latency) throw InputError(at(latency_col), "latency_s", "expected a number of seconds, got \"" + l + "\"");
    if (!(*latency > 0)) throw InputError(at(latency_col), "latency_s", "must be positive, got " + l);
    out.push_back({static_cast<int>(*batch), *latency});
  }
  if (out.empty()) throw InputError({path, header_line, 1}, "", "the latency table has no rows");
  return out;
}

LatencyCurve::LatencyCurve(std::vector<LatencyPoint> points) : points_(std::move(points)) {
  if (points_.empty() || points_.front().batch != 1) throw std::invalid_argument("a latency curve starts at batch 1");
  for (std::size_t k = 0; k < points_.size(); ++k) {
    if (!(points_[k].latency_s > 0)) throw std::invalid_argument("latencies must be positive");
    if (k > 0 && points_[k].batch <= points_[k - 1].batch) throw std::invalid_argument("batches must ascend");
  }
}

double LatencyCurve::at(int batch) const {
  if (batch < 1 || batch > largest_batch()) throw std::out_of_range("batch outside the measured table");
  const auto hi =
      std::lower_bound(points_.begin(), points_.end(), batch, [](const LatencyPoint& p, int b) { return p.batch < b; });
  if (hi->batch == batch) return hi->latency_s;
  const auto lo = hi - 1;
  const double w = static_cast<double>(batch - lo->batch) / static_cast<double>(hi->batch - lo->batch);
  return lo->latency_s + w * (hi->latency_s - lo->latency_s);
}

double LatencyCurve::peak_throughput(int max_batch) const {
  double best = 0;
  for (int b = 1; b <= std::min(max_batch, largest_batch()); ++b) best = std::max(best, b / at(b));
  return best;
}

double measured_probe_duration(double rate) {
  return std::min(std::clamp(20000.0 / rate, 60.0, 3600.0), 1e6 / rate);
}

ReplicaProbe probe_measured_replica(const LatencyCurve& curve, const ReplicaProbeSpec& spec, double rate,
                                    double slowdown, double duration_s) {
  ReplicaProbe p;
  if (!(rate > 0)) return {1.0, 0.0, 0.0, 0.0, 0};
  std::vector<double> arrival;
  if (spec.arrivals == RequestDistribution::constant) {
    for (double t = 0; t < duration_s; t = static_cast<double>(arrival.size()) / rate) arrival.push_back(t);
  } else {
    ServingRng rng(spec.seed);
    for (double t = rng.exponential(rate); t < duration_s; t += rng.exponential(rate)) arrival.push_back(t);
  }
  const std::size_t n = arrival.size();
  if (n == 0) return {1.0, 0.0, 0.0, 0.0, 0};
  const std::size_t max_batch = static_cast<std::size_t>(std::max(1, spec.batching.max_batch));
  std::vector<double> latency(n);
  double free_at = 0, busy = 0;
  std::size_t batches = 0;
  for (std::size_t i = 0; i < n;) {
    // Dispatch once the replica is free and either max_batch requests wait or the oldest has waited the delay.
    const double full_at = i + max_batch - 1 < n ? arrival[i + max_batch - 1] : std::numeric_limits<double>::infinity();
    const double start = std::max(free_at, std::min(arrival[i] + spec.batching.max_queue_delay_s, full_at));
    std::size_t j = i;
    while (j < n && j - i < max_batch && arrival[j] <= start) ++j;
    const double took = slowdown * curve.at(static_cast<int>(j - i));
    const double done = start + took;
    for (std::size_t k = i; k < j; ++k) latency[k] = done - arrival[k];
    busy += took;
    ++batches;
    free_at = done;
    i = j;
  }
  const double slo = spec.slo_s * (1 + 1e-9);  // rounding of a nanosecond at most
  p.requests = static_cast<std::int64_t>(n);
  p.attainment =
      static_cast<double>(std::count_if(latency.begin(), latency.end(), [&](double l) { return l <= slo; })) /
      static_cast<double>(n);
  const std::size_t rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1;
  std::nth_element(latency.begin(), latency.begin() + static_cast<std::ptrdiff_t>(rank), latency.end());
  p.latency_p99_s = latency[rank];
  p.busy = std::min(1.0, busy / duration_s);
  p.mean_batch = static_cast<double>(n) / static_cast<double>(batches);
  return p;
}

MeasuredReplicaModel::MeasuredReplicaModel(LatencyCurve curve, ReplicaProbeSpec spec, double target_attainment)
    : curve_(std::move(curve)), spec_(spec), target_(target_attainment) {}

ReplicaProbe MeasuredReplicaModel::evaluate(double rate, double slowdown) {
  const auto key = std::make_pair(rate, slowdown);
  {
    std::lock_guard lock(mu_);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  }
  const ReplicaProbe p = probe_measured_replica(curve_, spec_, rate, slowdown, measured_probe_duration(rate));
  std::lock_guard lock(mu_);
  memo_[key] = p;
  return p;
}

bool MeasuredReplicaModel::meets(double total_rate, int replicas) {
  return evaluate(total_rate / replicas, 1.0).attainment >= target_;
}

int MeasuredReplicaModel::replicas_for(double rate) {
  if (!(rate > 0)) return 0;
  constexpr int kMost = 1 << 20;
  const double bound = rate / curve_.peak_throughput(spec_.batching.max_batch);
  int lo = static_cast<int>(std::clamp(std::ceil(bound - 1e-9), 1.0, static_cast<double>(kMost)));
  if (meets(rate, lo)) return lo;
  int hi = lo;
  while (!meets(rate, hi)) {
    if (hi >= kMost) return kMost;
    lo = hi;
    hi = std::min(kMost, hi * 2);
  }
  // lo fails, hi meets: the fewest that meets lies in (lo, hi].
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (meets(rate, mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace cs
