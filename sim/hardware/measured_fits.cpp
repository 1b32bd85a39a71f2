#include "sim/hardware/measured_fits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <utility>

#include "sim/input/input_node.hpp"

namespace cs {

// ---- Evaluation ---------------------------------------------------------------------------------------

double GemmFit::ideal_seconds(const GemmShape& s, int tile_m, int tile_n, int sm_count, FlopRate peak) {
  const double k = static_cast<double>(s.k);
  if (tile_m <= 0 || tile_n <= 0) return s.flops().value() / peak.value();
  const double tiles = static_cast<double>((s.m + tile_m - 1) / tile_m) * static_cast<double>((s.n + tile_n - 1) / tile_n) *
                       static_cast<double>(s.batch);
  const double waves = std::ceil(tiles / sm_count);
  return waves * sm_count * 2.0 * tile_m * tile_n * k / peak.value();
}

std::vector<double> GemmFit::penalties(const GemmShape& s) {
  const auto in = static_cast<std::int64_t>(bytes_per_element(s.dtype));
  const std::int64_t out = is_quantized(s.dtype) ? 2 : in;  // fp8 and fp4 GEMMs write bf16
  // The kernel's vector width is set by the least-aligned leading dimension.
  const auto alignment = [](std::int64_t bytes) {
    std::int64_t a = 1;
    while (a < 16 && bytes % (2 * a) == 0) a *= 2;
    return a;
  };
  std::int64_t a = 0;
  switch (s.layout) {
    case GemmLayout::tn: a = std::min(alignment(s.k * in), alignment(s.m * out)); break;
    case GemmLayout::nn: a = std::min({alignment(s.n * in), alignment(s.k * in), alignment(s.n * out)}); break;
    case GemmLayout::nt: a = std::min({alignment(s.m * in), alignment(s.n * in), alignment(s.m * out)}); break;
  }
  return {a <= 2 ? 1.0 : 0.0, a == 4 || a == 8 ? 1.0 : 0.0};
}

Time GemmFit::time(const GemmShape& s, int sm_count, FlopRate peak) const {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) return Time::zero();
  const double sizes[3] = {static_cast<double>(s.m), static_cast<double>(s.n), static_cast<double>(s.k)};
  const double ideal = ideal_seconds(s, tile_m, tile_n, sm_count, peak);
  const auto pen = penalties(s);
  const double aligned_s = ideal / surface.efficiency(sizes, pen);
  if ((pen[0] == 0 && pen[1] == 0) || misaligned_caps.size() != 2) return launch + Time::ceil_seconds(aligned_s);
  const double cap_s = s.flops().value() / (peak.value() * misaligned_caps[pen[0] != 0 ? 0 : 1]);
  const double corr = misaligned_surface.coefficients.empty() ? 1.0 : misaligned_surface.efficiency(sizes, pen);
  return launch + Time::ceil_seconds(std::max(aligned_s, cap_s) / corr);
}

std::vector<double> AttentionFit::sizes(const AttentionShape& s) {
  return {static_cast<double>(s.batch * s.heads), std::sqrt(static_cast<double>(s.seq_q) * static_cast<double>(s.seq_kv)),
          static_cast<double>(s.head_dim)};
}

Time AttentionFit::time(const AttentionShape& s, FlopRate peak) const {
  if (s.batch <= 0 || s.heads <= 0 || s.seq_q <= 0 || s.seq_kv <= 0) return Time::zero();
  if (!s.windowed() || surface.log_min.size() < 2) {
    return launch + Time::ceil_seconds(s.flops().value() / (peak.value() * surface.efficiency(sizes(s))));
  }
  // A windowed kernel runs like causal attention over blocks of twice the window (compute_cost_model.hpp): the
  // band's FLOPs at the blocks' efficiency. Blocks shorter than the fit's shortest sequence are priced as blocks
  // of that length, whose extra pairs the kernel's short-sequence overhead stands for.
  const auto shortest = static_cast<std::int64_t>(std::ceil(std::exp(surface.log_min[1]) - 1e-6));
  const AttentionShape e = s.tile_equivalent(shortest);
  const double flops = s.flops().value() * (e.flops().value() / s.tile_equivalent().flops().value());
  return launch + Time::ceil_seconds(flops / (peak.value() * surface.efficiency(sizes(e))));
}

Time CollectiveFit::time(Bytes b) const {
  for (const auto& seg : segments) {
    if (b <= seg.up_to) return seg.cost.time(b);
  }
  return segments.empty() ? Time::zero() : segments.back().cost.time(b);
}

