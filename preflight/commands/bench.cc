// `hnprecheck bench`: an nccl-tests style sweep of one collective on the
// bundled stack, with every size checked against closed-form values.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compat/input_error.h"
#include "compat/units.h"
#include "drivers/comm_bench.h"
#include "preflight/command.h"
#include "preflight/commands/bench_links.h"
#include "preflight/commands/commands.h"
#include "preflight/machine_identity.h"
#include "preflight/report_output.h"
#include "reports/atomic_file.h"
#include "reports/bench_html.h"
#include "stack/l3_comm/bootstrap.h"
#include "stack/l3_comm/cma_allreduce.h"
#include "stack/l3_comm/link_env_params.h"
#include "stack/l3_comm/local_nics.h"
#include "stack/l5_sched/local_launcher.h"

extern char** environ;

namespace hn::preflight::commands {

namespace {

namespace comm = stack::comm;

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw compat::InputError("command line", 0, 0, field, what);
}

template <typename F>
auto parse(const std::string& field, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    bad(field, e.what());
  }
}

struct Parsed {
  drivers::BenchConfig cfg;
  comm::TransportKind transport = comm::TransportKind::kAuto;
  int local_ranks = 0;
  comm::BootstrapInputs boot;
  comm::LinkParams link;         // defaults: --timeout (given or not), --plane
  comm::LinkOverrides link_cli;  // what the command line set explicitly
  std::string json;
  std::string html;
  std::chrono::milliseconds timeout{60000};
  std::size_t ring_bytes = 0;
};

// Each rank holds input, output and check buffers of up to -e bytes (all-to-all
// and all-gather hold that much per rank too); refuse a sweep this host cannot
// hold instead of dying in the allocator or the OOM killer.
void check_memory(std::size_t max_bytes, int ranks_here) {
  constexpr double kBuffersPerRank = 4;
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;  // unknown: let the allocator decide
  double available = static_cast<double>(pages) * static_cast<double>(page);
  double needed = kBuffersPerRank * static_cast<double>(max_bytes) * ranks_here;
  if (needed > available)
    bad("--maxbytes",
        compat::format_size(max_bytes) + " needs about " +
            compat::format_size(static_cast<std::uint64_t>(needed)) + " of memory for " +
            std::to_string(ranks_here) + " rank(s) on this host, and " +
            compat::format_size(static_cast<std::uint64_t>(available)) + " is available");
}

