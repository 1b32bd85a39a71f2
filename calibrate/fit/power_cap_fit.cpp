#include "calibrate/fit/power_cap_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <vector>

#include <Eigen/Dense>

#include "calibrate/fit/error_stats.hpp"

namespace cs::fit {
namespace {

std::string line(const char* f, double a, double b = 0, double c = 0, double d = 0, double e = 0) {
  char buf[240];
  std::snprintf(buf, sizeof buf, f, a, b, c, d, e);
  return buf;
}

}  // namespace

void fit_steady_power(const SamplesFile& file, const DeviceProfile& base, PowerCapModel& m, std::string& report) {
  // Each GEMM measured alone in its steady state ran at the clock where its power meets the limit (or at f_max
  // below it). Its dynamic power at f_max follows from its reading, (P - P_static) / (f / f_max)^gamma, and is
  // fitted as active + tensor[format] * busy + memory_power * hbm (power_cap_model.hpp): busy is its tensor-core
  // share and hbm its operands' share of the HBM bandwidth, both at f_max (time divided by the clock factor).
  struct Row {
    DType t;
    double busy, hbm, y, mhz;
  };
  std::vector<Row> rows;
  std::vector<DType> formats;
  const double fmax = m.max_clock_mhz, p0 = m.static_power.value();
  for (const auto& s : file.samples) {
    DType t{};
    if (s.kind != "gemm" || s.clocks != "steady" || s.sm_mhz <= 0 || s.watts <= m.static_power ||
        !parse_dtype(s.dtype, t) || !base.gpu.peak.count(t)) {
      continue;
    }
    const double t_fmax = s.median.value() / clock_factor(m, s.sm_mhz);
    const double busy = 2.0 * s.m * s.n * s.k * s.batch / t_fmax / base.gpu.peak_for(t).value();
    const double hbm = s.bytes.value() / t_fmax / base.gpu.memory_bandwidth.value();
    const double f = std::min(s.sm_mhz, fmax) / fmax;
    rows.push_back({t, busy, hbm, (s.watts.value() - p0) / std::pow(f, m.power_exponent) - m.memory_power.value() * hbm,
                    s.sm_mhz});
    if (std::find(formats.begin(), formats.end(), t) == formats.end()) formats.push_back(t);
  }
  if (rows.size() < 50) {
    report += line("steady-state GEMM samples: %.0f (fewer than 50: no active/tensor split; tensor power alone)\n",
                   static_cast<double>(rows.size()));
    return;
  }
  std::sort(formats.begin(), formats.end());
  const Eigen::Index n = static_cast<Eigen::Index>(rows.size()), k = 1 + static_cast<Eigen::Index>(formats.size());
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, k);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Row& r = rows[static_cast<std::size_t>(i)];
    x(i, 0) = 1.0;
    x(i, 1 + (std::find(formats.begin(), formats.end(), r.t) - formats.begin())) = r.busy;
    y(i) = r.y;
  }
  const Eigen::VectorXd c = x.colPivHouseholderQr().solve(y);
  if (!(c(0) >= 0)) {
    report += line("steady-state fit gave a negative active power (%.0f W): not used\n", c(0));
    return;
  }
  const PowerCapModel before = m;
  m.active_power = Watts{c(0)};
  const Watts bf16_before = m.tensor_power[DType::bf16];
  for (std::size_t j = 0; j < formats.size(); ++j) m.tensor_power[formats[j]] = Watts{c(static_cast<Eigen::Index>(j) + 1)};
  // Formats the steady samples did not measure draw what bf16 does at the same share of their peak.
  const auto bf16 = m.tensor_power.find(DType::bf16);
  for (auto& [t, w] : m.tensor_power) {
    if (std::find(formats.begin(), formats.end(), t) == formats.end() && bf16 != m.tensor_power.end()) w = bf16->second;
  }
  // How well each model places the samples' own clocks (the highest step whose power fits, as the simulator does).
  const auto clock_error = [&](const PowerCapModel& pm, bool split) {
    std::vector<double> err;
    for (const Row& r : rows) {
      const double dyn = split ? pm.active_power.value() + pm.tensor_power.at(r.t).value() * r.busy +
                                     pm.memory_power.value() * r.hbm
                               : pm.tensor_power.at(r.t).value() * r.busy;
      const double f = pm.sustained_clock(std::vector<KernelLoad>{{Time::from_seconds(1e-3), pm.clock_bound, Watts{dyn}}});
      err.push_back(f * fmax - r.mhz);
    }
    std::vector<double> abs_err;
    for (double e : err) abs_err.push_back(std::abs(e));
    return std::pair{quantile(err, 0.5), quantile(abs_err, 0.5)};
  };
  const auto [bias_before, abs_before] = clock_error(before, false);
  const auto [bias_after, abs_after] = clock_error(m, true);
  report += line("\nsteady-state GEMMs (alone until the regulator settled): %.0f samples; active power %.0f W, "
                 "tensor power bf16 %.0f W (the sweep gave %.0f W alone)",
                 static_cast<double>(rows.size()), c(0), m.tensor_power[DType::bf16].value(), bf16_before.value());
  for (DType t : formats) {
    if (t != DType::bf16) report += ", " + std::string(to_string(t)) + line(" %.0f W", m.tensor_power[t].value());
  }
  report += line(", memory power %.0f W (from the copies)\n", m.memory_power.value());
  report += line("their own clocks as the model places them: median error %+.0f MHz, median |error| %.0f MHz "
                 "(tensor power alone: %+.0f MHz, %.0f MHz)\n",
                 bias_after, abs_after, bias_before, abs_before);
}

