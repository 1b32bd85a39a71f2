#include "calibrate/fit/kernel_fits.hpp"

#include "calibrate/fit/error_stats.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>

namespace cs::fit {
namespace {

// One efficiency-surface regression problem: per sample the sizes, the misalignment flag, the ideal time
// (efficiency 1) and the measured time.
struct SurfaceProblem {
  std::vector<std::vector<double>> sizes;
  std::vector<std::vector<double>> penalties;
  std::vector<double> ideal, seconds;
};

std::span<const double> no_penalties() { return {}; }

// penalty_form: 0 none, 1 a constant per penalty, 2 affine in the logs per penalty.
EfficiencySurface solve_surface(const SurfaceProblem& p, const std::vector<std::size_t>& rows, int degree,
                                int penalty_form, double launch_s, const std::vector<double>& lo,
                                const std::vector<double>& hi) {
  EfficiencySurface s;
  s.degree = degree;
  s.log_min = lo;
  s.log_max = hi;
  const std::size_t dims = lo.size();
  const std::size_t mono = EfficiencySurface::monomial_count(dims, degree);
  const std::size_t npen = penalty_form > 0 ? p.penalties.front().size() : 0;
  const std::size_t cols = mono + npen * (penalty_form == 2 ? dims + 1 : 1);
  Eigen::MatrixXd x(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t i = rows[r];
    const auto logs = s.clamp_logs(p.sizes[i]);
    const auto f = penalty_form == 1 ? EfficiencySurface::constant_penalty_features(logs, degree, p.penalties[i])
                   : EfficiencySurface::features(logs, degree, penalty_form == 2 ? std::span<const double>(p.penalties[i])
                                                                                 : no_penalties());
    for (std::size_t c = 0; c < cols; ++c) x(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = f[c];
    y(static_cast<Eigen::Index>(r)) = std::log(p.ideal[i] / (p.seconds[i] - launch_s));
  }
  const Eigen::VectorXd c = x.colPivHouseholderQr().solve(y);
  s.coefficients.assign(c.data(), c.data() + mono);
  if (npen > 0) s.misaligned.assign(c.data() + mono, c.data() + cols);
  return s;
}

double predict(const SurfaceProblem& p, std::size_t i, const EfficiencySurface& s, double launch_s) {
  return launch_s + p.ideal[i] / s.efficiency(p.sizes[i], p.penalties[i]);
}

// Stores the residuals of `rows` against the smooth part of `s` as its local part.
void attach_residuals(EfficiencySurface& s, const SurfaceProblem& p, const std::vector<std::size_t>& rows,
                      double launch_s, double width, double prior, int neighbours) {
  s.smoother_width = width;
  s.smoother_prior = prior;
  s.smoother_neighbours = neighbours;
  s.residuals.clear();
  if (width <= 0) return;
  for (std::size_t i : rows) {
    const auto logs = s.clamp_logs(p.sizes[i]);
    const double needed = std::log(p.ideal[i] / (p.seconds[i] - launch_s));
    s.residuals.insert(s.residuals.end(), logs.begin(), logs.end());
    s.residuals.insert(s.residuals.end(), p.penalties[i].begin(), p.penalties[i].end());
    s.residuals.push_back(s.smooth_log(logs, p.penalties[i]) - needed);
  }
}

struct Choice {
  EfficiencySurface surface;
  int penalty_form = 0;
  double launch_s = 0;
  double score = std::numeric_limits<double>::infinity();
};

// Picks degree and launch by the mean squared log error on every fifth sample, refits on all.
Choice fit_surface(const SurfaceProblem& p, const std::vector<int>& degrees, double fixed_launch = -1) {
  const std::size_t n = p.seconds.size();
  if (n < 8) throw std::invalid_argument("too few samples to fit an efficiency surface (need 8, have " +
                                         std::to_string(n) + ")");
  const std::size_t dims = p.sizes.front().size();
  std::vector<double> lo(dims, std::numeric_limits<double>::infinity()), hi(dims, -lo[0]);
  bool any_penalty = false;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t d = 0; d < dims; ++d) {
      lo[d] = std::min(lo[d], std::log(std::max(p.sizes[i][d], 1.0)));
      hi[d] = std::max(hi[d], std::log(std::max(p.sizes[i][d], 1.0)));
    }
    for (double v : p.penalties[i]) any_penalty = any_penalty || v != 0;
  }
  const bool with_mis = any_penalty;
  std::vector<std::size_t> all(n), train, valid;
  for (std::size_t i = 0; i < n; ++i) {
    all[i] = i;
    (i % 5 == 4 ? valid : train).push_back(i);
  }
  const double t_min = *std::min_element(p.seconds.begin(), p.seconds.end());
  // The efficiency never exceeds the best any fitted sample reached (at the candidate launch cost): the
  // polynomial may overshoot near the corners of the fitted range, the hardware does not.
  const auto ceiling = [&](const std::vector<std::size_t>& rows, double launch) {
    double c = 0;
    for (std::size_t i : rows) c = std::max(c, p.ideal[i] / std::max(p.seconds[i] - launch, 1e-12));
    return c;
  };
  Choice best;
  const std::vector<double> launches = fixed_launch >= 0 ? std::vector<double>{std::min(fixed_launch, 0.8 * t_min)}
                                                         : std::vector<double>{0.0, 1e-6, 2e-6, 3e-6, 4e-6, 5e-6, 6e-6};
  for (const double launch : launches) {
    if (launch >= 0.8 * t_min && fixed_launch < 0) continue;
    for (const int degree : degrees) {
      for (const int form : with_mis ? std::vector<int>{1, 2} : std::vector<int>{0}) {
        const std::size_t npen = form > 0 ? p.penalties.front().size() : 0;
        const std::size_t params = EfficiencySurface::monomial_count(dims, degree) + npen * (form == 2 ? dims + 1 : 1);
        if (train.size() < 2 * params) continue;
        auto s = solve_surface(p, train, degree, form, launch, lo, hi);
        s.ceiling = ceiling(train, launch);
        double sse = 0;
        for (std::size_t i : valid) sse += std::pow(std::log(predict(p, i, s, launch) / p.seconds[i]), 2);
        const double score = sse / static_cast<double>(std::max<std::size_t>(valid.size(), 1));
        if (score < best.score) best = {s, form, launch, score};
      }
    }
  }
  if (!std::isfinite(best.score)) throw std::invalid_argument("no efficiency-surface form fits these samples");
  // The local part: its width and prior by the same validation, residuals taken against the smooth part
  // fitted without the validation samples.
  // Fixed widths (neighbours 0) and adaptive ones (a multiple of the distance to the k-th nearest sample).
  double best_width = 0, best_prior = 1, best_local = best.score;
  int best_neighbours = 0;
  for (const int neighbours : {0, 3, 6, 12}) {
    for (const double width : neighbours == 0 ? std::vector<double>{0.1, 0.2, 0.3, 0.5} : std::vector<double>{0.5, 0.8, 1.2}) {
      for (const double prior : {0.05, 0.2, 1.0}) {
        EfficiencySurface s = best.surface;
        attach_residuals(s, p, train, best.launch_s, width, prior, neighbours);
        double sse = 0;
        for (std::size_t i : valid) sse += std::pow(std::log(predict(p, i, s, best.launch_s) / p.seconds[i]), 2);
        const double score = sse / static_cast<double>(std::max<std::size_t>(valid.size(), 1));
        if (score < best_local) {
          best_local = score;
          best_width = width;
          best_prior = prior;
          best_neighbours = neighbours;
        }
      }
    }
  }
  best.surface = solve_surface(p, all, best.surface.degree, best.penalty_form, best.launch_s, lo, hi);
  best.surface.ceiling = ceiling(all, best.launch_s);
  attach_residuals(best.surface, p, all, best.launch_s, best_width, best_prior, best_neighbours);
  best.score = best_local;  // the validation error of the whole model, local part included
  return best;
}

}  // namespace