Parsed parse_options(const po::variables_map& vm) {
  Parsed p;
  auto& c = p.cfg;
  c.op = parse("--op", [&] { return drivers::bench_op_from_string(vm["op"].as<std::string>()); });
  c.min_bytes =
      parse("--minbytes", [&] { return compat::parse_size(vm["minbytes"].as<std::string>()); });
  c.max_bytes =
      parse("--maxbytes", [&] { return compat::parse_size(vm["maxbytes"].as<std::string>()); });
  c.factor = vm["stepfactor"].as<double>();
  if (c.min_bytes > c.max_bytes) bad("--minbytes", "is larger than --maxbytes");
  if (!(c.factor >= 1) || !std::isfinite(c.factor)) bad("--stepfactor", "must be a number >= 1");
  if (c.factor == 1 && c.min_bytes != c.max_bytes)
    bad("--stepfactor", "1 only makes sense with -b equal to -e");
  // The sweep is cut at kMaxSweepSizes; say so instead of silently stopping.
  std::size_t steps = drivers::sweep_sizes(c.min_bytes, c.max_bytes, c.factor).size();
  if (steps > drivers::kMaxSweepSizes)
    bad("--stepfactor", "gives more than " + std::to_string(drivers::kMaxSweepSizes) +
                            " sizes between -b and -e; use a larger factor");
  c.options.dtype =
      parse("--dtype", [&] { return stack::op::dtype_from_string(vm["dtype"].as<std::string>()); });
  c.options.op = parse(
      "--redop", [&] { return stack::op::reduce_op_from_string(vm["redop"].as<std::string>()); });
  c.options.algorithm =
      parse("--algo", [&] { return comm::algorithm_from_string(vm["algo"].as<std::string>()); });
  c.options.root = vm["root"].as<int>();
  {
    const std::string b = vm["buffers"].as<std::string>();
    if (b != "window" && b != "private")
      bad("--buffers", "must be window or private, not '" + b + "'");
    c.window_buffers = b == "window";
  }
  c.fresh_inputs = vm["fresh-inputs"].as<bool>();
  c.iters = vm["iters"].as<int>();
  c.warmup = vm["warmup"].as<int>();
  c.check = !vm["no-check"].as<bool>();
  if (c.iters < 1 || c.iters > 1000000) bad("--iters", "must be in [1, 1000000]");
  if (c.warmup < 0 || c.warmup > 1000000) bad("--warmup", "must be in [0, 1000000]");
  p.transport = parse("--transport", [&] {
    return comm::transport_from_string(vm["transport"].as<std::string>());
  });
  // staged is an allreduce over shared memory: say so instead of failing at
  // run time (tcp) or quietly choosing as auto (other collectives).
  if ((c.options.algorithm == comm::Algorithm::kStaged ||
       c.options.algorithm == comm::Algorithm::kCma) &&
      (p.transport == comm::TransportKind::kTcp || c.op != drivers::BenchOp::kAllreduce))
    bad("--algo", std::string(comm::to_string(c.options.algorithm)) +
                      " runs allreduce over shared memory only (--op allreduce, --transport "
                      "shm or auto on one host)");
  p.local_ranks = vm["local-ranks"].as<int>();
  if (vm.count("local-ranks") && !vm["local-ranks"].defaulted() &&
      (p.local_ranks < 1 || p.local_ranks > 1024))
    bad("--local-ranks", "must be in [1, 1024]");
  check_memory(c.max_bytes, std::max(1, p.local_ranks));
  if (vm.count("rendezvous")) p.boot.rendezvous = vm["rendezvous"].as<std::string>();
  if (vm.count("token-file")) p.boot.token_file = vm["token-file"].as<std::string>();
  if (vm.count("world-size")) p.boot.world_size = vm["world-size"].as<int>();
  // The shared reading: at least 1 ms, rounded up, so 0.0001 is refused
  // rather than truncated to a zero deadline.
  p.timeout = timeout_from(vm);
  c.options.timeout = p.timeout;
  // Link setup: explicit options > the environment (link_env_params.h) > defaults.
  if (vm.count("bind-address")) p.link_cli.bind_address = vm["bind-address"].as<std::string>();
  if (vm.count("bind-interface"))
    p.link_cli.bind_interface = vm["bind-interface"].as<std::string>();
  if (!vm["timeout"].defaulted()) p.link_cli.connect_timeout = p.timeout;
  p.link.plane = vm["plane"].as<std::string>();
  p.link.connect_timeout = p.timeout;
  p.link.budget_source = "default: --timeout";
  if (vm.count("shm-ring")) {
    p.ring_bytes =
        parse("--shm-ring", [&] { return compat::parse_size(vm["shm-ring"].as<std::string>()); });
    if (p.ring_bytes < 4096 || (p.ring_bytes & (p.ring_bytes - 1)))
      bad("--shm-ring", "must be a power of two >= 4KiB");
  }
  if (vm.count("json")) check_output_path("--json", p.json = vm["json"].as<std::string>());
  if (vm.count("html")) check_output_path("--html", p.html = vm["html"].as<std::string>());
  if (p.json == "-" && p.html == "-") bad("--html", "and --json cannot both write to stdout ('-')");
  return p;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void print_table(std::ostream& os, const Parsed& p, const comm::Communicator& c,
                 const std::vector<comm::LinkBinding>& links,
                 const std::vector<drivers::BenchRow>& rows) {
  const auto& o = p.cfg.options;
  const bool red = drivers::bench_coll(p.cfg.op).reduces;
  os << "# hnprecheck bench " << drivers::to_string(p.cfg.op) << ": " << c.size()
     << " rank(s), transport " << comm::to_string(c.transport()) << ", algorithm "
     << comm::to_string(o.algorithm) << ", iters " << p.cfg.iters << ", warmup " << p.cfg.warmup
     << "\n";
  if (c.size() > 1)
    os << "# buffers: "
       << (!p.cfg.window_buffers
               ? (comm::cma_available(c)
                      ? "private (heap; shm allreduce straight between the ranks' memory, single "
                        "copy, from 64 KiB with 2 ranks, 256 KiB with more)"
                      : "private (heap; shm copies through the rings, or the staging area)")
           : c.transport() == comm::TransportKind::kShm
               ? "window (shared memory: allreduce from 4 KiB with 2 ranks, 64 KiB with more, "
                 "reads peers' buffers in place)"
               : "window (plain memory over tcp)")
       << "\n";
  if (p.cfg.fresh_inputs)
    os << "# fresh inputs: each rank writes its whole input before every call and reads its "
          "whole output after it (outside the timed region), as a training step does\n";
  if (p.cfg.check)
    os << "# check: inputs differ per rank, element and call; " << drivers::kSpotChecks
       << " elements of every call, and all of one more call per size\n";
  else
    os << "# check: off (--no-check)\n";
  if (c.size() > 1 && c.transport() == comm::TransportKind::kTcp)
    print_link_setup(os, c.link(), links);
  if (c.rejected() > 0)
    os << "# rank 0 refused " << c.rejected()
       << " connection(s) that did not prove the job token (not ranks of this job)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%12s %12s %6s %6s %12s %10s %10s %8s\n", "size(B)", "count",
                "type", "redop", "time(us)", "algbw", "busbw", "#wrong");
  os << line;
  std::snprintf(line, sizeof line, "%12s %12s %6s %6s %12s %10s %10s %8s\n", "", "(elements)", "",
                "", "", "(GB/s)", "(GB/s)", "");
  os << line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%12zu %12zu %6s %6s %12.2f %10.3f %10.3f %8s\n", r.bytes,
                  r.count, std::string(stack::op::to_string(o.dtype)).c_str(),
                  red ? std::string(stack::op::to_string(o.op)).c_str() : "none", r.time_us,
                  r.algbw, r.busbw, r.wrong < 0 ? "n/a" : std::to_string(r.wrong).c_str());
    os << line;
  }
  long long wrong = 0;
  double bus = 0;
  for (const auto& r : rows) {
    wrong += std::max(0LL, r.wrong);
    bus += r.busbw;
  }
  os << "# out of bounds values: " << wrong << (wrong ? " FAILED" : " OK") << "\n";
  os << "# average bus bandwidth: " << fmt("%.3f", rows.empty() ? 0 : bus / rows.size())
     << " GB/s\n";
}

