#pragma once
// Runs `hnprecheck certify` across a virtual cluster of network namespaces
// (tests/support/netns_cluster.h), one rank per host, the way torchrun-style
// variables start it (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, HN_TOKEN).
// Each host gets its own hostname (a UTS namespace: host0, host1, ...) so the
// ranks resolve to the profile's nodes, and optionally its own mount
// namespace with a command run before certify (mounting its storage).
// The rendezvous is rank 0's storage-plane address, so faults injected on
// the management and parameter planes never cut the ranks off each other.
//
// Ranks run as separate processes whose stderr goes to files, so a test can
// watch a rank's progress (--log-ranks) and SIGKILL one mid-phase.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/netns_cluster.h"
#include "tests/support/temp_dir.h"

namespace hn::test {

struct CertifyRun {
  std::vector<int> exit_codes;  // per rank; -1: killed or signalled
  std::vector<std::string> out, err;
  nlohmann::json report;       // rank 0's --json (null when absent)
  nlohmann::json certificate;  // rank 0's --certificate (null when absent)
  double seconds = 0;          // wall time of the slowest rank

  // The findings of rank 0's report with this code (and status, when given).
  std::vector<nlohmann::json> findings(const std::string& code, const std::string& status = "") const;
  std::string all_output() const;
};

struct CertifyOptions {
  std::string profile_yaml;
  std::vector<std::string> args;                     // extra certify options
  std::vector<std::string> mount_commands;           // per host ("" = none): run in its mount ns
  std::function<void(const std::vector<int>& pids, const TempDir& dir)> while_running;
  double timeout_s = 120;
};

CertifyRun run_certify(const NetnsCluster& cluster, const CertifyOptions& options);

// A cluster of `hosts` namespaces with the management (eth0), parameter
// (eth1, MTU 9000) and storage (eth2) planes, and the switch namespace
// forwarding between them (a router, for misrouting tests).
NetnsClusterOptions certify_cluster_options(int hosts);

// Waits (bounded) until `path` contains `text`; false on timeout.
bool wait_for_text(const std::string& path, const std::string& text, double timeout_s);

}  // namespace hn::test
