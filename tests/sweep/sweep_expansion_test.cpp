// Sweep files: parsing, crossed and zipped expansion, and errors located in the sweep file.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/sweep/sweep_expansion.hpp"
#include "sim/sweep/sweep_point.hpp"

namespace cs {
namespace {

const std::string kScenarios = std::string(CS_SOURCE_DIR) + "/scenarios";

SweepSpec parse(const std::string& body) {
  return parse_sweep("format_version: 1\nname: t\nbase: gpt3-1.3b-8xh100-dp.yaml\n" + body, "t.yaml", kScenarios);
}

/// Runs `f` and returns the InputError it throws.
template <class F>
InputError error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError thrown";
  return InputError({}, "", "");
}

TEST(SweepExpansion, CrossedAxesMakeTheCartesianProductLastAxisFastest) {
  const SweepSpec s = parse("axes:\n  training.micro_batch: [1, 2]\n  cluster.profile: [h100-sxm, h200, b200]\n");
  const auto points = expand_sweep(s);
  ASSERT_EQ(points.size(), 6u);  // 2 x 3
  EXPECT_EQ(points[0].label, "training.micro_batch=1, cluster.profile=h100-sxm");
  EXPECT_EQ(points[1].label, "training.micro_batch=1, cluster.profile=h200");
  EXPECT_EQ(points[5].label, "training.micro_batch=2, cluster.profile=b200");
  EXPECT_NE(points[5].yaml.find("micro_batch: 2"), std::string::npos);
  EXPECT_NE(points[5].yaml.find("profile: b200"), std::string::npos);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, static_cast<std::int64_t>(i));
    EXPECT_EQ(points[i].hash, content_hash(points[i].yaml));
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(points[i].hash, points[j].hash);
  }
  // Each point loads as a scenario with its values.
  const Scenario sc = load_point(s, points[4]).scenario;  // index 4 = (1 * 3 + 1): micro-batch 2, h200
  EXPECT_EQ(sc.training.micro_batch, 2);
  EXPECT_EQ(sc.profile.provenance.profile, "h200");
}

TEST(SweepExpansion, ZippedGroupsMoveTogetherAndGroupsAreCrossed) {
  const SweepSpec s = parse(
      "axes:\n"
      "  - {training.micro_batch: [1, 2, 4], training.global_batch: [64, 128, 256]}\n"
      "  - {facility.cooling.type: [air, liquid]}\n");
  const auto points = expand_sweep(s);
  ASSERT_EQ(points.size(), 6u);  // 3 zipped x 2
  const Scenario sc = load_point(s, points[5]).scenario;  // (mb 4, batch 256) x liquid
  EXPECT_EQ(sc.training.micro_batch, 4);
  EXPECT_EQ(sc.training.global_batch, 256);
  EXPECT_EQ(points[5].label, "training.micro_batch=4, training.global_batch=256, facility.cooling.type=liquid");
}

TEST(SweepExpansion, SetAppliesToEveryPointAndSameSweepGivesSameHashes) {
  const std::string body = "set:\n  training.token_budget: 1e9\naxes:\n  training.micro_batch: [1, 2]\n";
  const auto a = expand_sweep(parse(body)), b = expand_sweep(parse(body));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].hash, b[1].hash);
  EXPECT_NE(a[0].yaml.find("token_budget: 1e9"), std::string::npos);
}

TEST(SweepExpansion, StructuralErrorsAreLocatedInTheSweepFile) {
  // Line 4 is the first line after the three header lines.
  auto e = error_of([] { (void)parse("axes:\n  training.micro_batch: []\n"); });
  EXPECT_EQ(e.where().line, 5);
  EXPECT_EQ(e.key_path(), "axes.training.micro_batch");
  e = error_of([] { (void)parse("axes:\n  - {training.micro_batch: [1, 2], training.global_batch: [64]}\n"); });
  EXPECT_NE(std::string(e.what()).find("equal lengths"), std::string::npos);
  e = error_of([] { (void)parse("axes:\n  training.micro_batch: [1]\nextra: 1\n"); });
  EXPECT_EQ(e.key_path(), "extra");
  EXPECT_EQ(e.where().line, 6);
  e = error_of([] { (void)parse("axes: {}\n"); });
  EXPECT_EQ(e.key_path(), "axes");
  e = error_of([] {
    (void)parse_sweep("format_version: 1\nname: t\nbase: nowhere.yaml\naxes: {a.b: [1]}\n", "t.yaml", kScenarios);
  });
  EXPECT_EQ(e.key_path(), "base");
  EXPECT_EQ(e.where().line, 3);
}

