// `hnprecheck bench` as a user runs it: real ranks, the table, JSON, exit codes.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using hn::test::run_process;

namespace {
hn::test::ProcessResult cli(std::vector<std::string> args, std::vector<std::string> env = {}) {
  return hn::test::run_hnprecheck(std::move(args), 120, env);
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
  r = cli({"bench", "--buffers", "pinned"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--buffers"));
  r = cli({"bench", "-e", "64"}, {"SLURM_PROCID=1", "SLURM_NTASKS=two"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("SLURM_NTASKS"));
  r = cli({"bench", "-e", "64"},
          {"RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=1"});
  CHECK(r.exit_code == 2);  // no token for a multi-rank job
  CHECK_THAT(r.err, Catch::Contains("HN_TOKEN"));
  r = cli({"bench", "-e", "1T", "--local-ranks", "2"});  // more than this host holds
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--maxbytes") && Catch::Contains("of memory"));
  r = cli({"bench", "-b", "8", "-e", "256M", "-f", "1.0001"});  // the sweep would be cut
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--stepfactor"));
}

TEST_CASE("bench: --buffers private runs on heap buffers and says so") {
  for (const char* b : {"window", "private"}) {
    auto r = cli({"bench", "--local-ranks", "2", "--transport", "shm", "-b", "64K", "-e", "256K",
                  "-f", "4", "--buffers", b, "--json", "-"});
    INFO(b << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j.at("buffers") == b);
    for (const auto& row : j.at("rows")) CHECK(row.at("wrong") == 0);
    CHECK_THAT(r.err, Catch::Contains(std::string("# buffers: ") + b));
  }
}

TEST_CASE("bench: --algo staged or cma outside a shared-memory allreduce is exit 2") {
  for (const char* algo : {"staged", "cma"})
    for (std::vector<std::string> extra :
         {std::vector<std::string>{"--transport", "tcp"}, {"--op", "broadcast"}}) {
      std::vector<std::string> args{"bench", "--algo", algo, "-b", "64K", "-e", "64K"};
      args.insert(args.end(), extra.begin(), extra.end());
      auto r = cli(args);
      INFO(algo << " " << extra[1] << ": " << r.err);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains("--algo"));
    }
  auto r = cli({"bench", "--local-ranks", "3", "--transport", "shm", "--algo", "staged", "-b",
                "64K", "-e", "1M", "-f", "16", "--buffers", "private", "--json", "-"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (const auto& row : nlohmann::json::parse(r.out).at("rows")) CHECK(row.at("wrong") == 0);
}

TEST_CASE("bench: a malformed HN_SHM_SINGLE_COPY or HN_SCHED_SLICE_US is exit 2 naming it") {
  struct Case {
    const char* env;
    const char* says;
  };
  for (const Case& c : {Case{"HN_SHM_SINGLE_COPY=no", "expected 0 (off) or 1"},
                        Case{"HN_SCHED_SLICE_US=abc", "expected microseconds"},
                        Case{"HN_SCHED_SLICE_US=200000", "expected microseconds"}}) {
    auto r =
        cli({"bench", "--local-ranks", "2", "--transport", "shm", "-b", "8", "-e", "8"}, {c.env});
    INFO(c.env << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string(c.env).substr(0, std::string(c.env).find('='))));
    CHECK_THAT(r.err, Catch::Contains(c.says));
  }
  auto ok = cli({"bench", "--local-ranks", "2", "--transport", "shm", "-b", "64K", "-e", "64K",
                 "--buffers", "private"},
                {"HN_SHM_SINGLE_COPY=0", "HN_SCHED_SLICE_US=0"});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::Contains("shm copies through the rings"));
}

TEST_CASE("bench: a single rank runs without a launcher") {
  auto r = cli({"bench", "-b", "8", "-e", "64K", "-f", "8", "--iters", "3"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("1 rank(s)"));
}

TEST_CASE("bench: a rank that cannot reach the rendezvous fails within the timeout, naming it") {
  auto r = cli({"bench", "-e", "64", "--timeout", "1", "--rendezvous", "127.0.0.1:1"},
               {"RANK=1", "WORLD_SIZE=2", "HN_TOKEN=4d9f1c2ab37e80561f2c9d4e7a3b8f60"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("connection refused"));
  CHECK_THAT(r.err, Catch::Contains("127.0.0.1:1"));
}

TEST_CASE("bench: link setup follows the translated variables and reports the binding") {
  hn::test::TempDir dir;
  std::string json = dir.path() + "/links.json";
  auto r = cli({"bench", "--local-ranks", "2", "--transport", "tcp", "-b", "8", "-e", "64",
                "--iters", "2", "--json", json},
               {"HCCL_SOCKET_IFNAME==lo", "HCCL_CONNECT_TIMEOUT=5", "NCCL_SOCKET_RETRY_CNT=3",
                "NCCL_SOCKET_RETRY_SLEEP_MSEC=500"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("# link setup: budget 3.00 s (NCCL_SOCKET_RETRY_CNT=3 x "
                                    "NCCL_SOCKET_RETRY_SLEEP_MSEC=500 linear back-off), "
                                    "attempts <= 4 (NCCL_SOCKET_RETRY_CNT=3)"));
  CHECK_THAT(r.out, Catch::Contains("# binding: lo 127.0.0.1 from HCCL_SOCKET_IFNAME==lo"));
  CHECK_THAT(r.out, Catch::Contains("# rank 1 -> rank 0: local 127.0.0.1:"));
  auto j = nlohmann::json::parse(hn::test::read_file(json));
  CHECK(j["link_setup"]["budget_ms"] == 3000);
  CHECK(j["link_setup"]["max_attempts"] == 4);
  CHECK(j["link_setup"]["retry_sleep_ms"] == 500);
  CHECK(j["link_setup"]["bind_interface"] == "lo");
  REQUIRE(j["links"].size() == 2);
  for (const auto& l : j["links"]) {
    CHECK(l["nic"] == "lo");
    CHECK(l["device"] == "lo");
    CHECK(l["local"].get<std::string>().rfind("127.0.0.1:", 0) == 0);
  }
  // An explicit --timeout wins over the environment's budget.
  r = cli({"bench", "--local-ranks", "2", "--transport", "tcp", "-b", "8", "-e", "8", "--iters",
           "1", "--timeout", "30"},
          {"HCCL_CONNECT_TIMEOUT=5"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("# link setup: budget 30.00 s (--timeout), attempts unlimited"));
}

TEST_CASE("bench: a malformed link variable exits 2, a NIC that is not here exits 1") {
  auto r = cli({"bench", "--local-ranks", "2", "-e", "64"}, {"HCCL_CONNECT_TIMEOUT=soon"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("HCCL_CONNECT_TIMEOUT"));
  r = cli({"bench", "--local-ranks", "2", "-e", "64", "--transport", "tcp"},
          {"NCCL_SOCKET_IFNAME==nosuch0"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("no interface"));
  CHECK_THAT(r.err, Catch::Contains("NCCL_SOCKET_IFNAME==nosuch0"));
  r = cli({"bench", "--local-ranks", "2", "-e", "64", "--transport", "tcp"},
          {"HCCL_IF_IP=192.0.2.77"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("HCCL_IF_IP=192.0.2.77: no interface holds 192.0.2.77"));
}

TEST_CASE("bench: HN_RING_SLICE_BYTES sets the TCP ring's slices - a malformed value exits 2") {
  // The override exists to re-measure the slice size on another machine
  // (bench/README.md "Tuning (measured)"): one slice and tiny slices must both stay correct.
  for (const char* v : {"0", "4096"}) {
    INFO(v);
    auto r = cli({"bench", "--local-ranks", "2", "--transport", "tcp", "--op", "allreduce", "-b",
                  "1M", "-e", "1M", "--iters", "2", "--warmup", "2"},
                 {std::string("HN_RING_SLICE_BYTES=") + v});
    INFO(r.err);
    CHECK(r.exit_code == 0);
  }
  for (const char* v : {"96k", "-1", "", "99999999999"}) {
    INFO(v);
    auto r = cli({"bench", "--local-ranks", "2", "--transport", "tcp", "--op", "allreduce", "-b",
                  "1M", "-e", "1M", "--iters", "2"},
                 {std::string("HN_RING_SLICE_BYTES=") + v});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("HN_RING_SLICE_BYTES"));
  }
}

TEST_CASE("bench: --html writes a well-formed page with the busbw chart") {
  hn::test::TempDir dir;
  const std::string html = dir.path() + "/bench.html";
  auto r = cli({"bench", "--local-ranks", "2", "-b", "8", "-e", "64K", "-f", "8", "--html", html});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto lint = hn::test::run_process({"/usr/bin/xmllint", "--noout", html}, 30);
  INFO(lint.err);
  CHECK(lint.exit_code == 0);
  std::ifstream in(html);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("allreduce, 2 rank(s)") &&
                       Catch::Contains("every element was right") && Catch::Contains("<circle"));
  r = cli({"bench", "-e", "64", "--json", "-", "--html", "-"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--html"));
}

TEST_CASE("bench: a --timeout under 1 ms is refused, not truncated to a zero deadline") {
  auto r = cli({"bench", "-e", "64", "--timeout", "0.0001"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--timeout") && Catch::Contains("at least 1 ms"));
}