std::string to_json(const Parsed& p, const comm::Communicator& c,
                    const std::vector<comm::LinkBinding>& links,
                    const std::vector<drivers::BenchRow>& rows) {
  const auto& o = p.cfg.options;
  nlohmann::json j = {{"tool", "hnprecheck"},
                      {"command", "bench"},
                      {"version", tool_version()},
                      {"machine", machine_identity()},
                      {"op", drivers::to_string(p.cfg.op)},
                      {"ranks", c.size()},
                      {"transport", comm::to_string(c.transport())},
                      {"algorithm", comm::to_string(o.algorithm)},
                      {"buffers", p.cfg.window_buffers ? "window" : "private"},
                      {"fresh_inputs", p.cfg.fresh_inputs},
                      {"dtype", stack::op::to_string(o.dtype)},
                      {"redop", stack::op::to_string(o.op)},
                      {"iters", p.cfg.iters},
                      {"warmup", p.cfg.warmup},
                      {"link_setup", link_setup_json(c.link())},
                      {"links", links_json(links)},
                      {"rows", nlohmann::json::array()}};
  j["refused_connections"] = {{"count", c.rejected()}, {"examples", c.rejections()}};
  long long wrong = 0;
  for (const auto& r : rows) {
    j["rows"].push_back({{"size", r.bytes},
                         {"count", r.count},
                         {"time_us", r.time_us},
                         {"algbw_gbps", r.algbw},
                         {"busbw_gbps", r.busbw},
                         {"wrong", r.wrong},
                         {"wrong_spot", r.wrong_spot}});
    wrong += std::max(0LL, r.wrong);
  }
  j["wrong_total"] = wrong;
  return j.dump(2) + "\n";
}

std::string to_html(const Parsed& p, const comm::Communicator& c,
                    const std::vector<drivers::BenchRow>& rows) {
  const auto& o = p.cfg.options;
  reports::BenchHtml page;
  page.title = std::string(drivers::to_string(p.cfg.op)) + ", " + std::to_string(c.size()) +
               " rank(s), " + std::string(comm::to_string(c.transport()));
  page.setup = {"dtype " + std::string(stack::op::to_string(o.dtype)) + ", redop " +
                    std::string(stack::op::to_string(o.op)) + ", algorithm " +
                    std::string(comm::to_string(o.algorithm)) + ", iters " +
                    std::to_string(p.cfg.iters) + ", warmup " + std::to_string(p.cfg.warmup),
                "hnprecheck " + std::string(tool_version()) +
                    "; busbw uses the nccl-tests definitions; every size was checked against "
                    "closed-form values"};
  for (const auto& r : rows)
    page.rows.push_back({r.bytes, r.count, r.time_us, r.algbw, r.busbw, r.wrong});
  return reports::render_bench_html(page);
}

