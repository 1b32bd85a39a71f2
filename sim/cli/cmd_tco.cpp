#include "sim/cli/cmd_tco.hpp"

#include <iostream>
#include <memory>

#include "sim/api/clustersim.hpp"
#include "sim/cli/settings_option.hpp"

namespace cs::cli {

void register_tco_command(CLI::App& app) {
  struct TcoArgs {
    std::string scenario;
    std::string pricebook;
    std::string profile;
    bool csv = false;
    std::vector<std::string> set;
  };
  auto args = std::make_shared<TcoArgs>();
  CLI::App* tco = app.add_subcommand(
      "tco", "Print the bill of materials, power, reliability, cost of ownership and cloud comparison of a scenario");
  tco->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md and docs/tco.md)")->required();
  tco->add_flag("--csv", args->csv, "Write CSV (section,item,quantity,quantity_unit,value,unit,source)");
  tco->add_option("--pricebook", args->pricebook, "Price book replacing data/pricebook.yaml")->type_name("FILE");
  tco->add_option("--profile", args->profile, "Device profile name or file, replacing the scenario's cluster.profile")
      ->type_name("NAME|FILE");
  add_settings_option(*tco, args->set);
  tco->callback([args] {
    // Everything is loaded, checked and computed before anything is printed.
    Scenario sc = api::load({.path = args->scenario, .text = {}, .set = parse_settings(args->set),
                                   .profile = args->profile});
    const TcoReport report = api::tco(std::move(sc), args->pricebook);
    std::cout << (args->csv ? tco_csv(report) : tco_table(report));
  });
}

}  // namespace cs::cli
