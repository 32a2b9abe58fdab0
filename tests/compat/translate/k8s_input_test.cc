// Kubernetes manifests: containers[].env[] in any workload shape.
#include "compat/translate/k8s_input.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"

using namespace hn::compat::translate;
using hn::compat::InputError;

namespace {
std::string summary(const std::vector<EnvEntry>& es) {
  std::string s;
  for (const auto& e : es)
    s += e.name + "=" + e.value + "@" + std::to_string(e.line) + "[" + e.context + "]" +
         (e.dynamic ? "~" : "") + " ";
  return s;
}

void expect_error(const std::string& text, const std::string& what) {
  INFO(text);
  try {
    parse_k8s_manifest_text(text, "job.yaml");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(what));
  }
}
}  // namespace

TEST_CASE("k8s: a Pod's containers and initContainers") {
  std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - name: precheck
      env:
        - {name: A, value: "1"}
  containers:
    - name: trainer
      image: x
      env:
        - name: NCCL_DEBUG
          value: INFO
        - name: NCCL_IB_TIMEOUT
          value: "22"
        - name: EMPTY
)";
  CHECK(summary(parse_k8s_manifest_text(pod, "pod.yaml")) ==
        "A=1@8[container precheck] NCCL_DEBUG=INFO@13[container trainer] "
        "NCCL_IB_TIMEOUT=22@15[container trainer] EMPTY=@17[container trainer] ");
}

TEST_CASE("k8s: Deployment and Job in one multi-document file") {
  std::string text = R"(apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: web
          env: [{name: A, value: "1"}]
---
apiVersion: batch/v1
kind: Job
spec:
  template:
    spec:
      containers:
        - name: job
          env:
            - name: B
              value: "2"
)";
  CHECK(summary(parse_k8s_manifest_text(text, "x.yaml")) ==
        "A=1@8[container web] B=2@18[container job] ");
}

TEST_CASE("k8s: PyTorchJob replica specs, valueFrom is dynamic") {
  std::string text = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
spec:
  pytorchReplicaSpecs:
    Master:
      template:
        spec:
          containers:
            - name: pytorch
              env:
                - {name: NCCL_SOCKET_IFNAME, value: "^docker,lo"}
                - name: POD_IP
                  valueFrom:
                    fieldRef: {fieldPath: status.podIP}
    Worker:
      template:
        spec:
          containers:
            - name: pytorch
              envFrom: [{configMapRef: {name: nccl}}]
              env:
                - {name: NCCL_SOCKET_IFNAME, value: "^docker,lo"}
)";
  auto es = parse_k8s_manifest_text(text, "job.yaml");
  REQUIRE(es.size() == 3);
  CHECK(es[0].value == "^docker,lo");
  CHECK(es[1].name == "POD_IP");
  CHECK(es[1].dynamic);
  CHECK_THAT(es[1].value, Catch::Contains("status.podIP"));
  CHECK(es[1].line == 12);  // the line that names it
  CHECK(es[2].line == 22);
  CHECK(es[2].where() == "job.yaml:22 (container pytorch)");
}

TEST_CASE("k8s: malformed manifests are errors with file and line") {
  expect_error(
      "kind: Pod\nspec:\n  containers:\n    - name: c\n      env:\n        - {value: \"1\"}\n",
      "job.yaml:6:11: containers[0].env[0].name: missing the variable name");
  expect_error(
      "spec:\n  containers:\n    - name: c\n      env:\n        - {name: A, valu: \"1\"}\n",
      "job.yaml:5:21: containers[0].env[0].valu: unknown key 'valu'");
  expect_error("spec:\n  containers:\n    - name: c\n      env:\n        - {name: A, value: 8}\n",
               "job.yaml:5:28: containers[0].env[0].value: '8' is not a string");
  expect_error(
      "spec:\n  containers:\n    - name: c\n      env:\n        - {name: A, value: true}\n",
      "quote it (\"true\")");
  expect_error("spec:\n  containers:\n    - name: c\n      env: {A: 1}\n",
               "job.yaml:4:12: containers[0].env: expected a list");
  expect_error("spec:\n  containers:\n    - name: c\n      env:\n        - {name: A, value: [1]}\n",
               "expected a string");
  expect_error(
      "spec:\n  containers:\n    - name: c\n      env:\n        - name: A\n          value: "
      "\"1\"\n          valueFrom: {x: y}\n",
      "has both value and valueFrom");
  expect_error("spec:\n  containers: [\n", "job.yaml:3:");
}

TEST_CASE("k8s: quoted numbers and manifests without env are fine") {
  CHECK(summary(parse_k8s_manifest_text(
            "spec:\n  containers:\n    - name: c\n      env:\n        - {name: A, value: '8'}\n",
            "x")) == "A=8@5[container c] ");
  CHECK(parse_k8s_manifest_text("kind: ConfigMap\ndata: {A: b}\n", "x").empty());
  CHECK(parse_k8s_manifest_text("", "x").empty());
}

