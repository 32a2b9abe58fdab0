#pragma once
// A real Slurm cluster on this host for tests: one slurmctld
// and N slurmd, each slurmd a virtual node (v1, v2, ...) on 127.0.0.1 with
// its own port, plus a private munged, all from Debian's slurm-wlm and munge.
// Needs root; unavailable_reason() says why it cannot run here.
//
// Everything lives in a private directory /tmp/hn-slurm-<pid>-<n>-XXXXXX:
// slurm.conf, the munge key and socket, state, spool and logs. Ports are free
// ones below the ephemeral range (never 6817/6818), so a real Slurm, the
// system munged and parallel test processes are never touched. Clients run
// with SLURM_CONF pointing at this cluster's slurm.conf (run()).
//
// The daemons run in the foreground as children of the test process and die
// with it (PR_SET_PDEATHSIG); the test process becomes a child subreaper, so
// slurmstepd and its tasks are re-parented to it and reaped. A process
// belongs to the cluster when its environment has HN_SLURM_CLUSTER=<dir>
// (daemons, srun and its tasks) or SLURM_CONF=<dir>/slurm.conf (Prologs),
// or it holds a file in <dir> open (slurmstepd: the slurmd log). The
// destructor cancels the jobs, kills what is left of them, stops the daemons
// (SIGTERM, then SIGKILL), reaps and removes the directory, whatever the test
// did. A construction also removes what a killed run (its pid gone) left.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace hn::test {

struct SlurmClusterOptions {
  int nodes = 2;
  int cpus_per_node = 2;
  // The text of a Prolog script, given the cluster's directory: written to
  // dir()/prolog.sh and configured as Prolog= (slurmd runs it as root before
  // a job's first step on each node). Empty = no Prolog.
  std::function<std::string(const std::string& dir)> prolog;
  // More slurm.conf lines, appended as they are.
  std::vector<std::string> extra_conf;
  // How long to wait for every node to be idle.
  double start_timeout_s = 30;
};

class SlurmCluster {
 public:
  explicit SlurmCluster(SlurmClusterOptions options = {});
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  // Empty when this machine can run a cluster (root, the Slurm and munge
  // programs installed, a private munged starts and signs a credential);
  // otherwise why not.
  static std::string unavailable_reason();

  const std::string& dir() const { return dir_; }
  std::string conf_path() const { return dir_ + "/slurm.conf"; }
  int size() const { return options_.nodes; }
  std::string node_name(int i) const { return "v" + std::to_string(i + 1); }
  // Writes dir()/name (0755 when executable) and returns its path.
  std::string write(const std::string& name, const std::string& content,
                    bool executable = false) const;

  // Runs a Slurm client (srun, sinfo, scontrol, ...: found on PATH, or a path) against
  // this cluster, with extra environment entries ("KEY=value").
  ProcessResult run(std::vector<std::string> argv, double timeout_s = 30,
                    const std::vector<std::string>& env = {}) const;
  // `sinfo -N -h -o "%N %T"`, one "name state" line per node.
  std::string node_states() const;
  // The State= and Reason= of `scontrol show node NAME` ("IDLE+DRAIN", "Prolog error").
  std::string node_state(const std::string& node) const;
  std::string node_reason(const std::string& node) const;
  // The last lines of every daemon log, for failure messages.
  std::string logs(int lines_per_file = 15) const;

  // Pids of live processes started for the cluster in dir (daemons, steps,
  // tasks: they carry the marker); empty once the cluster is gone.
  static std::vector<int> processes_of(const std::string& dir);

 private:
  struct Daemon {
    std::string name;
    pid_t pid = -1;
  };
  void start_daemon(const std::string& name, std::vector<std::string> argv);
  void wait_idle();
  void stop();
  std::string marker_env() const { return "HN_SLURM_CLUSTER=" + dir_; }

  SlurmClusterOptions options_;
  std::string dir_;
  std::vector<Daemon> daemons_;  // in start order; stopped in reverse
};

// A TCP port in [20000, 32000) (below the kernel's ephemeral range, so no
// outgoing connection takes it meanwhile) that nothing listens on now.
int free_tcp_port();

}  // namespace hn::test