// ---- Parsing ------------------------------------------------------------------------------------------
namespace {

/// The profile's attention sections, each with the fits it holds: read and written in this order.
constexpr std::pair<const char*, std::map<DType, AttentionFit> MeasuredFits::*> kAttentionSections[] = {
    {"attention_fwd_fit", &MeasuredFits::attention_fwd},
    {"attention_bwd_fit", &MeasuredFits::attention_bwd},
    {"cudnn_attention_fwd_fit", &MeasuredFits::cudnn_attention_fwd},
    {"cudnn_attention_bwd_fit", &MeasuredFits::cudnn_attention_bwd}};

std::vector<double> numbers(const InputNode& n) {
  n.require(n.is_sequence(), "must be a list of numbers");
  std::vector<double> v;
  for (const auto& e : n.elements()) v.push_back(e.as<double>());
  return v;
}

EfficiencySurface parse_surface(const InputNode& n, std::size_t dims, std::size_t penalties) {
  EfficiencySurface s;
  s.degree = n.get<int>("degree");
  n.at("degree").require(s.degree >= 0 && s.degree <= 4, "must lie in 0..4");
  s.log_min = numbers(n.at("log_min"));
  s.log_max = numbers(n.at("log_max"));
  n.require(s.log_min.size() == dims && s.log_max.size() == dims,
            "log_min and log_max need " + std::to_string(dims) + " values each");
  for (std::size_t i = 0; i < dims; ++i) n.require(s.log_min[i] <= s.log_max[i], "log_min above log_max");
  s.coefficients = numbers(n.at("coefficients"));
  n.at("coefficients").require(s.coefficients.size() == EfficiencySurface::monomial_count(dims, s.degree),
                               "needs " + std::to_string(EfficiencySurface::monomial_count(dims, s.degree)) +
                                   " values for degree " + std::to_string(s.degree));
  const std::size_t row = dims + penalties + 1;
  s.ceiling = n.get_or<double>("ceiling", 0.0);
  n.require(s.ceiling >= 0, "ceiling must not be negative");
  if (auto m = n.find("misaligned")) {
    s.misaligned = numbers(*m);
    m->require(penalties > 0 && (s.misaligned.size() == penalties * (dims + 1) || s.misaligned.size() == penalties),
               "needs " + std::to_string(penalties) + " or " + std::to_string(penalties * (dims + 1)) + " values");
  }
  if (auto sm = n.find("smoother")) {
    s.smoother_width = sm->get<double>("width");
    s.smoother_prior = sm->get<double>("prior");
    s.smoother_neighbours = sm->get_or<int>("neighbours", 0);
    sm->require(s.smoother_neighbours >= 0, "neighbours must not be negative");
    sm->require(s.smoother_width > 0 && s.smoother_prior > 0, "width and prior must be positive");
    s.residuals = numbers(sm->at("residuals"));
    sm->at("residuals").require(!s.residuals.empty() && s.residuals.size() % row == 0,
                                "needs rows of " + std::to_string(row) + " numbers (logs, penalties, residual)");
    sm->finish();
  }
  return s;
}

DType dtype_key(const InputNode& parent, const std::string& key) {
  DType t{};
  if (!parse_dtype(key, t)) parent.at(key).fail("unknown format \"" + key + "\" (fp32, tf32, bf16, fp16, fp8, mxfp8, fp4)");
  return t;
}

LinearCost parse_linear(const InputNode& n) {
  LinearCost c{n.get<Time>("latency"), n.get<Bandwidth>("bandwidth")};
  n.at("bandwidth").require(c.bandwidth.value() > 0, "must be positive");
  n.at("latency").require(c.latency >= Time::zero(), "must not be negative");
  n.finish();
  return c;
}

// Keys of a mapping in file order, read through InputNode so that each is marked as read.
std::vector<std::string> keys_of(const InputNode& map, std::initializer_list<const char*> candidates) {
  std::vector<std::string> ks;
  for (const char* k : candidates) {
    if (map.has(k)) ks.emplace_back(k);
  }
  return ks;
}

}  // namespace

