#include "migrate/manifest.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"

using hn::compat::InputError;
using hn::migrate::parse_manifest;

namespace {

// The error a manifest gets, as "file:line: field: what".
std::string error_of(const std::string& text) {
  try {
    parse_manifest(text, "jobs/job.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("manifest: every key, with its line, files relative to the manifest") {
  auto m = parse_manifest(R"(version = 1
name = "gpt"

[launch]
script = "train.sbatch"
env_files = ["a.env", "/etc/b.env"]
k8s = "job.yaml"
from = "nccl"
pg_timeout_s = 1800

[model]
file = "../models/m.onnx"
format = "onnx"

[target]
profile = "cluster.yaml"
matrix = "npu.yaml"
mapping = "map.yaml"
library = "hccl"
platform = "a3"
plane = "param1"
local_port_range = "32768 60999"
reserved_ports = "60000-60031"

[layout]
tp = 8
pp = 4
cp = 2
ep = 1
dp = 3
nodes = 12
ranks_per_node = 16

[storage]
data = "/mnt/shared/data"
checkpoint = "/mnt/shared/ckpt"
load = "/mnt/shared/ckpt/init"
logs = ["/mnt/shared/logs", "train.log"]
checkpoint_size = "1.5TiB"

[observability]
metrics = ["/mnt/shared/tb", "wandb:gpt"]

[evidence]
certificate = "cert.json"
snapshots = ["n0.yaml", "n1.yaml"]
node_reports = "n0.json"
)",
                          "jobs/job.toml");
  REQUIRE(m.name);
  CHECK(m.name->value == "gpt");
  CHECK(m.name->where == "jobs/job.toml:2");
  CHECK(m.script->value == "jobs/train.sbatch");
  CHECK(m.script->where == "jobs/job.toml:5");
  REQUIRE(m.env_files.size() == 2);
  CHECK(m.env_files[0].value == "jobs/a.env");
  CHECK(m.env_files[1].value == "/etc/b.env");
  CHECK(m.k8s->value == "jobs/job.yaml");
  CHECK(m.from->value == "nccl");
  CHECK(m.pg_timeout_s->value == 1800);
  CHECK(m.model->value == "models/m.onnx");
  CHECK(m.model_format->value == "onnx");
  CHECK(m.profile->value == "jobs/cluster.yaml");
  CHECK(m.matrix->value == "jobs/npu.yaml");
  CHECK(m.mapping->value == "jobs/map.yaml");
  CHECK(m.library->value == "hccl");
  CHECK(m.platform->value == "a3");
  CHECK(m.plane->value == "param1");
  CHECK(m.local_port_range->value == "32768 60999");
  CHECK(m.reserved_ports->value == "60000-60031");
  CHECK(m.tp->value == 8);
  CHECK(m.tp->where == "jobs/job.toml:26");
  CHECK(m.pp->value == 4);
  CHECK(m.cp->value == 2);
  CHECK(m.ep->value == 1);
  CHECK(m.dp->value == 3);
  CHECK(m.nodes->value == 12);
  CHECK(m.ranks_per_node->value == 16);
  // Paths on the nodes are taken as written, never resolved.
  REQUIRE(m.data.size() == 1);
  CHECK(m.data[0].value == "/mnt/shared/data");
  CHECK(m.checkpoint->value == "/mnt/shared/ckpt");
  CHECK(m.load->value == "/mnt/shared/ckpt/init");
  REQUIRE(m.logs.size() == 2);
  CHECK(m.logs[1].value == "train.log");
  CHECK(m.checkpoint_size->value == 3ull * (1ull << 39));
  REQUIRE(m.metrics.size() == 2);
  CHECK(m.metrics[1].value == "wandb:gpt");
  CHECK(m.certificate->value == "jobs/cert.json");
  CHECK(m.snapshots.size() == 2);
  REQUIRE(m.node_reports.size() == 1);
  CHECK(m.node_reports[0].value == "jobs/n0.json");
}

TEST_CASE("manifest: only the version is required") {
  auto m = parse_manifest("version = 1\n", "job.toml");
  CHECK_FALSE(m.script);
  CHECK_FALSE(m.model);
  CHECK_FALSE(m.tp);
  CHECK(m.data.empty());
}

TEST_CASE("manifest: bad input names the file, the line and the key") {
  CHECK(error_of("") == "jobs/job.toml:1: version: missing required key (1)");
  CHECK(error_of("version = 2\n") ==
        "jobs/job.toml:1: version: unsupported manifest version (this tool reads 1)");
  CHECK(error_of("version = 1\nnmae = \"x\"\n") ==
        "jobs/job.toml:2: nmae: unknown key 'nmae' (allowed: evidence, launch, layout, model, "
        "name, observability, storage, target, version)");
  CHECK(error_of("version = 1\n[storage]\ncheckpoint_dir = \"/x\"\n") ==
        "jobs/job.toml:3: storage.checkpoint_dir: unknown key 'checkpoint_dir' (allowed: "
        "checkpoint, checkpoint_size, data, load, logs)");
  CHECK(error_of("version = 1\n[layout]\ntp = 8\npp = 0\n") ==
        "jobs/job.toml:4: layout.pp: must be at least 1, got 0");
  CHECK(error_of("version = 1\n[layout]\ntp = \"8\"\n") ==
        "jobs/job.toml:3: layout.tp: expected an integer");
  CHECK(error_of("version = 1\n[storage]\ncheckpoint_size = 700\n") ==
        "jobs/job.toml:3: storage.checkpoint_size: expected a size as a string, e.g. \"700GiB\"");
  CHECK_THAT(error_of("version = 1\n[storage]\ncheckpoint_size = \"7 parsecs\"\n"),
             Catch::StartsWith("jobs/job.toml:3: storage.checkpoint_size: "));
  CHECK(error_of("version = 1\n[launch]\nscript = \"\"\n") ==
        "jobs/job.toml:3: launch.script: must not be empty");
  CHECK(error_of("version = 1\n[launch]\npg_timeout_s = -5\n") ==
        "jobs/job.toml:3: launch.pg_timeout_s: must be a positive number of seconds");
  CHECK(error_of("version = 1\n[target]\nbackend = \"example-npu\"\nmatrix = \"m.yaml\"\n") ==
        "jobs/job.toml:4: target.matrix: give either target.backend or target.matrix, not both");
  CHECK(error_of("version = 1\nlaunch = \"train.sbatch\"\n") ==
        "jobs/job.toml:2: launch: expected a table ([launch])");
  CHECK(error_of("version = 1\n[storage]\ndata = [\"/a\", 3]\n") ==
        "jobs/job.toml:3: storage.data: expected a list of strings");
  CHECK_THAT(error_of("version = 1\n[layout\ntp = 8\n"),
             Catch::StartsWith("jobs/job.toml:2: malformed TOML"));
}

TEST_CASE("manifest: truncated and corrupted manifests raise only input errors") {
  const std::string text = R"(version = 1
name = "gpt"
[launch]
script = "train.sbatch"
env_files = ["a.env"]
[layout]
tp = 8
[storage]
data = ["/mnt/shared/data"]
checkpoint_size = "180GiB"
)";
  auto survives = [](const std::string& t) {
    try {
      parse_manifest(t, "job.toml");
    } catch (const InputError&) {
    }
  };
  for (size_t n = 0; n <= text.size(); ++n) survives(text.substr(0, n));
  std::uint32_t seed = 11;
  const std::string bytes = "\"'[]{}=,.\n #0x-";
  for (int i = 0; i < 2000; ++i) {
    std::string t = text;
    for (int k = 0; k < 2; ++k) {
      seed = seed * 1103515245u + 12345u;
      t[(seed >> 8) % t.size()] = bytes[(seed >> 20) % bytes.size()];
    }
    survives(t);
  }
}
