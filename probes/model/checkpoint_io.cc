#include "probes/model/checkpoint_io.h"

#include <sys/mman.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

#include "drivers/supervised_worker.h"
#include "reports/catalog.h"
#include "stack/l1_model/checkpoint.h"

namespace hn::probes::model {

namespace {

using drivers::Clock;
using stack::physical::IoError;

// Memory both the rank and its worker see: made before the fork, so what
// the worker writes here is what the rank reads after it.
class SharedRegion {
 public:
  explicit SharedRegion(std::size_t bytes) : bytes_(bytes) {
    addr_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (addr_ == MAP_FAILED)
      throw std::runtime_error(std::string("mmap of ") + std::to_string(bytes) +
                               " shared bytes failed: " + std::strerror(errno));
  }
  ~SharedRegion() { munmap(addr_, bytes_); }
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;
  std::byte* data() { return static_cast<std::byte*>(addr_); }
  std::size_t size() const { return bytes_; }

 private:
  void* addr_;
  std::size_t bytes_;
};

// What the worker reports back besides findings.
struct Header {
  double ms = 0;
  std::uint64_t bytes = 0, manifest_len = 0, shard_len = 0;
};

constexpr std::uint64_t kManifestCap = 1 << 20;

IoOutcome supervise(const std::string& dir, int rank, const char* phase, double timeout_s,
                    SharedRegion& region,
                    const std::function<void(drivers::WorkerChannel&, Header&)>& work) {
  auto* header = new (region.data()) Header{};
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(timeout_s));
  drivers::SupervisedRun run = drivers::run_supervised(
      [&](drivers::WorkerChannel& ch) {
        const std::string r = std::to_string(rank);
        try {
          work(ch, *header);
        } catch (const IoError& e) {
          ch.emit(reports::make_finding("MODEL-CKPT-IO-ERROR", reports::Status::kFail, "rank " + r,
                                        {{"phase", phase},
                                         {"rank", r},
                                         {"op", e.op()},
                                         {"path", e.path()},
                                         {"errno_name", stack::physical::errno_name(e.error())},
                                         {"dir", dir}}));
        }
      },
      deadline);
  IoOutcome out;
  out.ms = header->ms;
  out.bytes = header->bytes;
  out.findings = run.findings;
  const std::string r = std::to_string(rank);
  char timeout[32];
  std::snprintf(timeout, sizeof timeout, "%g", timeout_s);
  if (run.end == drivers::SupervisedRun::End::kTimedOut) {
    auto f = reports::make_finding("MODEL-CKPT-HUNG", reports::Status::kFail, "rank " + r,
                                   {{"phase", phase},
                                    {"rank", r},
                                    {"call", run.last_step.empty() ? "(starting)" : run.last_step},
                                    {"timeout_s", timeout},
                                    {"dir", dir}});
    f.metrics["elapsed_ms"] = {run.elapsed_ms, "ms"};
    out.findings.push_back(f);
  } else if (run.end != drivers::SupervisedRun::End::kCompleted) {
    out.findings.push_back(reports::make_finding(
        "MODEL-CKPT-IO-ERROR", reports::Status::kFail, "rank " + r,
        {{"phase", phase},
         {"rank", r},
         {"op", run.last_step.empty() ? "worker" : run.last_step},
         {"path", dir},
         {"errno_name",
          run.end == drivers::SupervisedRun::End::kInterrupted ? "interrupted" : run.failure},
         {"dir", dir}}));
  }
  out.ok = out.findings.empty();
  return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

IoOutcome write_file_supervised(const std::string& dir, const std::string& file,
                                const std::vector<std::byte>& bytes, int rank, const char* phase,
                                double timeout_s) {
  SharedRegion region(sizeof(Header));
  return supervise(dir, rank, phase, timeout_s, region, [&](drivers::WorkerChannel& ch, Header& h) {
    auto step = [&](std::string_view what) { ch.step(what); };
    const auto t0 = std::chrono::steady_clock::now();
    stack::model::make_dirs(dir, step);
    stack::model::write_durable(dir + "/" + file, bytes, step);
    h.ms = ms_since(t0);
    h.bytes = bytes.size();
  });
}

ReadOutcome read_checkpoint_supervised(const std::string& dir, const std::string& file,
                                       std::uint64_t max_bytes, int rank, double timeout_s) {
  SharedRegion region(sizeof(Header) + kManifestCap + max_bytes);
  ReadOutcome out;
  out.io =
      supervise(dir, rank, "read", timeout_s, region, [&](drivers::WorkerChannel& ch, Header& h) {
        auto step = [&](std::string_view what) { ch.step(what); };
        const auto t0 = std::chrono::steady_clock::now();
        auto manifest =
            stack::model::read_all(dir + "/" + stack::model::kManifestName, kManifestCap, step);
        auto shard = stack::model::read_all(dir + "/" + file, max_bytes, step);
        h.ms = ms_since(t0);
        h.bytes = shard.size();
        std::byte* at = region.data() + sizeof(Header);
        std::memcpy(at, manifest.data(), manifest.size());
        std::memcpy(at + kManifestCap, shard.data(), shard.size());
        h.manifest_len = manifest.size();
        h.shard_len = shard.size();
      });
  if (out.io.ok) {
    const auto* h = reinterpret_cast<const Header*>(region.data());
    const std::byte* at = region.data() + sizeof(Header);
    out.manifest.assign(reinterpret_cast<const char*>(at), h->manifest_len);
    out.shard.assign(at + kManifestCap, at + kManifestCap + h->shard_len);
  }
  return out;
}

IoOutcome remove_checkpoint_supervised(const std::string& dir, int rank, double timeout_s) {
  SharedRegion region(sizeof(Header));
  return supervise(
      dir, rank, "cleanup", timeout_s, region, [&](drivers::WorkerChannel& ch, Header&) {
        stack::model::remove_checkpoint(dir, [&](std::string_view what) { ch.step(what); });
      });
}

}  // namespace hn::probes::model
