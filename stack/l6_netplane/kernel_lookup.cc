// Live route lookups: RTM_GETROUTE, exactly what `ip route get DST [from SRC]`
// sends, then the same with RTM_F_FIB_MATCH (`... fibmatch`) to learn which
// FIB entry won (its prefix and metric), on one raw netlink socket.
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/route/route.h>

#include <cstring>

#include "stack/l6_netplane/ip_address.h"
#include "stack/l6_netplane/live_readers.h"
#include "stack/l6_netplane/netlink_socket.h"

namespace hn::stack::netplane::detail {

namespace {

std::string ip_text(int family, const void* data) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family, data, buf, sizeof buf);
  return buf;
}

struct Parsed {
  std::string dst, oif, src, gateway, type;
  int table = 0, metric = 0, dst_len = 0;
  bool multipath = false;
};

Parsed parse_route(const std::string& msg, const IfNames& ifname) {
  Parsed p;
  const auto* h = reinterpret_cast<const nlmsghdr*>(msg.data());
  const auto* rtm = static_cast<const rtmsg*>(NLMSG_DATA(h));
  p.table = rtm->rtm_table;
  p.dst_len = rtm->rtm_dst_len;
  char buf[64];
  p.type = nl_rtntype2str(rtm->rtm_type, buf, sizeof buf);
  int len = static_cast<int>(RTM_PAYLOAD(h));
  for (auto* a = RTM_RTA(rtm); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
    const void* d = RTA_DATA(a);
    switch (a->rta_type) {
      case RTA_TABLE:
        p.table = static_cast<int>(*static_cast<const std::uint32_t*>(d));
        break;
      case RTA_DST:
        p.dst = ip_text(rtm->rtm_family, d);
        break;
      case RTA_OIF:
        p.oif = ifname(*static_cast<const std::uint32_t*>(d));
        break;
      case RTA_PREFSRC:
        p.src = ip_text(rtm->rtm_family, d);
        break;
      case RTA_GATEWAY:
        p.gateway = ip_text(rtm->rtm_family, d);
        break;
      case RTA_PRIORITY:
        p.metric = static_cast<int>(*static_cast<const std::uint32_t*>(d));
        break;
      case RTA_MULTIPATH:
        p.multipath = true;
        break;
      default:
        break;
    }
  }
  return p;
}

NetlinkReply ask(NetlinkSocket& sock, const IpAddress& dst, const IpAddress* src, bool fib_match) {
  rtmsg r{};
  r.rtm_family = static_cast<unsigned char>(dst.family == 4 ? AF_INET : AF_INET6);
  r.rtm_dst_len = static_cast<unsigned char>(dst.bits());
  r.rtm_flags = RTM_F_LOOKUP_TABLE | (fib_match ? RTM_F_FIB_MATCH : 0);
  NetlinkMessage m(RTM_GETROUTE, NLM_F_REQUEST, &r, sizeof r);
  size_t alen = dst.family == 4 ? 4 : 16;
  m.add_attr(RTA_DST, dst.bytes.data(), alen);
  if (src) {
    reinterpret_cast<rtmsg*>(NLMSG_DATA(m.header()))->rtm_src_len =
        static_cast<unsigned char>(src->bits());
    m.add_attr(RTA_SRC, src->bytes.data(), alen);
  }
  return sock.request(m, false);
}

RouteLookup lookup_one(NetlinkSocket& sock, const IfNames& names, const RouteQuery& q) {
  RouteLookup out;
  auto dst = try_parse_ip(q.dst);
  if (!dst) {
    out.error = "'" + q.dst + "' is not an address";
    return out;
  }
  std::optional<IpAddress> src;
  if (!q.src.empty() && !(src = try_parse_ip(q.src))) {
    out.error = "'" + q.src + "' is not an address";
    return out;
  }
  if (src && src->family != dst->family) {
    out.error = "source and destination families differ";
    return out;
  }
  NetlinkReply plain = ask(sock, *dst, src ? &*src : nullptr, false);
  if (plain.error || plain.messages.empty()) {
    out.error = plain.error ? std::strerror(-plain.error) : "no answer";
    return out;
  }
  Parsed p = parse_route(plain.messages.front(), names);
  out.oif = p.oif;
  out.src = p.src.empty() && src ? src->str() : p.src;
  out.gateway = p.gateway;
  out.type = p.type;
  out.table = p.table;
  NetlinkReply fib = ask(sock, *dst, src ? &*src : nullptr, true);
  if (!fib.error && !fib.messages.empty()) {
    Parsed f = parse_route(fib.messages.front(), names);
    out.route_dst = f.dst_len == 0 ? "default" : f.dst + "/" + std::to_string(f.dst_len);
    out.route_metric = f.metric;
    out.table = f.table;
    if (f.multipath) out.note = "multipath route: the kernel picked " + out.oif + " for this flow";
  } else {
    out.route_dst = dst->str() + "/" + std::to_string(dst->bits());
  }
  return out;
}

}  // namespace

std::vector<RouteLookup> kernel_route_get(const std::vector<RouteQuery>& queries) {
  std::vector<RouteLookup> out;
  if (queries.empty()) return out;
  NetlinkSocket sock;
  IfNames names;
  out.reserve(queries.size());
  for (const auto& q : queries) out.push_back(lookup_one(sock, names, q));
  return out;
}

}  // namespace hn::stack::netplane::detail
