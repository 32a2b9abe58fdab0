#include "preflight/runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <thread>

#include "reports/catalog.h"

using namespace hn;
using namespace std::chrono_literals;
using probes::Isolation;
using probes::Probe;
using reports::Status;

namespace {

Probe make(const std::string& name, Isolation iso, std::chrono::milliseconds deadline,
           std::function<std::vector<reports::Finding>()> fn) {
  Probe p;
  p.name = name;
  p.layer = reports::Layer::kL6;
  p.isolation = iso;
  p.deadline = deadline;
  p.run = std::move(fn);
  return p;
}

std::vector<reports::Finding> one_pass(const std::string& entity) {
  return {reports::make_finding("HW-CPU", Status::kPass, entity,
                                {{"cpus", "4"}, {"numa", "1"}, {"expected", "1"}})};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("findings of in-process and child probes come back intact") {
  for (auto iso : {Isolation::kInProcess, Isolation::kChild}) {
    auto out = preflight::run_probes({make("p", iso, 2000ms, [] { return one_pass("cpu"); })}, {});
    REQUIRE(out.size() == 1);
    CHECK(out[0].code == "HW-CPU");
    CHECK(out[0].status == Status::kPass);
    CHECK(out[0].evidence.at("cpus") == "4");
    CHECK(out[0].duration_ms > 0);
  }
}

TEST_CASE("a child probe that hangs is killed at its deadline and reported as FAIL") {
  auto t0 = std::chrono::steady_clock::now();
  auto out = preflight::run_probes(
      {make("storage.hang", Isolation::kChild, 300ms,
            [] {
              pause();  // blocks until a signal, like a stuck syscall
              return one_pass("never");
            }),
       make("fast", Isolation::kInProcess, 2000ms, [] { return one_pass("cpu"); })},
      {});
  double took = seconds_since(t0);
  CHECK(took < 1.5);
  REQUIRE(out.size() == 2);
  const auto& hung = out[0].code == "RUN-PROBE-TIMEOUT" ? out[0] : out[1];
  CHECK(hung.code == "RUN-PROBE-TIMEOUT");
  CHECK(hung.status == Status::kFail);
  CHECK(hung.layer == reports::Layer::kL6);
  CHECK(hung.entity == "storage.hang");
  CHECK_THAT(hung.message, Catch::Contains("300 ms") && Catch::Contains("killed"));
}

TEST_CASE("an in-process probe past its deadline is abandoned, not waited for") {
  auto t0 = std::chrono::steady_clock::now();
  auto out = preflight::run_probes({make("slow", Isolation::kInProcess, 200ms,
                                         [] {
                                           std::this_thread::sleep_for(3s);
                                           return one_pass("late");
                                         })},
                                   {});
  CHECK(seconds_since(t0) < 1.0);
  REQUIRE(out.size() == 1);
  CHECK(out[0].code == "RUN-PROBE-TIMEOUT");
  CHECK_THAT(out[0].message, Catch::Contains("abandoned"));
}

TEST_CASE("the whole run ends within the total timeout") {
  std::vector<Probe> probes;
  for (int i = 0; i < 4; ++i)
    probes.push_back(make("hang" + std::to_string(i),
                          i % 2 ? Isolation::kChild : Isolation::kInProcess, 10s, [] {
                            std::this_thread::sleep_for(20s);
                            return one_pass("x");
                          }));
  auto t0 = std::chrono::steady_clock::now();
  auto out = preflight::run_probes(probes, {400ms});
  CHECK(seconds_since(t0) < 1.5);
  CHECK(out.size() == 4);
  for (const auto& f : out) {
    CHECK(f.code == "RUN-PROBE-TIMEOUT");
    // The run's limit, not the probes' own 10 s, stopped them: say which.
    CHECK_THAT(f.message, Catch::Contains("within the run's --timeout"));
    CHECK(std::stoi(f.evidence.at("deadline_ms")) <= 400);
  }
}

TEST_CASE("a run whose --timeout is already spent gives probes 0 ms, never a negative deadline") {
  std::vector<Probe> probes;
  for (int i = 0; i < 6; ++i)
    probes.push_back(make("p" + std::to_string(i), Isolation::kChild, 2s, [] {
      std::this_thread::sleep_for(2s);
      return one_pass("x");
    }));
  auto out = preflight::run_probes(probes, {1ms});
  REQUIRE(out.size() == 6);
  for (const auto& f : out) {
    CAPTURE(f.message);
    CHECK(f.code == "RUN-PROBE-TIMEOUT");
    CHECK(std::stoi(f.evidence.at("deadline_ms")) >= 0);
    CHECK_THAT(f.message, Catch::Contains("(0 ms were left for it)"));
  }
}

TEST_CASE("exceptions and crashes become ERROR findings") {
  auto out = preflight::run_probes(
      {make("throws", Isolation::kInProcess, 1s,
            []() -> std::vector<reports::Finding> { throw std::runtime_error("netlink said no"); }),
       make("child-throws", Isolation::kChild, 1s,
            []() -> std::vector<reports::Finding> { throw std::runtime_error("statfs: EIO"); }),
       make("crash", Isolation::kChild, 1s,
            []() -> std::vector<reports::Finding> {
              std::abort();  // SIGABRT: sanitizers leave it alone, unlike SIGSEGV
              return {};
            })},
      {});
  REQUIRE(out.size() == 3);
  for (const auto& f : out) {
    CHECK(f.code == "RUN-PROBE-ERROR");
    CHECK(f.status == Status::kError);
  }
  std::string all;
  for (const auto& f : out) all += f.message + "\n";
  CHECK_THAT(all, Catch::Contains("netlink said no"));
  CHECK_THAT(all, Catch::Contains("statfs: EIO"));
  CHECK_THAT(all, Catch::Contains("Aborted"));
}

TEST_CASE("many child probes with large outputs are all collected") {
  std::vector<Probe> probes;
  for (int i = 0; i < 6; ++i)
    probes.push_back(make("big" + std::to_string(i), Isolation::kChild, 5s, [i] {
      std::vector<reports::Finding> v;
      for (int k = 0; k < 500; ++k) v.push_back(one_pass("e" + std::to_string(i * 1000 + k))[0]);
      return v;
    }));
  auto out = preflight::run_probes(probes, {});
  CHECK(out.size() == 3000);
}

TEST_CASE("a child probe with run_until learns when it will be killed") {
  Probe p = make("until", Isolation::kChild, 1500ms, [] { return one_pass("run"); });
  p.run_until = [](std::chrono::steady_clock::time_point kill_at) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        kill_at - std::chrono::steady_clock::now());
    return one_pass(std::to_string(left.count()));
  };
  auto out = preflight::run_probes({p}, {});
  REQUIRE(out.size() == 1);
  int left = std::stoi(out[0].entity);
  CHECK(left > 500);  // the probe's deadline, minus fork time on a loaded machine
  CHECK(left <= 1500);
  auto short_run = preflight::run_probes({p}, {700ms});  // the run ends first
  CHECK(std::stoi(short_run.at(0).entity) <= 700);
}

TEST_CASE("killed children are reaped and abandoned threads are remembered") {
  auto out = preflight::run_probes({make("hang", Isolation::kChild, 200ms,
                                         [] {
                                           pause();
                                           return one_pass("never");
                                         })},
                                   {});
  REQUIRE(out.size() == 1);
  // No zombie is left: every child of this process has been waited for.
  CHECK(waitpid(-1, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
  preflight::run_probes({make("slow", Isolation::kInProcess, 100ms,
                              [] {
                                std::this_thread::sleep_for(500ms);
                                return one_pass("late");
                              })},
                        {});
  CHECK(preflight::threads_abandoned());
}
