// `hnprecheck snapshot`: capture this node's state to a YAML file.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "compat/input_error.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/node_sources.h"
#include "preflight/report_output.h"
#include "probes/snapshot.h"
#include "probes/supervised_worker.h"
#include "reports/atomic_file.h"

namespace hn::preflight::commands {

namespace {

// The capture and the file write run in a supervised child: an RDMA query,
// a sensor read or a write to a hung file system can sleep in the kernel
// without bound, and a Prolog that runs `snapshot` must still end by
// --timeout, naming the step that hung. The worker keeps none of our
// descriptors (its stdio is /dev/null), so it hands the YAML back through a
// private temporary file that we created and unlink in any case: the parent
// prints it for `--out -` and reads the summary from it (which re-checks that
// it parses).
std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string read_all_fd(int fd) {
  std::string text;
  char buf[65536];
  off_t at = 0;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::runtime_error(std::string("reading the capture: ") + std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
}

int run(const po::variables_map& vm) {
  if (!vm.count("out"))
    throw compat::InputError("command line", 0, 0, "--out", "is required (a file path or '-')");
  const std::string& out = vm["out"].as<std::string>();
  check_output_path("--out", out);  // before capturing, so a typo costs nothing
  const auto timeout = timeout_from(vm);
  const char* tmpdir = std::getenv("TMPDIR");
  std::string hand_back =
      std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/hnprecheck-snapshot-XXXXXX";
  int hand_fd = mkostemp(hand_back.data(), O_CLOEXEC);
  if (hand_fd < 0)
    throw std::runtime_error("cannot create a temporary file " + hand_back + ": " +
                             std::strerror(errno));
  struct Cleanup {
    int fd;
    std::string path;
    ~Cleanup() {
      close(fd);
      unlink(path.c_str());
    }
  } cleanup{hand_fd, hand_back};
  auto work = [&out, &hand_back](probes::WorkerChannel& ch) {
    ch.step("opening the live sources");
    probes::NodeSources sources = open_live_sources();
    ch.step("reading links, RDMA devices, accelerators, sensors, routes and mounts");
    std::string yaml = probes::snapshot_to_yaml(probes::capture_snapshot(sources, tool_version()));
    int fd = open(hand_back.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("open " + hand_back + ": " + std::strerror(errno));
    for (std::size_t done = 0; done < yaml.size();) {
      ssize_t n = write(fd, yaml.data() + done, yaml.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("write " + hand_back + ": " + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    close(fd);
    if (out == "-") return;
    ch.step("writing " + out);
    reports::write_output(out, yaml);
  };
  std::cout.flush();
  auto r = probes::run_supervised(work, probes::Clock::now() + timeout);
  switch (r.end) {
    case probes::SupervisedRun::End::kCompleted: {
      const std::string yaml = read_all_fd(hand_fd);
      probes::Snapshot snap = probes::parse_snapshot(yaml, "the capture");
      if (out == "-") {
        std::cout << yaml;
        std::cout.flush();
        return std::cout ? 0 : 3;
      }
      std::cerr << "snapshot of " << snap.hostname << " written to " << out << " ("
                << snap.physical.links.size() << " links, " << snap.physical.rdma.devices.size()
                << " RDMA devices, " << snap.physical.accelerators.pci.size() << " accelerators, "
                << snap.netplane.routes.size() << " routes, " << snap.netplane.rules.size()
                << " rules, " << snap.mounts.size() << " mounts)\n";
      return 0;
    }
    case probes::SupervisedRun::End::kTimedOut:
      if (r.last_step.rfind("writing ", 0) == 0) {
        // The file system holding --out stopped answering mid-write: the
        // atomic write's temporary file may be left beside it.
        std::cerr << "hnprecheck snapshot: timeout: the write of " << out
                  << " did not finish within " << timeout.count()
                  << " ms (its file system does not answer); " << out
                  << " was not replaced, but a temporary file ." << base_name(out)
                  << ".tmp-* may be left next to it\n";
        return 3;
      }
      std::cerr << "hnprecheck snapshot: timeout: the capture did not finish within "
                << timeout.count() << " ms; it was " << r.last_step
                << " (a reading that hangs in the kernel: check the RDMA driver, sensors and "
                   "mounts); nothing was written\n";
      return 3;
    case probes::SupervisedRun::End::kInterrupted:
      std::cerr << "hnprecheck snapshot: interrupted while " << r.last_step
                << "; nothing was written\n";
      return 3;
    case probes::SupervisedRun::End::kFailed:
      break;
  }
  std::cerr << "hnprecheck snapshot: the capture failed while " << r.last_step << ": " << r.failure
            << "\n";
  return 3;
}

}  // namespace

Command snapshot() {
  Command c;
  c.name = "snapshot";
  c.summary =
      "capture this node's links, addresses, routes, rules, IPv4 settings, mounts, RDMA and "
      "hardware to a YAML file";
  c.usage = "hnprecheck snapshot --out FILE [--timeout SECONDS]";
  c.details =
      "The file replays through the same probes with `hnprecheck node --snapshot FILE` and\n"
      "compares with another capture using `hnprecheck diff A B`. Written atomically.";
  c.exit_codes =
      "Exit codes:\n"
      "  0  the snapshot was written\n"
      "  2  bad usage (no --out, unknown option)\n"
      "  3  the snapshot could not be captured or written (a reading failed or hung past\n"
      "     --timeout, the file could not be written); nothing is written then\n";
  c.add_options = [](po::options_description& d, po::positional_options_description&) {
    d.add_options()("out,o", po::value<std::string>()->value_name("FILE"),
                    "where to write the snapshot ('-' = stdout)");
    add_timeout_option(d, 30,
                       "deadline for the capture; a reading still hanging then (an RDMA query, a "
                       "sensor, a mount) ends the run with exit 3, naming it");
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
