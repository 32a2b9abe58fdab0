// The dependency rule of ARCHITECTURE.md, checked on the source text so a
// wrong #include fails here even when CMake happens to link it:
//   stack/lN_* includes only stack/lM_* with M >= N (its own layer or a
//     lower one in the stack, i.e. a higher number) and compat/; never
//     formats/, drivers/, probes/, preflight/, reports/, gate/ or migrate/;
//   stack/isolation/ (process isolation) is a leaf below every layer: any
//     stack layer may include it, and it includes nothing of ours outside itself;
//   compat/ and reports/ include nothing of ours outside themselves;
//   probes/ never includes preflight/, gate/ or migrate/ (preflight ->
//     gate | migrate -> probes -> formats | drivers -> stack -> compat);
//   formats/ (the profile and snapshot files) and drivers/ (the bench sweep,
//     the supervised worker, certify's gather and link mesh) sit below
//     probes/ and above the stack: they never include probes/, preflight/,
//     gate/ or migrate/, and not each other (a driver takes its settings as
//     plain structs from its caller; a format judges nothing and runs nothing);
//   gate/ and migrate/ never include preflight/ or each other;
//   bench/ programs use the modules, never preflight/ (the CLI: a bench runs
//     the binary); bench/peers/ (the Open MPI and Gloo drivers a comparison
//     runs against ours) includes nothing of ours at all.
// Every "..." include whose first path part is one of our top-level folders
// counts; <...> includes are libraries.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kOurs = {"compat", "stack",     "formats", "drivers",
                                     "probes", "preflight", "reports", "migrate",
                                     "gate",   "tests",     "bench",   "profiles"};

struct Include {
  std::string file;  // relative to the source root
  int line;
  std::string target;  // "stack/l6_netplane/state.h"
};

std::vector<Include> includes_under(const fs::path& root, const std::string& folder) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<Include> out;
  if (!fs::exists(root / folder)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root / folder)) {
    if (!e.is_regular_file()) continue;
    std::string ext = e.path().extension();
    std::string name = e.path().filename();
    if (ext != ".h" && ext != ".cc" && ext != ".hpp" && ext != ".cpp" &&
        name.find(".cc.in") == std::string::npos)
      continue;
    std::ifstream in(e.path());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      std::smatch m;
      if (std::regex_search(line, m, kInclude))
        out.push_back({fs::relative(e.path(), root).string(), n, m[1]});
    }
  }
  return out;
}

std::string top(const std::string& path) {
  return path.substr(0, path.find('/'));
}

bool ours(const std::string& target) {
  return kOurs.count(top(target)) > 0;
}

// 3 for "stack/l3_comm/..."; -1 when not a layer folder.
int layer_of(const std::string& path) {
  static const std::regex kLayer(R"(^stack/l(\d+)_)");
  std::smatch m;
  return std::regex_search(path, m, kLayer) ? std::stoi(m[1]) : -1;
}

bool is_isolation(const std::string& path) {
  return path.rfind("stack/isolation/", 0) == 0;
}

