// Live L6 dumps over libnl-route: addresses and routes of this namespace.
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>

#include <climits>
#include <map>
#include <memory>

#include "stack/l6_netplane/live_readers.h"
#include "stack/l6_netplane/source.h"
#include "stack/l7_physical/source.h"

namespace hn::stack::netplane {

namespace {

struct SockDeleter {
  void operator()(nl_sock* s) const { nl_socket_free(s); }
};
struct CacheDeleter {
  void operator()(nl_cache* c) const { nl_cache_free(c); }
};
using SockPtr = std::unique_ptr<nl_sock, SockDeleter>;
using CachePtr = std::unique_ptr<nl_cache, CacheDeleter>;

SockPtr connect_route_socket() {
  SockPtr sock(nl_socket_alloc());
  if (!sock) throw physical::SourceError("netlink: cannot allocate a socket");
  int err = nl_connect(sock.get(), NETLINK_ROUTE);
  if (err < 0)
    throw physical::SourceError(std::string("netlink: cannot connect NETLINK_ROUTE: ") +
                                nl_geterror(err));
  return sock;
}

std::map<int, std::string> link_names(nl_sock* sock) {
  nl_cache* raw = nullptr;
  int err = rtnl_link_alloc_cache(sock, AF_UNSPEC, &raw);
  if (err < 0)
    throw physical::SourceError(std::string("netlink: link dump failed: ") + nl_geterror(err));
  CachePtr cache(raw);
  std::map<int, std::string> names;
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* link = reinterpret_cast<rtnl_link*>(o);
    names[rtnl_link_get_ifindex(link)] = rtnl_link_get_name(link);
  }
  return names;
}

// nl_addr2str prints "none" for an empty address and appends "/len" for
// prefixes; we want the bare address text.
std::string addr_text(nl_addr* a) {
  if (!a || nl_addr_get_len(a) == 0) return "";
  char buf[INET6_ADDRSTRLEN] = {};
  int fam = nl_addr_get_family(a);
  if (fam != AF_INET && fam != AF_INET6) return "";
  inet_ntop(fam, nl_addr_get_binary_addr(a), buf, sizeof buf);
  return buf;
}

std::string scope_name(int scope) {
  char buf[32];
  return rtnl_scope2str(scope, buf, sizeof buf);
}

}  // namespace

namespace detail {

std::vector<InterfaceAddress> read_addresses() {
  SockPtr sock = connect_route_socket();
  auto names = link_names(sock.get());
  nl_cache* raw = nullptr;
  int err = rtnl_addr_alloc_cache(sock.get(), &raw);
  if (err < 0)
    throw physical::SourceError(std::string("netlink: address dump failed: ") + nl_geterror(err));
  CachePtr cache(raw);
  std::vector<InterfaceAddress> out;
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    InterfaceAddress ia;
    ia.nic = names.count(rtnl_addr_get_ifindex(a)) ? names[rtnl_addr_get_ifindex(a)] : "";
    ia.address = addr_text(rtnl_addr_get_local(a));
    ia.prefix_len = rtnl_addr_get_prefixlen(a);
    ia.family = rtnl_addr_get_family(a) == AF_INET6 ? 6 : 4;
    ia.scope = scope_name(rtnl_addr_get_scope(a));
    if (!ia.address.empty()) out.push_back(ia);
  }
  return out;
}

std::vector<Route> read_routes() {
  SockPtr sock = connect_route_socket();
  auto names = link_names(sock.get());
  nl_cache* raw = nullptr;
  int err = rtnl_route_alloc_cache(sock.get(), AF_UNSPEC, 0, &raw);
  if (err < 0)
    throw physical::SourceError(std::string("netlink: route dump failed: ") + nl_geterror(err));
  CachePtr cache(raw);
  std::vector<Route> out;
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* r = reinterpret_cast<rtnl_route*>(o);
    Route route;
    route.family = rtnl_route_get_family(r) == AF_INET6 ? 6 : 4;
    route.table = static_cast<int>(rtnl_route_get_table(r));
    nl_addr* dst = rtnl_route_get_dst(r);
    if (!dst || nl_addr_get_prefixlen(dst) == 0)
      route.dst = "default";
    else
      route.dst = addr_text(dst) + "/" + std::to_string(nl_addr_get_prefixlen(dst));
    route.prefsrc = addr_text(rtnl_route_get_pref_src(r));
    route.metric = static_cast<int>(rtnl_route_get_priority(r));
    char buf[64];
    route.type = nl_rtntype2str(rtnl_route_get_type(r), buf, sizeof buf);
    route.protocol = rtnl_route_proto2str(rtnl_route_get_protocol(r), buf, sizeof buf);
    if (rtnl_route_get_nnexthops(r) == 1) {
      rtnl_nexthop* nh = rtnl_route_nexthop_n(r, 0);
      int ifindex = rtnl_route_nh_get_ifindex(nh);
      if (names.count(ifindex)) route.oif = names[ifindex];
      route.gateway = addr_text(rtnl_route_nh_get_gateway(nh));
    }
    out.push_back(route);
  }
  return out;
}

}  // namespace detail

std::string default_route_nic(const std::vector<Route>& routes) {
  const Route* best = nullptr;
  for (const auto& r : routes) {
    if (r.family != 4 || r.table != RT_TABLE_MAIN || r.dst != "default" || r.oif.empty()) continue;
    if (!best || r.metric < best->metric) best = &r;
  }
  return best ? best->oif : "";
}

}  // namespace hn::stack::netplane