int run_rank(const Parsed& p) {
  auto b = comm::bootstrap_from_env(stack::sched::process_env(), p.boot);
  comm::CommOptions o = b.options;
  o.transport = p.transport;
  o.timeout = p.timeout;
  o.link = p.link;
  o.shm_ring_bytes = p.ring_bytes;
  o.on_rejection = [rank = o.rank](const std::string& line) {
    std::cerr << "hnprecheck bench: rank " << rank << ": " << line << "\n";
  };
  if (p.cfg.options.root < 0 || p.cfg.options.root >= o.world)
    bad("--root", "is not a rank of the job");
  int rank = o.rank;
  try {
    // Resolved on every rank: each node has its own NICs and addresses.
    o.link = comm::link_params_from_env(comm::environment_map(environ),
                                        comm::local_nic_candidates(), p.link_cli, p.link);
    comm::Communicator c(o);
    std::vector<comm::LinkBinding> links;
    if (c.size() > 1 && c.transport() == comm::TransportKind::kTcp)
      links = comm::gather_link_bindings(c, o.timeout);
    auto rows = drivers::run_bench(c, p.cfg);
    long long wrong = 0;
    for (const auto& r : rows) wrong += std::max(0LL, r.wrong);
    if (rank == 0) {
      bool stdout_taken = p.json == "-" || p.html == "-";
      print_table(stdout_taken ? std::cerr : std::cout, p, c, links, rows);
      // A FIFO nobody reads fails at the deadline instead of hanging the rank.
      const auto by = std::chrono::steady_clock::now() + o.timeout;
      if (!p.json.empty()) reports::write_output(p.json, to_json(p, c, links, rows), by);
      if (!p.html.empty()) reports::write_output(p.html, to_html(p, c, rows), by);
    }
    return wrong ? 1 : 0;
  } catch (const comm::CommError& e) {
    // The collective failed (dead peer, timeout, bad token): that is a
    // failed check, not a crash.
    std::cerr << "hnprecheck bench: " << e.what() << "\n";
    return 1;
  }
}

int run(const po::variables_map& vm) {
  Parsed p = parse_options(vm);
  if (p.local_ranks > 0) {
    stack::sched::LaunchOptions lo;
    lo.ranks = p.local_ranks;
    auto res = stack::sched::launch_local(lo, [&](int) {
      try {
        return run_rank(p);
      } catch (const compat::InputError& e) {
        std::cerr << "hnprecheck bench: " << e.what() << "\n";
        return 2;
      } catch (const std::exception& e) {
        std::cerr << "hnprecheck bench: could not run: " << e.what() << "\n";
        return 3;
      }
    });
    return res.exit_code;
  }
  return run_rank(p);
}

}  // namespace