TEST(SweepExpansion, LoaderErrorsMoveToTheValueResponsible) {
  const SweepSpec s = parse("axes:\n  training.precision: [bf16, 400Gbps]\n  cluster.gpuz: [8]\n");
  const auto points = expand_sweep(s);
  // cluster.gpuz is unknown to the scenario loader: reported at the value's line 6, column 18 ("  cluster.gpuz: [8]").
  auto e = error_of([&] { (void)load_point(s, points[0]); });
  EXPECT_EQ(e.key_path(), "axes.cluster.gpuz");
  EXPECT_EQ(e.where().file, "t.yaml");
  EXPECT_EQ(e.where().line, 6);
  EXPECT_EQ(e.where().column, 18);
  EXPECT_NE(std::string(e.what()).find("unknown key"), std::string::npos);

  const SweepSpec u = parse("axes:\n  training.precision: [bf16, 400Gbps]\n");
  const auto up = expand_sweep(u);
  e = error_of([&] { (void)load_point(u, up[1]); });
  EXPECT_EQ(e.key_path(), "axes.training.precision");
  EXPECT_EQ(e.where().line, 5);
  EXPECT_EQ(e.where().column, 30);  // the 400Gbps
  EXPECT_THROW(check_all_points(u, up), InputError);
}

TEST(SweepExpansion, AKeyCheckCanBePluggedIn) {
  const SweepSpec s = parse("axes:\n  cluster.gpus: [8]\n  training.nonsense: [1]\n");
  const KeyCheck known = [](std::string_view key) -> std::optional<std::string> {
    if (key == "cluster.gpus") return std::nullopt;
    return "no such parameter";
  };
  const auto e = error_of([&] { check_sweep_keys(s, known); });
  EXPECT_EQ(e.key_path(), "axes.training.nonsense");
  EXPECT_EQ(e.where().line, 6);
  EXPECT_EQ(e.where().column, 3);  // the key itself
}

TEST(SweepExpansion, TheScenarioParameterTableChecksKeysAtTheKey) {
  const SweepSpec s = parse("axes:\n  cluster.profile: [h200]\n  parallelism: [search]\n  facility.cooling.type: [air]\n");
  EXPECT_NO_THROW(check_sweep_keys(s, scenario_key_check()));  // a parameter, a section, a nested parameter
  const SweepSpec bad = parse("axes:\n  cluster.gpuz: [8]\n");
  try {
    check_sweep_keys(bad, scenario_key_check());
    FAIL() << "cluster.gpuz accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "axes.cluster.gpuz");
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.where().column, 3);
  }
}

TEST(SweepExpansion, AKeyPathThroughAScalarIsRefused) {
  const SweepSpec s = parse("axes:\n  model.preset.layers: [4]\n");
  const auto e = error_of([&] { (void)expand_sweep(s); });
  EXPECT_EQ(e.key_path(), "axes.model.preset.layers");
  EXPECT_NE(std::string(e.what()).find("model.preset is not a mapping"), std::string::npos);
}

// Every shipped sweep (scenarios/sweeps/) expands and loads each of its points as a scenario (or a schedule): a sweep file that a
// profile, topology or key change broke fails here, not in a user's hands. The one scenario file there (the plan
// search's, *-plan.yaml) has no axes and is not a sweep.
TEST(SweepExpansion, EveryShippedSweepLoadsEveryPoint) {
  int sweeps = 0;
  for (const auto& e : std::filesystem::directory_iterator(kScenarios + "/sweeps")) {
    if (e.path().extension() != ".yaml" || e.path().filename().string().ends_with("-plan.yaml")) continue;
    const SweepSpec spec = load_sweep(e.path().string());
    const auto points = expand_sweep(spec);
    EXPECT_FALSE(points.empty()) << e.path();
    for (const SweepPoint& p : points) {
      if (spec.schedule) {
        EXPECT_NO_THROW((void)load_schedule_point(spec, p)) << e.path() << " " << p.label;
      } else {
        EXPECT_NO_THROW((void)load_point(spec, p)) << e.path() << " " << p.label;
      }
    }
    ++sweeps;
  }
  EXPECT_GE(sweeps, 9);
}

}  // namespace
}  // namespace cs
