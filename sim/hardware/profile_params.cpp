#include "sim/hardware/profile_params.hpp"

namespace cs {
namespace {

constexpr DType kFormats[] = {DType::fp32, DType::tf32, DType::bf16, DType::fp16, DType::fp8, DType::mxfp8, DType::fp4};

const ParamTable<GpuSpec>& peak_params() {
  static const ParamTable<GpuSpec> t = [] {
    ParamTable<GpuSpec> p("peak", "Dense tensor-core (CUDA-core for fp32) peak per format, from the datasheet.");
    for (DType d : kFormats) {
      ParamSpec s{.key = std::string(to_string(d)), .type = ParamType::flop_rate,
                  .help = std::string(to_string(d)) + " dense peak" + (d == DType::bf16 ? " (required)" : ""),
                  .default_text = d == DType::bf16 ? "" : "none", .required = d == DType::bf16, .min = 0.0,
                  .min_exclusive = true};
      s.check = [](const InputNode& n) { n.require(n.as<FlopRate>().value() > 0, "must be positive"); };
      p.custom(s, [d, check = s.check](const InputNode& n, GpuSpec& g) {
        check(n);
        g.peak[d] = n.as<FlopRate>();
      });
    }
    return p;
  }();
  return t;
}

const ParamTable<GpuSpec>& gpu_params() {
  static const ParamTable<GpuSpec> t = [] {
    ParamTable<GpuSpec> p("gpu", "The GPU's datasheet figures.");
    p.field("name", &GpuSpec::name, {.help = "e.g. NVIDIA H100 SXM5 80GB", .required = true});
    p.field("sm_count", &GpuSpec::sm_count, {.help = "streaming multiprocessors", .positive = true, .required = true});
    p.field("memory", &GpuSpec::memory, {.help = "HBM capacity as CUDA reports it (a measured profile takes its calibration's memory_bytes: an \"80GB\" H100 shows 79.2 GiB, a \"141GB\" H200 139.8 GiB)", .positive = true, .required = true});
    p.field("memory_bandwidth", &GpuSpec::memory_bandwidth,
            {.help = "datasheet HBM bandwidth", .positive = true, .required = true});
    p.field("tdp", &GpuSpec::tdp, {.help = "board power limit", .positive = true, .required = true});
    p.field("idle_power", &GpuSpec::idle_power, {.help = "power with no kernel running", .min = 0.0,
                                                 .required = true});
    p.section(peak_params(), true);
    return p;
  }();
  return t;
}

const ParamTable<GemmModelParams>& efficiency_by_dtype_params() {
  static const ParamTable<GemmModelParams> t = [] {
    ParamTable<GemmModelParams> p("max_efficiency_by_dtype", "max_efficiency per format, where it differs.");
    for (DType d : kFormats) {
      ParamSpec s{.key = std::string(to_string(d)), .type = ParamType::real,
                  .help = "max_efficiency of " + std::string(to_string(d)) + " GEMMs", .default_text = "max_efficiency",
                  .min = 0.0, .max = 1.0, .min_exclusive = true};
      s.check = [](const InputNode& n) {
        const double e = n.as<double>();
        n.require(e > 0 && e <= 1, "must lie in (0, 1]");
      };
      p.custom(s, [d, check = s.check](const InputNode& n, GemmModelParams& g) {
        check(n);
        g.max_efficiency_by_dtype[d] = n.as<double>();
      });
    }
    return p;
  }();
  return t;
}

const ParamTable<GemmModelParams>& gemm_params() {
  static const ParamTable<GemmModelParams> t = [] {
    ParamTable<GemmModelParams> p("gemm", "The roofline GEMM model of a datasheet profile.");
    p.field("max_efficiency", &GemmModelParams::max_efficiency,
            {.help = "fraction of peak a huge, well-shaped GEMM reaches", .max = 1.0, .positive = true});
    p.section(efficiency_by_dtype_params());
    p.field("tile_m", &GemmModelParams::tile_m, {.help = "output tile rows (wave quantisation)", .positive = true});
    p.field("tile_n", &GemmModelParams::tile_n, {.help = "output tile columns", .positive = true});
    p.field("k_half", &GemmModelParams::k_half, {.help = "k at which the k-efficiency factor is one half", .min = 0.0});
    p.field("launch", &GemmModelParams::launch, {.help = "fixed per-kernel cost: launch, prologue, epilogue",
                                                 .min = 0.0});
    return p;
  }();
  return t;
}

/// One measured speed-up of a kernel over another (attention_fp8, attention_cudnn): positive, at most 10x, absent
/// when not measured.
template <class Speedup>
void speedup_field(ParamTable<Speedup>& p, const char* key, double Speedup::*f, const char* what) {
  p.field(key, f, {.help = what, .max = 10.0, .positive = true, .default_text = "none"});
}

const ParamTable<AttentionFp8Speedup>& attention_fp8_params() {
  static const ParamTable<AttentionFp8Speedup> t = [] {
    ParamTable<AttentionFp8Speedup> p(
        "attention_fp8",
        "Fused attention in fp8 (Transformer Engine's fp8_dot_product_attention): forward + backward time of 16-bit "
        "over fp8's, measured at 128-wide heads and at DeepSeek-V3's 192/128-wide ones (FLOP-equivalent width "
        "160); interpolated in width. Absent: fp8 attention is priced as 16-bit.");
    speedup_field(p, "fp8_d128", &AttentionFp8Speedup::fp8_d128, "per-tensor fp8, 128-wide heads");
    speedup_field(p, "fp8_d160", &AttentionFp8Speedup::fp8_d160, "per-tensor fp8, 192/128-wide heads");
    speedup_field(p, "mxfp8_d128", &AttentionFp8Speedup::mxfp8_d128, "MXFP8, 128-wide heads");
    speedup_field(p, "mxfp8_d160", &AttentionFp8Speedup::mxfp8_d160, "MXFP8, 192/128-wide heads");
    return p;
  }();
  return t;
}

const ParamTable<AttentionCudnnSpeedup>& attention_cudnn_params() {
  static const ParamTable<AttentionCudnnSpeedup> t = [] {
    ParamTable<AttentionCudnnSpeedup> p(
        "attention_cudnn",
        "cuDNN's fused attention (what Transformer Engine runs on Hopper and later) against FlashAttention-2: "
        "FlashAttention-2's time over cuDNN's, forward and backward, at 128-wide heads and at DeepSeek-V3's "
        "192/128-wide ones (FLOP-equivalent width 160); interpolated in width. Used where the profile has no cuDNN "
        "attention fits of its own. Absent: cuDNN's kernel is priced as FlashAttention-2's.");
    speedup_field(p, "fwd_d128", &AttentionCudnnSpeedup::fwd_d128, "forward, 128-wide heads");
    speedup_field(p, "bwd_d128", &AttentionCudnnSpeedup::bwd_d128, "backward, 128-wide heads");
    speedup_field(p, "fwd_d160", &AttentionCudnnSpeedup::fwd_d160, "forward, 192/128-wide heads");
    speedup_field(p, "bwd_d160", &AttentionCudnnSpeedup::bwd_d160, "backward, 192/128-wide heads");
    return p;
  }();
  return t;
}

ParamSection measured_section(std::string key, std::string help) {
  return ParamSection{.key = std::move(key), .help = std::move(help) + " Written by clustersim-fit."};
}

}  // namespace

const ParamTable<DeviceProfile>& profile_params() {
  static const ParamTable<DeviceProfile> t = [] {
    ParamTable<DeviceProfile> p("", "A device profile: one GPU's datasheet figures and cost models (docs/profiles.md).");
    const ParamSpec version = format_version_spec("profile", {1, 2});
    p.custom(version, [check = version.check](const InputNode& n, DeviceProfile&) { check(n); });
    ParamSpec name{.key = "name", .type = ParamType::text, .help = "the profile's name", .required = true};
    name.check = [](const InputNode& n) { (void)n.as<std::string>(); };
    p.custom(name, [](const InputNode& n, DeviceProfile& d) { d.provenance.profile = n.as<std::string>(); });
    ParamSpec source{.key = "source", .type = ParamType::choice, .help = "where the cost models come from",
                     .required = true, .choices = {"datasheet", "measured"}};
    source.check = [](const InputNode& n) {
      const std::string s = n.as<std::string>();
      n.require(s == "datasheet" || s == "measured", "must be \"datasheet\" or \"measured\"");
    };
    p.custom(source, [check = source.check](const InputNode& n, DeviceProfile& d) {
      check(n);
      d.provenance.kind = n.as<std::string>();
    });
    ParamSpec ref{.key = "source_ref", .type = ParamType::text,
                  .help = "the datasheet, or the GPU, driver, CUDA version and date of the calibration",
                  .required = true};
    ref.check = [](const InputNode& n) { (void)n.as<std::string>(); };
    p.custom(ref, [](const InputNode& n, DeviceProfile& d) { d.provenance.description = n.as<std::string>(); });
    p.section(&DeviceProfile::gpu, gpu_params(), true);
    p.section(&DeviceProfile::gemm, gemm_params());
    p.field("attention_efficiency", &DeviceProfile::attention_efficiency,
            {.help = "fraction of bf16 peak that fused attention reaches", .max = 1.0, .positive = true});
    p.section(&DeviceProfile::attention_fp8, attention_fp8_params());
    p.section(&DeviceProfile::attention_cudnn, attention_cudnn_params());
    p.field("memory_efficiency", &DeviceProfile::memory_efficiency,
            {.help = "fraction of datasheet HBM bandwidth that streaming kernels reach", .max = 1.0, .positive = true});
    p.field("kernel_overhead", &DeviceProfile::kernel_overhead, {.help = "fixed cost of any other kernel", .min = 0.0});
    ParamSpec from{.key = "compute_fits_from", .type = ParamType::text,
                   .help = "a measured profile of the same compute die whose GEMM and attention fits this "
                           "datasheet profile borrows",
                   .default_text = "none"};
    from.check = [](const InputNode& n) { (void)n.as<std::string>(); };
    p.custom(from, [](const InputNode&, DeviceProfile&) {});  // resolved by load_device_profile
    // Measured sections: read by parse_measured_fits after the table (declared here so they are known keys).
    for (auto [key, help] : {std::pair{"gemm_fit", "fitted GEMM models per format."},
                             std::pair{"gemm_layout_fit", "fitted GEMM models of the NN and NT layouts."},
                             std::pair{"attention_fwd_fit", "fitted forward attention models."},
                             std::pair{"attention_bwd_fit", "fitted backward attention models."},
                             std::pair{"cudnn_attention_fwd_fit", "fitted forward models of cuDNN's fused attention."},
                             std::pair{"cudnn_attention_bwd_fit", "fitted backward models of cuDNN's fused attention."},
                             std::pair{"memory_fit", "fitted bandwidth-bound kernel model."},
                             std::pair{"memory_ops", "fitted models per bandwidth-bound operation."},
                             std::pair{"collectives", "single-GPU NCCL measurements."},
                             std::pair{"measured_power", "measured board power."},
                             std::pair{"power_cap_model", "kernel time and board power against SM clock, for "
                                                          "sustained clocks under the power limit."},
                             std::pair{"calibration", "the calibration run's provenance."}}) {
      p.custom_section(measured_section(key, help), [](const InputNode&, DeviceProfile&) {});
    }
    return p;
  }();
  return t;
}

const ParamSection& profile_schema() { return profile_params().schema(); }

}  // namespace cs