GemmFit fit_gemm(const std::vector<GemmSample>& samples, int sm_count, FlopRate peak) {
  GemmFit best;
  double best_score = std::numeric_limits<double>::infinity();
  std::vector<GemmSample> aligned, misaligned;
  for (const auto& s : samples) {
    const auto pen = GemmFit::penalties(s.shape);
    (pen[0] == 0 && pen[1] == 0 ? aligned : misaligned).push_back(s);
  }
  // Too few misaligned samples for a surface of their own: one surface with penalty terms for all.
  const bool split = misaligned.size() >= 24 && aligned.size() >= 24;
  const auto problem = [&](const std::vector<GemmSample>& v, int tm, int tn) {
    SurfaceProblem p;
    for (const auto& s : v) {
      p.sizes.push_back({static_cast<double>(s.shape.m), static_cast<double>(s.shape.n), static_cast<double>(s.shape.k)});
      p.penalties.push_back(GemmFit::penalties(s.shape));
      p.ideal.push_back(GemmFit::ideal_seconds(s.shape, tm, tn, sm_count, peak));
      p.seconds.push_back(s.seconds);
    }
    return p;
  };
  // Candidate tiles: none, and the CUTLASS/cuBLAS Hopper tile shapes most often picked for large GEMMs.
  for (const auto& [tm, tn] : {std::pair{0, 0}, std::pair{128, 128}, std::pair{128, 256}, std::pair{256, 128}}) {
    const Choice c = fit_surface(problem(split ? aligned : samples, tm, tn), {2, 3, 4});
    if (c.score < best_score) {
      best_score = c.score;
      best.tile_m = tm;
      best.tile_n = tn;
      best.launch = Time::from_seconds(c.launch_s);
      best.surface = c.surface;
    }
  }
  if (split) {
    // Per alignment class, the compute ceiling (a fraction of peak) that best explains the misaligned samples
    // as max(aligned model, ceiling), chosen among quantiles of their achieved efficiency; then a constant
    // and a local correction over what remains.
    const double launch_s = best.launch.seconds();
    std::vector<double> base(misaligned.size()), flops(misaligned.size()), achieved(misaligned.size());
    for (std::size_t i = 0; i < misaligned.size(); ++i) {
      const auto& sh = misaligned[i].shape;
      const double sizes[3] = {static_cast<double>(sh.m), static_cast<double>(sh.n), static_cast<double>(sh.k)};
      base[i] = GemmFit::ideal_seconds(sh, best.tile_m, best.tile_n, sm_count, peak) /
                best.surface.efficiency(sizes, GemmFit::penalties(sh));
      flops[i] = sh.flops().value();
      achieved[i] = flops[i] / (peak.value() * std::max(misaligned[i].seconds - launch_s, 1e-9));
    }
    // Two forms, kept by the validation error of the whole fit: the capped one, and no cap (the aligned
    // model times a correction surface of its own).
    std::vector<double> caps = {1.0, 1.0};
    for (int cls = 0; cls < 2; ++cls) {
      std::vector<std::size_t> in;
      std::vector<double> eff;
      for (std::size_t i = 0; i < misaligned.size(); ++i) {
        if ((GemmFit::penalties(misaligned[i].shape)[0] != 0) == (cls == 0)) {
          in.push_back(i);
          eff.push_back(achieved[i]);
        }
      }
      if (in.empty()) continue;
      double best_err = std::numeric_limits<double>::infinity();
      for (const double q : {0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0}) {
        const double cap = quantile(eff, q);
        double err = 0;
        for (std::size_t i : in) {
          err += std::pow(std::log(std::max(base[i], flops[i] / (peak.value() * cap)) /
                                   std::max(misaligned[i].seconds - launch_s, 1e-9)),
                          2);
        }
        if (err < best_err) {
          best_err = err;
          caps[static_cast<std::size_t>(cls)] = cap;
        }
      }
    }
    double best_mis = std::numeric_limits<double>::infinity();
    for (const auto& form_caps : {caps, std::vector<double>{1.0, 1.0}}) {
      SurfaceProblem p = problem(misaligned, best.tile_m, best.tile_n);
      for (std::size_t i = 0; i < misaligned.size(); ++i) {
        const double cap = form_caps[GemmFit::penalties(misaligned[i].shape)[0] != 0 ? 0 : 1];
        p.ideal[i] = std::max(base[i], flops[i] / (peak.value() * cap));
      }
      const Choice c = fit_surface(p, {0, 1, 2, 3}, launch_s);
      if (c.score < best_mis) {
        best_mis = c.score;
        best.misaligned_caps = form_caps;
        best.misaligned_surface = c.surface;
      }
    }
  }
  return best;
}

