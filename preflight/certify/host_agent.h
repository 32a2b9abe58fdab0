#pragma once
// A rank's host agent: a copy of the rank forked at its start, before any
// thread exists, that runs host-local work (node probes, a snapshot, the
// storage jitter workload) each in a fresh child of its own. That work forks
// probe children and supervised workers, which must come from a process
// with a single thread (runner.h, supervised_worker.h), while the rank by
// then has its rendezvous, watch and communicator threads. The agent also
// lets a job run while the rank does something else (storage under
// collective load).
//
// Contract: the constructor forks the agent (call it before starting any
// thread; throws std::system_error when it cannot). One job at a time:
// start() sends it, result() returns its answer by the deadline, or throws
// AgentError when it did not finish in time (the job's child is SIGKILLed
// at start()'s deadline plus kKillGrace), crashed, or the agent is gone.
// Jobs run with the job's own deadline and should end before it; the agent
// exits when the rank closes its end (destructor) or dies (PR_SET_PDEATHSIG).

#include <sys/types.h>
#include <chrono>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

namespace hn::preflight::certify {

class AgentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HostAgent {
 public:
  using Clock = std::chrono::steady_clock;
  using Job = std::function<std::string(const std::string& arg, Clock::time_point deadline)>;
  static constexpr std::chrono::milliseconds kKillGrace{1000};

  explicit HostAgent(std::map<std::string, Job> jobs);
  ~HostAgent();
  HostAgent(const HostAgent&) = delete;
  HostAgent& operator=(const HostAgent&) = delete;

  void start(const std::string& job, const std::string& arg, Clock::time_point deadline);
  std::string result(Clock::time_point deadline);
  // start() then result() with the same deadline (plus the kill grace).
  std::string run(const std::string& job, const std::string& arg, Clock::time_point deadline);

 private:
  int fd_ = -1;
  pid_t pid_ = -1;
  bool busy_ = false;
};

}  // namespace hn::preflight::certify
