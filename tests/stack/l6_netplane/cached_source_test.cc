// The memoizing sources read each section once, even under concurrent
// callers, retry after a failed read, and never cache route lookups.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/cached_source.h"

using namespace hn::stack;

namespace {

struct CountingNet : netplane::NetplaneSource {
  mutable std::atomic<int> addresses_calls{0}, routes_calls{0}, lookups{0};
  mutable std::atomic<bool> fail_once{false};
  std::vector<netplane::InterfaceAddress> addresses() const override {
    ++addresses_calls;
    if (fail_once.exchange(false)) throw physical::SourceError("netlink down");
    return {{"eth0", "10.0.0.1", 24, 4, "global"}};
  }
  std::vector<netplane::Route> routes() const override {
    ++routes_calls;
    return {};
  }
  std::vector<netplane::Rule> rules() const override { return {}; }
  std::map<std::string, netplane::Ipv4Conf> ipv4_conf() const override { return {}; }
  std::vector<netplane::RouteLookup> route_get(
      const std::vector<netplane::RouteQuery>& q) const override {
    ++lookups;
    return std::vector<netplane::RouteLookup>(q.size());
  }
};

struct CountingPhys : physical::PhysicalSource {
  mutable std::atomic<int> links_calls{0};
  std::vector<physical::Link> links() const override {
    ++links_calls;
    physical::Link l;
    l.name = "eth0";
    return {l};
  }
  physical::RdmaInventory rdma() const override { return {}; }
  physical::AcceleratorInventory accelerators() const override { return {}; }
  physical::CpuInfo cpu() const override { return {}; }
  physical::MemoryInfo memory() const override { return {}; }
  std::vector<physical::ThermalSensor> thermal() const override { return {}; }
};

}  // namespace

TEST_CASE("cached netplane source: one read per section, lookups pass through") {
  auto inner = std::make_shared<CountingNet>();
  auto cached = netplane::make_cached_netplane_source(inner);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      CHECK(cached->addresses().size() == 1);
      cached->routes();
      cached->route_get({{"10.0.0.2", ""}});
    });
  for (auto& t : threads) t.join();
  CHECK(inner->addresses_calls == 1);
  CHECK(inner->routes_calls == 1);
  CHECK(inner->lookups == 8);
}

TEST_CASE("cached netplane source: a failed read is retried, not cached") {
  auto inner = std::make_shared<CountingNet>();
  inner->fail_once = true;
  auto cached = netplane::make_cached_netplane_source(inner);
  CHECK_THROWS_AS(cached->addresses(), physical::SourceError);
  CHECK(cached->addresses().size() == 1);
  CHECK(cached->addresses().size() == 1);
  CHECK(inner->addresses_calls == 2);
}

TEST_CASE("cached physical source: links are read once") {
  auto inner = std::make_shared<CountingPhys>();
  auto cached = physical::make_cached_source(inner);
  CHECK(cached->links().front().name == "eth0");
  CHECK(cached->read_all().links.size() == 1);
  CHECK(inner->links_calls == 1);
}
