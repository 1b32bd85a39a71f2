#include "sim/cli/cmd_tco.hpp"

#include <iostream>
#include <memory>

#include "sim/facility/price_book.hpp"
#include "sim/facility/tco_model.hpp"
#include "sim/facility/tco_report.hpp"

namespace cs::cli {

namespace {
struct TcoArgs {
  std::string scenario;
  std::string pricebook;
  bool csv = false;
};
}  // namespace

void register_tco_command(CLI::App& app, TcoInputLoader load) {
  auto args = std::make_shared<TcoArgs>();
  CLI::App* tco = app.add_subcommand(
      "tco", "Print the bill of materials, power, reliability, cost of ownership and cloud comparison of a scenario");
  tco->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md and docs/tco.md)")->required();
  tco->add_flag("--csv", args->csv, "Write CSV (section,item,quantity,quantity_unit,value,unit,source)");
  tco->add_option("--pricebook", args->pricebook, "Price book replacing data/pricebook.yaml")->type_name("FILE");
  tco->callback([args, load = std::move(load)] {
    // Inputs are all loaded and checked before anything is printed.
    const TcoInputs in = load(args->scenario);
    const PriceBook book = args->pricebook.empty() ? PriceBook::load_default() : PriceBook::load(args->pricebook);
    const TcoReport report = compute_tco(in.facility, in.inventory, in.run, book);
    std::cout << (args->csv ? tco_csv(report) : tco_table(report));
  });
}

}  // namespace cs::cli
