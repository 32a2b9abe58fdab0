// `hnprecheck certify`: certify a whole cluster through the seven-layer stack,
// one process per rank (srun, mpirun, torchrun-style variables, a Kubernetes
// indexed job, or --local-ranks N here). The phases live in preflight/certify/.
#include <openssl/evp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/units.h"
#include "preflight/certify/host_jobs.h"
#include "preflight/certify/phase.h"
#include "preflight/certify/run.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/report_output.h"
#include "reports/certificate.h"
#include "reports/certify_page.h"
#include "stack/l2_framework/layout.h"
#include "stack/l3_comm/bootstrap.h"
#include "stack/l5_sched/identity.h"
#include "stack/l5_sched/local_launcher.h"

namespace hn::preflight::commands {

namespace {

namespace cert = certify;
namespace comm = stack::comm;
namespace sched = stack::sched;

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw compat::InputError("command line", 0, 0, field, what);
}

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 of the profile failed");
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned int i = 0; i < len; ++i) s += {hex[md[i] >> 4], hex[md[i] & 15]};
  return s;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string certificate_launcher(sched::Launcher l) {
  switch (l) {
    case sched::Launcher::kOpenMpi:
      return "mpirun";
    case sched::Launcher::kNone:
      return "local";
    default:
      return std::string(sched::to_string(l));
  }
}

struct Parsed {
  cert::CertifyOptions options;
  comm::BootstrapInputs boot;
  int local_ranks = 0;
  std::string certificate;
};

Parsed parse(const po::variables_map& vm) {
  Parsed p;
  auto& o = p.options;
  check_output_options(vm);
  if (vm.count("certificate"))
    check_output_path("--certificate", p.certificate = vm["certificate"].as<std::string>());
  std::string text, source;
  if (vm.count("profile")) {
    source = vm["profile"].as<std::string>();
    text = compat::read_text_file(source);
  } else {
    source = "embedded:default";
    text = formats::default_profile_text();
  }
  o.profile = std::make_shared<formats::Profile>(formats::parse_profile(text, source));
  o.profile_sha256 = sha256_hex(text);
  o.run_timeout = timeout_from(vm);
  const double link = vm["link-timeout"].as<double>();
  if (!(link >= 0.1 && link <= 3600)) bad("--link-timeout", "must be in [0.1, 3600] seconds");
  o.link_budget = std::chrono::milliseconds(static_cast<long long>(link * 1000));
  for (const auto& s : split_list(vm["sizes"].as<std::string>())) {
    try {
      o.sizes.push_back(compat::parse_size(s));
    } catch (const std::invalid_argument& e) {
      bad("--sizes", e.what());
    }
    if (o.sizes.back() == 0 || o.sizes.back() > (1ull << 30)) bad("--sizes", "each in [1, 1G]");
  }
  if (o.sizes.empty()) bad("--sizes", "needs at least one size");
  std::sort(o.sizes.begin(), o.sizes.end());
  o.ops = split_list(vm["ops"].as<std::string>());
  if (o.ops.empty()) bad("--ops", "needs at least one collective");
  for (const auto& op : o.ops)
    if (op != "allreduce" && op != "allgather" && op != "reducescatter" && op != "alltoall")
      bad("--ops", "unknown collective '" + op +
                       "' (expected allreduce, allgather, reducescatter or alltoall)");
  o.iters = vm["iters"].as<int>();
  if (o.iters < 1 || o.iters > 10000) bad("--iters", "must be in [1, 10000]");
  if (vm.count("layout")) {
    o.layout = vm["layout"].as<std::string>();
    try {
      stack::framework::parse_layout(o.layout).validate();
    } catch (const stack::framework::LayoutError& e) {
      bad("--layout", e.what());
    }
  }
  if (vm.count("steps")) {
    o.steps = vm["steps"].as<int>();
    if (*o.steps < 1 || *o.steps > 100000) bad("--steps", "must be in [1, 100000]");
  }
  if (vm.count("checkpoint-dir")) {
    o.checkpoint_dir = vm["checkpoint-dir"].as<std::string>();
    if (o.checkpoint_dir.empty() || o.checkpoint_dir[0] != '/')
      bad("--checkpoint-dir", "must be an absolute path");
  }
  for (const char* key : {"only", "skip"}) {
    if (!vm.count(key)) continue;
    auto names = split_list(vm[key].as<std::string>());
    cert::check_phase_names(names, std::string("--") + key);
    (std::string(key) == "only" ? o.only : o.skip).insert(names.begin(), names.end());
  }
  o.strict = vm["strict"].as<bool>();
  o.log_ranks = vm["log-ranks"].as<bool>();
  o.progress = isatty(STDERR_FILENO) && !vm["quiet"].as<bool>();
  if (vm.count("rendezvous")) p.boot.rendezvous = vm["rendezvous"].as<std::string>();
  if (vm.count("token-file")) p.boot.token_file = vm["token-file"].as<std::string>();
  if (vm.count("world-size")) p.boot.world_size = vm["world-size"].as<int>();
  p.local_ranks = vm["local-ranks"].as<int>();
  if (!vm["local-ranks"].defaulted() && (p.local_ranks < 1 || p.local_ranks > 1024))
    bad("--local-ranks", "must be in [1, 1024]");
  return p;
}

