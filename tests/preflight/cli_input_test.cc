// Input files as a user gets them wrong, through the real binary: each is
// exit 2 naming the file (and line), never a hang, a crash (exit 3) or a
// silently wrong verdict.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;
using hn::test::TempDir;

namespace {

const std::string kFixtures = HN_FIXTURE_DIR;

// A short bound: a reader that blocks (a FIFO) is killed and fails the test
// instead of hanging it.
hn::test::ProcessResult cli(std::vector<std::string> args) {
  return hn::test::run_hnprecheck(std::move(args), 20);
}

void check_input_error(const hn::test::ProcessResult& r, const std::string& where,
                       const std::string& what) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(where) && Catch::Contains(what));
}

// A copy of a valid fixture snapshot with one line replaced.
std::string edited_snapshot(const TempDir& dir, const std::string& from, const std::string& to) {
  std::string text = hn::test::read_file(kFixtures + "/snapshots/netplane/roce-a.yaml");
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return dir.write("edited.yaml", text);
}

int line_of(const std::string& path, const std::string& needle) {
  std::string text = hn::test::read_file(path);
  auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

}  // namespace

TEST_CASE("cli input: --timeout below 1 ms is refused instead of becoming a zero deadline") {
  check_input_error(cli({"node", "--timeout", "0.0001"}), "--timeout", "at least 1 ms");
  check_input_error(cli({"node", "--timeout=-1"}), "--timeout", "[0.001, 86400]");
}

TEST_CASE("cli input: a FIFO or a device as --profile is refused at once") {
  TempDir dir;
  std::string fifo = dir.path() + "/profile.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Used to block forever in open() waiting for a writer.
  check_input_error(cli({"node", "--profile", fifo}), fifo, "is a FIFO");
  // Used to read until memory ran out.
  check_input_error(cli({"node", "--profile", "/dev/zero"}), "/dev/zero", "character device");
  check_input_error(cli({"node", "--snapshot", fifo}), fifo, "is a FIFO");
  check_input_error(cli({"node", "--env", "/dev/zero"}), "/dev/zero", "character device");
}

TEST_CASE("cli input: a repeated key or a second document in a profile is exit 2") {
  TempDir dir;
  std::string dup = dir.write(
      "dup.yaml", "version: 1\nphysical:\n  min_memory_gib: 1\n  min_memory_gib: 100000\n");
  check_input_error(cli({"node", "--profile", dup}),
                    dup + ":4:", "duplicate key 'min_memory_gib' (first at line 3)");
  std::string two = dir.write("two.yaml", "version: 1\n---\nversion: 1\n");
  check_input_error(cli({"node", "--profile", two}), two + ":2", "second YAML document");
}

TEST_CASE("cli input: impossible snapshot values are exit 2 with file:line") {
  TempDir dir;
  struct Case {
    std::string from, to, what;
  };
  const Case cases[] = {
      // Was accepted, then exit 3 in the route emulation.
      {"address: 10.10.0.1, prefix_len: 24", "address: 10.10.0.1, prefix_len: 99",
       "out of range [0, 32]"},
      {"address: 10.10.0.1, prefix_len: 24", "address: banana, prefix_len: 24",
       "'banana' is not an IPv4 or IPv6 address"},
      {"gateway: 10.30.0.254", "gateway: 999.1.1.1", "'999.1.1.1' is not an IPv4 or IPv6 address"},
      {"dst: 10.30.0.0/24", "dst: nonsense", "expected default or a prefix"},
      {"name: ens1f0, ifindex: 4, admin_up: true, oper_state: up",
       "name: ens1f0, ifindex: 4, admin_up: true, oper_state: bogus", "unknown oper_state 'bogus'"},
  };
  for (const auto& c : cases) {
    INFO(c.to);
    std::string snap = edited_snapshot(dir, c.from, c.to);
    check_input_error(cli({"node", "--snapshot", snap}),
                      snap + ":" + std::to_string(line_of(snap, c.to)) + ":", c.what);
  }
}

TEST_CASE("cli input: a snapshot without its sections is not a snapshot") {
  TempDir dir;
  // Used to replay as an empty node: FAIL HW-MEMORY 0.0 GiB and nothing else.
  std::string bare = dir.write("bare.yaml", "version: 1\n");
  check_input_error(cli({"node", "--snapshot", bare}), bare, "physical: missing required field");
  std::string no_net =
      dir.write("no_net.yaml",
                "version: 1\nphysical: {memory: {total_kib: 1, available_kib: 1}}\n"
                "storage: {mounts: []}\n");
  check_input_error(cli({"node", "--snapshot", no_net}), no_net,
                    "netplane: missing required field");
}
