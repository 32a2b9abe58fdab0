// Each reader's worst input within its documented limits, run through the
// real binary under an address-space limit (prlimit --as): it must finish
// with a verdict or a clean refusal (exit 0, 1 or 2), never run out of memory
// (exit 3 with std::bad_alloc) or die. The budgets are the ones
// docs/security.md states; the inputs are the shapes that cost the most per
// byte (one assignment or event per short line, a value doubled per line, a
// nested chain), at the limits of compat/translate/shell_budget.h,
// compat/text_file.h and compat/trace_events.h.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "compat/text_file.h"
#include "compat/translate/shell_budget.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace {

constexpr const char* kBudget = "--as=536870912";  // 512 MiB of address space

hn::test::ProcessResult run_limited(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/prlimit", kBudget, HN_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return hn::test::run_process(argv, 120);
}

void check_within(const hn::test::ProcessResult& r, int expected) {
  INFO(r.err.substr(0, 2000));
  CHECK(r.exit_code == expected);
  CHECK(r.err.find("bad_alloc") == std::string::npos);
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("reader memory: env files and scripts at their limits fit 512 MiB") {
  using namespace hn::compat::translate;
  hn::test::TempDir dir;
  // The most assignments the budget allows, padded to the 4 MiB file limit.
  std::string env;
  const std::size_t pad = hn::compat::kMaxLaunchFileBytes / kMaxShellAssignments - 24;
  for (std::size_t i = 0; i < kMaxShellAssignments; ++i)
    env += "NCCL_X_" + std::to_string(i) + "=" + std::string(pad, 'v') + "\n";
  REQUIRE(env.size() <= hn::compat::kMaxLaunchFileBytes);
  write(dir.path() + "/many.env", env);
  check_within(
      run_limited({"node", "--env", dir.path() + "/many.env", "--json", "/dev/null", "--quiet"}),
      0);
  check_within(run_limited({"translate", "--from", "nccl", "--to", "hccl", dir.path() + "/many.env",
                            "--json", "/dev/null", "--quiet"}),
               0);

  // All of the expansion budget, in values of almost MAX_ARG_STRLEN each.
  std::string script = "A=" + std::string(kMaxShellWordBytes - 16, 'x') + "\n";
  for (std::size_t i = 0; i < kMaxShellExpansionBytes / kMaxShellWordBytes; ++i)
    script += "export NCCL_V" + std::to_string(i) + "=$A\n";
  write(dir.path() + "/expand.sh", script);
  check_within(run_limited({"translate", "--from", "nccl", "--to", "hccl", "--format", "script",
                            dir.path() + "/expand.sh", "--json", "/dev/null", "--quiet"}),
               0);

  // A value doubled line after line, and a case over many variables: refused.
  std::string bomb = "X_0=abcdefghij\n";
  for (int i = 1; i < 60; ++i)
    bomb += "X_" + std::to_string(i) + "=${X_" + std::to_string(i - 1) + "}${X_" +
            std::to_string(i - 1) + "}\n";
  write(dir.path() + "/bomb.env", bomb);
  check_within(run_limited({"node", "--env", dir.path() + "/bomb.env", "--quiet"}), 2);
  std::string cases;
  for (int i = 0; i < 2000; ++i) cases += "export NCCL_V" + std::to_string(i) + "=x\n";
  cases += "case $1 in\n";
  for (int i = 0; i < 1990; ++i) cases += "  p" + std::to_string(i) + ") NCCL_V1=$i ;;\n";
  write(dir.path() + "/cases.sh", cases + "esac\n");
  check_within(run_limited({"translate", "--from", "nccl", "--to", "hccl", "--format", "script",
                            dir.path() + "/cases.sh", "--quiet"}),
               2);
}

TEST_CASE("reader memory: traces, models and op lists within their limits fit 512 MiB") {
  hn::test::TempDir dir;
  // One million flat cpu_op events (about 80 MB), and a chain nested as deep
  // as the file goes: the first reads, the second is refused at 1024 levels.
  for (bool nested : {false, true}) {
    const std::string path = dir.path() + (nested ? "/nested.json" : "/flat.json");
    std::ofstream f(path);
    const int n = 1000000;
    f << "{\"traceEvents\":[";
    for (int i = 0; i < n; ++i)
      f << (i ? "," : "") << "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::a" << i % 7
        << "\",\"ts\":" << (nested ? i : 2 * i) << ",\"dur\":" << (nested ? 10 * n - 2 * i : 1)
        << ",\"pid\":1,\"tid\":1}";
    f << "]}";
    f.close();
    check_within(
        run_limited({"ops", "--backend", "reference-cpu", path, "--json", "/dev/null", "--quiet"}),
        nested ? 2 : 0);
  }
  // A 100 MB op list is refused from its size, unread.
  {
    std::ofstream f(dir.path() + "/ops.txt");
    const std::string line = "aten::add\n";
    for (int i = 0; i < 10000000; ++i) f << line;
  }
  auto r = run_limited({"ops", "--backend", "reference-cpu", dir.path() + "/ops.txt", "--quiet"});
  check_within(r, 2);
  CHECK(r.err.find("too large for an op list") != std::string::npos);
}
