#include "preflight/certify/host_agent.h"

#include <unistd.h>
#include <catch2/catch.hpp>
#include <csignal>
#include <thread>

using namespace hn::preflight::certify;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {
std::map<std::string, HostAgent::Job> jobs() {
  return {
      {"echo", [](const std::string& arg, Clock::time_point) { return "echo " + arg; }},
      {"pid", [](const std::string&, Clock::time_point) { return std::to_string(getpid()); }},
      {"hang",
       [](const std::string&, Clock::time_point) {
         for (;;) pause();
         return std::string();
       }},
      {"throw",
       [](const std::string&, Clock::time_point) -> std::string {
         throw std::runtime_error("no such mount");
       }},
      {"crash",
       [](const std::string&, Clock::time_point) -> std::string {
         kill(getpid(), SIGKILL);  // not SIGSEGV: Catch2's handler would report it
         return "";
       }},
  };
}
}  // namespace

TEST_CASE("host agent: each job runs in a fresh child and answers") {
  HostAgent agent(jobs());
  CHECK(agent.run("echo", "hi", Clock::now() + milliseconds(5000)) == "echo hi");
  std::string a = agent.run("pid", "", Clock::now() + milliseconds(5000));
  std::string b = agent.run("pid", "", Clock::now() + milliseconds(5000));
  CHECK(a != b);
  CHECK(std::stoi(a) != getpid());
}

TEST_CASE("host agent: a job runs while the rank does other work") {
  HostAgent agent(jobs());
  agent.start("echo", "later", Clock::now() + milliseconds(5000));
  std::this_thread::sleep_for(milliseconds(50));  // the rank's own work
  CHECK(agent.result(Clock::now() + milliseconds(5000)) == "echo later");
}

TEST_CASE("host agent: a hung job is killed at its deadline and named - the agent goes on") {
  HostAgent agent(jobs());
  const auto t0 = Clock::now();
  try {
    agent.run("hang", "", t0 + milliseconds(300));
    FAIL("a hung job answered");
  } catch (const AgentError& e) {
    CHECK_THAT(e.what(), Catch::Contains("did not finish within its deadline"));
  }
  CHECK(Clock::now() - t0 < milliseconds(3000));
  CHECK(agent.run("echo", "again", Clock::now() + milliseconds(5000)) == "echo again");
}

TEST_CASE("host agent: a throwing or crashing job is an error with the reason") {
  HostAgent agent(jobs());
  CHECK_THROWS_WITH(agent.run("throw", "", Clock::now() + milliseconds(5000)),
                    Catch::Contains("no such mount"));
  CHECK_THROWS_WITH(agent.run("crash", "", Clock::now() + milliseconds(5000)),
                    Catch::Contains("crashed: signal 9"));
  CHECK_THROWS_WITH(agent.run("nope", "", Clock::now() + milliseconds(5000)),
                    Catch::Contains("no such host job"));
}
