// `hnprecheck diff A B`: what differs between two snapshots, by entity.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/yaml_input.h"
#include "formats/snapshot.h"
#include "formats/snapshot_diff.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/report_output.h"
#include "reports/atomic_file.h"

namespace hn::preflight::commands {

namespace {

YAML::Node load_checked(const std::string& path) {
  std::string text = compat::read_text_file(path);
  formats::parse_snapshot(text, path);  // validates structure; errors name file:line
  return compat::load_yaml_text(text, path);
}

int run(const po::variables_map& vm) {
  if (!vm.count("a") || !vm.count("b"))
    throw compat::InputError("command line", 0, 0, "", "needs two snapshot files: diff A B");
  const std::string a = vm["a"].as<std::string>(), b = vm["b"].as<std::string>();
  if (vm.count("json")) check_output_path("--json", vm["json"].as<std::string>());
  auto entries =
      formats::diff_snapshots(load_checked(a), load_checked(b), vm["volatile"].as<bool>());

  std::ostream& os =
      vm.count("json") && vm["json"].as<std::string>() == "-" ? std::cerr : std::cout;
  size_t w_entity = 6, w_field = 5;
  for (const auto& e : entries) {
    w_entity = std::max(w_entity, e.entity.size());
    w_field = std::max(w_field, e.field.size());
  }
  os << "--- " << a << "\n+++ " << b << "\n";
  for (const auto& e : entries) {
    std::string entity = e.entity, field = e.field.empty() ? "-" : e.field;
    entity.resize(w_entity, ' ');
    field.resize(w_field, ' ');
    os << entity << "  " << field << "  " << e.a << " -> " << e.b << "\n";
  }
  os << entries.size() << " difference(s)\n";
  os.flush();
  // Written after the text, so the differences are shown even if this fails.
  if (vm.count("json")) {
    nlohmann::json j = {{"a", a}, {"b", b}, {"differences", nlohmann::json::array()}};
    for (const auto& e : entries)
      j["differences"].push_back(
          {{"entity", e.entity}, {"field", e.field}, {"a", e.a}, {"b", e.b}});
    reports::write_output(vm["json"].as<std::string>(), j.dump(2) + "\n");
  }
  return entries.empty() ? 0 : 1;
}

}  // namespace

Command diff() {
  Command c;
  c.name = "diff";
  c.summary = "list the differences between two snapshots, by entity (exit 1 if any)";
  c.usage = "hnprecheck diff A.yaml B.yaml [--json PATH] [--volatile]";
  c.details =
      "Compares two captures of `hnprecheck snapshot`: two nodes that should be identical, or\n"
      "one node before and after a change. Counters, temperatures and free memory differ\n"
      "between any two captures and are left out unless --volatile.";
  c.exit_codes =
      "Exit codes:\n"
      "  0  the snapshots are the same (volatile fields are not compared unless --volatile)\n"
      "  1  the snapshots differ\n"
      "  2  bad usage or invalid input (not two files, unknown option, malformed snapshot:\n"
      "     the message names file:line)\n"
      "  3  the tool could not run (a file could not be written, internal error)\n";
  c.add_options = [](po::options_description& d, po::positional_options_description& p) {
    d.add_options()("a", po::value<std::string>()->value_name("A"), "first snapshot")(
        "b", po::value<std::string>()->value_name("B"), "second snapshot")(
        "json", po::value<std::string>()->value_name("PATH"),
        "write the differences as JSON ('-' = stdout)")(
        "volatile", po::bool_switch(), "also compare counters, temperatures, free memory")(
        "no-color", po::bool_switch(),
        "accepted as by every command; the differences are never coloured");
    p.add("a", 1).add("b", 1);
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
