// clustersim-fit: the CPU side of calibration (no GPU needed).
//
//   clustersim-fit fit --samples FILE... --base PROFILE --name NAME --db DB --out PROFILE.yaml [--report R.md]
//       Imports the samples into the SQLite database (one new run), fits the models, prints residuals and
//       holdout errors, stores the fit in the database and writes the measured profile.
//   clustersim-fit runs --db DB
//       Lists the runs and fits in a database.
//   clustersim-fit check-steps --profile P --measured gpt_step.json
//       Predicts the GPT steps measured by calibrate/pytorch/gpt_step.py and compares.
//   clustersim-fit check-samples --profile P --samples FILE...
//       Predicts every GEMM and attention sample of the files and tabulates the errors.
//   clustersim-fit cudnn-speedup --profile P --published CSV
//       cuDNN's fused attention over the profile's FlashAttention-2 fits, from published cuDNN timings of the same
//       GPU (data/checks/cudnn_sdpa_h200.csv): every shape, and the profile's attention_cudnn line.
//       `fit --cudnn-reference CSV` writes that line into the fitted profile.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "calibrate/fit/calibration_fitter.hpp"
#include "calibrate/fit/cudnn_speedup.hpp"
#include "calibrate/fit/gpt_step_estimate.hpp"
#include "sim/core/error.hpp"
#include "sim/store/calibration_store.hpp"

namespace {

// Every sample with its prediction, one row each (the holdout of a fit, or a check set).
void write_predictions_csv(const std::string& path, const std::vector<cs::fit::HeldOutPrediction>& predictions,
                           const std::vector<cs::fit::HeldOutPrediction>& at_clock = {}) {
  std::ofstream h(path);
  if (!h) throw cs::InputError({path, 0, 0}, "", "cannot write");
  h << "kind,op,dtype,layout,m,n,k,batch,heads,seq,head_dim,sm_mhz,watts,measured_s,predicted_s,error,predicted_mhz"
    << (at_clock.empty() ? "" : ",predicted_at_clock_s") << '\n';
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const auto& p = predictions[i];
    const auto& s = p.sample;
    const double measured = s.median.value();
    h << s.kind << ',' << s.op << ',' << s.dtype << ',' << s.layout << ',' << s.m << ',' << s.n << ',' << s.k << ','
      << s.batch << ',' << s.heads << ',' << s.seq << ',' << s.head_dim << ',' << s.sm_mhz << ',' << s.watts.value()
      << ',' << measured << ',' << p.predicted_s << ',' << (p.predicted_s - measured) / measured << ','
      << p.predicted_mhz;
    if (!at_clock.empty()) h << ',' << at_clock[i].predicted_s;
    h << '\n';
  }
}

