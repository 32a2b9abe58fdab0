// Output paths as a user gets them wrong: every command that writes a file
// refuses a path it cannot write with exit 2 before any work is done, and a
// write that still fails late (here /dev/full) is exit 3 with the text report
// already printed.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;
using hn::test::TempDir;

namespace {

const std::string kFixtures = HN_FIXTURE_DIR;

hn::test::ProcessResult cli(std::vector<std::string> args) {
  return hn::test::run_hnprecheck(std::move(args), 60);
}

// Exit 2, the option and the reason named, and nothing on stdout: no probe
// ran and no report was printed.
void check_refused(const hn::test::ProcessResult& r, const std::string& option,
                   const std::string& reason) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(option) && Catch::Contains(reason));
  CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("output: node refuses a --json/--junit/--ctrf path it cannot write, before probing") {
  TempDir dir;
  // Was exit 3 "rename: Is a directory" after every probe had run.
  check_refused(cli({"node", "--json", dir.path()}), "--json", "is a directory");
  check_refused(cli({"node", "--junit", dir.path() + "/no/such/r.xml"}), "--junit",
                "No such file or directory");
  check_refused(cli({"node", "--ctrf", dir.path() + "/sub/"}), "--ctrf", "names a directory");
  std::string file = dir.write("file", "x");
  check_refused(cli({"node", "--json", file + "/r.json"}), "--json", "is not a directory");
  check_refused(cli({"node", "--json", ""}), "--json", "needs a file path");
}

TEST_CASE("output: snapshot --out is checked before capturing") {
  TempDir dir;
  check_refused(cli({"snapshot", "--out", ""}), "--out", "needs a file path");
  check_refused(cli({"snapshot", "--out", dir.path()}), "--out", "is a directory");
  check_refused(cli({"snapshot", "--out", dir.path() + "/no/s.yaml"}), "--out",
                "No such file or directory");
}

TEST_CASE("output: ops --csv, translate --out, diff --json, consistency --json, bench --json") {
  TempDir dir;
  std::string inv = dir.write("inv.txt", "MatMul f32\n");
  check_refused(cli({"ops", inv, "--csv", dir.path()}), "--csv", "is a directory");
  check_refused(cli({"ops", inv, "--json", dir.path() + "/no/r.json"}), "--json",
                "No such file or directory");
  std::string env = dir.write("in.env", "NCCL_SOCKET_IFNAME=eth0\n");
  check_refused(cli({"translate", "--from", "nccl", "--to", "hccl", env, "--out", dir.path()}),
                "--out", "is a directory");
  std::string snap = kFixtures + "/snapshots/netplane/roce-a.yaml";
  check_refused(cli({"diff", snap, snap, "--json", dir.path()}), "--json", "is a directory");
  check_refused(cli({"consistency", "--profile", kFixtures + "/profiles/roce-cluster.yaml", snap,
                     kFixtures + "/snapshots/netplane/roce-b.yaml", "--json", dir.path()}),
                "--json", "is a directory");
  // Was silently ignored: no JSON written and exit 0.
  check_refused(cli({"bench", "--json", ""}), "--json", "needs a file path");
}

TEST_CASE("output: a write that fails late still shows the results, then exits 3") {
  // /dev/full is a device, so it passes the early check and is written in
  // place; the write then fails with ENOSPC after the probes have run.
  auto r = cli({"node", "--json", "/dev/full", "--no-color"});
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains("/dev/full") && Catch::Contains("No space left on device"));
  // The text report was printed before the files were written.
  CHECK_THAT(r.out, Catch::Contains("checks:") && Catch::Contains("L7 physical"));

  std::string snap = kFixtures + "/snapshots/netplane/roce-a.yaml";
  auto d =
      cli({"diff", snap, kFixtures + "/snapshots/netplane/roce-b.yaml", "--json", "/dev/full"});
  CHECK(d.exit_code == 3);
  CHECK_THAT(d.out, Catch::Contains("difference(s)"));
}

TEST_CASE("output: ops --csv - takes stdout, so the text report goes to stderr") {
  TempDir dir;
  std::string inv = dir.write("inv.txt", "MatMul f32\n");
  auto r = cli({"ops", inv, "--backend", "reference-cpu", "--csv", "-", "--no-color"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("File,", 0) == 0);  // only the CSV on stdout
  CHECK_THAT(r.err, Catch::Contains("checks:"));
}

TEST_CASE("output: node writes Prometheus and Markdown reports next to the text") {
  TempDir dir;
  const std::string prom = dir.path() + "/hnprecheck.prom";
  auto r = cli({"node", "--prometheus", prom, "--markdown", "-", "--no-color"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("# hnprecheck node: "));  // stdout is the Markdown
  CHECK_THAT(r.err, Catch::Contains("checks:"));                // the text moved to stderr
  std::ifstream in(prom);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("hnprecheck_run_info{command=\"node\""));
  CHECK_THAT(text, Catch::Contains("hnprecheck_findings{command=\"node\",status=\"fail\"} 0"));
  CHECK_THAT(text, Catch::Contains("hnprecheck_check_status{command=\"node\",code=\"HW-MEMORY\""));
  const std::string html = dir.path() + "/report.html";
  r = cli({"node", "--html", html});
  CHECK(r.exit_code == 0);
  auto lint = hn::test::run_process({"/usr/bin/xmllint", "--noout", html}, 30);
  INFO(lint.err);
  CHECK(lint.exit_code == 0);  // well-formed markup, SVG included
  r = cli({"node", "--prometheus", "-", "--markdown", "-"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("only one of"));
  r = cli({"node", "--prometheus", dir.path() + "/missing/dir/x.prom"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--prometheus"));
}