MeasuredFits parse_measured_fits(const InputNode& root) {
  MeasuredFits f;
  const auto formats = {"fp32", "tf32", "bf16", "fp16", "fp8", "mxfp8", "fp4"};
  const auto parse_gemm = [](const InputNode& n) {
      GemmFit fit;
      const auto tile = numbers(n.at("tile"));
      n.at("tile").require(tile.size() == 2 && tile[0] >= 0 && tile[1] >= 0, "needs [tile_m, tile_n] (0 0: none)");
      fit.tile_m = static_cast<int>(tile[0]);
      fit.tile_n = static_cast<int>(tile[1]);
      fit.launch = n.get<Time>("launch");
      fit.surface = parse_surface(n, 3, 2);
      if (auto caps = n.find("misaligned_caps")) {
        fit.misaligned_caps = numbers(*caps);
        caps->require(fit.misaligned_caps.size() == 2 && fit.misaligned_caps[0] > 0 && fit.misaligned_caps[1] > 0,
                      "needs two positive efficiency ceilings (1-2-byte, 4-8-byte alignment)");
      }
      if (auto m = n.find("misaligned_surface")) {
        fit.misaligned_surface = parse_surface(*m, 3, 2);
        m->finish();
      }
      n.finish();
      return fit;
  };
  if (auto g = root.find("gemm_fit")) {
    for (const auto& key : keys_of(*g, formats)) f.gemm[dtype_key(*g, key)] = parse_gemm(g->at(key));
    g->finish();
  }
  if (auto g = root.find("gemm_layout_fit")) {
    for (const auto& key : keys_of(*g, {"fp32_nn", "fp32_nt", "tf32_nn", "tf32_nt", "bf16_nn", "bf16_nt", "fp16_nn",
                                        "fp16_nt"})) {
      DType t{};
      GemmLayout l{};
      if (!parse_dtype(key.substr(0, key.size() - 3), t) || !parse_gemm_layout(key.substr(key.size() - 2), l)) {
        g->at(key).fail("unknown format and layout \"" + key + "\"");
      }
      f.gemm_layouts[{t, l}] = parse_gemm(g->at(key));
    }
    g->finish();
  }
  for (const auto& [dir, dst_of] : kAttentionSections) {
    if (auto a = root.find(dir)) {
      auto& dst = f.*dst_of;
      for (const auto& key : keys_of(*a, formats)) {
        const InputNode n = a->at(key);
        AttentionFit fit;
        fit.launch = n.get<Time>("launch");
        fit.surface = parse_surface(n, 3, 0);
        n.finish();
        dst[dtype_key(*a, key)] = fit;
      }
      a->finish();
    }
  }
  if (auto m = root.find("memory_fit")) f.memory = parse_linear(*m);
  if (auto ops = root.find("memory_ops")) {
    for (const auto& key : keys_of(*ops, {"copy", "add", "layernorm", "rmsnorm", "softmax", "adam", "h2d", "d2h"})) {
      f.memory_ops[key] = parse_linear(ops->at(key));
    }
    ops->finish();
  }
  if (auto cs = root.find("collectives")) {
    for (const auto& e : cs->elements()) {
      CollectiveFit c;
      c.op = e.get<std::string>("op");
      c.ranks = e.get<int>("ranks");
      e.at("ranks").require(c.ranks >= 1, "must be at least 1");
      c.algo = e.get<std::string>("algo");
      for (const auto& s : e.at("segments").elements()) {
        CollectiveFit::Segment seg;
        seg.up_to = s.get<Bytes>("up_to");
        seg.cost = {s.get<Time>("latency"), s.get<Bandwidth>("bandwidth")};
        s.at("bandwidth").require(seg.cost.bandwidth.value() > 0, "must be positive");
        s.finish();
        c.segments.push_back(seg);
      }
      e.at("segments").require(!c.segments.empty(), "needs at least one segment");
      e.finish();
      f.collectives.push_back(std::move(c));
    }
  }
  if (auto p = root.find("measured_power")) {
    f.power = MeasuredPower{p->get<Watts>("idle"), p->get<Watts>("compute"), p->get<Watts>("memory")};
    p->finish();
  }
  if (auto c = root.find("power_cap_model")) {
    PowerCapModel m;
    m.max_clock_mhz = c->get<double>("max_clock_mhz");
    m.min_clock_mhz = c->get<double>("min_clock_mhz");
    c->at("min_clock_mhz").require(m.min_clock_mhz > 0 && m.min_clock_mhz < m.max_clock_mhz,
                                   "must lie between 0 and max_clock_mhz");
    m.clock_step_mhz = c->get<double>("clock_step_mhz");
    c->at("clock_step_mhz").require(m.clock_step_mhz > 0, "must be positive");
    m.clock_bound = c->get<double>("clock_bound");
    c->at("clock_bound").require(m.clock_bound >= 0 && m.clock_bound <= 1, "must lie in 0..1");
    m.power_exponent = c->get<double>("power_exponent");
    c->at("power_exponent").require(m.power_exponent > 0 && m.power_exponent <= 6, "must lie in (0, 6]");
    m.static_power = c->get<Watts>("static_power");
    m.power_limit = c->get<Watts>("power_limit");
    c->at("power_limit").require(m.power_limit > m.static_power, "must be above static_power");
    m.held_fraction = c->get<double>("held_fraction");
    c->at("held_fraction").require(m.held_fraction > 0.5 && m.held_fraction <= 1.1, "must lie in (0.5, 1.1]");
    m.memory_power = c->get<Watts>("memory_power");
    m.busy_power = c->get<Watts>("busy_power");
    if (c->find("active_power")) {
      m.active_power = c->get<Watts>("active_power");
      c->at("active_power").require(m.active_power.value() >= 0, "must not be negative");
    }
    const InputNode t = c->at("tensor_power");
    for (const auto& key : keys_of(t, formats)) {
      m.tensor_power[dtype_key(t, key)] = t.get<Watts>(key);
      t.at(key).require(t.get<Watts>(key).value() > 0, "must be positive");
    }
    t.finish();
    c->finish();
    f.power_cap = m;
  }
  if (auto c = root.find("calibration")) {
    CalibrationInfo i;
    i.gpu = c->get<std::string>("gpu");
    i.driver = c->get<std::string>("driver");
    i.cuda = c->get<std::string>("cuda");
    i.cublas = c->get<std::string>("cublas");
    i.nccl = c->get<std::string>("nccl");
    i.host = c->get<std::string>("host");
    i.date = c->get<std::string>("date");
    i.samples = c->get<std::string>("samples");
    i.gemm_holdout_median = c->get<double>("gemm_holdout_median");
    i.gemm_holdout_p90 = c->get<double>("gemm_holdout_p90");
    i.gemm_holdout_count = c->get<int>("gemm_holdout_count");
    i.attention_holdout_median = c->get<double>("attention_holdout_median");
    i.attention_holdout_p90 = c->get<double>("attention_holdout_p90");
    i.attention_holdout_count = c->get<int>("attention_holdout_count");
    c->finish();
    f.calibration = i;
  }
  return f;
}

