// storage_vs_fio: hnprecheck's storage jitter workload against fio, the same
// workload on the same file system in one run, side by side.
//
//   build/bin/storage_vs_fio [--seconds S] [--repeat R] [--targets tmpfs,disk,fuse] [--json PATH]
//
// Targets: a tmpfs directory (/dev/shm), a directory on the local disk
// (/var/tmp), and a faultfs FUSE mount with injected latency (every FUSE
// operation +200 us, 2% of them +20 ms; needs root, /dev/fuse and the test
// build). 20 ms is well above this shared machine's scheduling noise, so the
// injected tail, not the noise, sets p99 for both tools. Workloads, each run by us
// (stack/l7_physical/io_workload.h, the code the probe runs) and by fio with the equivalent job:
//   sync_write   4 KiB O_DSYNC writes         fio --rw=write --bs=4k --sync=dsync
//   random_read  4 KiB O_DIRECT random reads  fio --rw=randread --bs=4k --direct=1 (16 MiB file)
//   ckpt_write   1 MiB writes + final fsync   fio --rw=write --bs=1m --end_fsync=1 (64 MiB)
//   ckpt_read    1 MiB O_DIRECT reads         fio --rw=read --bs=1m --direct=1
// Latency is per call (fio: clat); the checkpoint rows compare throughput
// only. Each pair runs R times; the table shows medians, and d_* is ours
// relative to fio. Prints a table, then one JSON document (also to --json PATH).
// Asserts nothing: it is a measurement.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "stack/l7_physical/io_workload.h"
#ifdef HN_HAVE_FAULTFS
#include "tests/support/faultfs/faultfs_mount.h"
#endif

namespace physical = hn::stack::physical;
using nlohmann::json;

namespace {

struct Sample {
  double p50_ms = 0, p99_ms = 0, p999_ms = 0, mbps = 0, ops = 0;
};

struct Options {
  double seconds = 2;
  int repeat = 5;
  std::vector<std::string> targets = {"tmpfs", "disk", "fuse"};
  std::string json_path;
};

std::string run_capture(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) throw std::runtime_error("cannot run: " + cmd);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p.get())) out.append(buf, n);
  return out;
}

Sample fio(const std::string& dir, const std::string& workload, double seconds) {
  std::string file = dir + "/fio-" + workload;
  std::ostringstream c;
  // fallocate=none: ours appends to a file that grows, so fio must not
  // preallocate (on tmpfs that alone halves its write latency).
  c << "fio --output-format=json --percentile_list=50:99:99.9 --ioengine=psync --numjobs=1"
    << " --fallocate=none"
    << " --name=" << workload << " --filename=" << file;
  const char* dirn = "write";
  if (workload == "sync_write") {
    c << " --rw=write --bs=4k --sync=dsync --size=256m --runtime=" << seconds;
  } else if (workload == "random_read") {
    c << " --rw=randread --bs=4k --direct=1 --size=16m --time_based --runtime=" << seconds;
    dirn = "read";
  } else if (workload == "ckpt_write") {
    c << " --rw=write --bs=1m --size=64m --end_fsync=1";
  } else {
    // The file from ckpt_write is still there (see run_pair): read it back.
    c << " --rw=read --bs=1m --size=64m --direct=1";
    dirn = "read";
  }
  c << " 2>/dev/null";
  json j = json::parse(run_capture(c.str()));
  const json& d = j.at("jobs").at(0).at(dirn);
  const json& pct = d.at("clat_ns").at("percentile");
  Sample s;
  s.p50_ms = pct.at("50.000000").get<double>() / 1e6;
  s.p99_ms = pct.at("99.000000").get<double>() / 1e6;
  s.p999_ms = pct.at("99.900000").get<double>() / 1e6;
  s.mbps = d.at("bw_bytes").get<double>() / 1e6;
  s.ops = d.at("total_ios").get<double>();
  if (workload != "ckpt_write") std::filesystem::remove(file);
  return s;
}

