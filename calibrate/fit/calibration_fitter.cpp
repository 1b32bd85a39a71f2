#include "calibrate/fit/calibration_fitter.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "calibrate/fit/kernel_fits.hpp"
#include "calibrate/fit/power_cap_fit.hpp"

namespace cs::fit {
namespace {

DType dtype_of(const CalibrationSample& s) {
  DType t{};
  if (!parse_dtype(s.dtype, t)) throw std::invalid_argument("sample with unknown dtype \"" + s.dtype + "\"");
  return t;
}

GemmLayout layout_of(const CalibrationSample& s) {
  GemmLayout l = GemmLayout::tn;
  if (!s.layout.empty() && !parse_gemm_layout(s.layout, l)) {
    throw std::invalid_argument("sample with unknown GEMM layout \"" + s.layout + "\"");
  }
  return l;
}

// Samples give the cuBLAS call's sizes; the cost model takes the workload's (GemmShape::from_cublas).
GemmShape gemm_shape(const CalibrationSample& s) {
  return GemmShape::from_cublas(s.m, s.n, s.k, dtype_of(s), layout_of(s), s.batch);
}

// "gemm bf16" for TN, "gemm bf16 nn" for the other layouts: the model a GEMM sample belongs to.
std::string gemm_model(const CalibrationSample& s) {
  const GemmLayout l = layout_of(s);
  return "gemm " + s.dtype + (l == GemmLayout::tn ? "" : " " + std::string(to_string(l)));
}

AttentionShape attention_shape(const CalibrationSample& s) {
  AttentionShape a;
  a.batch = s.batch;
  a.heads = a.kv_heads = s.heads;
  a.seq_q = a.seq_kv = s.seq;
  a.head_dim = s.head_dim;
  a.causal = true;
  a.backward = s.op == "bwd";
  a.dtype = dtype_of(s);
  // The samples' algo column names the kernel (attention_bench.py --backend): cuDNN's has fits of its own.
  a.kernel = s.algo == "cudnn" ? FusedAttention::cudnn : FusedAttention::flash;
  return a;
}

// A recorded SM clock as a fraction of the model's highest (1 when not recorded).
double clock_fraction(const PowerCapModel& m, double mhz) {
  return mhz > 0 ? std::min(mhz, m.max_clock_mhz) / m.max_clock_mhz : 1.0;
}

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

std::string pct(double v) { return fmt("%.1f%%", v * 100); }

// "| name | count | median | p90 | max |" of the error tables.
std::string error_row(const std::string& name, const ErrorStats& e) {
  return "| " + name + " | " + std::to_string(e.count) + " | " + pct(e.median) + " | " + pct(e.p90) + " | " +
         pct(e.max) + " |\n";
}

}  // namespace

FitResult fit_calibration(const DeviceProfile& base, const SamplesFile& file, const FitOptions& opt) {
  FitResult r;
  DeviceProfile& p = r.profile;
  p = base;
  p.fits = {};
  p.provenance.profile = opt.profile_name;
  p.provenance.kind = "measured";
  const CalibrationRun& run = file.run;
  p.provenance.description = "calibrated on " + run.gpu_name + " (" + run.host + ", " + run.date + "; driver " +
                             run.driver + ", CUDA " + run.cuda + ", cuBLASLt " + run.cublas + ", NCCL " + run.nccl +
                             "); datasheet figures from " + base.provenance.profile;
  // The memory CUDA reports on the calibrated GPU (the samples' memory_bytes), not the datasheet's rounded
  // figure: an "80GB" H100 shows 79.2 GiB (85.0e9 bytes), 6% above 80e9 bytes.
  if (run.memory.value() > 0) p.gpu.memory = run.memory;

  const auto fitted_gemm = [](const CalibrationSample& s) { return s.kind == "gemm"; };

  // Holdout: a seeded shuffle of each kind's samples; the first quarter is held out. Each attention kernel is shuffled
  // on its own, after FlashAttention's, so adding cuDNN's samples leaves the flash partition as it was.
  std::vector<std::size_t> gemm_idx, attn_idx, cudnn_idx;
  for (std::size_t i = 0; i < file.samples.size(); ++i) {
    if (fitted_gemm(file.samples[i])) gemm_idx.push_back(i);
    if (file.samples[i].kind == "attention") (file.samples[i].algo == "cudnn" ? cudnn_idx : attn_idx).push_back(i);
  }
  std::mt19937_64 rng(opt.seed);
  std::set<std::size_t> held;
  for (auto* idx : {&gemm_idx, &attn_idx, &cudnn_idx}) {
    std::shuffle(idx->begin(), idx->end(), rng);
    const auto n = static_cast<std::size_t>(static_cast<double>(idx->size()) * opt.holdout_fraction + 0.5);
    held.insert(idx->begin(), idx->begin() + static_cast<std::ptrdiff_t>(n));
  }

  // The power-cap model (sustained runs). Every GEMM is fitted at the highest clock: burst samples ran
  // there; a sustained sample's time is divided by its clock factor (power_cap_fit.hpp) at its recorded clock,
  // times a per-format correction r for how far that reading (the median of NVML's clock over a 15 ms window
  // while the regulator moves) falls from the clock the kernel ran at. r is what makes the sustained TN
  // samples agree with a fit of the same format's burst TN samples (median ratio), so the NN and NT layouts,
  // measured sustained only, land on the same footing.
  Watts idle = base.gpu.idle_power;
  for (const auto& s : file.samples) {
    if (s.kind == "power" && s.op == "idle") idle = s.watts;
  }
  if (auto pc = fit_power_cap(file, base, idle)) {
    p.fits.power_cap = pc->model;
    r.power_cap_report = pc->report;
  }
  std::map<DType, double> clock_correction;
  const auto at_max_clock = [&](const CalibrationSample& s) {
    // A steady sample's clock reading is its settled clock: no correction.
    if (p.fits.power_cap && s.clocks == "steady") return s.median.value() / clock_factor(*p.fits.power_cap, s.sm_mhz);
    if (!p.fits.power_cap || s.clocks != "sustained") return s.median.value();
    const auto c = clock_correction.find(dtype_of(s));
    return s.median.value() / clock_factor(*p.fits.power_cap, s.sm_mhz) *
           (c == clock_correction.end() ? 1.0 : c->second);
  };
  if (p.fits.power_cap) {
    std::map<DType, std::vector<GemmSample>> burst_tn;
    for (std::size_t i : gemm_idx) {
      const CalibrationSample& s = file.samples[i];
      if (!held.count(i) && s.clocks != "sustained" && s.clocks != "steady" && layout_of(s) == GemmLayout::tn) {
        burst_tn[dtype_of(s)].push_back({gemm_shape(s), s.median.value()});
      }
    }
    for (const auto& [t, v] : burst_tn) {
      if (v.size() < 50 || !p.gpu.peak.count(t)) continue;
      const GemmFit g = fit_gemm(v, p.gpu.sm_count, p.gpu.peak_for(t));
      std::vector<double> ratio;
      for (std::size_t i : gemm_idx) {
        const CalibrationSample& s = file.samples[i];
        if (held.count(i) || s.clocks != "sustained" || layout_of(s) != GemmLayout::tn || dtype_of(s) != t) continue;
        ratio.push_back(g.time(gemm_shape(s), p.gpu.sm_count, p.gpu.peak_for(t)).seconds() /
                        (s.median.value() / clock_factor(*p.fits.power_cap, s.sm_mhz)));
      }
      if (ratio.size() < 20) continue;
      std::sort(ratio.begin(), ratio.end());
      clock_correction[t] = ratio[ratio.size() / 2];
      r.power_cap_report += "clock-reading correction r " + std::string(to_string(t)) +
                            fmt(": %.3f (median over %.0f sustained TN samples of the burst TN fit / their time at "
                                "f_max by their recorded clock)\n",
                                ratio[ratio.size() / 2], static_cast<double>(ratio.size()));
    }
  }

  // Which timing a format and layout is fitted on. Training runs its GEMMs back to back, so where a sustained
  // calibration measured a format and layout well (at least kMinSustained fitted samples, graph-replayed back
  // to back), its surface is fitted on those alone: burst samples of the same shapes are stream-launched after
  // an idle gap and carry another launch gap (small kernels) and clock. Burst samples fit the rest.
  constexpr std::size_t kMinSustained = 200;
  std::map<std::pair<DType, GemmLayout>, std::size_t> sustained_count;
  if (p.fits.power_cap) {
    for (std::size_t i : gemm_idx) {
      const CalibrationSample& s = file.samples[i];
      if (!held.count(i) && (s.clocks == "sustained" || s.clocks == "steady")) ++sustained_count[{dtype_of(s), layout_of(s)}];
    }
  }
  const auto in_fit = [&](const CalibrationSample& s) {
    const auto c = sustained_count.find({dtype_of(s), layout_of(s)});
    return s.clocks == "sustained" || s.clocks == "steady" || c == sustained_count.end() || c->second < kMinSustained;
  };

  // GEMM per format and layout; attention per direction and format.
  std::map<std::pair<DType, GemmLayout>, std::vector<GemmSample>> gemm;
  std::map<std::tuple<FusedAttention, bool, DType>, std::vector<AttentionSample>> attn;
  for (std::size_t i : gemm_idx) {
    const CalibrationSample& s = file.samples[i];
    if (!held.count(i) && in_fit(s)) gemm[{dtype_of(s), layout_of(s)}].push_back({gemm_shape(s), at_max_clock(s)});
  }
  for (const auto* idx : {&attn_idx, &cudnn_idx}) {
    for (const std::size_t i : *idx) {
      const auto a = attention_shape(file.samples[i]);
      if (!held.count(i)) attn[{a.kernel, a.backward, a.dtype}].push_back({a, file.samples[i].median.value()});
    }
  }
  for (const auto& [key, v] : gemm) {
    const auto [t, l] = key;
    if (!p.gpu.peak.count(t)) continue;  // the datasheet gives no peak: keep the roofline fallback
    GemmFit g = fit_gemm(v, p.gpu.sm_count, p.gpu.peak_for(t));
    if (l == GemmLayout::tn) p.fits.gemm[t] = std::move(g);
    else p.fits.gemm_layouts[key] = std::move(g);
  }
  for (const auto& [key, v] : attn) {
    const auto [kernel, backward, t] = key;
    auto& fits = kernel == FusedAttention::cudnn ? (backward ? p.fits.cudnn_attention_bwd : p.fits.cudnn_attention_fwd)
                                                  : (backward ? p.fits.attention_bwd : p.fits.attention_fwd);
    fits[t] = fit_attention(v, p.gpu.peak_for(DType::bf16));
  }

  // Bandwidth-bound kernels: per op, and the streaming pair (copy, add) that memory_bound() uses.
  std::map<std::string, std::vector<SizedSample>> mem;
  std::map<std::tuple<std::string, int, std::string>, std::vector<SizedSample>> coll;
  std::map<std::string, Watts> power;
  for (const auto& s : file.samples) {
    const SizedSample sized{s.bytes.value(), s.median.value()};
    if (s.kind == "memory") {
      mem[s.op].push_back(sized);
      if (s.op == "copy" || s.op == "add") mem["streaming"].push_back(sized);
    } else if (s.kind == "collective") {
      coll[{s.op, s.ranks, s.algo}].push_back(sized);
    } else if (s.kind == "power") {
      power[s.op] = s.watts;
    }
  }
  for (const auto& [op, v] : mem) {
    if (op == "streaming") p.fits.memory = fit_linear(v);
    else p.fits.memory_ops[op] = fit_linear(v);
  }
  for (const auto& [key, v] : coll) {
    CollectiveFit c;
    std::tie(c.op, c.ranks, c.algo) = key;
    // SimGrid-style size ranges: latency-dominated, protocol switch region, bandwidth-dominated.
    c.segments = fit_segments(v, {64.0 * 1024, 16.0 * 1024 * 1024});
    p.fits.collectives.push_back(std::move(c));
  }
  if (power.count("idle") && power.count("compute") && power.count("memory")) {
    p.fits.power = MeasuredPower{power["idle"], power["compute"], power["memory"]};
    p.gpu.idle_power = power["idle"];
  }

  // Predictions through the simulator's own cost model.
  const auto model = make_cost_model(p);
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> train, hold;  // model -> (pred, meas)
  std::vector<double> gh_pred, gh_meas, ah_pred, ah_meas;
  for (std::size_t i = 0; i < file.samples.size(); ++i) {
    const auto& s = file.samples[i];
    double pred = 0, meas = s.median.value();
    std::string key;
    if (s.kind == "gemm") {
      if (!fitted_gemm(s) || !p.fits.gemm.count(dtype_of(s)) || !in_fit(s)) continue;
      // Against the time at the highest clock the fit was given (the clock model is tested on its own).
      pred = p.fits.power_cap ? model->gemm_load(gemm_shape(s)).at_max_clock.seconds() : model->gemm(gemm_shape(s)).seconds();
      meas = at_max_clock(s);
      key = gemm_model(s);
    } else if (s.kind == "attention") {
      pred = model->attention_load(attention_shape(s)).at_max_clock.seconds();  // measured at burst clocks
      key = "attention " + s.op + " " + s.dtype + (s.algo == "cudnn" ? " cudnn" : "");
    } else if (s.kind == "memory") {
      pred = p.fits.memory_ops.at(s.op).time(s.bytes).seconds();
      key = "memory " + s.op;
    } else if (s.kind == "collective") {
      for (const auto& c : p.fits.collectives) {
        if (c.op == s.op && c.ranks == s.ranks && c.algo == s.algo) pred = c.time(s.bytes).seconds();
      }
      key = s.op + " x" + std::to_string(s.ranks) + " " + s.algo;
    } else {
      continue;
    }
    auto& dst = held.count(i) ? hold[key] : train[key];
    dst.first.push_back(pred);
    dst.second.push_back(meas);
    if (held.count(i)) {
      CalibrationSample as_fitted = s;
      as_fitted.median = MeasuredTime{meas};
      r.holdout.push_back({as_fitted, pred});
      (s.kind == "gemm" ? gh_pred : ah_pred).push_back(pred);
      (s.kind == "gemm" ? gh_meas : ah_meas).push_back(meas);
    }
  }
  for (const auto& [key, v] : train) {
    ModelReport m;
    m.model = key;
    m.train = error_stats(v.first, v.second);
    if (hold.count(key)) m.holdout = error_stats(hold[key].first, hold[key].second);
    const auto space = key.find(' ');
    const std::string kind = key.substr(0, space), rest = key.substr(space + 1);
    DType t{};
    GemmLayout l = GemmLayout::tn;
    const std::string fmt_name = rest.substr(0, rest.find(' '));
    if (kind == "gemm" && parse_dtype(fmt_name, t) &&
        (fmt_name == rest || parse_gemm_layout(rest.substr(fmt_name.size() + 1), l))) {
      const GemmFit& g = l == GemmLayout::tn ? p.fits.gemm.at(t) : p.fits.gemm_layouts.at({t, l});
      m.parameters = fmt("tile %.0fx%.0f, launch %.1f us", g.tile_m, g.tile_n, g.launch.seconds() * 1e6) +
                     ", degree " + std::to_string(g.surface.degree);
    } else if (kind == "attention") {
      const bool bwd = rest.rfind("bwd", 0) == 0;
      const bool cudnn = rest.size() > 6 && rest.substr(rest.size() - 6) == " cudnn";
      if (!parse_dtype(rest.substr(4, rest.size() - 4 - (cudnn ? 6 : 0)), t)) continue;
      const AttentionFit& a =
          p.fits.attention(cudnn ? FusedAttention::cudnn : FusedAttention::flash, bwd).at(t);
      m.parameters = fmt("launch %.1f us", a.launch.seconds() * 1e6) + ", degree " + std::to_string(a.surface.degree);
    } else if (kind == "memory") {
      const LinearCost& c = p.fits.memory_ops.at(rest);
      m.parameters = fmt("latency %.2f us, %.0f GB/s", c.latency.seconds() * 1e6, c.bandwidth.value() * 1e-9);
    } else {
      for (const auto& c : p.fits.collectives) {
        if (key != c.op + " x" + std::to_string(c.ranks) + " " + c.algo) continue;
        for (const auto& seg : c.segments) {
          m.parameters += (m.parameters.empty() ? "" : "; ") +
                          fmt("<=%.0f KiB: %.2f us + %.0f GB/s", seg.up_to.value() / 1024, seg.cost.latency.seconds() * 1e6,
                              seg.cost.bandwidth.value() * 1e-9);
        }
      }
    }
    r.models.push_back(std::move(m));
  }
  r.gemm_holdout = error_stats(gh_pred, gh_meas);
  r.attention_holdout = error_stats(ah_pred, ah_meas);

  CalibrationInfo info{run.gpu_name, run.driver, run.cuda, run.cublas, run.nccl, run.host, run.date, opt.samples_reference};
  info.gemm_holdout_median = r.gemm_holdout.median;
  info.gemm_holdout_p90 = r.gemm_holdout.p90;
  info.gemm_holdout_count = r.gemm_holdout.count;
  info.attention_holdout_median = r.attention_holdout.median;
  info.attention_holdout_p90 = r.attention_holdout.p90;
  info.attention_holdout_count = r.attention_holdout.count;
  p.fits.calibration = info;
  return r;
}

std::vector<HeldOutPrediction> predict_samples(const DeviceProfile& profile, const SamplesFile& samples,
                                               SampleClock clock) {
  const auto model = make_cost_model(profile);
  std::vector<HeldOutPrediction> out;
  const auto& pc = profile.fits.power_cap;
  for (const auto& s : samples.samples) {
    if (s.kind != "gemm" && s.kind != "attention") continue;
    const KernelLoad load = s.kind == "gemm" ? model->gemm_load(gemm_shape(s)) : model->attention_load(attention_shape(s));
    if (!pc || load.clock_bound == 0.0) {
      out.push_back({s, (s.kind == "gemm" ? model->gemm(gemm_shape(s)) : model->attention(attention_shape(s))).seconds()});
      continue;
    }
    double f = 1.0;
    switch (clock) {
      case SampleClock::busy: f = std::min(pc->sustained_clock(std::span(&load, 1)), pc->busy_clock(pc->power_limit)); break;
      case SampleClock::own: f = pc->sustained_clock(std::span(&load, 1)); break;
      case SampleClock::recorded: f = clock_fraction(*pc, s.sm_mhz); break;
    }
    out.push_back({s, load.at(f).seconds(), f * pc->max_clock_mhz});
  }
  return out;
}

std::string format_prediction_subsets(const std::vector<HeldOutPrediction>& predictions, const std::string& title) {
  struct Subset {
    std::string name;
    std::vector<double> pred, meas;
  };
  std::vector<Subset> subsets = {{"GEMM + attention (all)", {}, {}},
                                 {"GEMM, 16-byte-aligned leading dimensions", {}, {}},
                                 {"GEMM, misaligned leading dimension", {}, {}},
                                 {"GEMM, kernels < 20 us", {}, {}},
                                 {"GEMM, kernels >= 20 us", {}, {}}};
  std::map<std::string, Subset> by_format;
  for (const auto& h : predictions) {
    const auto add = [&](Subset& sub) {
      sub.pred.push_back(h.predicted_s);
      sub.meas.push_back(h.sample.median.value());
    };
    add(subsets[0]);
    if (h.sample.kind != "gemm") continue;
    const auto pen = GemmFit::penalties(gemm_shape(h.sample));
    add(subsets[pen[0] == 0 && pen[1] == 0 ? 1 : 2]);
    add(subsets[h.sample.median < MeasuredTime{20e-6} ? 3 : 4]);
    Subset& f = by_format["GEMM " + h.sample.dtype];
    f.name = "GEMM " + h.sample.dtype;
    add(f);
    if (layout_of(h.sample) != GemmLayout::tn) {
      Subset& fl = by_format["GEMM " + h.sample.dtype + " " + h.sample.layout];
      fl.name = "GEMM " + h.sample.dtype + " " + h.sample.layout;
      add(fl);
    }
  }
  for (auto& [name, f] : by_format) subsets.push_back(std::move(f));
  std::string out = "| " + title + " | samples | median error | p90 error | max error | median signed (+: slow) |\n"
                    "|---|---|---|---|---|---|\n";
  for (const auto& sub : subsets) {
    if (sub.pred.empty()) continue;
    const ErrorStats e = error_stats(sub.pred, sub.meas);
    out += error_row(sub.name, e);
    out.insert(out.size() - 1, " " + pct(e.bias) + " |");
  }
  return out;
}

std::string format_report(const FitResult& r) {
  std::string out;
  out += "| held out (random quarter) | samples | median error | p90 error | max error |\n|---|---|---|---|---|\n";
  for (const auto& [name, e] : {std::pair{"GEMM", r.gemm_holdout}, std::pair{"attention", r.attention_holdout}}) {
    out += error_row(name, e);
  }
  out += "\n" + format_prediction_subsets(r.holdout, "held-out subset");
  if (!r.power_cap_report.empty()) out += "\n### Power-cap model (sustained clocks)\n\n" + r.power_cap_report;
  out += "\n| model | fit samples | residual median | residual p90 | holdout samples | holdout median | holdout p90 | "
         "parameters |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& m : r.models) {
    out += "| " + m.model + " | " + std::to_string(m.train.count) + " | " + pct(m.train.median) + " | " + pct(m.train.p90) +
           " | " + std::to_string(m.holdout.count) + " | " + (m.holdout.count ? pct(m.holdout.median) : "-") + " | " +
           (m.holdout.count ? pct(m.holdout.p90) : "-") + " | " + m.parameters + " |\n";
  }
  return out;
}

}  // namespace cs::fit