// ---- Writing ------------------------------------------------------------------------------------------
namespace {

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
std::string list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += g17(v[i]);
  }
  return s + "]";
}
std::string ns(Time t) { return std::to_string(t.count_ns()) + "ns"; }
std::string gbps(Bandwidth b) {
  char s[48];
  std::snprintf(s, sizeof s, "%.3fGB/s", b.value() * 1e-9);
  return s;
}
std::string watts(Watts w) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1fW", w.value());
  return s;
}

// Full precision, so a written profile reads back to the same clocks.
std::string exact_watts(Watts w) { return g17(w.value()) + "W"; }

void write_surface(std::ostream& out, const EfficiencySurface& s, const char* indent) {
  out << indent << "degree: " << s.degree << "\n"
      << indent << "log_min: " << list(s.log_min) << "\n"
      << indent << "log_max: " << list(s.log_max) << "\n"
      << indent << "coefficients: " << list(s.coefficients) << "\n";
  if (!s.misaligned.empty()) out << indent << "misaligned: " << list(s.misaligned) << "\n";
  if (s.ceiling > 0) out << indent << "ceiling: " << g17(s.ceiling) << "\n";
  if (s.smoother_width > 0) {
    out << indent << "smoother:\n" << indent << "  width: " << g17(s.smoother_width) << "\n" << indent
        << "  prior: " << g17(s.smoother_prior) << "\n" << indent << "  neighbours: " << s.smoother_neighbours << "\n"
        << indent << "  residuals: [";
    for (std::size_t i = 0; i < s.residuals.size(); ++i) {
      char b[24];
      std::snprintf(b, sizeof b, "%.6g", s.residuals[i]);
      out << (i ? ", " : "") << b;
    }
    out << "]\n";
  }
}

}  // namespace

