// Live L6 dumps: addresses (libnl-route) and routes (raw netlink) of this namespace.
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>

#include <climits>
#include <cstring>
#include <map>
#include <memory>

#include "stack/l6_netplane/live_readers.h"
#include "stack/l6_netplane/netlink_socket.h"
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

std::string raw_ip_text(int family, const void* data) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family, data, buf, sizeof buf);
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

// Routes come from a raw RTM_GETROUTE dump rather than libnl's route cache:
// the cache keys routes by (family, tos, table, dst, priority) and folds two
// routes that differ only in their device (10.10.0.0/24 on eth0 and on eth1,
// fe80::/64 on every NIC) into one, which would hide exactly the misbindings
// the plane checks look for.
std::vector<Route> read_routes() {
  NetlinkSocket sock;
  rtmsg req{};
  req.rtm_family = AF_UNSPEC;
  NetlinkMessage m(RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, &req, sizeof req);
  NetlinkReply reply = sock.request(m, true);
  if (reply.error)
    throw physical::SourceError(std::string("netlink: route dump failed: ") +
                                std::strerror(-reply.error));
  IfNames ifname;
  std::vector<Route> out;
  for (const auto& msg : reply.messages) {
    const auto* h = reinterpret_cast<const nlmsghdr*>(msg.data());
    if (h->nlmsg_type != RTM_NEWROUTE) continue;
    const auto* rtm = static_cast<const rtmsg*>(NLMSG_DATA(h));
    if (rtm->rtm_flags & RTM_F_CLONED) continue;  // cache entries, not configuration
    Route route;
    route.family = rtm->rtm_family == AF_INET6 ? 6 : 4;
    route.table = rtm->rtm_table;
    char buf[64];
    route.type = nl_rtntype2str(rtm->rtm_type, buf, sizeof buf);
    route.protocol = rtnl_route_proto2str(rtm->rtm_protocol, buf, sizeof buf);
    std::string dst;
    int nexthops = 1;
    int len = static_cast<int>(RTM_PAYLOAD(h));
    for (auto* a = RTM_RTA(rtm); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      const void* d = RTA_DATA(a);
      std::uint32_t v = 0;
      if (RTA_PAYLOAD(a) >= sizeof v) std::memcpy(&v, d, sizeof v);
      switch (a->rta_type) {
        case RTA_TABLE:
          route.table = static_cast<int>(v);
          break;
        case RTA_DST:
          dst = raw_ip_text(rtm->rtm_family, d);
          break;
        case RTA_OIF:
          route.oif = ifname(v);
          break;
        case RTA_PREFSRC:
          route.prefsrc = raw_ip_text(rtm->rtm_family, d);
          break;
        case RTA_GATEWAY:
          route.gateway = raw_ip_text(rtm->rtm_family, d);
          break;
        case RTA_PRIORITY:
          route.metric = static_cast<int>(v);
          break;
        case RTA_MULTIPATH:
          nexthops = 2;
          break;
        default:
          break;
      }
    }
    if (nexthops > 1) route.oif.clear(), route.gateway.clear();
    route.dst = rtm->rtm_dst_len == 0 ? "default" : dst + "/" + std::to_string(rtm->rtm_dst_len);
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