Command bench() {
  Command c;
  c.name = "bench";
  c.summary =
      "nccl-tests style sweep of one collective on the bundled stack (size, time, algbw, busbw, "
      "#wrong)";
  c.usage = "hnprecheck bench [--op allreduce] [-b 8] [-e 256M] [-f 2] [--local-ranks N] [options]";
  c.details =
      "Times one collective over a sweep of sizes on real ranks and checks every size against\n"
      "closed-form values. Ranks come from --local-ranks N (forked here), or from the launcher\n"
      "that started this process: srun, mpirun, torchrun, a Kubernetes indexed job (with\n"
      "--world-size). Rank 0 prints the table. Every connection is authenticated with the job\n"
      "token (HN_TOKEN or --token-file; --local-ranks makes one). busbw uses the nccl-tests\n"
      "definitions. Link setup follows the variables `translate` writes: HCCL_CONNECT_TIMEOUT\n"
      "(+20 s budget), NCCL_SOCKET_RETRY_CNT/NCCL_SOCKET_RETRY_SLEEP_MSEC (N+1 attempts, linear\n"
      "back-off), HCCL_IF_IP > HCCL_SOCKET_IFNAME > NCCL_SOCKET_IFNAME (first match by name);\n"
      "explicit options win. The header says where each rank's links bound. Exit 1 when any\n"
      "element is wrong, a collective fails or the configured NIC/address is missing.";
  c.exit_codes =
      "Exit codes:\n"
      "  0  every size ran and every element was right\n"
      "  1  an element was wrong, a collective failed (dead peer, timeout, bad token) or the\n"
      "     configured NIC or address is missing\n"
      "  2  bad usage or invalid input (unknown option, bad size or value, malformed\n"
      "     environment variable)\n"
      "  3  the tool could not run (internal error)\n";
  c.add_options = [](po::options_description& d, po::positional_options_description&) {
    d.add_options()("op", po::value<std::string>()->default_value("allreduce")->value_name("NAME"),
                    "allreduce, reducescatter, allgather, broadcast, reduce, alltoall or sendrecv")(
        "minbytes,b", po::value<std::string>()->default_value("8")->value_name("SIZE"),
        "smallest size (8, 64K, 1M)")(
        "maxbytes,e", po::value<std::string>()->default_value("256M")->value_name("SIZE"),
        "largest size")("stepfactor,f", po::value<double>()->default_value(2)->value_name("F"),
                        "multiply the size by F each step")(
        "dtype,d", po::value<std::string>()->default_value("f32")->value_name("T"),
        "f32, f64, f16, bf16, i32, i64")(
        "redop,o", po::value<std::string>()->default_value("sum")->value_name("OP"),
        "sum, prod, min, max, avg")("iters,n", po::value<int>()->default_value(20)->value_name("N"),
                                    "timed iterations per size")(
        "warmup,w", po::value<int>()->default_value(5)->value_name("N"),
        "untimed iterations per size")(
        "algo", po::value<std::string>()->default_value("auto")->value_name("A"),
        "auto, ring, rd (recursive doubling / binomial tree), staged (allreduce on shm "
        "through the staging area) or cma (allreduce on shm straight between the ranks' "
        "memory, single copy)")(
        "buffers", po::value<std::string>()->default_value("window")->value_name("B"),
        "window (Communicator::alloc_window: on shm, allreduce reads peers' buffers in place) "
        "or private (heap memory aligned as a framework's tensors)")(
        "fresh-inputs", po::bool_switch(),
        "write each rank's whole input before every call and read its whole output after it, "
        "outside the timed region, as a training step does (the ranks meet before and after "
        "each timed call; every call checked in full)")(
        "root", po::value<int>()->default_value(0)->value_name("R"),
        "root of broadcast and reduce")(
        "transport", po::value<std::string>()->default_value("auto")->value_name("T"),
        "tcp, shm or auto (shm when every rank is on this host)")(
        "local-ranks", po::value<int>()->default_value(0)->value_name("N"),
        "fork N ranks on this machine")(
        "rendezvous", po::value<std::string>()->value_name("HOST:PORT"),
        "rank 0's store (default: MASTER_ADDR/MASTER_PORT or the first host of "
        "SLURM_JOB_NODELIST)")("token-file", po::value<std::string>()->value_name("PATH"),
                               "job token file (default: HN_TOKEN)")(
        "world-size", po::value<int>()->value_name("N"), "world size for Kubernetes indexed jobs")(
        "bind-address", po::value<std::string>()->value_name("IP"),
        "bind peer links to this local IP (over HCCL_IF_IP / *_SOCKET_IFNAME)")(
        "bind-interface", po::value<std::string>()->value_name("NIC"),
        "bind peer links to this NIC and its address (over the environment)")(
        "plane", po::value<std::string>()->default_value("default")->value_name("NAME"),
        "plane name for errors")("shm-ring", po::value<std::string>()->value_name("SIZE"),
                                 "shm ring bytes per peer (power of two)")(
        "timeout", po::value<double>()->default_value(60)->value_name("SECONDS"),
        "deadline of each collective; given explicitly, also the link-setup budget (over "
        "HCCL_CONNECT_TIMEOUT / NCCL_SOCKET_RETRY_*)")("no-check", po::bool_switch(),
                                                       "skip the correctness check")(
        "json", po::value<std::string>()->value_name("PATH"),
        "write the table as JSON ('-' = stdout)")(
        "html", po::value<std::string>()->value_name("PATH"),
        "write a self-contained HTML page: busbw by size as a chart, and the table ('-' = "
        "stdout)");
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