// Found by fuzz_k8s_manifest: a ConfigMap without `data` threw YAML's
// InvalidNode out of the reader, and a reference to yaml-cpp's iterator proxy
// outlived its statement in the ConfigMap walk (ASan stack-use-after-scope).
TEST_CASE("k8s: ConfigMaps read through envFrom - missing data and a repeated name") {
  const std::string pod = R"(---
kind: Pod
spec:
  containers:
    - name: c
      envFrom: [{configMapRef: {name: nccl}, prefix: X_}]
)";
  SECTION("a ConfigMap without data gives no variables and no note") {
    EnvInput in = read_manifest_text("kind: ConfigMap\nmetadata: {name: nccl}\n" + pod, "x");
    CHECK(in.entries.empty());
    CHECK(in.notes.empty());
  }
  SECTION("the later of two ConfigMaps with one name wins") {
    EnvInput in = read_manifest_text(
        "kind: ConfigMap\nmetadata: {name: nccl}\ndata: {A: '1'}\n---\n"
        "kind: ConfigMap\nmetadata: {name: nccl}\ndata: {B: '2', C: null}\n" +
            pod,
        "x");
    CHECK(summary(in.entries) == "X_B=2@7[container c via ConfigMap nccl] ");
    REQUIRE(in.notes.size() == 1);
    CHECK(in.notes[0].name == "X_C");
  }
  SECTION("a ConfigMap whose name is not a string is not collected") {
    EnvInput in =
        read_manifest_text("kind: ConfigMap\nmetadata: {name: [x]}\ndata: {A: '1'}\n" + pod, "x");
    CHECK(in.entries.empty());
    REQUIRE(in.notes.size() == 1);
    CHECK_THAT(in.notes[0].why, Catch::Contains("that ConfigMap is not in this file"));
  }
}

TEST_CASE("k8s: each container is its own environment, so different values are alternatives") {
  // A RayCluster-like pair: the head and the workers set NCCL_SOCKET_IFNAME
  // differently, a sidecar sets NCCL_DEBUG; nothing overrides anything.
  std::string text = R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: head
      env:
        - {name: NCCL_SOCKET_IFNAME, value: eth0}
    - name: worker
      env:
        - {name: NCCL_SOCKET_IFNAME, value: ib0}
    - name: sidecar
      env:
        - {name: NCCL_DEBUG, value: WARN}
)";
  auto es = parse_k8s_manifest_text(text, "job.yaml");
  REQUIRE(es.size() == 3);
  CHECK(es[0].scope == "container head");
  CHECK(es[1].scope == "container worker");
  // Through the translator: one variable with two alternatives, no "remove one".
  EnvInput in = read_manifest_text(text, "job.yaml");
  CHECK(in.entries.size() == 3);
}

TEST_CASE("k8s: environment maps under other names, merge keys, and scripts in ConfigMaps") {
  const std::string text = R"(x-common: &common
  NCCL_DEBUG: INFO
  NCCL_SOCKET_IFNAME: eth0
services:
  trainer:
    env_common:
      <<: *common
      NCCL_SOCKET_IFNAME: ib0
    extra_envs:
      NCCL_IB_TIMEOUT: "20"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: launch}
data:
  train.sh: |
    #!/bin/bash
    export NCCL_ALGO=Ring
    torchrun train.py
)";
  EnvInput in = read_manifest_text(text, "job.yaml");
  std::map<std::string, std::string> got;
  for (const auto& e : in.entries) got[e.name + "@" + std::to_string(e.line)] = e.value;
  CHECK(got == std::map<std::string, std::string>{{"NCCL_DEBUG@2", "INFO"},
                                                  {"NCCL_SOCKET_IFNAME@8", "ib0"},
                                                  {"NCCL_IB_TIMEOUT@10", "20"},
                                                  {"NCCL_ALGO@18", "Ring"}});
  // The merged eth0 is shadowed by the map's own ib0: neither a setting nor unread.
  for (const auto& n : in.notes) CHECK(n.kind != InputNote::kUnread);
}

TEST_CASE("k8s: merge keys nested past any real file are an error, not a deep recursion") {
  std::string text = "m0: &m0 {NCCL_DEBUG: INFO}\n";
  for (int i = 1; i <= 40; ++i)
    text += "m" + std::to_string(i) + ": &m" + std::to_string(i) + " {<<: *m" +
            std::to_string(i - 1) + "}\n";
  text += "env_common: {<<: *m40}\n";
  CHECK_THROWS_WITH(read_manifest_text(text, "job.yaml"), Catch::Contains("nested more than 32"));
  // 30 levels are read.
  std::string ok = "m0: &m0 {NCCL_DEBUG: INFO}\n";
  for (int i = 1; i <= 30; ++i)
    ok += "m" + std::to_string(i) + ": &m" + std::to_string(i) + " {<<: *m" +
          std::to_string(i - 1) + "}\n";
  ok += "env_common: {<<: *m30}\n";
  CHECK(read_manifest_text(ok, "job.yaml").entries.size() == 1);
}
