// A Dockerfile's environment as the container it builds starts with.
#include "compat/translate/dockerfile_input.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/translate/env_input.h"

using namespace hn::compat::translate;

namespace {
const EnvEntry* find(const EnvInput& in, const std::string& name) {
  const EnvEntry* out = nullptr;
  for (const auto& e : in.entries)
    if (e.name == name) out = &e;
  return out;
}
const InputNote* note(const EnvInput& in, const std::string& name) {
  for (const auto& n : in.notes)
    if (n.name == name) return &n;
  return nullptr;
}
}  // namespace

TEST_CASE("dockerfile: ENV forms, continuations, comments inside them, expansion") {
  EnvInput in = read_dockerfile_text(
      "FROM ubuntu:22.04\n"
      "ARG IF=eth0\n"
      "ENV NCCL_DEBUG=INFO \\\n"
      "    # a comment inside the instruction\n"
      "    NCCL_SOCKET_IFNAME=$IF \\\n"
      "    NCCL_IB_HCA=\"mlx5_0 mlx5_1\"\n"
      "ENV NCCL_ALGO Ring,Tree\n"
      "env NCCL_PROTO=Simple\n"
      "ENV NCCL_NET_GDR_LEVEL=${LEVEL}\n",
      "Dockerfile");
  REQUIRE(find(in, "NCCL_DEBUG"));
  CHECK(find(in, "NCCL_DEBUG")->line == 3);
  REQUIRE(find(in, "NCCL_SOCKET_IFNAME"));
  CHECK(find(in, "NCCL_SOCKET_IFNAME")->value == "eth0");  // ARG expands
  CHECK(find(in, "NCCL_SOCKET_IFNAME")->line == 5);
  CHECK(find(in, "NCCL_IB_HCA")->value == "mlx5_0 mlx5_1");
  CHECK(find(in, "NCCL_ALGO")->value == "Ring,Tree");  // legacy ENV KEY value
  CHECK(find(in, "NCCL_PROTO")->line == 8);            // keywords are case-insensitive
  CHECK(find(in, "NCCL_NET_GDR_LEVEL")->dynamic);      // a build argument never declared
  CHECK(in.notes.empty());
}

TEST_CASE("dockerfile: only the image's stage counts, with the stages it builds on") {
  EnvInput in = read_dockerfile_text(
      "FROM nvcr.io/nvidia/pytorch:24.01 AS base\n"
      "ENV NCCL_DEBUG=INFO\n"
      "FROM base AS build\n"
      "ENV NCCL_ALGO=Ring\n"
      "FROM base AS final\n"
      "ENV NCCL_PROTO=Simple\n"
      "RUN export NCCL_IB_TIMEOUT=22 && make\n"
      "ARG NCCL_VERSION=2.19\n",
      "Dockerfile");
  CHECK(find(in, "NCCL_DEBUG"));  // from base, which final builds on
  CHECK(find(in, "NCCL_PROTO"));
  CHECK_FALSE(find(in, "NCCL_ALGO"));  // the build stage: not in the image
  REQUIRE(note(in, "NCCL_ALGO"));
  CHECK(note(in, "NCCL_ALGO")->kind == InputNote::kNotFollowed);
  REQUIRE(note(in, "NCCL_IB_TIMEOUT"));
  CHECK_THAT(note(in, "NCCL_IB_TIMEOUT")->why, Catch::Contains("RUN step"));
  REQUIRE(note(in, "NCCL_VERSION"));
  CHECK_THAT(note(in, "NCCL_VERSION")->why, Catch::Contains("build argument"));
}

TEST_CASE("dockerfile: detected by name and content, and a bad quote names its line") {
  CHECK(names_dockerfile("Dockerfile"));
  CHECK(names_dockerfile("docker/Dockerfile.cuda"));
  CHECK(names_dockerfile("p6.dockerfile"));
  CHECK(names_dockerfile("Containerfile"));
  CHECK_FALSE(names_dockerfile("dockerfile_notes.md"));
  CHECK(detect_format("image", "# licence\n\nFROM ubuntu\n") == InputFormat::kDockerfile);
  CHECK(detect_format("job.sh", "#!/bin/bash\necho FROM here\n") == InputFormat::kScript);
  CHECK(detect_format("image", "FROM ubuntu\nENV A=1\n") == InputFormat::kDockerfile);
  CHECK(input_format_from_string("dockerfile") == InputFormat::kDockerfile);
  CHECK_THROWS_AS(read_dockerfile_text("FROM x\nENV NCCL_DEBUG=\"INFO\n", "Dockerfile"),
                  hn::compat::InputError);
}

TEST_CASE("dockerfile: expansion across instructions shares one budget") {
  // Each ENV doubles A; with a budget per instruction the values (and the
  // memory holding them) would double without end. One budget for the file
  // stops it at the word limit, naming the line: exit 2, not an allocation.
  std::string text = "FROM x\nENV A=" + std::string(1024, 'a') + "\n";
  for (int i = 0; i < 40; ++i) text += "ENV A=$A$A\n";
  CHECK_THROWS_WITH(read_dockerfile_text(text, "Dockerfile"), Catch::Contains("Dockerfile:"));
  // Many copies of a large value: the file's expansion budget, not one per line.
  std::string copies = "FROM x\nENV A=" + std::string(100 << 10, 'a') + "\n";
  for (int i = 0; i < 200; ++i) copies += "ENV B" + std::to_string(i) + "=$A\n";
  CHECK_THROWS_AS(read_dockerfile_text(copies, "Dockerfile"), hn::compat::InputError);
}
