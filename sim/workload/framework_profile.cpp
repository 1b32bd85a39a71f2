#include "sim/workload/framework_profile.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "sim/core/data_dir.hpp"
#include "sim/input/input_node.hpp"
#include "sim/workload/workload_params.hpp"

namespace cs {

namespace {

std::string shipped_path(const std::string& name) { return data_path("profiles/frameworks/" + name + ".yaml"); }

FrameworkProfile read_profile(const std::string& path, int depth);

ParamTable<FrameworkProfile> make_table(int depth) {
  ParamTable<FrameworkProfile> p("framework",
                                 "A training framework's measured host costs (profiles/frameworks/*.yaml).");
  ParamSpec base;
  base.key = "base";
  base.type = ParamType::text;
  base.help = "a framework profile this one builds on (its figures, then this file's): a shipped name or a path";
  base.default_text = "none";
  // First: the base's figures, which the keys below then replace.
  p.custom(base, [depth](const InputNode& n, FrameworkProfile& f) {
    const std::string name = n.as<std::string>();
    n.require(depth < 8, "base profiles nest more than 8 deep (a cycle?)");
    const std::string path = std::filesystem::is_regular_file(name) ? name : shipped_path(name);
    n.require(std::filesystem::is_regular_file(path), "unknown framework profile \"" + name + "\"");
    f = read_profile(path, depth + 1);
  });
  p.field("title", &FrameworkProfile::title, {.help = "what the framework is, in words", .required = true});
  p.field("measured_on", &FrameworkProfile::measured_on,
          {.help = "where the figures come from (runs, hosts, issues)", .required = true});
  p.field("kernel_gap", &FrameworkProfile::kernel_gap,
          {.help = "idle GPU time after each operator launched eagerly; 0: captured in CUDA graphs", .min = 0.0});
  p.field("host_launch_cost", &FrameworkProfile::host_launch_cost,
          {.help = "host time per operator launched eagerly (eager PyTorch's, before host_factor); 0: the host "
                   "never binds",
           .min = 0.0});
  p.field("host_factor", &FrameworkProfile::host_factor,
          {.help = "host work per operator launch against eager PyTorch's", .min = 0.01});
  p.choice("host_work", &FrameworkProfile::host_work, host_work_names(),
           {.help = "per_kind: operators at host_factor, plain PyTorch operators at 1, grouped GEMMs' further "
                    "launches at native_gemm_launch x host_factor up to grouped_gemm_launch; uniform: every launch "
                    "times host_factor"});
  const auto cost = [&p](const char* key, Time FrameworkHostCosts::*member, const char* help) {
    ParamSpec s;
    s.key = key;
    s.type = ParamType::time;
    s.help = help;
    s.default_text = "the base's, else 0";
    s.min = 0.0;
    p.custom(s, [member](const InputNode& n, FrameworkProfile& f) {
      const Time t = n.as<Time>();
      n.require(t >= Time::zero(), "must not be negative");
      f.costs.*member = t;
    });
  };
  cost("native_gemm_launch", &FrameworkHostCosts::native_gemm_launch,
       "host time per further GEMM of a grouped operator launched from a C++ loop");
  cost("native_kernel_launch", &FrameworkHostCosts::native_kernel_launch,
       "host time per further small kernel of a grouped operator launched from a C++ loop");
  cost("grouped_gemm_launch", &FrameworkHostCosts::grouped_gemm_launch,
       "the most a grouped GEMM's further GEMM costs the host (host_work per_kind)");
  cost("schedule_node_host", &FrameworkHostCosts::schedule_node_host,
       "host time a merged forward-backward schedule adds per schedule-node call");
  cost("schedule_node_host_synced", &FrameworkHostCosts::schedule_node_host_synced,
       "the same where the MoE dispatcher synchronises with the host");
  cost("calibration_host_linear_forward", &FrameworkHostCosts::calibration_host_linear_forward,
       "the measuring hosts' torch.nn.Linear forward (bf16, hidden 2,048, 8,192 tokens): node hosts scale every "
       "host cost by their own figure over this one");
  return p;
}

FrameworkProfile read_profile(const std::string& path, int depth) {
  const InputNode root = InputNode::load_file(path);
  FrameworkProfile f;
  make_table(depth).read(root, f);
  f.name = std::filesystem::path(path).stem().string();
  return f;
}

}  // namespace

const ParamTable<FrameworkProfile>& framework_profile_params() {
  static const ParamTable<FrameworkProfile> t = make_table(0);
  return t;
}

FrameworkProfile load_framework_profile(const std::string& path) { return read_profile(path, 0); }

const FrameworkProfile& find_framework_profile(const std::string& name_or_path) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<const FrameworkProfile>> loaded;  // read once, never changed
  std::lock_guard lock(mu);
  if (auto it = loaded.find(name_or_path); it != loaded.end()) return *it->second;
  std::string path = name_or_path;
  if (!std::filesystem::is_regular_file(path)) path = shipped_path(name_or_path);
  if (!std::filesystem::is_regular_file(path)) {
    std::string known;
    for (const auto& n : shipped_framework_profiles()) known += (known.empty() ? "" : ", ") + n;
    throw InputError({}, "", "unknown framework profile \"" + name_or_path + "\" (shipped: " + known + ")");
  }
  auto p = std::make_unique<const FrameworkProfile>(load_framework_profile(path));
  return *loaded.emplace(name_or_path, std::move(p)).first->second;
}

std::vector<std::string> shipped_framework_profiles() { return shipped_yaml_names("profiles/frameworks"); }

void apply_framework(const FrameworkProfile& f, TrainingConfig& t) {
  t.framework = f.name;
  t.kernel_gap = f.kernel_gap;
  t.host_launch_cost = f.host_launch_cost;
  t.framework_host_factor = f.host_factor;
  t.host_work = f.host_work;
  t.host_costs = f.costs;
}

}  // namespace cs
