// The defect classes of issue 15, each shown on a real file of the corpus
// (tests/corpus/launch/SOURCES.tsv names its repository, path and commit)
// where one holds the form, and the fault injected into a copy where the
// check must be seen to fail.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compat/translate/env_input.h"
#include "compat/translate/rules.h"
#include "compat/translate/translator.h"

namespace fs = std::filesystem;
namespace tr = hn::compat::translate;

namespace {

const fs::path kDir = fs::path(HN_SOURCE_DIR) / "tests/corpus/launch";

std::string text_of(const std::string& file) {
  std::ifstream in(kDir / file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

tr::EnvInput read(const std::string& file) {
  return tr::read_env_input_full((kDir / file).string(), tr::InputFormat::kAuto);
}

const tr::EnvEntry* entry(const tr::EnvInput& in, const std::string& name, int line = 0) {
  for (const auto& e : in.entries)
    if (e.name == name && (line == 0 || e.line == line)) return &e;
  return nullptr;
}

const tr::RuleBook& book() {
  static tr::RuleBook b = tr::RuleBook::load();
  return b;
}

tr::Translation translate(const tr::EnvInput& in, const std::string& from, const std::string& to,
                          tr::Context ctx = {}) {
  tr::RuleSet rules = from.empty() ? book().for_check(to) : book().for_translation(from, to);
  if (!ctx.pg_timeout_s && !in.flags.empty()) {
    ctx.pg_timeout_s = in.flags.back().seconds;
    ctx.pg_timeout_source = in.flags.back().flag;
  }
  tr::Translation t = tr::translate(in.entries, rules, book(), ctx);
  t.notes = in.notes;
  return t;
}

const tr::VarResult* var(const tr::Translation& t, const std::string& name) {
  for (const auto& v : t.vars)
    if (v.input.name == name) return &v;
  return nullptr;
}

const tr::CrossResult* cross(const tr::Translation& t, const std::string& id) {
  for (const auto& c : t.cross)
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("class 1: settings on launcher command lines are settings of that command") {
  // coreweave/nccl-tests MPIJob: mpirun -x NAME=value inside the launcher's args.
  auto mpijob = read("cw-01-nccl-test-distributed-gb300-roce-nvl72-mpijob.yaml");
  const tr::EnvEntry* tc = entry(mpijob, "NCCL_IB_TC");
  REQUIRE(tc);
  CHECK(tc->value == "96");
  CHECK(tc->line == 44);
  CHECK_THAT(tc->context, Catch::Contains("mpirun -x"));
  // AMD-AGI/Primus: pyxis --container-env hands exported names to the container.
  auto pyxis = read("pri-68-run_benchmark_b200.sh");
  CHECK(entry(pyxis, "NCCL_NVLS_ENABLE", 83));
  // #SBATCH --export=ALL,NCCL_...: the batch job's environment.
  auto sbatch = read("gh-80-sbatch_single_ckpt.sh");
  const tr::EnvEntry* p2p = entry(sbatch, "NCCL_P2P_LEVEL");
  REQUIRE(p2p);
  CHECK(p2p->value == "NVL");
  CHECK(p2p->where() == (kDir / "gh-80-sbatch_single_ckpt.sh").string() + ":10 (#SBATCH --export)");
  // mpirun -x NAME of an exported variable: reported where it is handed on too.
  auto sharp = read("gh-79-bandwidth-sharp-enabled.sh");
  CHECK(entry(sharp, "NCCL_COLLNET_ENABLE", 17));
}

TEST_CASE("class 1: forms the corpus lacks, as real launch files write them") {
  auto in = tr::parse_env_input_full(
      "srun --export=ALL,NCCL_DEBUG=INFO,NCCL_SOCKET_IFNAME=^lo,docker0 python a.py\n"
      "srun env NCCL_IB_TIMEOUT=22 prog\n"
      "exec env NCCL_IB_RETRY_CNT=7 prog\n"
      "timeout 60 env NCCL_IB_GID_INDEX=3 prog\n"
      "OUT=$(NCCL_DEBUG_SUBSYS=INIT python -c 'import torch')\n"
      "docker run -e NCCL_P2P_DISABLE=1 --env=NCCL_SHM_DISABLE=1 img\n"
      "mpiexec -genv NCCL_NET Socket ./a\n"
      "ssh node1 \"NCCL_ALGO=Ring ./a\"\n",
      "job.sh", tr::InputFormat::kScript);
  CHECK(entry(in, "NCCL_DEBUG", 1));
  REQUIRE(entry(in, "NCCL_SOCKET_IFNAME", 1));
  CHECK(entry(in, "NCCL_SOCKET_IFNAME", 1)->value == "^lo,docker0");
  CHECK(entry(in, "NCCL_IB_TIMEOUT", 2));
  CHECK(entry(in, "NCCL_IB_RETRY_CNT", 3));
  CHECK(entry(in, "NCCL_IB_GID_INDEX", 4));
  CHECK(entry(in, "NCCL_DEBUG_SUBSYS", 5));
  CHECK(entry(in, "NCCL_P2P_DISABLE", 6));
  CHECK(entry(in, "NCCL_SHM_DISABLE", 6));
  CHECK(entry(in, "NCCL_NET", 7));
  // A command line this reader does not follow (a remote shell): a finding, not silence.
  bool unread = false;
  for (const auto& n : in.notes)
    unread = unread || (n.kind == tr::InputNote::kUnread && n.name == "NCCL_ALGO" && n.line == 8);
  CHECK(unread);
}

TEST_CASE("class 2: conditional values are alternatives, never certain, never written") {
  // AMD-AGI/Primus base_env.sh: NCCL_IB_HCA=$(...) inside if, then export "${NCCL_IB_HCA:-}".
  auto in = read("pri-60-base_env.sh");
  const tr::EnvEntry* hca = entry(in, "NCCL_IB_HCA");
  REQUIRE(hca);
  CHECK(hca->conditional);
  REQUIRE(hca->alternatives.size() == 2);
  CHECK(hca->alternatives[0].line == 153);
  CHECK(hca->alternatives[1].line == 155);
  // export NCCL_CROSS_NIC=${NCCL_CROSS_NIC:-0}: 0 unless the environment sets it.
  const tr::EnvEntry* cross_nic = entry(in, "NCCL_CROSS_NIC");
  REQUIRE(cross_nic);
  CHECK(cross_nic->conditional);
  CHECK_THAT(cross_nic->alternatives[0].condition, Catch::Contains("unless the environment"));
  tr::Translation t = translate(in, "rccl", "hccl");
  REQUIRE(var(t, "NCCL_IB_HCA"));
  CHECK(var(t, "NCCL_IB_HCA")->outcome == tr::Outcome::kConditional);
  for (const auto& l : t.env) CHECK(l.name != "HCCL_RDMA_TIMEOUT");  // nothing conditional written
  // Mutually exclusive branches are not conflicting settings; the := idiom is read.
  auto branches = tr::parse_env_input_full(
      "case \"$GPU\" in\n  h100) export NCCL_IB_TIMEOUT=22 ;;\n  *) export NCCL_IB_TIMEOUT=18 ;;\n"
      "esac\n: \"${NCCL_IB_RETRY_CNT:=7}\"\n",
      "job.sh", tr::InputFormat::kScript);
  tr::Translation b = translate(branches, "nccl", "hccl");
  REQUIRE(var(b, "NCCL_IB_TIMEOUT"));
  CHECK(var(b, "NCCL_IB_TIMEOUT")->outcome == tr::Outcome::kConditional);
  CHECK_THAT(var(b, "NCCL_IB_TIMEOUT")->detail, Catch::Contains("job.sh:2, case 'h100)'"));
  CHECK_THAT(var(b, "NCCL_IB_TIMEOUT")->detail, Catch::Contains("job.sh:3, case '*)'"));
  CHECK_FALSE(var(b, "NCCL_IB_TIMEOUT")->detail.find("-") == 0);
  for (const auto& v : b.vars) CHECK(v.rule != "override");
  REQUIRE(entry(branches, "NCCL_IB_RETRY_CNT"));
  CHECK(entry(branches, "NCCL_IB_RETRY_CNT")->value == "7");
  CHECK(b.env.empty());
}

TEST_CASE("class 3: no false FAIL from defaults the libraries derive") {
  // Ascend/MindSpeed-LLM: HCCL_CONNECT_TIMEOUT=3600, HCCL_EXEC_TIMEOUT=3600,
  // HCCL_EVENT_TIMEOUT unset, --distributed-timeout-minutes 120.
  auto in = read("msl-48-pretrain_deepseek3_671b_4k_ptd.sh");
  REQUIRE(in.flags.size() == 1);
  CHECK(in.flags[0].seconds == 7200);
  CHECK(in.flags[0].line == 170);
  tr::Translation t = translate(in, "", "hccl");
  CHECK_FALSE(cross(t, "event-timeout-above-exec-timeout"));  // derived: exec + 30 s
  REQUIRE(cross(t, "pg-timeout-above-connect-timeout"));
  CHECK(cross(t, "pg-timeout-above-connect-timeout")->state == tr::CrossResult::kOk);
  CHECK_THAT(cross(t, "pg-timeout-above-connect-timeout")->values,
             Catch::Contains("7200 s (--distributed-timeout-minutes)"));
  // MindSpeed-LLM's official deepseek4_flash sets 120 minutes and
  // HCCL_CONNECT_TIMEOUT=7200: equal, so torch_npu never ends a link setup
  // HCCL still waits for; only HCCL's own error in its last 20 s is lost.
  // Advice, not a FAIL on an official configuration.
  auto eq = read("msl-50-pretrain_deepseek4_flash_13.3b_4k_bf16_A5_ptd.sh");
  tr::Translation te = translate(eq, "", "hccl");
  REQUIRE(cross(te, "pg-timeout-above-connect-timeout"));
  CHECK(cross(te, "pg-timeout-above-connect-timeout")->state == tr::CrossResult::kViolated);
  CHECK(cross(te, "pg-timeout-above-connect-timeout")->severity == "warn");
  // The fault: the same script with the timeout below the connect wait.
  std::string text = text_of("msl-50-pretrain_deepseek4_flash_13.3b_4k_bf16_A5_ptd.sh");
  const std::string flag = "--distributed-timeout-minutes 120";
  REQUIRE(text.find(flag) != std::string::npos);
  text.replace(text.find(flag), flag.size(), "--distributed-timeout-minutes 60");
  tr::Translation tb =
      translate(tr::parse_env_input_full(text, "msl-50.sh", tr::InputFormat::kScript), "", "hccl");
  REQUIRE(cross(tb, "pg-timeout-above-connect-timeout"));
  CHECK(cross(tb, "pg-timeout-above-connect-timeout")->state == tr::CrossResult::kViolated);
  CHECK_THAT(cross(tb, "pg-timeout-above-connect-timeout")->detail,
             Catch::Contains("ends a link setup"));
  // Ray runtime_env with exec 3600 and no event timeout: no FAIL either.
  tr::Translation ray = translate(read("msl-45-runtime_env.yaml"), "", "hccl");
  CHECK_FALSE(cross(ray, "event-timeout-above-exec-timeout"));
}

TEST_CASE("class 4: environment maps are read, and nothing recognised is a finding") {
  auto ray = read("msl-45-runtime_env.yaml");  // Ray runtime_env env_vars
  REQUIRE(entry(ray, "HCCL_EXEC_TIMEOUT"));
  CHECK(entry(ray, "HCCL_EXEC_TIMEOUT")->value == "3600");
  auto nemo = read("aws-20-config.yaml");  // NeMo launcher env_vars, NCCL_DEBUG: null
  bool unset = false;
  for (const auto& n : nemo.notes)
    unset = unset || (n.kind == tr::InputNote::kUnset && n.name == "NCCL_DEBUG");
  CHECK(unset);
  auto none = read("msl-55-pretrain_gpt_oss_20b_4k_fsdp2_A3.sh");
  CHECK(none.empty_files.size() == 1);
  // envFrom: the ConfigMap in the same file is read; one that is not is a finding.
  const char* pod =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nccl}\ndata:\n  NCCL_IB_HCA: mlx5_0\n"
      "---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: t\n    envFrom:\n"
      "    - configMapRef: {name: nccl}\n    - configMapRef: {name: elsewhere}\n";
  auto k8s = tr::parse_env_input_full(pod, "pod.yaml", tr::InputFormat::kAuto);
  REQUIRE(entry(k8s, "NCCL_IB_HCA", 5));
  CHECK_THAT(entry(k8s, "NCCL_IB_HCA", 5)->context, Catch::Contains("via ConfigMap nccl"));
  bool missing = false;
  for (const auto& n : k8s.notes)
    missing = missing ||
              (n.kind == tr::InputNote::kUnread && n.why.find("elsewhere") != std::string::npos);
  CHECK(missing);
}

TEST_CASE("class 5: a value the library rejects is a finding on that variable") {
  // FlagAI-Open/FlagAI run_multi.sh: NCCL_DEBUG=debug (NCCL knows no such level).
  tr::Translation t = translate(read("gh-78-run_multi.sh"), "nccl", "hccl");
  REQUIRE(var(t, "NCCL_DEBUG"));
  CHECK(var(t, "NCCL_DEBUG")->outcome == tr::Outcome::kNeedsReview);
  CHECK_THAT(var(t, "NCCL_DEBUG")->detail, Catch::Contains("'debug' is not a value nccl reads"));
  REQUIRE(var(t, "NCCL_IB_HCA"));  // the rest is still translated
  CHECK(var(t, "NCCL_IB_HCA")->outcome == tr::Outcome::kDropped);
}

TEST_CASE("class 6: coverage, typos, values judged, dependent rules, unexported variables") {
  // Ascend/MindSpeed-LLM: HCCL_DETERMINISITIC=True (a typo) gets did-you-mean.
  tr::Translation typo =
      translate(read("msl-46-llama2_tp2_cp4_general_double_ring.sh"), "", "hccl");
  REQUIRE(var(typo, "HCCL_DETERMINISITIC"));
  CHECK(var(typo, "HCCL_DETERMINISITIC")->outcome == tr::Outcome::kUnknown);
  CHECK_THAT(var(typo, "HCCL_DETERMINISITIC")->detail,
             Catch::Contains("did you mean HCCL_DETERMINISTIC?"));
  // NCCL_IB_DISABLE and NCCL_NET are recognised (FlagAI run_multi.sh sets NCCL_IB_DISABLE).
  tr::Translation f = translate(read("gh-78-run_multi.sh"), "nccl", "hccl");
  REQUIRE(var(f, "NCCL_IB_DISABLE"));
  CHECK(var(f, "NCCL_IB_DISABLE")->outcome == tr::Outcome::kDropped);
  CHECK(var(f, "NCCL_IB_DISABLE")->risk);
  // AIV limits HCCL_EXEC_TIMEOUT to 1091 s: the fault injected into a real file.
  std::string text = text_of("msl-48-pretrain_deepseek3_671b_4k_ptd.sh");
  text.insert(0, "export HCCL_OP_EXPANSION_MODE=AIV\n");
  auto aiv = tr::parse_env_input_full(text, "aiv.sh", tr::InputFormat::kScript);
  tr::Translation ta = translate(aiv, "", "hccl");
  REQUIRE(cross(ta, "aiv-exec-timeout-limit"));
  CHECK(cross(ta, "aiv-exec-timeout-limit")->state == tr::CrossResult::kViolated);
  const tr::CrossResult* no_aiv =
      cross(translate(read("msl-48-pretrain_deepseek3_671b_4k_ptd.sh"), "", "hccl"),
            "aiv-exec-timeout-limit");
  CHECK((!no_aiv || no_aiv->state == tr::CrossResult::kOk));
  // A shell variable that is never exported is not a setting of the job.
  auto plain = tr::parse_env_input_full("NCCL_DEBUG=INFO\npython train.py\n", "job.sh",
                                        tr::InputFormat::kScript);
  CHECK(plain.entries.empty());
  REQUIRE(plain.notes.size() == 1);
  CHECK(plain.notes[0].kind == tr::InputNote::kNotExported);
}

TEST_CASE("class 7: NCCL's configuration file, and the lines scripts write into it") {
  // oracle-quickstart/oci-hpc installs this as /etc/nccl.conf: KEY=VALUE,
  // each in effect (auto detects it by name), '==' kept as NCCL reads it.
  auto conf = read("oci-88-h100.nccl.conf");
  REQUIRE(entry(conf, "NCCL_IB_TC", 6));
  CHECK(entry(conf, "NCCL_IB_TC", 6)->value == "41");
  REQUIRE(entry(conf, "NCCL_IB_HCA", 12));
  CHECK(entry(conf, "NCCL_IB_HCA", 12)->value.rfind("=mlx5_0,", 0) == 0);
  CHECK(conf.notes.empty());  // nothing "never exported"
  tr::Translation t = translate(conf, "", "nccl");
  REQUIRE(var(t, "NCCL_IB_TC"));
  CHECK(var(t, "NCCL_IB_TC")->outcome == tr::Outcome::kTranslated);
  // Azure/azhpc-images: bash -c "cat > /etc/nccl.conf" <<'EOF' ... EOF.
  auto heredoc = read("az-84-ndv4.sh");
  REQUIRE(entry(heredoc, "NCCL_TOPO_FILE", 13));
  CHECK(entry(heredoc, "NCCL_TOPO_FILE", 13)->value == "/opt/microsoft/ndv4/topo.xml");
  CHECK_THAT(entry(heredoc, "NCCL_TOPO_FILE", 13)->context, Catch::Contains("/etc/nccl.conf"));
  // aws-samples: RUN ... && echo NCCL_SOCKET_IFNAME=^docker0,lo >> /etc/nccl.conf,
  // and an ENV of the same name, which wins (NCCL never overwrites the
  // environment); the commented-out copy at line 100 is no setting.
  auto docker = read("aws-83-nvcr-pytorch.Dockerfile");
  REQUIRE(entry(docker, "NCCL_SOCKET_IFNAME", 123));
  CHECK(entry(docker, "NCCL_SOCKET_IFNAME", 123)->value == "^docker0,lo");
  CHECK_FALSE(entry(docker, "NCCL_SOCKET_IFNAME", 100));
  REQUIRE(entry(docker, "NCCL_SOCKET_IFNAME", 208));
  tr::Translation td = translate(docker, "", "nccl");
  bool env_wins = false;
  for (const auto& l : td.env)
    if (l.name == "NCCL_SOCKET_IFNAME") env_wins = l.value == "^docker,lo";
  CHECK(env_wins);
}

TEST_CASE("class 8: a Dockerfile's ENV lines are settings, ARG and RUN steps are not") {
  // GoogleCloudPlatform/PerfKitBenchmarker p6.dockerfile: ENV with
  // continuation lines; ARG NCCL_VERSION is a build argument.
  auto in = read("pkb-82-p6.Dockerfile");
  REQUIRE(entry(in, "NCCL_SOCKET_IFNAME", 137));  // inside a continued ENV
  CHECK(entry(in, "NCCL_SOCKET_IFNAME", 137)->value == "^docker,lo,veth");
  REQUIRE(entry(in, "NCCL_DEBUG", 149));
  bool arg_note = false;
  for (const auto& n : in.notes) {
    CHECK(n.kind != tr::InputNote::kNotExported);
    if (n.name == "NCCL_VERSION" && n.line == 10) {
      arg_note = n.kind == tr::InputNote::kNotFollowed;
      CHECK_THAT(n.why, Catch::Contains("build argument"));
    }
  }
  CHECK(arg_note);
  CHECK_FALSE(entry(in, "NCCL_VERSION"));
}

TEST_CASE("class 9: Gloo's settings in an HCCL job are Gloo's, not unknown") {
  // vllm-project/vllm-ascend: HCCL with GLOO_SOCKET_IFNAME for the CPU groups.
  tr::Translation t = translate(read("va-89-run_dp_template.sh"), "", "hccl");
  REQUIRE(var(t, "GLOO_SOCKET_IFNAME"));
  CHECK(var(t, "GLOO_SOCKET_IFNAME")->outcome != tr::Outcome::kUnknown);
}