int cmd_fit(const std::vector<std::string>& sample_files, const std::string& base_name, const std::string& name,
            const std::string& db_path, const std::string& out_path, const std::string& report_path,
            const std::string& holdout_csv, double holdout_fraction, std::uint64_t seed,
            const std::string& cudnn_reference) {
  cs::SamplesFile merged;
  std::string refs;
  for (const auto& f : sample_files) {
    cs::SamplesFile one = cs::read_samples_file(f);
    if (merged.run.gpu_name.empty()) merged.run = one.run;
    else if (!one.run.tool.empty()) merged.run.tool += "; " + one.run.tool;
    merged.samples.insert(merged.samples.end(), one.samples.begin(), one.samples.end());
    refs += (refs.empty() ? "" : ", ") + f;
  }
  const cs::DeviceProfile base = cs::find_device_profile(base_name);
  cs::CalibrationStore store = cs::CalibrationStore::open(db_path);
  const std::int64_t run_id = store.add_run(merged.run, merged.samples);
  std::cerr << "clustersim-fit: run " << run_id << " (" << merged.samples.size() << " samples) stored in " << db_path << "\n";

  cs::fit::FitOptions opt;
  opt.profile_name = name;
  opt.samples_reference = refs;
  opt.holdout_fraction = holdout_fraction;
  opt.seed = seed;
  cs::fit::FitResult r = cs::fit::fit_calibration(base, merged, opt);
  if (!cudnn_reference.empty()) {
    r.profile.attention_cudnn = cs::fit::cudnn_speedup(r.profile, cs::fit::read_cudnn_timings(cudnn_reference)).speedup;
  }
  const std::string report = cs::fit::format_report(r);
  std::cout << report;

  std::ostringstream yaml;
  yaml << "# Measured profile written by clustersim-fit from " << refs << " (docs/calibration.md).\n";
  cs::write_device_profile(yaml, r.profile);
  {
    const std::string tmp = out_path + ".tmp";
    std::ofstream out(tmp);
    out << yaml.str();
    out.close();
    if (!out) throw std::runtime_error("cannot write " + tmp);
    (void)cs::load_device_profile(tmp);  // never leave a profile behind that does not load
    std::filesystem::rename(tmp, out_path);
  }
  std::ostringstream stats;
  stats << "gemm_holdout_median=" << r.gemm_holdout.median << "\ngemm_holdout_p90=" << r.gemm_holdout.p90
        << "\nattention_holdout_median=" << r.attention_holdout.median << "\nattention_holdout_p90=" << r.attention_holdout.p90
        << "\n";
  store.add_fit({0, run_id, "", name, "gemm+attention+memory+collectives+power", stats.str(), yaml.str()});
  if (!report_path.empty()) {
    std::ofstream rep(report_path);
    rep << report;
  }
  if (!holdout_csv.empty()) write_predictions_csv(holdout_csv, r.holdout);
  std::cerr << "clustersim-fit: wrote " << out_path << "\n";
  return 0;
}

// A profile against samples it may never have seen (another run, another machine, a user's own GEMMs).
int cmd_check_samples(const std::string& profile_name, const std::vector<std::string>& sample_files,
                      const std::string& csv_path, cs::fit::SampleClock clock) {
  const cs::DeviceProfile profile = cs::find_device_profile(profile_name);
  std::vector<cs::fit::HeldOutPrediction> all, at_clock;
  for (const auto& f : sample_files) {
    const cs::SamplesFile samples = cs::read_samples_file(f);
    const auto p = cs::fit::predict_samples(profile, samples, clock);
    all.insert(all.end(), p.begin(), p.end());
    const auto c = cs::fit::predict_samples(profile, samples, cs::fit::SampleClock::recorded);
    at_clock.insert(at_clock.end(), c.begin(), c.end());
  }
  if (all.empty()) throw cs::InputError({sample_files.front(), 0, 0}, "", "no GEMM or attention samples");
  if (!csv_path.empty()) write_predictions_csv(csv_path, all, at_clock);
  static const char* const clocks[] = {"busy: a GPU kept busy by training-size GEMMs",
                                       "own: each kernel alone in its steady state", "recorded"};
  std::cout << "profile " << profile.provenance.profile << " (" << profile.provenance.kind << "), clock "
            << clocks[static_cast<int>(clock)] << "\n\n"
            << cs::fit::format_prediction_subsets(all, "subset");
  if (profile.fits.power_cap) {
    std::cout << "\nThe same at each sample's recorded SM clock (the fitted surfaces without the clock model):\n\n"
              << cs::fit::format_prediction_subsets(at_clock, "subset");
  }
  return 0;
}

int cmd_runs(const std::string& db_path) {
  const cs::CalibrationStore store = cs::CalibrationStore::open(db_path);
  for (const auto& r : store.runs()) {
    std::cout << "run " << r.id << ": " << r.run.gpu_name << ", " << r.run.sm_count << " SMs, driver " << r.run.driver
              << ", CUDA " << r.run.cuda << ", cuBLASLt " << r.run.cublas << ", NCCL " << r.run.nccl << ", host "
              << r.run.host << ", measured " << r.run.date << ", imported " << r.imported_at << ", " << r.sample_count
              << " samples\n";
    for (const auto& f : store.fits(r.id)) {
      std::cout << "  fit " << f.id << " -> profile " << f.profile_name << " (" << f.created_at << ")\n";
    }
  }
  return 0;
}