double clock_factor(const PowerCapModel& m, double mhz) {
  if (mhz <= 0) return 1.0;
  return 1.0 - m.clock_bound + m.clock_bound * m.max_clock_mhz / std::min(mhz, m.max_clock_mhz);
}

std::optional<PowerCapFit> fit_power_cap(const SamplesFile& file, const DeviceProfile& base, Watts static_power) {
  struct Point {
    double copy_bytes, t_gemm, t_copy, watts, mhz;
    std::int64_t reasons;
  };
  std::map<double, Point> mixed;  // by copy bytes per cycle
  std::optional<CalibrationSample> copies_alone;
  for (const auto& s : file.samples) {
    if (s.kind != "power") continue;
    if (s.op == "mix_gemm") {
      Point& p = mixed[s.bytes.value()];
      p.copy_bytes = s.bytes.value();
      p.t_gemm = s.median.value();
      p.watts = s.watts.value();
      p.mhz = s.sm_mhz;
      p.reasons = s.throttle;
    } else if (s.op == "mix_copy" && s.m > 0) {
      mixed[s.bytes.value()].t_copy = s.median.value();
    } else if (s.op == "mix_copy") {
      copies_alone = s;
    }
  }
  if (mixed.empty()) return std::nullopt;
  if (!copies_alone || !mixed.count(0.0)) {
    throw std::invalid_argument("the duty-cycle sweep lacks its pure-GEMM or copies-alone point");
  }
  PowerCapFit out;
  PowerCapModel& m = out.model;
  m.max_clock_mhz = file.run.sm_clock_mhz > 0 ? file.run.sm_clock_mhz : 1980;
  m.static_power = static_power;
  m.power_limit = base.gpu.tdp;
  if (const auto it = file.run.extra.find("power_limit_w"); it != file.run.extra.end()) {
    m.power_limit = Watts{std::stod(it->second)};
  }
  const double p0 = static_power.value(), fmax = m.max_clock_mhz;

  // beta: the fastest GEMM of the sweep ran unthrottled (t_max); the pure-GEMM point ran at its recorded
  // clock f0, steadily: t0 / t_max = 1 - beta + beta * f_max / f0.
  double t_max = 1e9;
  for (const auto& [b, p] : mixed) t_max = std::min(t_max, p.t_gemm);
  const Point& pure = mixed.at(0.0);
  if (!(pure.mhz > 0 && pure.mhz < fmax * 0.98)) {
    throw std::invalid_argument("the pure-GEMM point of the duty-cycle sweep was not clock-limited");
  }
  m.clock_bound = std::clamp((pure.t_gemm / t_max - 1.0) / (fmax / pure.mhz - 1.0), 0.05, 1.0);

  // gamma and the GEMM's dynamic power: at each point the GEMM's clock follows from its time (beta), and its
  // power from the cycle's energy less the copies' (drawing what they draw alone):
  //   P_gemm = (P (t_gemm + t_copy) - t_copy P_copy) / t_gemm;  ln(P_gemm - P0) = ln D + gamma ln(f / f_max).
  const double p_copy = copies_alone->watts.value();
  const Bandwidth copy_rate = copies_alone->bytes / copies_alone->median;
  std::vector<double> xs, ys;
  std::vector<double> held;
  out.report =
      "| copies per GEMM (bytes) | GEMM ms | copies ms | NVML MHz | GEMM clock from its time, MHz | board W | "
      "GEMM W |\n|---|---|---|---|---|---|---|\n";
  for (const auto& [b, p] : mixed) {
    const double ratio = 1.0 + (p.t_gemm / t_max - 1.0) / m.clock_bound;
    const double f = fmax / std::max(ratio, 1.0);
    const double pg = (p.watts * (p.t_gemm + p.t_copy) - p.t_copy * p_copy) / p.t_gemm;
    out.report += line("| %.3g | %.3f | %.3f | %.0f | %.0f |", b, p.t_gemm * 1e3, p.t_copy * 1e3, p.mhz, f) +
                  line(" %.0f | %.0f |\n", p.watts, pg);
    if (pg > p0) {
      xs.push_back(std::log(f / fmax));
      ys.push_back(std::log(pg - p0));
    }
    if ((p.reasons & 0x4) != 0 && p.watts > 0) held.push_back(p.watts / m.power_limit.value());
  }
  if (xs.size() < 3) throw std::invalid_argument("fewer than three usable duty-cycle points");
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) mx += xs[i] / xs.size(), my += ys[i] / ys.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sxy += (xs[i] - mx) * (ys[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
  if (!(sxx > 0)) throw std::invalid_argument("the duty-cycle sweep ran at a single clock");
  m.power_exponent = std::clamp(sxy / sxx, 0.5, 6.0);
  const double d_ref = std::exp(my - m.power_exponent * mx);
  m.held_fraction = held.empty() ? 1.0 : quantile(held, 0.5);
  m.memory_power = Watts{(p_copy - p0) / (copy_rate / base.gpu.memory_bandwidth)};

  // Tensor power per format: every sustained GEMM of >= 0.5 ms (its window is the kernel's own) gives
  // D / busy = (P - P0) / (f / f_max)^gamma / (FLOPs / (t_max peak)).
  const double ref_busy = 2.0 * 8192.0 * 8192.0 * 8192.0 / t_max / base.gpu.peak_for(DType::bf16).value();
  std::map<DType, std::vector<double>> per;
  for (const auto& s : file.samples) {
    DType t{};
    if (s.kind != "gemm" || s.clocks != "sustained" || s.median < MeasuredTime{5e-4} || s.sm_mhz <= 0 ||
        s.watts <= static_power || !parse_dtype(s.dtype, t) || !base.gpu.peak.count(t)) {
      continue;
    }
    const double t_fmax = s.median.value() / clock_factor(m, s.sm_mhz);
    const double busy = 2.0 * s.m * s.n * s.k / t_fmax / base.gpu.peak_for(t).value();
    per[t].push_back((s.watts.value() - p0) / std::pow(std::min(s.sm_mhz, fmax) / fmax, m.power_exponent) / busy);
  }
  // Every format gets the sweep's bf16 figure: the per-sample estimates below read NVML's power over windows
  // too short for its ~1 s averaging and come out 40% lower for bf16 itself, so they are reported, not used.
  m.busy_power = Watts{d_ref};
  for (const auto& [t, peak] : base.gpu.peak) m.tensor_power[t] = Watts{d_ref / ref_busy};

  out.report += "\n" + line(
                           "beta (clock-bound share of a GEMM's time) %.3f from t_max %.4f ms and the pure point "
                           "%.4f ms at %.0f MHz\n",
                           m.clock_bound, t_max * 1e3, pure.t_gemm * 1e3, pure.mhz);
  out.report += line("gamma %.2f, GEMM (bf16 8192^3, %.0f%% of peak at f_max) dynamic power %.0f W at %.0f MHz\n",
                     m.power_exponent, ref_busy * 100, d_ref, fmax);
  out.report += line(
      "copies alone: %.0f W at %.0f GB/s; memory power %.0f W at the datasheet bandwidth; held "
      "fraction of the %.0f W limit %.3f\n",
      p_copy, copy_rate.value() * 1e-9, m.memory_power.value(), m.power_limit.value(), m.held_fraction);
  for (const auto& [t, v] : per) {
    out.report += "per-sample estimate of the tensor power " + std::string(to_string(t)) + ":" +
                  line(" %.0f W at 100%% of peak (median of %.0f sustained GEMMs >= 0.5 ms)\n", quantile(v, 0.5),
                       static_cast<double>(v.size()));
  }
  out.report += line(
      "tensor power from the sweep: %.0f W at 100%% of peak (its bf16 GEMM); a GPU kept busy by that GEMM runs "
      "at %.0f MHz\n",
      m.tensor_power[DType::bf16].value(),
      m.sustained_clock(std::vector<KernelLoad>{{Time::from_seconds(t_max), m.clock_bound, m.busy_power}}) * fmax);
  fit_steady_power(file, base, m, out.report);
  return out;
}

}  // namespace cs::fit