int emit(const po::variables_map& vm, const Parsed& p, const cert::RunResult& res) {
  const auto& c = res.certificate;
  reports::Report report;
  report.tool_version = c.tool_version;
  report.command = "certify";
  report.hostname = c.hosts.empty() ? local_hostname() : c.hosts.front().name;
  report.profile = c.profile_source + (c.cluster.empty() ? "" : " (" + c.cluster + ")");
  report.started_unix_ms = c.started_unix_ms;
  report.finished_unix_ms = c.finished_unix_ms;
  report.findings = c.findings;
  report.extra_json["certify"] = reports::certify_extra_json(c);
  // The certify page replaces the generic HTML report.
  po::variables_map formats = vm;
  formats.erase("html");
  std::vector<ExtraOutput> extra;
  if (vm.count("html"))
    extra.push_back({vm["html"].as<std::string>(), reports::render_certify_html(report, c)});
  if (!p.certificate.empty()) extra.push_back({p.certificate, reports::render_certificate(c)});
  bool stdout_taken = false;
  for (const char* f : {"json", "junit", "ctrf", "markdown", "html", "prometheus"})
    if (vm.count(f) && vm[f].as<std::string>() == "-") stdout_taken = true;
  if (p.certificate == "-") stdout_taken = true;
  std::ostream& os = stdout_taken ? std::cerr : std::cout;
  int code = res.exit_code;
  try {
    emit_report(report, formats, stdout_taken, extra);
  } catch (const std::runtime_error& e) {
    std::cerr << "hnprecheck certify: " << e.what() << "\n";
    code = 3;
  }
  const bool no_color = vm["no-color"].as<bool>() || std::getenv("NO_COLOR");
  os << reports::render_certify_summary(c, res.exit_code,
                                        !no_color && isatty(stdout_taken ? 2 : 1));
  os.flush();
  return code;
}

int run_rank(const po::variables_map& vm, const Parsed& p) {
  // The agent first: it must be forked while this process has one thread.
  cert::HostAgent agent(cert::host_jobs(p.options));
  auto b = comm::bootstrap_from_env(sched::process_env(), p.boot);
  comm::CommOptions o = b.options;
  o.link.plane = "rendezvous";
  o.link.connect_timeout = p.options.link_budget;
  o.link.budget_source = "--link-timeout";
  o.timeout = p.options.link_budget;
  cert::CertifyOptions options = p.options;
  options.launcher = certificate_launcher(b.identity.launcher);
  if (p.local_ranks > 0) options.launcher = "local";
  return cert::run_certify(options, o, agent,
                           [&](const cert::RunResult& r) { return emit(vm, p, r); });
}

// Rank 0 holds two store connections per rank for each rendezvous (the
// control store and each plane's), and every rank one socket per peer of a
// plane: past a few hundred ranks that outgrows the usual soft limit of
// 1024 descriptors. The hard limit is what the administrator allows.
void raise_descriptor_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

int run(const po::variables_map& vm) {
  Parsed p = parse(vm);
  raise_descriptor_limit();
  auto id = sched::detect_identity(sched::process_env(), sched::IdentityOptions{p.boot.world_size});
  // Nothing started us: certify this machine with local ranks (two by default).
  if (p.local_ranks == 0 && id.launcher == sched::Launcher::kNone) p.local_ranks = 2;
  if (p.local_ranks > 0) {
    sched::LaunchOptions lo;
    lo.ranks = p.local_ranks;
    lo.stop_delay = std::chrono::milliseconds(15000);
    // Rank 0 writes the report and carries the verdict: when it is done, so
    // is the run (a stopped rank cannot keep the command from exiting).
    lo.leader = 0;
    auto res = sched::launch_local(lo, [&](int) {
      try {
        return run_rank(vm, p);
      } catch (const compat::InputError& e) {
        std::cerr << "hnprecheck certify: " << e.what() << "\n";
        return 2;
      } catch (const std::exception& e) {
        std::cerr << "hnprecheck certify: could not run: " << e.what() << "\n";
        return 3;
      }
    });
    // The verdict is rank 0's, and so is the exit code: another rank's
    // death is rank 0's CERT-RANK-LOST (exit 1), never its raw status. A rank
    // 0 that died, or ended outside 0-3, left the run incomplete: 3.
    const int zero = res.exit_codes.empty() ? -1 : res.exit_codes[0];
    if (res.signalled.empty() || res.signalled[0] || zero < 0 || zero > 3) {
      std::cerr << "hnprecheck certify: rank 0 "
                << (zero < 0                ? std::string("did not finish")
                    : res.signalled[0]      ? "was ended by signal " + std::to_string(zero - 128)
                                            : "exited with " + std::to_string(zero))
                << "; the run is incomplete (exit 3)\n";
      return 3;
    }
    return zero;
  }
  return run_rank(vm, p);
}

}  // namespace

