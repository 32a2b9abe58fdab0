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
#include "drivers/supervised_worker.h"
#include "formats/snapshot.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/node_sources.h"
#include "preflight/report_output.h"
#include "preflight/snapshot_capture.h"
#include "reports/atomic_file.h"

namespace hn::preflight::commands {

namespace {

// The capture and the file write run in a supervised child
// (preflight/snapshot_capture.h): a Prolog that runs `snapshot` must still
// end by --timeout, naming the step that hung. The parent prints the YAML
// for `--out -` and reads the summary from it (which re-checks that it
// parses).
std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int run(const po::variables_map& vm) {
  if (!vm.count("out"))
    throw compat::InputError("command line", 0, 0, "--out", "is required (a file path or '-')");
  const std::string& out = vm["out"].as<std::string>();
  check_output_path("--out", out);  // before capturing, so a typo costs nothing
  const auto timeout = timeout_from(vm);
  std::cout.flush();
  SnapshotCapture capture = capture_live_snapshot(
      drivers::Clock::now() + timeout, [&out](drivers::WorkerChannel& ch, const std::string& yaml) {
        if (out == "-") return;
        ch.step("writing " + out);
        reports::write_output(out, yaml);
      });
  const auto& r = capture.run;
  switch (r.end) {
    case drivers::SupervisedRun::End::kCompleted: {
      const std::string& yaml = capture.yaml;
      formats::Snapshot snap = formats::parse_snapshot(yaml, "the capture");
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
    case drivers::SupervisedRun::End::kTimedOut:
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
    case drivers::SupervisedRun::End::kInterrupted:
      std::cerr << "hnprecheck snapshot: interrupted while " << r.last_step
                << "; nothing was written\n";
      return 3;
    case drivers::SupervisedRun::End::kFailed:
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
