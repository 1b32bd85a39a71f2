#include "sim/cli/cmd_schema.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "sim/api/clustersim.hpp"

namespace cs::cli {

void register_schema_command(CLI::App& app) {
  struct SchemaArgs {
    std::string kind;
    bool markdown = false;
    std::vector<std::string> update;
  };
  auto args = std::make_shared<SchemaArgs>();
  CLI::App* cmd = app.add_subcommand("schema", "Print the JSON Schema of an input file kind (for editors), or its "
                                               "key table, derived from the parameter declarations");
  cmd->add_option("kind", args->kind, "scenario, topology, profile, sweep, schedule or framework");
  cmd->add_flag("--markdown", args->markdown, "Print the Markdown key table instead of JSON Schema");
  cmd->add_option("--update-docs", args->update, "Re-render the <!-- params: NAME --> tables of these files in place")
      ->type_name("FILE...");
  cmd->callback([args] {
    if (!args->update.empty()) {
      for (const auto& path : args->update) {
        std::ifstream in(path);
        if (!in) throw InputError({path, 0, 0}, "", "cannot open file");
        std::ostringstream text;
        text << in.rdbuf();
        std::string updated;
        try {
          updated = api::update_param_docs(text.str());
        } catch (const std::exception& e) {
          throw InputError({path, 0, 0}, "", e.what());
        }
        if (updated != text.str()) {
          write_file_atomically(path, updated);
          std::cerr << "updated " << path << "\n";
        }
      }
      return;
    }
    const auto kind = api::parse_input_kind(args->kind);
    if (!kind) throw InputError({}, "kind", "must be scenario, topology, profile, sweep, schedule or framework, got \"" + args->kind + "\"");
    if (args->markdown) {
      std::cout << api::schema_markdown(*kind);
    } else {
      std::cout << api::json_schema(*kind).dump(2) << "\n";
    }
  });
}

}  // namespace cs::cli