int cmd_check_steps(const std::string& profile_name, const std::string& measured_path) {
  const cs::DeviceProfile profile = cs::find_device_profile(profile_name);
  const auto model = cs::make_cost_model(profile);
  std::ifstream in(measured_path);
  if (!in) throw cs::InputError({measured_path, 0, 0}, "", "cannot open");
  const nlohmann::json j = nlohmann::json::parse(in);
  const auto adam_it = profile.fits.memory_ops.find("adam");
  const cs::LinearCost* adam = adam_it == profile.fits.memory_ops.end() ? nullptr : &adam_it->second;
  std::printf("profile %s (%s: %s)\n", profile.provenance.profile.c_str(), profile.provenance.kind.c_str(),
              profile.provenance.description.c_str());
  std::printf("| config | params | tokens/step | measured step | predicted step | error | predicted gemm / attention / "
              "memory / optimizer | measured (profiler) gemm / attention / optimizer / other |\n|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : j.at("results")) {
    cs::fit::GptConfig c{r.at("name").get<std::string>(), r.at("hidden"), r.at("layers"), r.at("heads"),
                         r.at("seq"),                     r.at("batch"),  r.at("vocab")};
    const auto e = cs::fit::estimate_gpt_step(*model, c, adam);
    const double measured = r.at("step_ms_median").get<double>();
    const double predicted = e.total().seconds() * 1e3;
    const auto& cat = r.at("kernel_ms_by_category").at("by_category_ms");
    const auto get = [&](const char* k) { return cat.contains(k) ? cat.at(k).get<double>() : 0.0; };
    std::printf("| %s (h=%lld, L=%lld, heads=%lld, seq=%lld, batch=%lld) | %.2f B | %lld | %.1f ms | %.1f ms | %+.1f%% | "
                "%.1f / %.1f / %.1f / %.1f ms | %.1f / %.1f / %.1f / %.1f ms |\n",
                c.name.c_str(), static_cast<long long>(c.hidden), static_cast<long long>(c.layers),
                static_cast<long long>(c.heads), static_cast<long long>(c.seq), static_cast<long long>(c.batch),
                static_cast<double>(e.params) * 1e-9, static_cast<long long>(c.batch * c.seq), measured, predicted,
                (predicted - measured) / measured * 100, e.gemm.seconds() * 1e3, e.attention.seconds() * 1e3,
                e.memory.seconds() * 1e3, e.optimizer.seconds() * 1e3, get("gemm"), get("attention"), get("optimizer"),
                get("other"));
  }
  return 0;
}

}  // namespace

int cmd_cudnn_speedup(const std::string& profile_name, const std::string& published) {
  const cs::DeviceProfile profile = cs::find_device_profile(profile_name);
  const auto r = cs::fit::cudnn_speedup(profile, cs::fit::read_cudnn_timings(published));
  std::printf("cuDNN's fused attention (%s) against profile %s's FlashAttention-2 fits, at the fit's highest clock\n\n",
              published.c_str(), profile.provenance.profile.c_str());
  std::printf("| shape | pass | batch x heads (kv) | seq | head width qk/vo | cuDNN | flash fit | flash / cuDNN |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (const auto& row : r.rows) {
    const auto& c = row.timing;
    std::printf("| %s | %s | %lld x %lld (%lld) | %lld | %lld/%lld | %.3f ms | %.3f ms | %.2f |\n", c.shape.c_str(),
                c.backward ? "bwd" : "fwd", static_cast<long long>(c.batch), static_cast<long long>(c.heads),
                static_cast<long long>(c.kv_heads), static_cast<long long>(c.seq), static_cast<long long>(c.head_dim_qk),
                static_cast<long long>(c.head_dim_vo), c.ms, row.flash_ms, row.flash_ms / c.ms);
  }
  const auto& s = r.speedup;
  std::printf("\nattention_cudnn: {fwd_d128: %.3g, bwd_d128: %.3g, fwd_d160: %.3g, bwd_d160: %.3g}\n", s.fwd_d128, s.bwd_d128,
              s.fwd_d160, s.bwd_d160);
  return 0;
}

