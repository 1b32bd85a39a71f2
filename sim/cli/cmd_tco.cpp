#include "sim/cli/cmd_tco.hpp"

#include <iostream>
#include <memory>

#include "sim/core/error.hpp"

#include "sim/facility/tco_report.hpp"
#include "sim/scenario/facility_link.hpp"
#include "sim/scenario/runner.hpp"

namespace cs::cli {

void register_tco_command(CLI::App& app) {
  struct TcoArgs {
    std::string scenario;
    std::string pricebook;
    std::string profile;
    bool csv = false;
  };
  auto args = std::make_shared<TcoArgs>();
  CLI::App* tco = app.add_subcommand(
      "tco", "Print the bill of materials, power, reliability, cost of ownership and cloud comparison of a scenario");
  tco->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md and docs/tco.md)")->required();
  tco->add_flag("--csv", args->csv, "Write CSV (section,item,quantity,quantity_unit,value,unit,source)");
  tco->add_option("--pricebook", args->pricebook, "Price book replacing data/pricebook.yaml")->type_name("FILE");
  tco->add_option("--profile", args->profile, "Device profile name or file, replacing the scenario's cluster.profile")
      ->type_name("NAME|FILE");
  tco->callback([args] {
    // Everything is loaded, checked and computed before anything is printed.
    Scenario sc = load_scenario(args->scenario, args->profile);
    sc.pricebook = args->pricebook;
    if (!sc.pricebook.empty()) check_price_references(sc);
    require_token_budget(sc);
    const RunResult r = run_scenario(sc);
    if (!r.tco) {
      // run_scenario keeps the performance result when the cluster cannot be priced, with the reason as a
      // warning; this command exists to price it, so that is bad input here.
      std::string why = "the cluster cannot be priced";
      for (const auto& w : r.warnings) {
        if (w.rfind("no power or cost report: ", 0) == 0) why = w.substr(25);
      }
      throw InputError({sc.file, 0, 0}, "facility", why);
    }
    std::cout << (args->csv ? tco_csv(*r.tco) : tco_table(*r.tco));
  });
}

}  // namespace cs::cli
