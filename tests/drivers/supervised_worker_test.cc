// The supervisor that keeps a hung call from hanging the caller.
#include "drivers/supervised_worker.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <thread>

#include "reports/catalog.h"
#include "tests/support/temp_dir.h"

using namespace hn::drivers;
using namespace std::chrono_literals;
using End = SupervisedRun::End;

namespace {
hn::reports::Finding sample(const std::string& entity) {
  return hn::reports::make_finding("STOR-MOUNT-ACCESS", hn::reports::Status::kPass, entity,
                                   {{"path", entity}});
}
// Running or sleeping; a zombie waiting for init to reap it counts as gone.
bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, comm, state;
  if (!(in >> pid_text >> comm >> state)) return false;
  return state != "Z" && state != "X";
}
}  // namespace

TEST_CASE("a worker that finishes relays its findings and last step") {
  auto r = run_supervised(
      [](WorkerChannel& ch) {
        ch.step("first");
        ch.emit(sample("/a"));
        ch.step("second\nline");
        ch.emit(sample("/b"));
      },
      Clock::now() + 10s);
  CHECK(r.end == End::kCompleted);
  REQUIRE(r.findings.size() == 2);
  CHECK(r.findings[0].entity == "/a");
  CHECK(r.findings[1].message == sample("/b").message);
  CHECK(r.last_step == "second line");
}

TEST_CASE("a worker that blocks is killed at the deadline, naming the step") {
  auto t0 = Clock::now();
  auto r = run_supervised(
      [](WorkerChannel& ch) {
        ch.emit(sample("/before"));
        ch.step("fsync /mnt/x/f");
        pause();
      },
      Clock::now() + 300ms);
  double took = std::chrono::duration<double>(Clock::now() - t0).count();
  CHECK(r.end == End::kTimedOut);
  CHECK(r.last_step == "fsync /mnt/x/f");
  REQUIRE(r.findings.size() == 1);  // what it said before it blocked is kept
  CHECK(took < 3.0);                // did not hang (deadline 0.3 s)
}

TEST_CASE("a worker that throws or dies is a failure with the reason") {
  auto thrown =
      run_supervised([](WorkerChannel&) { throw std::runtime_error("boom"); }, Clock::now() + 10s);
  CHECK(thrown.end == End::kFailed);
  CHECK(thrown.failure == "boom");
  auto crashed = run_supervised([](WorkerChannel&) { abort(); }, Clock::now() + 10s);
  CHECK(crashed.end == End::kFailed);
  CHECK(crashed.failure == "worker ended: killed by signal 6 (Aborted)");
  auto exited = run_supervised([](WorkerChannel&) { _exit(5); }, Clock::now() + 10s);
  CHECK(exited.end == End::kFailed);
  CHECK(exited.failure == "worker ended: exit code 5");
}

TEST_CASE("SIGTERM to the supervisor stops the worker and returns") {
  auto t0 = Clock::now();
  auto r = run_supervised(
      [](WorkerChannel& ch) {
        ch.step("waiting");
        kill(getppid(), SIGTERM);
        pause();
      },
      Clock::now() + 20s);
  CHECK(r.end == End::kInterrupted);
  CHECK(r.last_step == "waiting");
  CHECK(Clock::now() - t0 < 5s);
}

TEST_CASE("run_killable reports whether the work finished in time") {
  std::string error;
  CHECK(run_killable([] {}, Clock::now() + 10s, error));
  CHECK_FALSE(run_killable([] { pause(); }, Clock::now() + 200ms, error));
  CHECK(error == "did not finish within the deadline");
  CHECK_FALSE(run_killable([] { throw std::runtime_error("EIO"); }, Clock::now() + 10s, error));
  CHECK(error == "EIO");
}

TEST_CASE("the worker dies with its supervisor") {
  hn::test::TempDir dir;
  std::string pid_file = dir.path() + "/worker.pid";
  pid_t supervisor = fork();
  if (supervisor == 0) {
    run_supervised(
        [&](WorkerChannel&) {
          std::ofstream(pid_file) << getpid();
          pause();
        },
        Clock::now() + 60s);
    _exit(0);
  }
  pid_t worker = 0;
  for (int i = 0; i < 500 && worker == 0; ++i) {
    std::ifstream in(pid_file);
    if (!(in >> worker)) {
      worker = 0;
      std::this_thread::sleep_for(10ms);
    }
  }
  REQUIRE(worker > 0);
  CHECK(alive(worker));
  kill(supervisor, SIGKILL);
  waitpid(supervisor, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = !alive(worker);
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  CHECK(gone);
}
