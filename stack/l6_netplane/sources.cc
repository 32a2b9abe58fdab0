// The two NetplaneSource implementations: the live kernel and a capture.
#include "stack/l6_netplane/live_readers.h"
#include "stack/l6_netplane/source.h"

namespace hn::stack::netplane {

namespace {

class LiveNetplaneSource final : public NetplaneSource {
 public:
  explicit LiveNetplaneSource(std::string proc_root) : proc_root_(std::move(proc_root)) {}
  std::vector<InterfaceAddress> addresses() const override { return detail::read_addresses(); }
  std::vector<Route> routes() const override { return detail::read_routes(); }
  std::vector<Rule> rules() const override { return detail::read_rules(); }
  std::map<std::string, Ipv4Conf> ipv4_conf() const override {
    return detail::read_ipv4_conf(proc_root_);
  }
  std::vector<RouteLookup> route_get(const std::vector<RouteQuery>& queries) const override {
    return detail::kernel_route_get(queries);
  }

 private:
  std::string proc_root_;
};

class SnapshotNetplaneSource final : public NetplaneSource {
 public:
  explicit SnapshotNetplaneSource(NetState s) : state_(std::move(s)) {}
  std::vector<InterfaceAddress> addresses() const override { return state_.addresses; }
  std::vector<Route> routes() const override { return state_.routes; }
  std::vector<Rule> rules() const override { return state_.rules; }
  std::map<std::string, Ipv4Conf> ipv4_conf() const override { return state_.ipv4_conf; }
  std::vector<RouteLookup> route_get(const std::vector<RouteQuery>& queries) const override {
    std::vector<RouteLookup> out;
    out.reserve(queries.size());
    for (const auto& q : queries) out.push_back(emulate_route_get(state_, q));
    return out;
  }

 private:
  NetState state_;
};

}  // namespace

std::unique_ptr<NetplaneSource> make_live_netplane_source(std::string proc_root) {
  return std::make_unique<LiveNetplaneSource>(std::move(proc_root));
}

std::unique_ptr<NetplaneSource> make_snapshot_netplane_source(NetState state) {
  return std::make_unique<SnapshotNetplaneSource>(std::move(state));
}

}  // namespace hn::stack::netplane