Command certify() {
  Command c;
  c.name = "certify";
  c.summary =
      "certify a whole cluster through the seven-layer stack: hosts, planes, links, "
      "collectives with traffic proof, storage under load, placement";
  c.usage = "hnprecheck certify [--profile FILE] [--certificate PATH] [--json PATH] [options]";
  c.details =
      "One process per rank, started by srun, mpirun, torchrun-style variables (RANK,\n"
      "WORLD_SIZE, MASTER_ADDR, MASTER_PORT with HN_TOKEN), a Kubernetes indexed job\n"
      "(--world-size), or --local-ranks N here; with no launcher it forks 2 ranks here.\n"
      "Phases, in layered order (a phase that cannot be meaningful after an earlier failure\n"
      "is SKIP, naming it): hosts (the node checks on every host), cross_host (consistency,\n"
      "duplicate addresses, subnets, coverage), links (per parameter/data plane: ring and\n"
      "log2 partners, bound to the plane NIC and address, failures classified), bandwidth\n"
      "(the hosts' links measured in matching rounds; a slow host, pair or group located\n"
      "and measured again before it fails; the line rate; every pair's bytes proven on\n"
      "the plane NIC), collectives (allreduce, allgather, reduce-scatter, all-to-all\n"
      "verified, busbw against the profile, bytes per NIC proving the plane carried them),\n"
      "storage (jitter on every host at once, alone and under collective load), model (the\n"
      "bundled model trained with the job's layout, a checkpoint round trip), and\n"
      "placement (tensor-parallel groups within one topology domain). Rank 0 prints the\n"
      "report and writes the files; --certificate writes the versioned certificate that\n"
      "`gate` and `migrate` read (docs/certificate-schema.md).";
  c.exit_codes =
      "Exit codes (the verdict's):\n"
      "  0  certified: every phase this cluster can run ran, every check passed (warnings\n"
      "     allowed unless --strict); or partial: every check that ran passed, but phases\n"
      "     were left out (--only/--skip, one host only) or declared nodes absent (exit 1\n"
      "     with --strict); the summary says which\n"
      "  1  not certified: a check failed (or warned, with --strict), a rank was lost\n"
      "  2  bad usage or invalid input, or a profile that does not match the job (a host\n"
      "     that is none of its nodes)\n"
      "  3  the run could not complete (a phase could not run, --timeout ran out, rank 0\n"
      "     died, a file could not be written)\n";
  c.add_options = [](po::options_description& d, po::positional_options_description&) {
    d.add_options()("profile", po::value<std::string>()->value_name("FILE"),
                    "cluster profile (YAML, version 1); default: the embedded profile for this "
                    "machine")("certificate", po::value<std::string>()->value_name("PATH"),
                               "write the certificate (JSON, docs/certificate-schema.md; '-' = "
                               "stdout)");
    add_report_options(d);
    add_timeout_option(d, 900,
                       "deadline for the whole run; phases that cannot start by then are "
                       "ERROR and the run exits 3");
    d.add_options()("link-timeout", po::value<double>()->default_value(10)->value_name("SECONDS"),
                    "link-setup budget of each plane link and of the rendezvous")(
        "sizes", po::value<std::string>()->default_value("64K,1M,16M")->value_name("LIST"),
        "collective sizes (nccl-tests size, per rank)")(
        "ops",
        po::value<std::string>()
            ->default_value("allreduce,allgather,reducescatter,alltoall")
            ->value_name("LIST"),
        "collectives to run and verify on each plane")(
        "iters", po::value<int>()->default_value(5)->value_name("N"), "timed iterations per size")(
        "layout", po::value<std::string>()->value_name("LAYOUT"),
        "the job's parallel layout, tp=2,pp=2,dp=2 (Megatron rank order): the model phase trains "
        "with it and placement checks its tensor-parallel groups against the profile's "
        "topology domains (default: the profile's model.layout; without one, dp = every rank)")(
        "steps", po::value<int>()->value_name("N"),
        "training steps of the model phase (default: the profile's model.steps, else 20)")(
        "checkpoint-dir", po::value<std::string>()->value_name("DIR"),
        "where the model phase writes and reads back its checkpoint, on the shared mount "
        "(default: model.checkpoint.dir, else the first storage mount's probe_dir, else none)")(
        "only", po::value<std::string>()->value_name("PHASES"),
        "run only these phases (comma-separated: hosts, cross_host, links, bandwidth, "
        "collectives, storage, model, placement); the others are SKIP")(
        "skip", po::value<std::string>()->value_name("PHASES"), "skip these phases")(
        "local-ranks", po::value<int>()->default_value(0)->value_name("N"),
        "fork N ranks on this machine (default without a launcher: 2)")(
        "rendezvous", po::value<std::string>()->value_name("HOST:PORT"),
        "rank 0's store (default: MASTER_ADDR/MASTER_PORT or the first host of "
        "SLURM_JOB_NODELIST)")("token-file", po::value<std::string>()->value_name("PATH"),
                               "job token file (default: HN_TOKEN)")(
        "world-size", po::value<int>()->value_name("N"), "world size for Kubernetes indexed jobs")(
        "log-ranks", po::bool_switch(), "every rank logs its phases on stderr");
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
