// `hnprecheck snapshot`: capture this node's state to a YAML file.
#include <iostream>

#include "compat/input_error.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/node_sources.h"
#include "preflight/report_output.h"
#include "probes/snapshot.h"
#include "reports/atomic_file.h"

namespace hn::preflight::commands {

namespace {

int run(const po::variables_map& vm) {
  if (!vm.count("out"))
    throw compat::InputError("command line", 0, 0, "--out", "is required (a file path or '-')");
  const std::string& out = vm["out"].as<std::string>();
  check_output_path("--out", out);  // before capturing, so a typo costs nothing
  probes::Snapshot snap = probes::capture_snapshot(open_live_sources(), tool_version());
  reports::write_output(out, probes::snapshot_to_yaml(snap));
  if (out != "-")
    std::cerr << "snapshot of " << snap.hostname << " written to " << out << " ("
              << snap.physical.links.size() << " links, " << snap.physical.rdma.devices.size()
              << " RDMA devices, " << snap.physical.accelerators.pci.size() << " accelerators, "
              << snap.netplane.routes.size() << " routes, " << snap.netplane.rules.size()
              << " rules, " << snap.mounts.size() << " mounts)\n";
  return 0;
}

}  // namespace

Command snapshot() {
  Command c;
  c.name = "snapshot";
  c.summary =
      "capture this node's links, addresses, routes, rules, IPv4 settings, mounts, RDMA and "
      "hardware to a YAML file";
  c.usage = "hnprecheck snapshot --out FILE";
  c.details =
      "The file replays through the same probes with `hnprecheck node --snapshot FILE` and\n"
      "compares with another capture using `hnprecheck diff A B`. Written atomically.";
  c.exit_codes =
      "Exit codes:\n"
      "  0  the snapshot was written\n"
      "  2  bad usage (no --out, unknown option)\n"
      "  3  the snapshot could not be captured or written (a reading failed, the file could\n"
      "     not be written)\n";
  c.add_options = [](po::options_description& d, po::positional_options_description&) {
    d.add_options()("out,o", po::value<std::string>()->value_name("FILE"),
                    "where to write the snapshot ('-' = stdout)");
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
