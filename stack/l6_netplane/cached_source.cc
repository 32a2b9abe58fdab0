// The memoizing NetplaneSource (see source.h).
#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/once.h"

namespace hn::stack::netplane {

namespace {

using physical::Once;

class CachedNetplaneSource final : public NetplaneSource {
 public:
  explicit CachedNetplaneSource(std::shared_ptr<const NetplaneSource> inner)
      : inner_(std::move(inner)) {}
  std::vector<InterfaceAddress> addresses() const override {
    return addresses_.get([&] { return inner_->addresses(); });
  }
  std::vector<Route> routes() const override {
    return routes_.get([&] { return inner_->routes(); });
  }
  std::vector<Rule> rules() const override {
    return rules_.get([&] { return inner_->rules(); });
  }
  std::map<std::string, Ipv4Conf> ipv4_conf() const override {
    return conf_.get([&] { return inner_->ipv4_conf(); });
  }
  std::vector<RouteLookup> route_get(const std::vector<RouteQuery>& queries) const override {
    return inner_->route_get(queries);
  }

 private:
  std::shared_ptr<const NetplaneSource> inner_;
  Once<std::vector<InterfaceAddress>> addresses_;
  Once<std::vector<Route>> routes_;
  Once<std::vector<Rule>> rules_;
  Once<std::map<std::string, Ipv4Conf>> conf_;
};

}  // namespace

std::unique_ptr<NetplaneSource> make_cached_netplane_source(
    std::shared_ptr<const NetplaneSource> inner) {
  return std::make_unique<CachedNetplaneSource>(std::move(inner));
}

}  // namespace hn::stack::netplane
