#include "sim/cli/cmd_cost.hpp"

#include <fstream>
#include <iostream>
#include <memory>

#include "sim/core/error.hpp"
#include "sim/hardware/cost_table.hpp"
#include "sim/hardware/device_profile.hpp"

namespace cs::cli {

void register_cost_command(CLI::App& app) {
  struct Args {
    std::string profile = "h200";
    std::string csv;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("cost", "Predict kernel times of GEMM shapes (CSV op,dtype,m,n,k) with a device profile");
  cmd->add_option("--profile", args->profile, "Device profile: a shipped name (h200, h100-sxm, ...) or a YAML file")
      ->capture_default_str();
  cmd->add_option("--csv", args->csv, "CSV of shapes with the header op,dtype,m,n,k ('-' for standard input)")
      ->required()
      ->type_name("FILE|-");
  cmd->callback([args] {
    const DeviceProfile profile = find_device_profile(args->profile);
    const auto model = make_cost_model(profile);
    if (args->csv == "-") {
      write_cost_csv(std::cin, "<stdin>", std::cout, *model);
      return;
    }
    std::ifstream in(args->csv);
    if (!in) throw InputError({args->csv, 0, 0}, "", "cannot open the shapes file");
    write_cost_csv(in, args->csv, std::cout, *model);
  });
}

}  // namespace cs::cli