std::string yaml_quoted(const std::string& v) {
  std::string q = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

void write_measured_fits(std::ostream& out, const MeasuredFits& f) {
  const auto write_gemm = [&](const std::string& key, const GemmFit& g) {
    out << "  " << key << ":\n    tile: [" << g.tile_m << ", " << g.tile_n << "]\n    launch: " << ns(g.launch) << "\n";
    write_surface(out, g.surface, "    ");
    if (!g.misaligned_caps.empty()) out << "    misaligned_caps: " << list(g.misaligned_caps) << "\n";
    if (!g.misaligned_surface.coefficients.empty()) {
      out << "    misaligned_surface:\n";
      write_surface(out, g.misaligned_surface, "      ");
    }
  };
  if (!f.gemm.empty()) {
    out << "gemm_fit:  # time = launch + waves-of-tiles time at peak / efficiency(m, n, k)\n";
    for (const auto& [t, g] : f.gemm) write_gemm(std::string(to_string(t)), g);
  }
  if (!f.gemm_layouts.empty()) {
    out << "gemm_layout_fit:  # the same model for the NN (input-gradient) and NT (weight-gradient) layouts\n";
    for (const auto& [key, g] : f.gemm_layouts) {
      write_gemm(std::string(to_string(key.first)) + "_" + std::string(to_string(key.second)), g);
    }
  }
  for (const auto& [name, fits_of] : kAttentionSections) {
    const auto& fits = f.*fits_of;
    if (fits.empty()) continue;
    out << name << ":  # time = launch + FLOPs / (peak * efficiency(batch*heads, seq, head_dim))\n";
    for (const auto& [t, a] : fits) {
      out << "  " << to_string(t) << ":\n    launch: " << ns(a.launch) << "\n";
      write_surface(out, a.surface, "    ");
    }
  }
  if (f.memory) {
    out << "memory_fit: {latency: " << ns(f.memory->latency) << ", bandwidth: " << gbps(f.memory->bandwidth) << "}\n";
  }
  if (!f.memory_ops.empty()) {
    out << "memory_ops:\n";
    for (const auto& [op, c] : f.memory_ops) {
      out << "  " << op << ": {latency: " << ns(c.latency) << ", bandwidth: " << gbps(c.bandwidth) << "}\n";
    }
  }
  if (!f.collectives.empty()) {
    out << "collectives:\n";
    for (const auto& c : f.collectives) {
      out << "  - op: " << c.op << "\n    ranks: " << c.ranks << "\n    algo: " << yaml_quoted(c.algo) << "\n    segments:\n";
      for (const auto& s : c.segments) {
        char b[40];
        std::snprintf(b, sizeof b, "%.0fB", s.up_to.value());
        out << "      - {up_to: " << b << ", latency: " << ns(s.cost.latency) << ", bandwidth: " << gbps(s.cost.bandwidth)
            << "}\n";
      }
    }
  }
  if (f.power) {
    out << "measured_power: {idle: " << watts(f.power->idle) << ", compute: " << watts(f.power->compute)
        << ", memory: " << watts(f.power->memory) << "}\n";
  }
  if (f.power_cap) {
    const PowerCapModel& m = *f.power_cap;
    out << "power_cap_model:  # t(f) = t_max (1 - clock_bound + clock_bound f_max / f); "
           "P(f) = static + dynamic (f / f_max)^power_exponent\n"
        << "  max_clock_mhz: " << g17(m.max_clock_mhz) << "\n  min_clock_mhz: " << g17(m.min_clock_mhz)
        << "\n  clock_step_mhz: " << g17(m.clock_step_mhz) << "\n  clock_bound: " << g17(m.clock_bound)
        << "\n  power_exponent: " << g17(m.power_exponent) << "\n  static_power: " << exact_watts(m.static_power)
        << "\n  power_limit: " << exact_watts(m.power_limit) << "\n  held_fraction: " << g17(m.held_fraction)
        << "\n  memory_power: " << exact_watts(m.memory_power) << "\n  busy_power: " << exact_watts(m.busy_power)
        << "\n  active_power: " << exact_watts(m.active_power)
        << "\n  tensor_power: {";
    bool first = true;
    for (const auto& [t, w] : m.tensor_power) {
      out << (first ? "" : ", ") << to_string(t) << ": " << exact_watts(w);
      first = false;
    }
    out << "}\n";
  }
  if (f.calibration) {
    const CalibrationInfo& i = *f.calibration;
    out << "calibration:\n  gpu: " << yaml_quoted(i.gpu) << "\n  driver: " << yaml_quoted(i.driver) << "\n  cuda: " << yaml_quoted(i.cuda)
        << "\n  cublas: " << yaml_quoted(i.cublas) << "\n  nccl: " << yaml_quoted(i.nccl) << "\n  host: " << yaml_quoted(i.host)
        << "\n  date: " << yaml_quoted(i.date) << "\n  samples: " << yaml_quoted(i.samples)
        << "\n  gemm_holdout_median: " << g17(i.gemm_holdout_median) << "\n  gemm_holdout_p90: " << g17(i.gemm_holdout_p90)
        << "\n  gemm_holdout_count: " << i.gemm_holdout_count
        << "\n  attention_holdout_median: " << g17(i.attention_holdout_median)
        << "\n  attention_holdout_p90: " << g17(i.attention_holdout_p90)
        << "\n  attention_holdout_count: " << i.attention_holdout_count << "\n";
  }
}

}  // namespace cs