int main(int argc, char** argv) {
  CLI::App app{"clustersim-fit: fit calibration samples into a measured device profile"};
  app.require_subcommand(1);
  std::vector<std::string> samples;
  std::string base, name, db, out, report, holdout_csv, profile, measured;
  auto* fit = app.add_subcommand("fit", "import samples, fit the models, write a measured profile");
  fit->add_option("--samples", samples, "samples file(s) written by clustersim-calibrate / attention_bench.py")
      ->required()
      ->check(CLI::ExistingFile);
  fit->add_option("--base", base, "datasheet profile of the same GPU (name or file)")->required();
  fit->add_option("--name", name, "name of the measured profile")->required();
  fit->add_option("--db", db, "SQLite calibration database (created when absent, appended otherwise)")->required();
  fit->add_option("--out", out, "measured profile to write")->required();
  fit->add_option("--report", report, "also write the residual report (Markdown) here");
  fit->add_option("--holdout-csv", holdout_csv, "write every held-out sample with its prediction here");
  double holdout_fraction = cs::fit::FitOptions{}.holdout_fraction;
  std::uint64_t seed = cs::fit::FitOptions{}.seed;
  fit->add_option("--holdout-fraction", holdout_fraction, "fraction of the GEMM and attention samples held out of the fit")
      ->check(CLI::Range(0.0, 0.9))
      ->capture_default_str();
  fit->add_option("--seed", seed, "seed of the holdout shuffle (the same seed gives the same split)")->capture_default_str();
  std::string cudnn_reference, published;
  fit->add_option("--cudnn-reference", cudnn_reference,
                  "published cuDNN attention timings of this GPU (data/checks/cudnn_sdpa_*.csv): the profile's "
                  "attention_cudnn speed-up over the fitted flash fits")
      ->check(CLI::ExistingFile);
  auto* cudnn = app.add_subcommand("cudnn-speedup", "cuDNN's fused attention over a profile's FlashAttention-2 fits");
  cudnn->add_option("--profile", profile, "device profile (name or file)")->required();
  cudnn->add_option("--published", published, "published cuDNN timings (data/checks/cudnn_sdpa_*.csv)")
      ->required()
      ->check(CLI::ExistingFile);
  auto* runs = app.add_subcommand("runs", "list the runs and fits in a calibration database");
  runs->add_option("--db", db, "SQLite calibration database")->required()->check(CLI::ExistingFile);
  auto* check = app.add_subcommand("check-steps", "compare predicted and measured GPT training steps");
  check->add_option("--profile", profile, "device profile (name or file)")->required();
  check->add_option("--measured", measured, "gpt_step.json from calibrate/pytorch/gpt_step.py")->required();
  std::vector<std::string> check_files;
  auto* check_samples = app.add_subcommand("check-samples", "errors of a profile's GEMM and attention predictions on samples");
  check_samples->add_option("--profile", profile, "device profile (name or file)")->required();
  check_samples->add_option("--samples", check_files, "samples file(s)")->required()->check(CLI::ExistingFile);
  std::string check_csv;
  check_samples->add_option("--csv", check_csv, "also write every sample with its prediction here (CSV)");
  cs::fit::SampleClock clock = cs::fit::SampleClock::busy;
  const std::map<std::string, cs::fit::SampleClock> clock_names{
      {"busy", cs::fit::SampleClock::busy}, {"own", cs::fit::SampleClock::own}, {"recorded", cs::fit::SampleClock::recorded}};
  check_samples
      ->add_option("--clock", clock,
                   "clock each kernel is priced at: busy (after training-size GEMMs, as `clustersim cost`), own (alone "
                   "in its steady state: gemm_check.py --settle-ms 250) or recorded (each sample's own reading)")
      ->transform(CLI::CheckedTransformer(clock_names, CLI::ignore_case))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    if (*fit) return cmd_fit(samples, base, name, db, out, report, holdout_csv, holdout_fraction, seed, cudnn_reference);
    if (*cudnn) return cmd_cudnn_speedup(profile, published);
    if (*runs) return cmd_runs(db);
    if (*check_samples) return cmd_check_samples(profile, check_files, check_csv, clock);
    return cmd_check_steps(profile, measured);
  } catch (const cs::InputError& e) {
    std::cerr << "clustersim-fit: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "clustersim-fit: " << e.what() << "\n";
    return 1;
  }
}
