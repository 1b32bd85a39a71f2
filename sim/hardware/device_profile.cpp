#include "sim/hardware/device_profile.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "sim/core/data_dir.hpp"
#include "sim/hardware/fitted_cost_model.hpp"
#include "sim/hardware/profile_params.hpp"
#include "sim/hardware/roofline_cost_model.hpp"
#include "sim/input/input_node.hpp"

namespace cs {

namespace {

/// A speed-up measured at 128-wide heads (`d128`) and at 192/128-wide ones (FLOP-equivalent width 160, `d160`):
/// interpolated in width between them and held outside.
double between_widths(double d128, double d160, std::int64_t head_dim) noexcept {
  const double x = std::clamp((static_cast<double>(head_dim) - 128.0) / 32.0, 0.0, 1.0);
  return d128 + (d160 - d128) * x;
}

}  // namespace

bool AttentionFp8Speedup::measured(DType dtype) const noexcept {
  return dtype == DType::mxfp8 ? mxfp8_d128 > 0 && mxfp8_d160 > 0 : fp8_d128 > 0 && fp8_d160 > 0;
}

double AttentionFp8Speedup::at(DType dtype, std::int64_t head_dim) const noexcept {
  if (!measured(dtype)) return 1.0;
  const bool mx = dtype == DType::mxfp8;
  return between_widths(mx ? mxfp8_d128 : fp8_d128, mx ? mxfp8_d160 : fp8_d160, head_dim);
}

double AttentionCudnnSpeedup::at(bool backward, std::int64_t head_dim) const noexcept {
  if (!measured()) return 1.0;
  return between_widths(backward ? bwd_d128 : fwd_d128, backward ? bwd_d160 : fwd_d160, head_dim);
}

FlopRate GpuSpec::peak_for(DType t) const {
  const auto it = peak.find(t);
  if (it == peak.end()) {
    throw std::out_of_range(name + " has no " + std::string(to_string(t)) + " peak in its profile");
  }
  return it->second;
}

DeviceProfile load_device_profile(const std::string& path) {
  const InputNode root = InputNode::load_file(path);
  DeviceProfile p;
  profile_params().read(root, p);
  p.fits = parse_measured_fits(root);
  if (p.provenance.kind == "datasheet") {
    // A datasheet profile may carry a power-cap model whose figures come from published measurements, as its
    // efficiencies do (profiles/b200.yaml); no fitted surface.
    MeasuredFits rest = p.fits;
    rest.power_cap.reset();
    root.require(rest.empty(), "a datasheet profile cannot carry measured sections (set source: measured)");
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
    if (p.fits.power_cap && donor.gpu.memory_bandwidth.value() > 0) {
      // HBM power goes with the bytes moved: the same energy per byte at this GPU's own bandwidth.
      p.fits.power_cap->memory_power =
          p.fits.power_cap->memory_power * (p.gpu.memory_bandwidth / donor.gpu.memory_bandwidth);
    }
    p.fits.attention_fwd = donor.fits.attention_fwd;
    p.fits.attention_bwd = donor.fits.attention_bwd;
    p.fits.cudnn_attention_fwd = donor.fits.cudnn_attention_fwd;
    p.fits.cudnn_attention_bwd = donor.fits.cudnn_attention_bwd;
    // cuDNN's speed-up is over the donor's flash fits: it comes with them unless this profile states its own.
    if (!p.attention_cudnn.measured()) p.attention_cudnn = donor.attention_cudnn;
    p.provenance.kind = "datasheet+measured";
    p.provenance.description += "; GEMM and attention fits measured on " + donor.gpu.name + " (profile " +
                                donor.provenance.profile + ", same compute die)";
  }
  return p;
}

std::vector<std::string> shipped_profiles() { return shipped_yaml_names("profiles"); }

DeviceProfile find_device_profile(const std::string& name_or_path) {
  if (std::filesystem::is_regular_file(name_or_path)) return load_device_profile(name_or_path);
  const std::string shipped = data_path("profiles/" + name_or_path + ".yaml");
  if (std::filesystem::is_regular_file(shipped)) return load_device_profile(shipped);
  std::string known;
  for (const auto& n : shipped_profiles()) known += (known.empty() ? "" : ", ") + n;
  throw InputError({}, "", "unknown device profile \"" + name_or_path + "\" (shipped: " + known + ")");
}

std::unique_ptr<ComputeCostModel> make_cost_model(const DeviceProfile& profile, std::optional<Watts> power_cap) {
  if (!profile.fits.gemm.empty() || !profile.fits.attention_fwd.empty() || profile.fits.memory ||
      profile.fits.power_cap) {
    return std::make_unique<FittedCostModel>(profile, power_cap);
  }
  return std::make_unique<RooflineCostModel>(profile);
}

}  // namespace cs
