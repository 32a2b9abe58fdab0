// Golden test: a realistic Slurm launch script with ~30 NCCL and torch
// settings, translated for the cluster in tests/fixtures/translate/cluster.yaml.
// The expected env file and findings are checked in next to it; after a
// deliberate change, regenerate them with HN_UPDATE_GOLDEN=1 and review the diff.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "compat/text_file.h"
#include "compat/translate/env_input.h"
#include "compat/translate/env_output.h"
#include "probes/translate_context.h"
#include "probes/translate_findings.h"
#include "tests/support/temp_dir.h"

namespace tr = hn::compat::translate;
using namespace hn::probes;
using namespace hn::formats;

namespace {

const std::string kDir = std::string(HN_FIXTURE_DIR) + "/translate/";

std::string render_findings(const std::vector<hn::reports::Finding>& fs) {
  std::string s;
  for (const auto& f : fs) {
    s += std::string(hn::reports::to_string(f.status)) + " " + f.code + " " + f.entity + ": " +
         f.message + "\n";
    if (!f.remediation.empty()) s += "    -> " + f.remediation + "\n";
  }
  return s;
}

void compare_or_update(const std::string& name, const std::string& actual) {
  const std::string path = kDir + name;
  if (std::getenv("HN_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::string expected = hn::compat::read_text_file(path);
  INFO("golden file " << path << " (HN_UPDATE_GOLDEN=1 regenerates it)");
  CHECK(actual == expected);
}

}  // namespace

TEST_CASE("golden: a Slurm launch script translated from torch+NCCL to HCCL") {
  std::string script = hn::compat::read_text_file(kDir + "launch.sbatch");
  auto entries = tr::parse_env_input(script, "launch.sbatch", tr::InputFormat::kAuto);
  tr::RuleBook book = tr::RuleBook::load();
  tr::RuleSet rules = book.for_translation("torch", "hccl");
  Profile profile = load_profile_file(kDir + "cluster.yaml");
  profile.source = "cluster.yaml";
  TranslateContextOptions o;
  o.local_port_range = "32768 60999";
  o.pg_timeout_s = 1800;
  tr::Translation t = tr::translate(entries, rules, book, make_translate_context(&profile, o));

  compare_or_update("launch.expected.env",
                    tr::render_env_file(t, "hnprecheck translate --from torch --to hccl"));
  compare_or_update("launch.expected.findings", render_findings(translation_findings(t)));

  // What the golden files pin down, spelled out.
  size_t inputs = 0;
  for (const auto& v : t.vars)
    if (v.input.name.rfind("NCCL_", 0) == 0 || v.input.name.rfind("TORCH_", 0) == 0) ++inputs;
  CHECK(inputs >= 25);
  auto written = [&](const std::string& name) -> std::string {
    for (const auto& l : t.env)
      if (l.name == name) return l.value;
    return "(absent)";
  };
  // 8388608 bytes is 8 MB, not 8 TB, but 8 MB is 4% of HCCL's 200 MB default: not carried over.
  CHECK(written("HCCL_BUFFSIZE") == "(absent)");
  CHECK(written("HCCL_SOCKET_IFNAME") == "=ens1f0");  // ^docker,lo -> the parameter plane
  CHECK(written("HCCL_RDMA_SL") == "4");              // the profile's PFC priority
  CHECK(written("HCCL_RDMA_TC") == "104");            // 106 without its ECN bits
  CHECK(written("HCCL_RDMA_TIMEOUT") == "20");        // 23 clamped into [5, 20]
  CHECK(written("NCCL_DEBUG") == "(absent)");
  CHECK(written("MASTER_ADDR") == "(absent)");  // computed at run time
}
