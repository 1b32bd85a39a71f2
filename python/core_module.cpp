// clustersim._core: the public API (sim/api/clustersim.hpp) for Python. Every call takes a scenario as a file
// path or YAML/JSON text and returns JSON text, which the package (clustersim/__init__.py) turns into the
// dictionaries and lists `--json` writes: one front door, one result format. Long calls release the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <vector>

#include "sim/api/clustersim.hpp"
#include "sim/core/error.hpp"

namespace py = pybind11;

namespace {

cs::api::ScenarioSource source(const std::string& path, const std::optional<std::string>& text,
                               const std::vector<std::pair<std::string, std::string>>& set, const std::string& profile) {
  cs::api::ScenarioSource s{.path = path, .text = text, .set = {}, .profile = profile};
  for (const auto& [k, v] : set) s.set.push_back({k, v});
  return s;
}

std::string run_json(const std::string& path, const std::optional<std::string>& text,
                     const std::vector<std::pair<std::string, std::string>>& set, const std::string& profile) {
  py::gil_scoped_release release;
  const cs::Scenario sc = cs::api::load(source(path, text, set, profile));
  return cs::api::result_json(sc, cs::api::run(sc)).dump();
}

std::string tco_json(const std::string& path, const std::optional<std::string>& text,
                     const std::vector<std::pair<std::string, std::string>>& set, const std::string& profile,
                     const std::string& pricebook) {
  py::gil_scoped_release release;
  const cs::TcoReport t = cs::api::tco(cs::api::load(source(path, text, set, profile)), pricebook);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const cs::TcoRow& r : cs::tco_rows(t)) {
    rows.push_back({{"section", r.section}, {"item", r.item},
                    {"quantity", r.quantity ? nlohmann::ordered_json(*r.quantity) : nlohmann::ordered_json()},
                    {"quantity_unit", r.quantity_unit},
                    {"value", std::isnan(r.value) ? nlohmann::ordered_json() : nlohmann::ordered_json(r.value)},
                    {"unit", r.unit}, {"source", r.source}});
  }
  return nlohmann::ordered_json{{"rows", rows}, {"report", cs::tco_json(t)}}.dump();
}

std::string plan_json(const std::string& path, const std::optional<std::string>& text,
                      const std::vector<std::pair<std::string, std::string>>& set, int top, int sample, int jobs) {
  py::gil_scoped_release release;
  const cs::api::ScenarioSource src = source(path, text, set, "");
  if (cs::api::is_service(src)) {
    // An inference service: the serving plan search's ranking, as `clustersim plan --json` writes it.
    cs::api::ServingPlanOptions opt;
    opt.threads = jobs;
    const cs::api::ServingPlan plan = cs::api::plan_serving(src, opt);
    return cs::api::serving_plan_json(plan, plan.scenario_name).dump();
  }
  const std::string yaml = cs::api::scenario_text(src);
  cs::api::SearchOptions opt;
  opt.top_k = top;
  opt.sample = sample;
  opt.threads = jobs;
  const cs::api::PlanRanking r = cs::api::search_plans(yaml, path, opt);
  nlohmann::ordered_json j = cs::api::ranking_json(r, r.scenario_name);
  j["ranking"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    const cs::api::RankedPlan& p = r.plans[i];
    j["ranking"].push_back({{"rank", i + 1}, {"plan", p.description}, {"screen_rank", p.screen_rank},
                            {"step_time_s", p.step_s}, {"screened_step_time_s", p.screened_step_s}, {"mfu", p.mfu},
                            {"memory_bytes", p.memory.value()}, {"fits_in_memory", p.fits_in_memory},
                            {"why_lost", p.why_lost}});
  }
  j["no_plan_reason"] = r.no_plan_reason;
  return j.dump();
}

std::string validate_json(const std::vector<std::string>& files) {
  py::gil_scoped_release release;
  return cs::api::validation_json(cs::api::validate(files).rows).dump();
}

std::string schedule_json(const std::string& path, const std::vector<std::pair<std::string, std::string>>& set) {
  py::gil_scoped_release release;
  std::vector<cs::Setting> settings;
  for (const auto& [k, v] : set) settings.push_back({k, v});
  return cs::schedule_json(cs::api::schedule(path, settings)).dump();
}

std::string sweep_json(const std::string& path, int jobs) {
  py::gil_scoped_release release;
  return cs::api::sweep(path, jobs).dump();
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "clustersim's C++ core (use the clustersim package, which returns dictionaries)";
  // Bad input (a located message: file:line:column: key: what is wrong) is a ValueError subclass.
  static py::exception<cs::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cs::InputError& e) {
      input_error(e.what());
    }
  });
  m.def("version", &cs::api::version);
  m.def("run_json", &run_json, py::arg("path"), py::arg("text"), py::arg("set"), py::arg("profile"));
  m.def("tco_json", &tco_json, py::arg("path"), py::arg("text"), py::arg("set"), py::arg("profile"),
        py::arg("pricebook"));
  m.def("plan_json", &plan_json, py::arg("path"), py::arg("text"), py::arg("set"), py::arg("top"),
        py::arg("sample"), py::arg("jobs"));
  m.def("validate_json", &validate_json, py::arg("files"));
  m.def("sweep_json", &sweep_json, py::arg("path"), py::arg("jobs"));
  m.def("schedule_json", &schedule_json, py::arg("path"), py::arg("set"));
}
