// The rendezvous and its token as a user meets them through `hnprecheck
// bench` (two real ranks, each its own process, as a launcher starts them):
// a stranger's garbage or wrong token while the job forms is refused and
// reported, and the job still runs; a weak token is refused before anything
// listens. Before the v2 handshake, one stranger failed both ranks, blaming
// rank 1, and `hunter2` was accepted.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace {

const std::string kToken = "HN_TOKEN=0f1e2d3c4b5a69788796a5b4c3d2e1f0";

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Connects, sends bytes, reads until the other end closes (at most 2 s).
std::string stranger(int port, const std::string& bytes) {
  for (int i = 0; i < 300; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    timeval tv{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)!write(fd, bytes.data(), bytes.size());
    std::string got;
    char buf[256];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
      got.append(buf, static_cast<std::size_t>(n));
    close(fd);
    return got;
  }
  return "(nobody listened)";
}

hn::test::ProcessResult rank(int r, int port, const std::string& json, const std::string& token) {
  return hn::test::run_hnprecheck(
      {"bench", "-b", "8", "-e", "1K", "-f", "8", "--iters", "2", "--transport", "tcp", "--timeout",
       "20", "--json", json},
      60,
      {"RANK=" + std::to_string(r), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
       "MASTER_PORT=" + std::to_string(port), "TORCHELASTIC_RUN_ID=rendezvous-cli", token});
}

}  // namespace

TEST_CASE("rendezvous: strangers while the job forms are refused, reported, and the job runs") {
  hn::test::TempDir dir;
  const int port = free_port();
  auto r0 = std::async(std::launch::async,
                       [&] { return rank(0, port, dir.path() + "/r0.json", kToken); });
  // Garbage with a terminal escape in it, then a hello with a wrong token's MAC.
  stranger(port, "\x1b]0;pwned\x07GET / HTTP/1.1\r\n\r\n");
  std::string said = stranger(port, std::string("HNPRECK2") + std::string(32, 'n') +
                                        std::string("\0\0\0\1\5store", 10) + std::string(32, 'm'));
  CHECK(said.size() == 41);  // the challenge, one refusal byte, and nothing about the job
  CHECK(said.find("rendezvous-cli") == std::string::npos);
  auto r1 = rank(1, port, dir.path() + "/r1.json", kToken);
  auto a = r0.get();
  INFO("rank 0: " << a.err << "\nrank 1: " << r1.err);
  CHECK(a.exit_code == 0);
  CHECK(r1.exit_code == 0);
  CHECK_THAT(a.err, Catch::Contains("the rendezvous refused 127.0.0.1:") &&
                        Catch::Contains("wrong job token"));
  CHECK(a.err.find('\x1b') == std::string::npos);
  CHECK_THAT(a.out, Catch::Contains("refused 2 connection(s)"));
  auto j = nlohmann::json::parse(hn::test::read_file(dir.path() + "/r0.json"));
  CHECK(j["refused_connections"]["count"] == 2);
  CHECK(j["wrong_total"] == 0);
}

TEST_CASE("rendezvous: a weak job token is exit 2 naming the rule") {
  auto r = hn::test::run_hnprecheck({"bench", "-e", "64", "--rendezvous", "127.0.0.1:1"}, 30,
                                    {"RANK=1", "WORLD_SIZE=2", "HN_TOKEN=hunter2"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("HN_TOKEN") && Catch::Contains("too weak") &&
                        Catch::Contains("at least 32 characters") &&
                        Catch::Contains("openssl rand -hex 32"));
}
