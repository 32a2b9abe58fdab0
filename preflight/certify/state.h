#pragma once
// What certify's phases share: the options (every rank parses the same
// command line), the job plan (which ranks are on which host), a rank's own
// state that lives from phase to phase (its plane
// communicators), and rank 0's coordinator (everything gathered so far).

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "drivers/cluster/link_mesh.h"
#include "formats/profile.h"
#include "preflight/certify/control.h"
#include "preflight/certify/host_agent.h"
#include "probes/plane_consistency.h"
#include "reports/certificate.h"
#include "reports/finding.h"
#include "reports/measurement.h"
#include "stack/l3_comm/communicator.h"

namespace hn::preflight::certify {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;
using std::chrono::milliseconds;

struct CertifyOptions {
  std::shared_ptr<const formats::Profile> profile;
  std::string profile_sha256;
  milliseconds run_timeout{900000};
  milliseconds link_budget{10000};  // link setup per plane link (--link-timeout)
  std::vector<std::size_t> sizes;   // collective sizes, bytes (nccl-tests "size")
  std::vector<std::string> ops;     // allreduce, allgather, reducescatter, alltoall
  int iters = 5, warmup = 1;
  // The traffic proof: a ring allreduce of proof_bytes, proof_iters times;
  // each rank sends 2(n-1)/n of it per call (21 MB per rank at 3 ranks).
  std::size_t proof_bytes = 8u << 20;
  int proof_iters = 2;
  milliseconds link_test{200};       // one round of the bandwidth phase
  int link_rounds = 2;               // screening sweeps per link; the best counts
  std::string layout;                // --layout (tp=2,pp=2,dp=2); "": the profile's model.layout
  std::optional<int> steps;          // --steps: the model phase's training steps
  std::string checkpoint_dir;        // --checkpoint-dir: where the model phase checkpoints
  std::set<std::string> only, skip;  // --only / --skip phase names
  bool strict = false;               // warnings fail too
  bool log_ranks = false;            // every rank logs its progress on stderr
  bool progress = false;             // rank 0: progress line on stderr (a TTY)
  std::string launcher;              // certificate name: local, slurm, mpirun, ...

  // Whether --only / --skip leave this phase to run.
  bool selected(const std::string& phase) const {
    return (only.empty() || only.count(phase)) && !skip.count(phase);
  }
};

struct HostEntry {
  std::string name;  // gethostname()
  std::string key;   // hostname, boot id and network namespace: one network host
  std::string node;  // the profile node it is ("" when the profile lists none)
  std::vector<int> ranks;
  std::optional<reports::CertificateMachine> machine;  // from its first rank's hello
};

// Which ranks are on which host, in order of each host's first rank; the
// lowest rank of a host is its leader (it runs the host-local phases).
struct JobPlan {
  std::vector<HostEntry> hosts;
  std::vector<int> host_of;  // rank -> index into hosts

  int leader_of_host(int host) const { return hosts.at(host).ranks.front(); }
  bool is_leader(int rank) const { return leader_of_host(host_of.at(rank)) == rank; }
  std::vector<int> leaders() const;
  const std::string& host_name(int rank) const { return hosts.at(host_of.at(rank)).name; }
};

// This rank's place, as rank 0 told it.
struct Role {
  int host = 0;
  bool leader = false;
  std::string hostname;
  std::string node;
};

struct RankState {
  int rank = 0, world = 1;
  Control* control = nullptr;
  HostAgent* agent = nullptr;
  const CertifyOptions* options = nullptr;
  comm::CommOptions base;  // rank, world, credentials, rank 0's address
  Role role;
  // Built in the collectives phase, reused by the storage phase's load.
  std::map<std::string, std::unique_ptr<comm::Communicator>> comms;
  // The largest size's busbw alone per plane (rank 0 tells it in the args).
  comm::Store& store() { return control->store(); }
};

// A plane's fate so far, for the phases that depend on it.
struct PlaneRecord {
  std::string blocked_by;  // "CODE entity": why links or collectives did not run / failed
  bool links_ok = false;
  bool collectives_ran = false;
  std::string load_op;  // the op and size the storage phase reuses as load
  std::size_t load_bytes = 0;
  double load_busbw_alone = 0;
  double load_time_us = 0;
};

struct Coordinator {
  const CertifyOptions* options = nullptr;
  JobPlan plan;
  Control* control = nullptr;
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
  // Phase 1's readings of each host (index = host), for the cross-host checks.
  std::vector<std::optional<probes::NodeReadings>> readings;
  std::vector<std::string> reading_errors;  // why a host has none
  std::map<std::string, PlaneRecord> planes;
  // rank -> "phase: how" for ranks that are gone; later phases need them.
  std::map<int, std::string> lost;
  // The running phase's deadline is the run's --timeout (it was cut short):
  // a timeout inside it is the run running out, not a fault of the cluster.
  bool cut_by_run = false;
  // Host findings of phase 1 that later phases depend on (storage: hung mounts).
  std::vector<reports::Finding> host_failures;

  const formats::Profile& profile() const { return *options->profile; }
};

}  // namespace hn::preflight::certify
