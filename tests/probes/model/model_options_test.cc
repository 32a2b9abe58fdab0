// From profile and command line to the phase's options: precedence, the
// checkpoint directory's sources, and bad input named by option or field.
#include "probes/model/model_options.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "tests/support/temp_dir.h"

using namespace hn::probes;
using namespace hn::formats;
using model::ModelOverrides;
using model::resolve_model;

namespace {

Profile profile(const std::string& text) {
  return parse_profile("version: 1\n" + text, "cluster.yaml");
}

std::string error(const Profile& p, const ModelOverrides& cli, int world) {
  try {
    resolve_model(p, cli, world);
  } catch (const hn::compat::InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("model options: defaults, the profile, then the command line") {
  auto r = resolve_model(profile(""), {}, 4);
  CHECK(r.options.layout.to_string() == "tp=1,pp=1,dp=4,ep=4");  // experts over every replica
  CHECK(r.options.spec.steps == 20);
  CHECK(r.options.matrix->backend == "reference-cpu");
  CHECK(r.options.checkpoint_dir.empty());
  CHECK(r.checkpoint_source.empty());

  Profile p = profile(
      "storage:\n  mounts:\n    - {path: /mnt/shared, probe_dir: /mnt/shared/.probe}\n"
      "model: {layout: tp=2, steps: 7, backend: example-npu}\n");
  r = resolve_model(p, {}, 2);
  CHECK(r.options.layout.tp == 2);
  CHECK(r.options.spec.steps == 7);
  CHECK(r.options.matrix->backend == "example-npu");
  CHECK(r.options.checkpoint_dir == "/mnt/shared/.probe");
  CHECK(r.checkpoint_source == "storage mount /mnt/shared");

  ModelOverrides cli;
  cli.layout = "pp=2";
  cli.steps = 3;
  cli.checkpoint_dir = "/scratch/ckpt";
  cli.backend = "reference-cpu";
  r = resolve_model(p, cli, 2);
  CHECK(r.options.layout.pp == 2);
  CHECK(r.options.spec.steps == 3);
  CHECK(r.options.matrix->backend == "reference-cpu");
  CHECK(r.options.checkpoint_dir == "/scratch/ckpt");
  CHECK(r.checkpoint_source == "--checkpoint-dir");

  Profile with_dir = profile("model: {checkpoint: {dir: /ckpt}}\n");
  CHECK(resolve_model(with_dir, {}, 1).checkpoint_source == "model.checkpoint.dir");
}

TEST_CASE("model options: a matrix file is loaded and owned") {
  hn::test::TempDir tmp;
  const std::string path = tmp.write(
      "m.yaml",
      "version: 1\nbackend: tiny\ndefault_replacement: none\nops:\n  matmul:\n    dtypes: [f32]\n");
  ModelOverrides cli;
  cli.matrix_file = path;
  auto r = resolve_model(profile(""), cli, 1);
  REQUIRE(r.matrix);
  CHECK(r.options.matrix == r.matrix.get());
  CHECK(r.options.matrix->backend == "tiny");
}

TEST_CASE("model options: bad input names the option or the profile field and the numbers") {
  ModelOverrides cli;
  cli.layout = "tp=2,pp=2,dp=2";
  CHECK_THAT(
      error(profile(""), cli, 4),
      Catch::Contains("--layout: model.layout: layout tp=2,pp=2,dp=2: tp=2 x pp=2 x dp=2 = 8 "
                      "ranks, but the job has 4"));
  cli.layout = "pp=4";
  CHECK_THAT(error(profile(""), cli, 4),
             Catch::Contains("--layout: model.size.layers: 2 is not divisible by pp=4"));
  CHECK_THAT(error(profile("model:\n  steps: 3\n  layout: dp=8\n"), {}, 4),
             Catch::StartsWith("cluster.yaml:4: model.layout: layout tp=1,pp=1,dp=8"));
  cli = {};
  cli.steps = 0;
  CHECK_THAT(error(profile(""), cli, 1), Catch::Contains("--steps: must be in [1, 100000], got 0"));
  cli = {};
  cli.checkpoint_dir = "relative/dir";
  CHECK_THAT(error(profile(""), cli, 1),
             Catch::Contains("--checkpoint-dir: must be an absolute path"));
  cli = {};
  cli.backend = "reference-cpu";
  cli.matrix_file = "/m.yaml";
  CHECK_THAT(error(profile(""), cli, 1), Catch::Contains("--backend or --matrix, not both"));
  cli = {};
  cli.backend = "tpu";
  CHECK_THAT(error(profile(""), cli, 1), Catch::Contains("tpu"));
  cli = {};
  cli.matrix_file = "/nonexistent/m.yaml";
  CHECK_THAT(error(profile(""), cli, 1), Catch::Contains("/nonexistent/m.yaml"));
}

TEST_CASE("model options: a group on a plane binds to this node's address there") {
  Profile p = profile(
      "planes:\n  - {name: hccs, type: parameter, subnet: 10.1.0.0/24}\n"
      "nodes:\n  - {name: n0, addresses: {hccs: 10.1.0.5}}\n  - {name: n1}\n"
      "model:\n  layout: tp=2\n  planes: {tp: hccs}\n");
  auto r = resolve_model(p, {}, 2, p.find_node("n0"));
  REQUIRE(r.options.group_links.size() == 1);
  const auto& l = r.options.group_links.at(hn::stack::framework::GroupKind::kTensor);
  CHECK(l.plane == "hccs");
  CHECK(l.bind_address == "10.1.0.5");
  CHECK(l.bind_source == "model.planes.tp");
  CHECK_THAT(error(p, {}, 2), Catch::Contains("model.planes.tp: plane hccs has no address for this "
                                              "host (no profile node)"));
  try {
    resolve_model(p, {}, 2, p.find_node("n1"));
    FAIL("accepted");
  } catch (const hn::compat::InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("plane hccs has no address for node n1"));
  }
}