AttentionFit fit_attention(const std::vector<AttentionSample>& samples, FlopRate peak) {
  SurfaceProblem p;
  for (const auto& s : samples) {
    p.sizes.push_back(AttentionFit::sizes(s.shape));
    p.penalties.push_back({});
    p.ideal.push_back(s.shape.flops().value() / peak.value());
    p.seconds.push_back(s.seconds);
  }
  const Choice c = fit_surface(p, {1, 2, 3});
  return {Time::from_seconds(c.launch_s), c.surface};
}

LinearCost fit_linear(const std::vector<SizedSample>& samples) {
  if (samples.size() < 2) throw std::invalid_argument("a latency-bandwidth fit needs at least two samples");
  // Minimise sum(((a + b x - t) / t)^2): rows [1/t, x/t], target 1.
  Eigen::MatrixXd x(static_cast<Eigen::Index>(samples.size()), 2);
  Eigen::VectorXd y = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(samples.size()));
  for (std::size_t i = 0; i < samples.size(); ++i) {
    x(static_cast<Eigen::Index>(i), 0) = 1.0 / samples[i].seconds;
    x(static_cast<Eigen::Index>(i), 1) = samples[i].bytes / samples[i].seconds;
  }
  Eigen::Vector2d c = x.colPivHouseholderQr().solve(y);
  if (c(0) < 0) {  // a negative latency: refit through the origin
    Eigen::VectorXd col = x.col(1);
    c(0) = 0;
    c(1) = col.dot(y) / col.dot(col);
  }
  if (!(c(1) > 0)) {  // no measurable size dependence in this range: latency only
    double mean_t = 0;
    for (const auto& s : samples) mean_t += s.seconds / static_cast<double>(samples.size());
    return {Time::from_seconds(mean_t), Bandwidth{1e18}};
  }
  return {Time::from_seconds(c(0)), Bandwidth{1.0 / c(1)}};
}

std::vector<CollectiveFit::Segment> fit_segments(std::vector<SizedSample> samples,
                                                 const std::vector<double>& boundaries) {
  std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  std::vector<CollectiveFit::Segment> out;
  std::vector<SizedSample> cur;
  std::size_t next = 0;
  const auto flush = [&](double up_to) {
    out.push_back({Bytes{up_to}, fit_linear(cur)});
    cur.clear();
  };
  for (const auto& s : samples) {
    while (next < boundaries.size() && s.bytes > boundaries[next]) {
      if (cur.size() >= 2) flush(boundaries[next]);
      ++next;
    }
    cur.push_back(s);
  }
  if (cur.size() >= 2 || out.empty()) {
    flush(samples.empty() ? 0.0 : samples.back().bytes);
  } else {  // one leftover sample: extend the previous segment
    out.back().up_to = Bytes{samples.back().bytes};
  }
  return out;
}

}  // namespace cs::fit
