// gather_scale: how certify's rank 0 gathers one report per rank as the job
// grows. Rank 0 (one process) hosts the rendezvous store and runs the real
// gather (drivers/cluster/gather.h: bounded fan-in, each payload parsed
// into findings as it arrives, as the hosts phase does); N clients (threads
// of a second process, each a real authenticated store client with its watch
// channel) submit a payload the size and shape of a real host's hosts-phase
// result (findings plus its live snapshot).
//
//   build/bin/gather_scale [--clients 64,256,1024] [--repeat 3] [--fan-in 64]
//                          [--findings 40] [--snapshot-bytes 10000] [--json PATH]
//
// Per client count: the join time (every client connected and authenticated),
// the gather time (rank 0 says go -> every payload read and parsed), and
// rank 0's peak resident memory (VmHWM) against its resident memory before
// the store started. Medians over the repeats. Prints a table, then one JSON
// document (also to --json PATH). Asserts nothing: it is a measurement.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "drivers/cluster/gather.h"
#include "reports/catalog.h"
#include "reports/json_report.h"
#include "stack/l3_comm/tcp_store_client.h"
#include "stack/l3_comm/tcp_store_server.h"

namespace comm = hn::stack::comm;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

struct Config {
  std::vector<int> clients = {64, 256, 1024};
  int repeat = 3;
  std::size_t fan_in = 64;
  int findings = 40;
  std::size_t snapshot_bytes = 10000;
  std::string json_path;
};

struct Sample {
  double join_ms = 0, gather_ms = 0, rss_before_mb = 0, peak_mb = 0;
  std::size_t payload_bytes = 0;
  int missing = 0;
};

void raise_fd_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

double status_mb(const char* key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::strlen(key))) / 1024.0;
  return 0;
}

// A host's hosts-phase result: catalog findings with realistic evidence, and
// a snapshot-sized YAML text.
std::string payload(int rank, const Config& cfg) {
  json findings = json::array();
  for (int i = 0; i < cfg.findings; ++i) {
    auto f = hn::reports::make_finding(
        "NET-PLANE-ADDRESS", hn::reports::Status::kPass, "eth" + std::to_string(i % 8),
        {{"nic", "eth" + std::to_string(i % 8)},
         {"address", "10.10." + std::to_string(rank / 250) + "." + std::to_string(rank % 250)},
         {"prefix_len", "24"},
         {"subnet", "10.10.0.0/16"},
         {"plane", "param" + std::to_string(i % 4)}});
    f.host = "host" + std::to_string(rank);
    f.metrics["elapsed"] = {0.25 * i, "ms"};
    findings.push_back(hn::reports::finding_to_json(f));
  }
  std::string snap = "version: 1\nhostname: host" + std::to_string(rank) + "\n";
  while (snap.size() < cfg.snapshot_bytes)
    snap += "  - {name: eth" + std::to_string(snap.size() % 97) +
            ", mtu: 9000, oper_state: up, rx_bytes: 123456789, tx_bytes: 987654321}\n";
  return json{{"findings", findings}, {"snapshot", snap}}.dump();
}

comm::Credentials creds(int world) {
  comm::Credentials c;
  c.token = "gather-scale-bench-token";
  c.job_id = "gather-scale";
  c.world = world;
  return c;
}

comm::LinkParams params() {
  comm::LinkParams p;
  p.connect_timeout = milliseconds(60000);
  return p;
}

// The clients' process: n threads, ranks 1..n.
[[noreturn]] void clients_main(int port, int n, const Config& cfg) {
  raise_fd_limit();
  std::vector<std::thread> threads;
  for (int r = 1; r <= n; ++r)
    threads.emplace_back([=, &cfg] {
      try {
        comm::TcpStoreClient c("127.0.0.1", port, params(), creds(n + 1), r);
        const std::string body = payload(r, cfg);
        c.set("ready/" + std::to_string(r), "1");
        c.get("go", milliseconds(120000));
        c.set(hn::drivers::cluster::gather_key("res", r), body);
        c.get("done", milliseconds(120000));
        c.close(true);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "client %d: %s\n", r, e.what());
      }
    });
  for (auto& t : threads) t.join();
  _exit(0);
}

