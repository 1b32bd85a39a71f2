#include "calibrate/fit/calibration_fitter.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "calibrate/fit/kernel_fits.hpp"

namespace cs::fit {
namespace {

DType dtype_of(const CalibrationSample& s) {
  DType t{};
  if (!parse_dtype(s.dtype, t)) throw std::invalid_argument("sample with unknown dtype \"" + s.dtype + "\"");
  return t;
}

GemmShape gemm_shape(const CalibrationSample& s) { return {s.m, s.n, s.k, dtype_of(s), s.batch}; }

AttentionShape attention_shape(const CalibrationSample& s) {
  AttentionShape a;
  a.batch = s.batch;
  a.heads = a.kv_heads = s.heads;
  a.seq_q = a.seq_kv = s.seq;
  a.head_dim = s.head_dim;
  a.causal = true;
  a.backward = s.op == "bwd";
  a.dtype = dtype_of(s);
  return a;
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

  // Holdout: a seeded shuffle of each kind's samples; the first quarter is held out.
  std::vector<std::size_t> gemm_idx, attn_idx;
  for (std::size_t i = 0; i < file.samples.size(); ++i) {
    if (file.samples[i].kind == "gemm") gemm_idx.push_back(i);
    if (file.samples[i].kind == "attention") attn_idx.push_back(i);
  }
  std::mt19937_64 rng(opt.seed);
  std::set<std::size_t> held;
  for (auto* idx : {&gemm_idx, &attn_idx}) {
    std::shuffle(idx->begin(), idx->end(), rng);
    const auto n = static_cast<std::size_t>(static_cast<double>(idx->size()) * opt.holdout_fraction + 0.5);
    held.insert(idx->begin(), idx->begin() + static_cast<std::ptrdiff_t>(n));
  }

  // GEMM per format; attention per direction and format.
  std::map<DType, std::vector<GemmSample>> gemm;
  std::map<std::pair<bool, DType>, std::vector<AttentionSample>> attn;
  for (std::size_t i : gemm_idx) {
    if (!held.count(i)) gemm[dtype_of(file.samples[i])].push_back({gemm_shape(file.samples[i]), file.samples[i].median_s});
  }
  for (std::size_t i : attn_idx) {
    const auto a = attention_shape(file.samples[i]);
    if (!held.count(i)) attn[{a.backward, a.dtype}].push_back({a, file.samples[i].median_s});
  }
  for (const auto& [t, v] : gemm) {
    if (!p.gpu.peak.count(t)) continue;  // the datasheet gives no peak: keep the roofline fallback
    p.fits.gemm[t] = fit_gemm(v, p.gpu.sm_count, p.gpu.peak_for(t));
  }
  for (const auto& [key, v] : attn) {
    (key.first ? p.fits.attention_bwd : p.fits.attention_fwd)[key.second] = fit_attention(v, p.gpu.peak_for(DType::bf16));
  }

  // Bandwidth-bound kernels: per op, and the streaming pair (copy, add) that memory_bound() uses.
  std::map<std::string, std::vector<SizedSample>> mem;
  std::map<std::tuple<std::string, int, std::string>, std::vector<SizedSample>> coll;
  std::map<std::string, double> power;
  for (const auto& s : file.samples) {
    if (s.kind == "memory") {
      mem[s.op].push_back({s.bytes, s.median_s});
      if (s.op == "copy" || s.op == "add") mem["streaming"].push_back({s.bytes, s.median_s});
    } else if (s.kind == "collective") {
      coll[{s.op, s.ranks, s.algo}].push_back({s.bytes, s.median_s});
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
    p.fits.power = MeasuredPower{Watts{power["idle"]}, Watts{power["compute"]}, Watts{power["memory"]}};
    p.gpu.idle_power = Watts{power["idle"]};
  }

  // Predictions through the simulator's own cost model.
  const auto model = make_cost_model(p);
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> train, hold;  // model -> (pred, meas)
  std::vector<double> gh_pred, gh_meas, ah_pred, ah_meas;
  for (std::size_t i = 0; i < file.samples.size(); ++i) {
    const auto& s = file.samples[i];
    double pred = 0;
    std::string key;
    if (s.kind == "gemm") {
      if (!p.fits.gemm.count(dtype_of(s))) continue;
      pred = model->gemm(gemm_shape(s)).seconds();
      key = "gemm " + s.dtype;
    } else if (s.kind == "attention") {
      pred = model->attention(attention_shape(s)).seconds();
      key = "attention " + s.op + " " + s.dtype;
    } else if (s.kind == "memory") {
      pred = p.fits.memory_ops.at(s.op).time(Bytes{s.bytes}).seconds();
      key = "memory " + s.op;
    } else if (s.kind == "collective") {
      for (const auto& c : p.fits.collectives) {
        if (c.op == s.op && c.ranks == s.ranks && c.algo == s.algo) pred = c.time(Bytes{s.bytes}).seconds();
      }
      key = s.op + " x" + std::to_string(s.ranks) + " " + s.algo;
    } else {
      continue;
    }
    auto& dst = held.count(i) ? hold[key] : train[key];
    dst.first.push_back(pred);
    dst.second.push_back(s.median_s);
    if (held.count(i)) {
      r.holdout.push_back({s, pred});
      (s.kind == "gemm" ? gh_pred : ah_pred).push_back(pred);
      (s.kind == "gemm" ? gh_meas : ah_meas).push_back(s.median_s);
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
    if (kind == "gemm" && parse_dtype(rest, t)) {
      const GemmFit& g = p.fits.gemm.at(t);
      m.parameters = fmt("tile %.0fx%.0f, launch %.1f us", g.tile_m, g.tile_n, g.launch.seconds() * 1e6) +
                     ", degree " + std::to_string(g.surface.degree);
    } else if (kind == "attention") {
      const bool bwd = rest.rfind("bwd", 0) == 0;
      if (!parse_dtype(rest.substr(4), t)) continue;
      const AttentionFit& a = (bwd ? p.fits.attention_bwd : p.fits.attention_fwd).at(t);
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

std::vector<HeldOutPrediction> predict_samples(const DeviceProfile& profile, const SamplesFile& samples) {
  const auto model = make_cost_model(profile);
  std::vector<HeldOutPrediction> out;
  for (const auto& s : samples.samples) {
    if (s.kind == "gemm") out.push_back({s, model->gemm(gemm_shape(s)).seconds()});
    else if (s.kind == "attention") out.push_back({s, model->attention(attention_shape(s)).seconds()});
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
                                 {"GEMM, misaligned k or m", {}, {}},
                                 {"GEMM, kernels < 20 us", {}, {}},
                                 {"GEMM, kernels >= 20 us", {}, {}}};
  std::map<std::string, Subset> by_format;
  for (const auto& h : predictions) {
    const auto add = [&](Subset& sub) {
      sub.pred.push_back(h.predicted_s);
      sub.meas.push_back(h.sample.median_s);
    };
    add(subsets[0]);
    if (h.sample.kind != "gemm") continue;
    const auto pen = GemmFit::penalties(gemm_shape(h.sample));
    add(subsets[pen[0] == 0 && pen[1] == 0 ? 1 : 2]);
    add(subsets[h.sample.median_s < 20e-6 ? 3 : 4]);
    Subset& f = by_format["GEMM " + h.sample.dtype];
    f.name = "GEMM " + h.sample.dtype;
    add(f);
  }
  for (auto& [name, f] : by_format) subsets.push_back(std::move(f));
  std::string out = "| " + title + " | samples | median error | p90 error | max error |\n|---|---|---|---|---|\n";
  for (const auto& sub : subsets) {
    if (!sub.pred.empty()) out += error_row(sub.name, error_stats(sub.pred, sub.meas));
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
