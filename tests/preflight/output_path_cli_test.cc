// Output paths as a hostile local user prepares them (issue 18): a symlink
// planted in a sticky world-writable directory, and a FIFO nobody reads.
// Before: root followed the link and replaced a file it owned; `node` and
// `translate` blocked on the FIFO past --timeout (forever for translate).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "tests/support/process.h"
#include "tests/support/skip.h"
#include "tests/support/temp_dir.h"

TEST_CASE("output paths: root refuses another user's symlink in a sticky directory, exit 2") {
  if (::geteuid() != 0) hn::test::skip("needs root to plant a link owned by another user");
  hn::test::TempDir dir;
  const std::string pub = dir.path() + "/pub";
  REQUIRE(::mkdir(pub.c_str(), 0777) == 0);
  REQUIRE(::chmod(pub.c_str(), 01777) == 0);
  const std::string victim = dir.write("shadow", "root:x:0:0\n");
  const std::string link = pub + "/report.json";
  REQUIRE(::symlink(victim.c_str(), link.c_str()) == 0);
  REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);
  auto r = hn::test::run_hnprecheck({"node", "--json", link, "--timeout", "5"}, 30);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--json") &&
                        Catch::Contains("refusing to follow the symlink") &&
                        Catch::Contains("uid 65534"));
  CHECK(hn::test::read_file(victim) == "root:x:0:0\n");
}

TEST_CASE(
    "output paths: a user flipping links for the whole run of each command never gets a "
    "write outside the directory") {
  if (::geteuid() != 0) hn::test::skip("needs root to run the attacker as another user");
  hn::test::TempDir dir;
  const std::string victim = dir.write("victim", "precious\n");
  REQUIRE(::chmod(victim.c_str(), 0600) == 0);
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  const std::string pub = dir.path() + "/pub";
  REQUIRE(::mkdir(pub.c_str(), 0777) == 0);
  REQUIRE(::chmod(pub.c_str(), 01777) == 0);
  const std::string env = dir.write("job.env", "NCCL_IB_TC=106\n");
  const std::vector<std::string> names = {"report.json", "out.env", "report.md", "report.xml"};
  pid_t attacker = ::fork();
  REQUIRE(attacker >= 0);
  if (attacker == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(1);
    const std::string tmp = pub + "/.flip";
    // Links come and go at random moments, so some runs pass the check
    // at the start and meet a link only when they write.
    std::srand(static_cast<unsigned>(::getpid()));
    for (;;) {
      for (const auto& n : names) ::unlink((pub + "/" + n).c_str());  // not root's: sticky
      ::usleep(static_cast<useconds_t>(std::rand() % 20000));
      for (const auto& n : names) {
        ::symlink(victim.c_str(), tmp.c_str());
        ::rename(tmp.c_str(), (pub + "/" + n).c_str());
      }
      ::usleep(static_cast<useconds_t>(std::rand() % 20000));
    }
  }
  int runs = 0, met_link = 0, at_write = 0, clean = 0;
  for (int i = 0; i < 60; ++i) {
    // Root's earlier outputs would pin the names (the attacker cannot
    // remove them in a sticky directory): clear them so every run races.
    for (const auto& n : names) {
      struct stat st {};
      if (::lstat((pub + "/" + n).c_str(), &st) == 0 && st.st_uid == 0)
        ::unlink((pub + "/" + n).c_str());
    }
    hn::test::ProcessResult r =
        i % 2 == 0
            ? hn::test::run_hnprecheck({"node", "--json", pub + "/report.json", "--markdown",
                                        pub + "/report.md", "--timeout", "10"},
                                       30)
            : hn::test::run_hnprecheck({"translate", "--from", "nccl", "--to", "hccl", env, "--out",
                                        pub + "/out.env", "--junit", pub + "/report.xml"},
                                       30);
    ++runs;
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2 || r.exit_code == 3));
    if (r.err.find("uid 65534") != std::string::npos) ++met_link;
    if (r.exit_code == 3 && r.err.find("uid 65534") != std::string::npos) ++at_write;
    if (r.exit_code == 0 || r.exit_code == 1) ++clean;
  }
  ::kill(attacker, SIGKILL);
  ::waitpid(attacker, nullptr, 0);
  CHECK(hn::test::read_file(victim) == "precious\n");
  struct stat st {};
  REQUIRE(::stat(victim.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(st.st_uid == 0);
  WARN(runs << " runs, " << met_link << " refused at the attacker's link (" << at_write
            << " of them only when writing), " << clean << " written in full");
  CHECK(met_link > 0);  // the runs did meet the links
  CHECK(clean > 0);     // and some ran between them
}

TEST_CASE("output paths: a FIFO nobody reads ends node at --timeout with exit 3") {
  hn::test::TempDir dir;
  const std::string fifo = dir.path() + "/report.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto r = hn::test::run_hnprecheck({"node", "--json", fifo, "--timeout", "2"}, 30);
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains(fifo) && Catch::Contains("timed out") &&
                        Catch::Contains("no process opened the FIFO"));
  // The text report was printed before the file was attempted.
  CHECK_THAT(r.out, Catch::Contains("checks:"));
}

TEST_CASE("output paths: a FIFO nobody reads ends translate (no --timeout) with exit 3") {
  hn::test::TempDir dir;
  const std::string fifo = dir.path() + "/hccl.env";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string env = dir.write("nccl.env", "NCCL_IB_TIMEOUT=20\n");
  auto r = hn::test::run_hnprecheck(
      {"translate", "--from", "nccl", "--to", "hccl", env, "--out", fifo}, 60);
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains("timed out") && Catch::Contains("no process opened the FIFO"));
}
