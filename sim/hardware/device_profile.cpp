#include "sim/hardware/device_profile.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "sim/core/data_dir.hpp"
#include "sim/hardware/fitted_cost_model.hpp"
#include "sim/hardware/roofline_cost_model.hpp"
#include "sim/input/input_node.hpp"

namespace cs {

FlopRate GpuSpec::peak_for(DType t) const {
  const auto it = peak.find(t);
  if (it == peak.end()) {
    throw std::out_of_range(name + " has no " + std::string(to_string(t)) + " peak in its profile");
  }
  return it->second;
}

DeviceProfile load_device_profile(const std::string& path) {
  const InputNode root = InputNode::load_file(path);
  const int version = root.get<int>("format_version");
  root.at("format_version")
      .require(version == 1 || version == 2,
               "unsupported profile format_version " + std::to_string(version) + " (this build reads 1 and 2)");
  DeviceProfile p;
  p.provenance.profile = root.get<std::string>("name");
  p.provenance.kind = root.get<std::string>("source");
  root.at("source").require(p.provenance.kind == "datasheet" || p.provenance.kind == "measured",
                            "must be \"datasheet\" or \"measured\"");
  p.provenance.description = root.get<std::string>("source_ref");

  const InputNode gpu = root.at("gpu");
  p.gpu.name = gpu.get<std::string>("name");
  p.gpu.sm_count = gpu.get<int>("sm_count");
  gpu.at("sm_count").require(p.gpu.sm_count > 0, "must be positive");
  p.gpu.memory = gpu.get<Bytes>("memory");
  p.gpu.memory_bandwidth = gpu.get<Bandwidth>("memory_bandwidth");
  gpu.at("memory_bandwidth").require(p.gpu.memory_bandwidth.value() > 0, "must be positive");
  p.gpu.tdp = gpu.get<Watts>("tdp");
  p.gpu.idle_power = gpu.get<Watts>("idle_power");
  const InputNode peak = gpu.at("peak");
  for (const DType t : {DType::fp32, DType::tf32, DType::bf16, DType::fp16, DType::fp8}) {
    if (auto v = peak.find(to_string(t))) {
      const FlopRate r = v->as<FlopRate>();
      v->require(r.value() > 0, "must be positive");
      p.gpu.peak[t] = r;
    }
  }
  peak.finish();
  peak.require(p.gpu.peak.count(DType::bf16) == 1, "a bf16 peak is required");
  gpu.finish();

  if (auto g = root.find("gemm")) {
    p.gemm.max_efficiency = g->get_or<double>("max_efficiency", p.gemm.max_efficiency);
    if (auto by = g->find("max_efficiency_by_dtype")) {
      for (const DType t : {DType::fp32, DType::tf32, DType::bf16, DType::fp16, DType::fp8}) {
        if (auto v = by->find(to_string(t))) {
          const double e = v->as<double>();
          v->require(e > 0 && e <= 1, "must lie in (0, 1]");
          p.gemm.max_efficiency_by_dtype[t] = e;
        }
      }
      by->finish();
    }
    p.gemm.tile_m = g->get_or<int>("tile_m", p.gemm.tile_m);
    p.gemm.tile_n = g->get_or<int>("tile_n", p.gemm.tile_n);
    p.gemm.k_half = g->get_or<double>("k_half", p.gemm.k_half);
    p.gemm.launch = g->get_or<Time>("launch", p.gemm.launch);
    g->require(p.gemm.max_efficiency > 0 && p.gemm.max_efficiency <= 1, "max_efficiency must lie in (0, 1]");
    g->require(p.gemm.tile_m > 0 && p.gemm.tile_n > 0 && p.gemm.k_half >= 0, "tiles must be positive");
    g->finish();
  }
  p.attention_efficiency = root.get_or<double>("attention_efficiency", p.attention_efficiency);
  p.memory_efficiency = root.get_or<double>("memory_efficiency", p.memory_efficiency);
  p.kernel_overhead = root.get_or<Time>("kernel_overhead", p.kernel_overhead);
  root.require(p.attention_efficiency > 0 && p.attention_efficiency <= 1 && p.memory_efficiency > 0 &&
                   p.memory_efficiency <= 1,
               "efficiencies must lie in (0, 1]");
  p.fits = parse_measured_fits(root);
  if (p.provenance.kind == "datasheet") {
    root.require(p.fits.empty(), "a datasheet profile cannot carry measured sections (set source: measured)");
  }
  for (const auto& [t, g] : p.fits.gemm) {
    root.at("gemm_fit").require(p.gpu.peak.count(t) == 1, "gemm_fit." + std::string(to_string(t)) +
                                                                   " needs gpu.peak." + std::string(to_string(t)));
  }
  if (auto from = root.find("compute_fits_from")) {
    // A GPU with the same compute die as a calibrated one (H100 SXM and H200: GH100, 132 SMs, same clocks and
    // peaks) borrows its measured GEMM and attention fits; bandwidth-bound kernels keep this GPU's HBM figures.
    from->require(p.provenance.kind == "datasheet", "only a datasheet profile can borrow measured compute fits");
    const DeviceProfile donor = [&] {
      try {
        return find_device_profile(from->as<std::string>());
      } catch (const InputError& e) {
        from->fail(e.what());
      }
    }();
    from->require(donor.provenance.kind == "measured" && !donor.fits.gemm.empty(),
                  "profile \"" + donor.provenance.profile + "\" has no measured GEMM fits");
    from->require(donor.gpu.sm_count == p.gpu.sm_count && donor.gpu.peak == p.gpu.peak,
                  "profile \"" + donor.provenance.profile + "\" is a different compute die (SM count or peaks differ)");
    p.fits.gemm = donor.fits.gemm;
    p.fits.gemm_layouts = donor.fits.gemm_layouts;
    // The donor's fits are at its highest clock; its power-cap model (same die, same 700 W limit) prices them
    // at sustained clocks, as on the donor.
    p.fits.power_cap = donor.fits.power_cap;
    p.fits.attention_fwd = donor.fits.attention_fwd;
    p.fits.attention_bwd = donor.fits.attention_bwd;
    p.provenance.kind = "datasheet+measured";
    p.provenance.description += "; GEMM and attention fits measured on " + donor.gpu.name + " (profile " +
                                donor.provenance.profile + ", same compute die)";
  }
  root.finish();
  return p;
}

std::vector<std::string> shipped_profiles() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data_path("profiles"), ec)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

DeviceProfile find_device_profile(const std::string& name_or_path) {
  if (std::filesystem::is_regular_file(name_or_path)) return load_device_profile(name_or_path);
  const std::string shipped = data_path("profiles/" + name_or_path + ".yaml");
  if (std::filesystem::is_regular_file(shipped)) return load_device_profile(shipped);
  std::string known;
  for (const auto& n : shipped_profiles()) known += (known.empty() ? "" : ", ") + n;
  throw InputError({}, "", "unknown device profile \"" + name_or_path + "\" (shipped: " + known + ")");
}

std::unique_ptr<ComputeCostModel> make_cost_model(const DeviceProfile& profile, std::optional<Watts> power_cap) {
  if (!profile.fits.gemm.empty() || !profile.fits.attention_fwd.empty() || profile.fits.memory) {
    return std::make_unique<FittedCostModel>(profile, power_cap);
  }
  return std::make_unique<RooflineCostModel>(profile);
}

}  // namespace cs
