#include "sim/cli/cmd_cost.hpp"

#include <iostream>
#include <memory>

#include "sim/api/clustersim.hpp"

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
  cmd->callback([args] { std::cout << api::kernel_cost_csv(args->profile, args->csv); });
}

}  // namespace cs::cli
