#pragma once
// Process isolation: the one way hnprecheck forks a child, watches it and
// kills it at a deadline. The probe runner (preflight/runner.cc), the
// supervised worker (drivers/supervised_worker.cc) and the local launcher
// (stack/l5_sched/local_launcher.cc) all fork through spawn(). This module
// is a leaf below every stack layer: it includes nothing else of ours.
//
// Contract:
// * Fork before threads. spawn() forks the calling process; call it only
//   while the process has a single thread (fork copies no other thread, so a
//   lock another thread held would stay held forever in the child). The child
//   may start threads of its own. Stdio buffers are flushed before the fork
//   so the child never repeats the parent's pending output.
// * Parent death. The child asks for SpawnOptions::parent_death_signal
//   (PR_SET_PDEATHSIG) and exits at once if the parent is already gone, so
//   no child outlives the process that spawned it by more than its handling
//   of that signal.
// * Result pipe. With SpawnOptions::result_pipe, the child's body gets the
//   write end of a pipe (never one of 0-2); the parent reads it without
//   blocking (read_available) and sees EOF once the child is done writing.
// * Stdio. With Stdio::kDetach the child's stdin, stdout and stderr are
//   /dev/null: a child stuck in the kernel must not hold the caller's
//   terminal or pipe open (a Prolog wrapper or `$(hnprecheck node)` would
//   wait for it). With close_other_fds every other descriptor the parent
//   had is closed in the child (the parent's own result pipes above all:
//   the parent waits for their EOF).
// * Deadline. The caller owns the clock: at its deadline it calls kill(),
//   which sends SIGKILL and never blocks. A child asleep in the kernel (a
//   hung NFS or FUSE mount) cannot die until the call returns, so it may
//   stay unreaped; reap_briefly() gives killed children a few milliseconds
//   and then leaves the rest behind rather than hang the caller.
// * Reaping. try_reap() and reap_within() collect the exit status;
//   describe_status() words it. A Child destroyed before it was reaped is
//   SIGKILLed and reaped if it dies at once, so an error path leaves no
//   running child and, short of an unkillable sleep, no zombie.
// Errors: spawn() throws std::system_error when pipe() or fork() fails;
// wait_readable() throws std::system_error when poll() fails.

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hn::stack::isolation {

using Clock = std::chrono::steady_clock;

enum class Stdio {
  kDetach,   // stdin, stdout and stderr are /dev/null
  kInherit,  // the parent's (the local launcher's ranks print their own output)
};

struct SpawnOptions {
  int parent_death_signal = SIGKILL;
  Stdio stdio = Stdio::kDetach;
  bool result_pipe = true;
  bool close_other_fds = true;  // every descriptor but stdio and the result pipe
  // SIGTERM and SIGINT back to SIG_DFL in the child, whatever handlers the
  // parent installed.
  bool default_signals = true;
  // -1: stay in the parent's process group; 0: lead a new group; > 0: join
  // that group (set in the child and in the parent, so neither races).
  pid_t process_group = -1;
};

// The parent's handle on one forked child. Movable, not copyable.
class Child {
 public:
  Child() = default;
  Child(pid_t pid, int fd) : pid_(pid), fd_(fd), eof_(fd < 0) {}
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  pid_t pid() const { return pid_; }
  int fd() const { return fd_; }  // the pipe's read end; -1 without one or after EOF
  bool eof() const { return eof_; }
  const std::string& output() const { return output_; }
  std::optional<int> status() const { return status_; }  // once reaped

  // Appends what the child has written so far, without blocking; true once
  // the pipe reached EOF (or failed), and then the pipe is closed.
  bool read_available();
  // The exit status, when the child has exited; never blocks.
  std::optional<int> try_reap();
  // After EOF a child exits right away: waits up to `within` for it.
  std::optional<int> reap_within(std::chrono::milliseconds within);
  // SIGKILL and close the pipe; reaps only if the child is already gone.
  // Returns true when it was reaped.
  bool kill();

 private:
  void close_pipe();
  pid_t pid_ = -1;
  int fd_ = -1;
  bool eof_ = true;
  std::string output_;
  std::optional<int> status_;
};

// Forks a child that runs body(result_fd) (result_fd is -1 without a
// result pipe) and _exits with its return value (1 when it throws).
Child spawn(const SpawnOptions& options, const std::function<int(int result_fd)>& body);

// Waits until one of `fds` is readable or hung up, or `until` passes, or a
// signal interrupts the wait. Entry i of the result says whether fds[i] is
// ready; a negative fd is never ready.
std::vector<bool> wait_readable(const std::vector<int>& fds, Clock::time_point until);

// Reaps what it can of `killed` (children already sent SIGKILL) for up to
// `within` and drops them; what is left (asleep in the kernel) stays.
void reap_briefly(std::vector<Child>& killed,
                  std::chrono::milliseconds within = std::chrono::milliseconds(20));

// "exit code 3", "killed by signal 9 (Killed)".
std::string describe_status(int status);
// The shell's convention: the exit code, or 128 + the signal.
int exit_code_of(int status);

// Writes all of s to fd (retrying EINTR); false when the reader is gone.
bool write_all(int fd, const std::string& s);

}  // namespace hn::stack::isolation
