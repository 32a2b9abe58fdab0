// The test-only fault switch: what each fault does to a real allreduce on two
// ranks, that FaultPause suspends it, and that nothing outside tests/ can
// turn it on.
#include "stack/l3_comm/fault_injection.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "stack/l3_comm/collectives.h"
#include "tests/stack/l3_comm/rank_harness.h"

using namespace hn::stack::comm;
using testing::Fault;

namespace {

constexpr float kStale = -7;

// out = allreduce(in) with fault f, out pre-filled with kStale.
std::vector<float> faulty_allreduce(Communicator& c, Fault f, Algorithm a, std::size_t count) {
  std::vector<float> in(count), out(count, kStale);
  for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<float>(c.rank() + 1 + 10 * i);
  Options o;
  o.algorithm = a;
  testing::set_fault(c, f);
  allreduce(c, in.data(), out.data(), count, o);
  testing::set_fault(c, Fault::kNone);
  return out;
}

float sum_of(std::size_t i) {  // two ranks: (1 + 10i) + (2 + 10i)
  return static_cast<float>(3 + 20 * i);
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

void faults(Communicator& c) {
  for (Algorithm a : {Algorithm::kRing, Algorithm::kRecursiveDoubling}) {
    const std::string alg(to_string(a));
    const std::size_t n = 8;
    auto out = faulty_allreduce(c, Fault::kNone, a, n);
    for (std::size_t i = 0; i < n; ++i) expect(out[i] == sum_of(i), alg + ": clean run is right");

    out = faulty_allreduce(c, Fault::kZeroedOutput, a, n);
    for (float v : out) expect(v == 0, alg + ": zeroed output is all zeros");

    out = faulty_allreduce(c, Fault::kStaleBuffer, a, n);
    for (float v : out) expect(v == kStale, alg + ": stale buffer leaves the output untouched");

    out = faulty_allreduce(c, Fault::kWrongReduceOp, a, n);
    for (std::size_t i = 0; i < n; ++i)
      expect(out[i] == static_cast<float>(2 + 10 * i), alg + ": wrong op computes max");

    out = faulty_allreduce(c, Fault::kDroppedSlice, a, n);
    int stale = 0;
    for (float v : out) stale += v == kStale;
    expect(stale > 0 && stale < static_cast<int>(n) + 1, alg + ": dropped slice leaves a block");

    // The last receive (ring: an allgather block; rd: the whole reduction)
    // lands one element late, leaving its first element stale.
    out = faulty_allreduce(c, Fault::kOffByOneChunk, a, n);
    stale = 0;
    int right = 0;
    for (std::size_t i = 0; i < n; ++i) {
      stale += out[i] == kStale;
      right += out[i] == sum_of(i);
    }
    expect(stale == 1 && right < static_cast<int>(n) - 1,
           alg + ": off-by-one chunk leaves one element stale and moves others");
  }
  // Paused: the collective is right even with a fault set.
  testing::set_fault(c, Fault::kZeroedOutput);
  {
    testing::FaultPause pause(c);
    std::vector<float> in(4, 1.0f), out(4, 0.0f);
    allreduce(c, in.data(), out.data(), 4, Options{});
    for (float v : out) expect(v == 2, "a paused fault does nothing");
  }
  testing::set_fault(c, Fault::kNone);
}

}  // namespace

TEST_CASE("each test fault breaks an allreduce in its own way, a pause suspends it") {
  for (auto t : {TransportKind::kShm, TransportKind::kTcp}) {
    hn::test::RankSetup setup;
    setup.transport = t;
    auto res = hn::test::run_ranks(2, setup, faults);
    INFO(to_string(t) << ": rank " << res.first_failed_rank << " " << res.first_failure);
    REQUIRE(res.exit_code == 0);
  }
}

TEST_CASE("no source outside tests/ turns a fault on") {
  namespace fs = std::filesystem;
  const fs::path root = HN_SOURCE_DIR;
  std::vector<std::string> callers;
  int scanned = 0;
  for (const char* dir :
       {"stack", "probes", "preflight", "reports", "compat", "bench", "migrate"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      ++scanned;
      if (e.path().filename() == "fault_injection.cc" || e.path().filename() == "fault_injection.h")
        continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      // A call, not a declaration (whose first parameter is `Communicator& c`).
      static const std::regex kCall(R"(set_fault\(\s*(?!Communicator\b))");
      if (std::regex_search(text.str(), kCall))
        callers.push_back(fs::relative(e.path(), root).string());
    }
  }
  REQUIRE(scanned > 100);
  std::string list;
  for (const auto& c : callers) list += " " + c;
  INFO("these call testing::set_fault outside tests/:" << list);
  CHECK(callers.empty());
}
