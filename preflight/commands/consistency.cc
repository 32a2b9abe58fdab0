// `hnprecheck consistency A.yaml B.yaml ...`: cross-node plane consistency
// from node snapshots (the same MTU and RoCE GID index on every node of a
// plane), reported like `node`.
#include <map>

#include "compat/input_error.h"
#include "formats/profile.h"
#include "formats/snapshot.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/report_output.h"
#include "probes/node_context.h"
#include "probes/plane_consistency.h"

namespace hn::preflight::commands {

namespace {

int run(const po::variables_map& vm) {
  check_output_options(vm);
  if (!vm.count("profile"))
    throw compat::InputError("command line", 0, 0, "--profile",
                             "is required: it says which NICs form each plane");
  std::vector<std::string> files = vm.count("snapshots")
                                       ? vm["snapshots"].as<std::vector<std::string>>()
                                       : std::vector<std::string>{};
  if (files.size() < 2)
    throw compat::InputError("command line", 0, 0, "",
                             "needs at least two snapshot files (one per node)");
  auto profile = std::make_shared<formats::Profile>(
      formats::load_profile_file(vm["profile"].as<std::string>()));
  std::vector<probes::NodeReadings> nodes;
  std::map<std::string, std::string> seen;  // node -> file
  for (const auto& file : files) {
    formats::Snapshot s = formats::load_snapshot_file(file);
    probes::NodeReadings n;
    n.spec = probes::identify_node(*profile, s.hostname);
    // A profile that lists its nodes also says which hosts belong: a
    // snapshot of another host is the wrong file, not a node to compare.
    if (!n.spec && !profile->nodes.empty())
      throw compat::InputError(
          file, 0, 0, "hostname",
          (s.hostname.empty() ? "is empty" : "'" + s.hostname + "'") + " is none of the nodes " +
              profile->source + " declares (declared: " + probes::declared_node_names(*profile) +
              "); give snapshots of the profile's nodes, or add the host to its nodes");
    n.name = n.spec ? n.spec->name : (s.hostname.empty() ? file : s.hostname);
    if (seen.count(n.name))
      throw compat::InputError(
          file, 0, 0, "hostname",
          "describes node " + n.name + " like " + seen[n.name] + "; give one snapshot per node");
    seen[n.name] = file;
    n.links = s.physical.links;
    n.addresses = s.netplane.addresses;
    n.routes = s.netplane.routes;
    n.rdma = s.physical.rdma;
    nodes.push_back(std::move(n));
  }
  reports::Report report;
  report.tool_version = tool_version();
  report.command = "consistency";
  std::string names;
  for (const auto& n : nodes) names += (names.empty() ? "" : ",") + n.name;
  report.hostname = names;
  report.profile =
      profile->source + (profile->cluster.empty() ? "" : " (" + profile->cluster + ")");
  report.started_unix_ms = unix_ms_now();
  report.findings = probes::check_plane_consistency(*profile, nodes);
  report.finished_unix_ms = unix_ms_now();
  emit_report(report, vm);
  return reports::exit_code_for(report.findings, vm["strict"].as<bool>());
}

}  // namespace

Command consistency() {
  Command c;
  c.name = "consistency";
  c.summary = "compare node snapshots: the same plane MTU and RoCE GID index on every node";
  c.usage = "hnprecheck consistency --profile FILE SNAPSHOT SNAPSHOT... [--json PATH] [options]";
  c.details =
      "Reads one `hnprecheck snapshot` per node and checks what no single node can: every\n"
      "node of a plane has the same NIC MTU and, on RDMA planes, the same RoCE GID index for\n"
      "its plane address and the same RDMA active MTU. Each snapshot's hostname is matched\n"
      "against the profile's nodes (which also give the plane addresses): when the profile\n"
      "lists nodes, a snapshot of any other host is an error (exit 2), and a listed node\n"
      "without a snapshot is a WARN (NET-XNODE-COVERAGE: it was not compared). A difference\n"
      "is a FAIL that names the odd nodes out.";
  c.exit_codes =
      "Exit codes:\n"
      "  0  every compared value agrees across the nodes (warnings, such as a declared node\n"
      "     without a snapshot, allowed unless --strict)\n"
      "  1  a value differs between nodes (or a warning, with --strict)\n"
      "  2  bad usage or invalid input: no --profile, fewer than two snapshots, two snapshots\n"
      "     of one node, a snapshot of a host the profile does not declare, a malformed file\n"
      "  3  the tool could not run (internal error)\n";
  c.add_options = [](po::options_description& d, po::positional_options_description& p) {
    d.add_options()("profile", po::value<std::string>()->value_name("FILE"),
                    "cluster profile (YAML, version 1); required")(
        "snapshots", po::value<std::vector<std::string>>()->value_name("SNAPSHOT"),
        "node snapshots, one per node (positional)");
    add_report_options(d);
    p.add("snapshots", -1);
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