// Rank 0's process; writes one JSON line of results to `out`.
[[noreturn]] void root_main(int n, const Config& cfg, int out, int port_pipe) {
  raise_fd_limit();
  Sample s;
  s.rss_before_mb = status_mb("VmRSS:");
  comm::Fd listener = comm::listen_on("127.0.0.1", 0, params(), {});
  const int port = comm::local_port_of(listener.get());
  if (write(port_pipe, &port, sizeof port) != sizeof port) _exit(3);
  comm::TcpStoreServer server(std::move(listener), creds(n + 1), milliseconds(60000), "bench");
  comm::TcpStoreClient store("127.0.0.1", port, params(), creds(n + 1), 0);
  std::vector<int> ranks;
  std::vector<std::string> ready;
  for (int r = 1; r <= n; ++r) {
    ranks.push_back(r);
    ready.push_back("ready/" + std::to_string(r));
  }
  const auto j0 = Clock::now();
  store.wait(ready, milliseconds(300000));
  s.join_ms = std::chrono::duration<double, std::milli>(Clock::now() - j0).count();
  std::vector<hn::reports::Finding> kept;  // what rank 0 keeps for the report
  hn::drivers::cluster::GatherOptions o;
  o.fan_in = cfg.fan_in;
  const auto t0 = Clock::now();
  store.set("go", "1");
  auto missing = hn::drivers::cluster::gather(
      store, "res", ranks, t0 + milliseconds(300000), [](int) { return false; },
      [&](int, std::string&& v) {
        s.payload_bytes = v.size();
        json j = json::parse(v);
        for (const auto& f : j.at("findings")) kept.push_back(hn::reports::finding_from_json(f));
      },
      o);
  s.gather_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  s.missing = static_cast<int>(missing.size());
  s.peak_mb = status_mb("VmHWM:");
  store.set("done", "1");
  store.close(true);
  server.wait_departures(Clock::now() + milliseconds(30000));
  std::string line = json{{"join_ms", s.join_ms},
                          {"gather_ms", s.gather_ms},
                          {"rss_before_mb", s.rss_before_mb},
                          {"peak_mb", s.peak_mb},
                          {"payload_bytes", s.payload_bytes},
                          {"missing", s.missing},
                          {"findings_kept", kept.size()}}
                         .dump() +
                     "\n";
  if (write(out, line.data(), line.size()) < 0) _exit(3);
  _exit(0);
}

Sample run_once(int n, const Config& cfg) {
  int res[2], port_pipe[2];
  if (pipe(res) != 0 || pipe(port_pipe) != 0) throw std::runtime_error("pipe");
  pid_t root = fork();
  if (root == 0) {
    close(res[0]);
    close(port_pipe[0]);
    root_main(n, cfg, res[1], port_pipe[1]);
  }
  close(res[1]);
  close(port_pipe[1]);
  int port = 0;
  if (read(port_pipe[0], &port, sizeof port) != sizeof port) throw std::runtime_error("no port");
  close(port_pipe[0]);
  pid_t clients = fork();
  if (clients == 0) clients_main(port, n, cfg);
  std::string text;
  char buf[4096];
  for (ssize_t k; (k = read(res[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(k));
  close(res[0]);
  waitpid(root, nullptr, 0);
  waitpid(clients, nullptr, 0);
  json j = json::parse(text);
  Sample s;
  s.join_ms = j["join_ms"];
  s.gather_ms = j["gather_ms"];
  s.rss_before_mb = j["rss_before_mb"];
  s.peak_mb = j["peak_mb"];
  s.payload_bytes = j["payload_bytes"];
  s.missing = j["missing"];
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<int> int_list(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) out.push_back(std::stoi(x));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "gather_scale: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--clients")
      cfg.clients = int_list(next());
    else if (a == "--repeat")
      cfg.repeat = std::stoi(next());
    else if (a == "--fan-in")
      cfg.fan_in = std::stoul(next());
    else if (a == "--findings")
      cfg.findings = std::stoi(next());
    else if (a == "--snapshot-bytes")
      cfg.snapshot_bytes = std::stoul(next());
    else if (a == "--json")
      cfg.json_path = next();
    else {
      std::cerr << "gather_scale: unknown option " << a
                << "\nusage: gather_scale [--clients 64,256,1024] [--repeat 3] [--fan-in 64] "
                   "[--findings 40] [--snapshot-bytes 10000] [--json PATH]\n";
      return 2;
    }
  }
  json out = {{"fan_in", cfg.fan_in}, {"repeat", cfg.repeat}, {"rows", json::array()}};
  std::printf("# gather_scale: fan-in %zu, %d repeat(s), medians\n", cfg.fan_in, cfg.repeat);
  std::printf("%8s %10s %10s %10s %12s %12s %12s %8s\n", "clients", "payload", "join(ms)",
              "gather(ms)", "per-rank(us)", "rss0(MB)", "peak(MB)", "missing");
  for (int n : cfg.clients) {
    std::vector<double> join, gather, before, peak;
    Sample last;
    for (int k = 0; k < cfg.repeat; ++k) {
      last = run_once(n, cfg);
      join.push_back(last.join_ms);
      gather.push_back(last.gather_ms);
      before.push_back(last.rss_before_mb);
      peak.push_back(last.peak_mb);
    }
    const double g = median(gather);
    std::printf("%8d %10zu %10.1f %10.1f %12.1f %12.1f %12.1f %8d\n", n, last.payload_bytes,
                median(join), g, g * 1000 / n, median(before), median(peak), last.missing);
    out["rows"].push_back({{"clients", n},
                           {"payload_bytes", last.payload_bytes},
                           {"join_ms", median(join)},
                           {"gather_ms", g},
                           {"gather_ms_all", gather},
                           {"rss_before_mb", median(before)},
                           {"peak_mb", median(peak)},
                           {"missing", last.missing}});
  }
  std::cout << out.dump(2) << "\n";
  if (!cfg.json_path.empty()) std::ofstream(cfg.json_path) << out.dump(2) << "\n";
  return 0;
}
