// The isolation contract of stack/isolation/child_process.h, one clause per
// test: a hung child is killed at the caller's deadline, a dying child is
// reported, nothing is left as a zombie, the child holds neither our stdio
// nor our other descriptors, and it dies with its parent.
#include "stack/isolation/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

using namespace hn::stack::isolation;
using namespace std::chrono_literals;

namespace {

// True when `pid` is neither running nor a zombie of ours.
bool gone(pid_t pid) {
  return kill(pid, 0) != 0 && errno == ESRCH;
}

// Reads the child's whole result, or fails the test at `until`.
std::string read_all(Child& c, Clock::time_point until) {
  while (!c.read_available() && Clock::now() < until) wait_readable({c.fd()}, until);
  REQUIRE(c.eof());
  return c.output();
}

}  // namespace

TEST_CASE("isolation: the body's result comes back through the pipe and the child is reaped") {
  Child c = spawn({}, [](int fd) { return write_all(fd, "hello from the child") ? 0 : 9; });
  CHECK(c.pid() > 0);
  CHECK(read_all(c, Clock::now() + 10s) == "hello from the child");
  auto status = c.reap_within(5s);
  REQUIRE(status);
  CHECK(describe_status(*status) == "exit code 0");
  CHECK(gone(c.pid()));
}

TEST_CASE("isolation: a child that hangs is killed at the deadline and leaves no zombie") {
  Child c = spawn({}, [](int) {
    for (;;) pause();
    return 0;
  });
  const pid_t pid = c.pid();
  const auto deadline = Clock::now() + 200ms;
  while (!c.eof() && Clock::now() < deadline)
    if (wait_readable({c.fd()}, deadline)[0]) c.read_available();
  CHECK_FALSE(c.eof());  // it never wrote nor closed its pipe
  CHECK(Clock::now() >= deadline);
  CHECK(Clock::now() < deadline + 2s);  // wait_readable returned at the deadline
  std::vector<Child> killed;
  if (!c.kill()) killed.push_back(std::move(c));
  reap_briefly(killed, 2s);
  CHECK(killed.empty());
  CHECK(gone(pid));
}

TEST_CASE("isolation: a child that dies is reported with how it died") {
  SECTION("by a signal") {
    Child c = spawn({}, [](int) {
      raise(SIGSEGV);
      return 0;
    });
    read_all(c, Clock::now() + 10s);  // EOF: its end of the pipe closed as it died
    auto status = c.reap_within(5s);
    REQUIRE(status);
    CHECK(describe_status(*status) == "killed by signal 11 (Segmentation fault)");
    CHECK(exit_code_of(*status) == 128 + SIGSEGV);
  }
  SECTION("by exiting with a code") {
    Child c = spawn({}, [](int) { return 3; });
    read_all(c, Clock::now() + 10s);
    auto status = c.reap_within(5s);
    REQUIRE(status);
    CHECK(describe_status(*status) == "exit code 3");
    CHECK(exit_code_of(*status) == 3);
  }
  SECTION("by throwing") {
    Child c = spawn({}, [](int) -> int { throw std::runtime_error("boom"); });
    auto status = c.reap_within(5s);
    REQUIRE(status);
    CHECK(describe_status(*status) == "exit code 1");
  }
}

TEST_CASE("isolation: a child dropped unreaped is killed and reaped, not left behind") {
  pid_t pid = -1;
  {
    Child c = spawn({}, [](int) {
      for (;;) pause();
      return 0;
    });
    pid = c.pid();
  }
  // SIGKILL is delivered at once; the destructor reaps what died within its look.
  for (int i = 0; i < 2000 && !gone(pid); ++i) {
    waitpid(pid, nullptr, WNOHANG);
    usleep(1000);
  }
  CHECK(gone(pid));
}

TEST_CASE("isolation: a detached child holds none of our stdio or other descriptors") {
  int keep[2];
  REQUIRE(pipe(keep) == 0);  // not CLOEXEC: a fork without the contract would inherit it
  Child c = spawn({}, [&](int fd) {
    std::string r;
    for (int i = 0; i <= 2; ++i) {
      char target[256] = {};
      ssize_t n =
          readlink(("/proc/self/fd/" + std::to_string(i)).c_str(), target, sizeof target - 1);
      r += std::string(n > 0 ? target : "?") + ";";
    }
    r += fcntl(keep[0], F_GETFD) == -1 ? "closed" : "open";
    r += fd > 2 ? ";above-stdio" : ";in-stdio";
    write_all(fd, r);
    return 0;
  });
  const std::string got = read_all(c, Clock::now() + 10s);
  CHECK(got == "/dev/null;/dev/null;/dev/null;closed;above-stdio");
  c.reap_within(5s);
  close(keep[0]);
  close(keep[1]);
}

TEST_CASE("isolation: with inherited stdio and descriptors the child keeps them") {
  int keep[2];
  REQUIRE(pipe(keep) == 0);
  SpawnOptions o;
  o.stdio = Stdio::kInherit;
  o.close_other_fds = false;
  Child c = spawn(o, [&](int fd) {
    write_all(fd, fcntl(keep[0], F_GETFD) == -1 ? "closed" : "open");
    return 0;
  });
  CHECK(read_all(c, Clock::now() + 10s) == "open");
  c.reap_within(5s);
  close(keep[0]);
  close(keep[1]);
}

TEST_CASE("isolation: a child dies with its parent (PR_SET_PDEATHSIG)") {
  // This test process adopts orphans (a subreaper), so it can reap the
  // grandchild and see how it died once its parent, the middle child, exits.
  REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  Child middle = spawn({}, [](int fd) {
    Child grandchild = spawn({}, [](int ready) {
      write_all(ready, "ready");  // past its set-up: PR_SET_PDEATHSIG is in force
      for (;;) pause();
      return 0;
    });
    const auto until = Clock::now() + 10s;
    while (grandchild.output().empty() && Clock::now() < until)
      if (wait_readable({grandchild.fd()}, until)[0]) grandchild.read_available();
    write_all(fd, std::to_string(grandchild.pid()));
    _exit(0);  // no destructor: the parent's death alone must end the grandchild
    return 0;
  });
  const pid_t grandchild = std::stoi(read_all(middle, Clock::now() + 10s));
  REQUIRE(middle.reap_within(5s));
  int status = 0;
  pid_t r = 0;
  for (int i = 0; i < 5000 && r == 0; ++i) {
    r = waitpid(grandchild, &status, WNOHANG);
    if (r == 0) usleep(1000);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  REQUIRE(r == grandchild);
  CHECK(describe_status(status) == "killed by signal 9 (Killed)");
}