// Every violation as "file:line: includes target (why)".
std::vector<std::string> violations(const fs::path& root) {
  std::vector<std::string> out;
  auto add = [&](const Include& i, const std::string& why) {
    out.push_back(i.file + ":" + std::to_string(i.line) + ": includes \"" + i.target + "\" (" +
                  why + ")");
  };
  for (const auto& i : includes_under(root, "stack")) {
    const std::string t = top(i.target);
    if (is_isolation(i.file)) {
      if (ours(i.target) && !is_isolation(i.target))
        add(i, "stack/isolation/ is a leaf: it includes nothing of ours outside itself");
      continue;
    }
    if (is_isolation(i.target)) continue;
    if (t == "probes" || t == "formats" || t == "drivers" || t == "preflight" || t == "reports" ||
        t == "migrate" || t == "gate") {
      add(i, "the stack returns data or throws; it never includes " + t + "/");
      continue;
    }
    if (t == "compat" || !ours(i.target)) continue;
    if (t != "stack") {
      add(i, "the stack may include only stack/ and compat/");
      continue;
    }
    int from = layer_of(i.file), to = layer_of(i.target);
    if (from >= 0 && to >= 0 && to < from)
      add(i, "stack/l" + std::to_string(from) + " may include only layers l" +
                 std::to_string(from) + " and above");
    else if (from >= 0 && to < 0)
      add(i, "not a layer folder");
  }
  for (const auto& i : includes_under(root, "compat"))
    if (ours(i.target) && top(i.target) != "compat") add(i, "compat/ is a leaf");
  for (const auto& i : includes_under(root, "reports"))
    if (ours(i.target) && top(i.target) != "reports") add(i, "reports/ is a leaf");
  for (const auto& i : includes_under(root, "probes"))
    if (top(i.target) == "preflight" || top(i.target) == "gate" || top(i.target) == "migrate")
      add(i, "probes/ never includes " + top(i.target) + "/");
  for (const char* below : {"formats", "drivers"})
    for (const auto& i : includes_under(root, below)) {
      const std::string t = top(i.target);
      if (t == "probes" || t == "preflight" || t == "gate" || t == "migrate" ||
          ((t == "formats" || t == "drivers") && t != below))
        add(i, std::string(below) + "/ never includes " + t + "/");
    }
  for (const char* mid : {"gate", "migrate"})
    for (const auto& i : includes_under(root, mid))
      if (top(i.target) == "preflight" ||
          ((top(i.target) == "gate" || top(i.target) == "migrate") && top(i.target) != mid))
        add(i, std::string(mid) + "/ never includes " + top(i.target) + "/");
  for (const auto& i : includes_under(root, "bench")) {
    if (i.file.rfind("bench/peers/", 0) == 0) {
      if (ours(i.target)) add(i, "a peer driver is the other library's program: nothing of ours");
    } else if (top(i.target) == "preflight") {
      add(i, "bench/ uses the modules; it runs the CLI, never includes it");
    }
  }
  return out;
}

}  // namespace

TEST_CASE("layering: no #include crosses the dependency rule") {
  // The scan itself must see the tree (an empty scan would pass anything).
  const fs::path root = HN_SOURCE_DIR;
  REQUIRE(includes_under(root, "stack").size() > 50);
  REQUIRE(includes_under(root, "compat").size() > 20);
  REQUIRE(includes_under(root, "reports").size() > 10);
  REQUIRE(includes_under(root, "bench").size() >= 3);
  REQUIRE(includes_under(root, "gate").size() > 10);
  REQUIRE(includes_under(root, "migrate").size() > 10);
  REQUIRE(includes_under(root, "formats").size() > 10);
  REQUIRE(includes_under(root, "drivers").size() > 10);
  std::vector<std::string> bad = violations(root);
  std::string report;
  for (const auto& v : bad) report += v + "\n";
  INFO(report);
  CHECK(bad.empty());
}