// Ours: the probe's workload code. The checkpoint workload writes then reads
// in one call; both halves are reported from the one run.
std::map<std::string, Sample> ours(const std::string& dir, const std::string& workload,
                                   double seconds) {
  physical::WorkloadConfig c;
  c.block_bytes = 4096;
  c.max_bytes = 1ull << 40;  // time-bound like fio
  c.duration = std::chrono::duration<double>(seconds);
  c.read_file_bytes = 16ull << 20;
  c.checkpoint_bytes = 64ull << 20;
  if (workload == "sync_write") {
    c.workloads = {physical::Workload::kSyncWrite};
    c.sync = physical::SyncMode::kDsync;
    c.max_bytes = 256ull << 20;
  } else if (workload == "random_read") {
    c.workloads = {physical::Workload::kRandomRead};
  } else {
    c.workloads = {physical::Workload::kCheckpoint};
    c.duration = std::chrono::seconds(120);  // size-bound like fio
  }
  auto r = physical::run_workloads(c, dir, [](std::string_view) {}).at(0);
  auto pct = [&](const physical::LatencyHistogram& h, Sample& s) {
    s.p50_ms = h.percentile(50) / 1e6;
    s.p99_ms = h.percentile(99) / 1e6;
    s.p999_ms = h.percentile(99.9) / 1e6;
    s.ops = static_cast<double>(h.count());
  };
  std::map<std::string, Sample> out;
  if (workload == "sync_write" || workload == "random_read") {
    Sample s;
    pct(r.latency, s);
    // Throughput over the loop only: random_read's phase also writes its
    // file first, which fio does before its clock starts.
    s.mbps = workload == "sync_write" ? r.bytes_written / std::max(r.seconds, 1e-9) / 1e6
                                      : r.bytes_read / std::max(r.read_seconds, 1e-9) / 1e6;
    out[workload] = s;
  } else {
    // One histogram holds both halves' 1 MiB calls, so only throughput is
    // compared for the checkpoint.
    Sample w, rd;
    w.ops = rd.ops = static_cast<double>(r.latency.count()) / 2;
    w.mbps = r.write_mbps;
    rd.mbps = r.read_mbps;
    out["ckpt_write"] = w;
    out["ckpt_read"] = rd;
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Sample median_of(const std::vector<Sample>& v) {
  auto m = [&](double Sample::*f) {
    std::vector<double> x;
    for (const auto& s : v) x.push_back(s.*f);
    return median(x);
  };
  return {m(&Sample::p50_ms), m(&Sample::p99_ms), m(&Sample::p999_ms), m(&Sample::mbps),
          m(&Sample::ops)};
}

std::string pct_diff(double ours, double theirs) {
  if (theirs <= 0) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", (ours - theirs) / theirs * 100);
  return b;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--seconds")
      o.seconds = std::stod(next());
    else if (a == "--repeat")
      o.repeat = std::stoi(next());
    else if (a == "--json")
      o.json_path = next();
    else if (a == "--targets") {
      o.targets.clear();
      std::stringstream ss(next());
      for (std::string t; std::getline(ss, t, ',');) o.targets.push_back(t);
    } else {
      throw std::invalid_argument("unknown option '" + a +
                                  "' (expected --seconds, --repeat, --targets, --json)");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  try {
    opt = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "storage_vs_fio: " << e.what() << "\n";
    return 2;
  }
  if (std::system("fio --version >/dev/null 2>&1") != 0) {
    std::cerr << "storage_vs_fio: fio is not installed (scripts/install-deps.sh --bench)\n";
    return 2;
  }
  json rows = json::array();
  std::printf("%-6s %-12s %-5s %8s %10s %10s %10s %10s %9s %9s %9s\n", "target", "workload", "tool",
              "ops", "p50_ms", "p99_ms", "p99.9_ms", "MB/s", "d_p50", "d_p99", "d_MB/s");
  for (const auto& target : opt.targets) {
    std::string dir;
    std::string note;
#ifdef HN_HAVE_FAULTFS
    std::unique_ptr<hn::test::FaultFsMount> fuse;
#endif
    if (target == "tmpfs" || target == "disk") {
      std::string templ =
          std::string(target == "tmpfs" ? "/dev/shm" : "/var/tmp") + "/hn-bench-XXXXXX";
      if (!mkdtemp(templ.data())) {
        std::cerr << "cannot create " << templ << "\n";
        continue;
      }
      dir = templ;
    } else if (target == "fuse") {
#ifdef HN_HAVE_FAULTFS
      if (auto why = hn::test::FaultFsMount::unavailable_reason(); !why.empty()) {
        std::printf("%-6s skipped: %s\n", "fuse", why.c_str());
        continue;
      }
      fuse = std::make_unique<hn::test::FaultFsMount>();
      note = "delay base_us=200 slow_fraction=0.02 slow_us=20000 ops=all";
      fuse->control(note);
      dir = fuse->path();
#else
      std::printf("%-6s skipped: built without the faultfs test file system\n", "fuse");
      continue;
#endif
    } else {
      std::cerr << "unknown target '" << target << "' (expected tmpfs, disk, fuse)\n";
      return 2;
    }
    std::map<std::string, std::vector<Sample>> us, them;
    for (int r = 0; r < opt.repeat; ++r) {
      for (const char* w : {"sync_write", "random_read", "checkpoint"}) {
        for (auto& [name, s] : ours(dir, w, opt.seconds)) us[name].push_back(s);
        if (std::string(w) == "checkpoint") {
          them["ckpt_write"].push_back(fio(dir, "ckpt_write", opt.seconds));
          them["ckpt_read"].push_back(fio(dir, "ckpt_read", opt.seconds));
          std::filesystem::remove(dir + "/fio-ckpt_write");
        } else {
          them[w].push_back(fio(dir, w, opt.seconds));
        }
      }
    }
    for (const char* w : {"sync_write", "random_read", "ckpt_write", "ckpt_read"}) {
      Sample a = median_of(us[w]), b = median_of(them[w]);
      bool latency = std::string(w).rfind("ckpt", 0) != 0;
      auto ms = [&](double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.4f", v);
        return latency ? std::string(b) : std::string("-");
      };
      std::printf("%-6s %-12s %-5s %8.0f %10s %10s %10s %10.1f\n", target.c_str(), w, "ours", a.ops,
                  ms(a.p50_ms).c_str(), ms(a.p99_ms).c_str(), ms(a.p999_ms).c_str(), a.mbps);
      std::printf("%-6s %-12s %-5s %8.0f %10s %10s %10s %10.1f %9s %9s %9s\n", target.c_str(), w,
                  "fio", b.ops, ms(b.p50_ms).c_str(), ms(b.p99_ms).c_str(), ms(b.p999_ms).c_str(),
                  b.mbps, latency ? pct_diff(a.p50_ms, b.p50_ms).c_str() : "-",
                  latency ? pct_diff(a.p99_ms, b.p99_ms).c_str() : "-",
                  pct_diff(a.mbps, b.mbps).c_str());
      rows.push_back({{"target", target},
                      {"workload", w},
                      {"faults", note},
                      {"ours",
                       {{"p50_ms", a.p50_ms},
                        {"p99_ms", a.p99_ms},
                        {"p999_ms", a.p999_ms},
                        {"mbps", a.mbps},
                        {"ops", a.ops}}},
                      {"fio",
                       {{"p50_ms", b.p50_ms},
                        {"p99_ms", b.p99_ms},
                        {"p999_ms", b.p999_ms},
                        {"mbps", b.mbps},
                        {"ops", b.ops}}}});
    }
    if (target != "fuse") std::filesystem::remove_all(dir);
  }
  json doc = {{"bench", "storage_vs_fio"},
              {"seconds", opt.seconds},
              {"repeat", opt.repeat},
              {"rows", rows}};
  std::cout << doc.dump() << "\n";
  if (!opt.json_path.empty()) std::ofstream(opt.json_path) << doc.dump(2) << "\n";
  return 0;
}
