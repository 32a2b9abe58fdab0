// `hnprecheck bench` as a user runs it: real ranks, the table, JSON, exit codes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;

namespace {
hn::test::ProcessResult cli(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), HN_BINARY);
  return run_process(args, 120, env);
}
}  // namespace

TEST_CASE("bench: every collective on local ranks, checked, exit 0, JSON rows") {
  hn::test::TempDir dir;
  for (const char* op :
       {"allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall", "sendrecv"}) {
    for (const char* transport : {"shm", "tcp"}) {
      INFO(op << " " << transport);
      std::string json = dir.path() + "/" + op + transport + ".json";
      auto r = cli({"bench", "--op",        op,        "--local-ranks",
                    "3",     "--transport", transport, "-b",
                    "8",     "-e",          "1M",      "-f",
                    "32",    "--iters",     "2",       "--warmup",
                    "1",     "--dtype",     "bf16",    "--redop",
                    "max",   "--json",      json});
      INFO(r.out << r.err);
      REQUIRE(r.exit_code == 0);
      CHECK_THAT(r.out, Catch::Contains("out of bounds values: 0 OK"));
      auto j = nlohmann::json::parse(hn::test::read_file(json));
      CHECK(j["ranks"] == 3);
      CHECK(j["transport"] == transport);
      CHECK(j["rows"].size() == 4);  // 8, 256, 8K, 256K
      CHECK(j["wrong_total"] == 0);
      for (const auto& row : j["rows"]) CHECK(row["wrong"] == 0);
    }
  }
}

TEST_CASE("bench: bad options and malformed launcher variables exit 2, naming them") {
  auto r = cli({"bench", "-b", "12Q"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--minbytes"));
  r = cli({"bench", "--dtype", "f8"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--dtype"));
  r = cli({"bench", "--op", "scan"});
  CHECK(r.exit_code == 2);
  r = cli({"bench", "-b", "1M", "-e", "1K"});
  CHECK(r.exit_code == 2);
  r = cli({"bench", "--transport", "rdma"});
  CHECK(r.exit_code == 2);
  r = cli({"bench", "-e", "64"}, {"SLURM_PROCID=1", "SLURM_NTASKS=two"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("SLURM_NTASKS"));
  r = cli({"bench", "-e", "64"},
          {"RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=1"});
  CHECK(r.exit_code == 2);  // no token for a multi-rank job
  CHECK_THAT(r.err, Catch::Contains("HN_TOKEN"));
}

TEST_CASE("bench: a single rank runs without a launcher") {
  auto r = cli({"bench", "-b", "8", "-e", "64K", "-f", "8", "--iters", "3"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("1 rank(s)"));
}

TEST_CASE("bench: a rank that cannot reach the rendezvous fails within the timeout, naming it") {
  auto r = cli({"bench", "-e", "64", "--timeout", "1", "--rendezvous", "127.0.0.1:1"},
               {"RANK=1", "WORLD_SIZE=2", "HN_TOKEN=x"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("connection refused"));
  CHECK_THAT(r.err, Catch::Contains("127.0.0.1:1"));
}