TEST_CASE("layering: each kind of violation is found in a tree that has it") {
  hn::test::TempDir dir;
  dir.write("stack/l3_comm/ok.cc",
            "#include \"stack/l3_comm/ok.h\"\n#include \"stack/l5_sched/id.h\"\n"
            "#include \"compat/input_error.h\"\n#include <yaml-cpp/yaml.h>\n"
            "#include \"stack/isolation/child_process.h\"\n");
  dir.write("stack/isolation/leaf.cc",
            "#include \"stack/isolation/child_process.h\"\n#include \"compat/units.h\"\n");
  dir.write("stack/l6_netplane/up.cc", "// x\n#include \"stack/l3_comm/socket.h\"\n");
  dir.write("stack/l7_physical/probe.h", "#include \"probes/probe.h\"\n");
  dir.write("stack/l4_operator/mig.cc", "  #  include \"migrate/plan.h\"\n");
  dir.write("compat/leaf.cc", "#include \"compat/a.h\"\n#include \"stack/l7_physical/b.h\"\n");
  dir.write("reports/leaf.cc", "#include \"reports/a.h\"\n#include \"compat/input_error.h\"\n");
  dir.write("probes/p.cc", "#include \"preflight/cli.h\"\n#include \"reports/finding.h\"\n");
  dir.write("bench/b.cc",
            "#include \"stack/l7_physical/io_workload.h\"\n#include \"preflight/cli.h\"\n");
  dir.write("bench/peers/p.cc",
            "#include \"sweep.h\"\n#include \"stack/l3_comm/communicator.h\"\n");
  dir.write("probes/q.cc", "#include \"migrate/plan.h\"\n");
  dir.write("migrate/m.cc",
            "#include \"formats/profile.h\"\n#include \"reports/finding.h\"\n"
            "#include \"compat/input_error.h\"\n#include \"preflight/command.h\"\n");
  auto bad = violations(dir.path());
  std::sort(bad.begin(), bad.end());
  std::string all;
  for (const auto& v : bad) all += v + "\n";
  INFO(all);
  REQUIRE(bad.size() == 11);
  CHECK_THAT(bad[0], Catch::StartsWith("bench/b.cc:2: includes \"preflight/cli.h\""));
  CHECK_THAT(bad[1], Catch::StartsWith("bench/peers/p.cc:2: includes \"stack/l3_comm/"));
  CHECK_THAT(bad[7], Catch::StartsWith("stack/isolation/leaf.cc:2: includes \"compat/units.h\"") &&
                         Catch::Contains("stack/isolation/ is a leaf"));
  bad.erase(bad.begin() + 7);
  bad.erase(bad.begin(), bad.begin() + 2);
  CHECK_THAT(bad[0], Catch::StartsWith("compat/leaf.cc:2: includes \"stack/l7_physical/b.h\""));
  CHECK_THAT(bad[1], Catch::StartsWith("migrate/m.cc:4: includes \"preflight/command.h\""));
  CHECK_THAT(bad[2], Catch::StartsWith("probes/p.cc:1: includes \"preflight/cli.h\""));
  CHECK_THAT(bad[3], Catch::StartsWith("probes/q.cc:1: includes \"migrate/plan.h\""));
  CHECK_THAT(bad[4], Catch::StartsWith("reports/leaf.cc:2: includes \"compat/input_error.h\""));
  CHECK_THAT(bad[5], Catch::StartsWith("stack/l4_operator/mig.cc:1: includes \"migrate/plan.h\""));
  CHECK_THAT(bad[6], Catch::StartsWith("stack/l6_netplane/up.cc:2: includes \"stack/l3_comm/") &&
                         Catch::Contains("l6 may include only layers l6 and above"));
  CHECK_THAT(bad[7], Catch::StartsWith("stack/l7_physical/probe.h:1: includes \"probes/probe.h\""));
}

TEST_CASE("layering: formats/ and drivers/ sit below probes/, above the stack, apart") {
  hn::test::TempDir dir;
  dir.write("formats/f.cc",
            "#include \"stack/l6_netplane/plane.h\"\n#include \"compat/yaml_input.h\"\n"
            "#include \"probes/node_context.h\"\n");
  dir.write("formats/g.cc", "#include \"drivers/supervised_worker.h\"\n");
  dir.write("drivers/d.cc",
            "#include \"stack/l3_comm/store.h\"\n#include \"reports/finding.h\"\n"
            "#include \"formats/profile.h\"\n#include \"preflight/cli.h\"\n");
  dir.write("probes/p.cc", "#include \"formats/profile.h\"\n#include \"drivers/comm_bench.h\"\n");
  dir.write("stack/l3_comm/x.cc", "#include \"drivers/comm_bench.h\"\n");
  auto bad = violations(dir.path());
  std::sort(bad.begin(), bad.end());
  std::string all;
  for (const auto& v : bad) all += v + "\n";
  INFO(all);
  REQUIRE(bad.size() == 5);
  CHECK_THAT(bad[0], Catch::StartsWith("drivers/d.cc:3: includes \"formats/profile.h\"") &&
                         Catch::Contains("drivers/ never includes formats/"));
  CHECK_THAT(bad[1], Catch::StartsWith("drivers/d.cc:4: includes \"preflight/cli.h\""));
  CHECK_THAT(bad[2], Catch::StartsWith("formats/f.cc:3: includes \"probes/node_context.h\"") &&
                         Catch::Contains("formats/ never includes probes/"));
  CHECK_THAT(bad[3], Catch::StartsWith("formats/g.cc:1: includes \"drivers/supervised_worker.h\""));
  CHECK_THAT(bad[4], Catch::StartsWith("stack/l3_comm/x.cc:1: includes \"drivers/comm_bench.h\"") &&
                         Catch::Contains("it never includes drivers/"));
}

TEST_CASE("layering: the rule's own reading of paths") {
  CHECK(layer_of("stack/l3_comm/socket.cc") == 3);
  CHECK(layer_of("stack/l7_physical/source.h") == 7);
  CHECK(layer_of("stack/CMakeLists.txt") == -1);
  CHECK(ours("formats/profile.h"));
  CHECK_FALSE(ours("yaml-cpp/yaml.h"));
  CHECK_FALSE(ours("catch2/catch.hpp"));
}
