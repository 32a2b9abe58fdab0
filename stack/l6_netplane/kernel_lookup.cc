// Live route lookups: RTM_GETROUTE, exactly what `ip route get DST [from SRC]`
// sends, then the same with RTM_F_FIB_MATCH (`... fibmatch`) to learn which
// FIB entry won (its prefix and metric), on one raw netlink socket.
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/route/route.h>

#include <algorithm>
#include <cstring>
#include <optional>

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

NetlinkMessage route_request(const IpAddress& dst, const std::optional<IpAddress>& src,
                             bool fib_match) {
  rtmsg r{};
  r.rtm_family = static_cast<unsigned char>(dst.family == 4 ? AF_INET : AF_INET6);
  r.rtm_dst_len = static_cast<unsigned char>(dst.bits());
  r.rtm_src_len = static_cast<unsigned char>(src ? src->bits() : 0);
  r.rtm_flags = RTM_F_LOOKUP_TABLE | (fib_match ? RTM_F_FIB_MATCH : 0);
  NetlinkMessage m(RTM_GETROUTE, NLM_F_REQUEST, &r, sizeof r);
  size_t alen = dst.family == 4 ? 4 : 16;
  m.add_attr(RTA_DST, dst.bytes.data(), alen);
  if (src) m.add_attr(RTA_SRC, src->bytes.data(), alen);
  return m;
}

// A query checked and parsed, or the reason it cannot be asked.
struct Prepared {
  std::optional<IpAddress> dst, src;
  std::string error;
};

Prepared prepare(const RouteQuery& q) {
  Prepared p;
  if (!(p.dst = try_parse_ip(q.dst)))
    p.error = "'" + q.dst + "' is not an address";
  else if (!q.src.empty() && !(p.src = try_parse_ip(q.src)))
    p.error = "'" + q.src + "' is not an address";
  else if (p.src && p.src->family != p.dst->family)
    p.error = "source and destination families differ";
  return p;
}

// The plain answer gives the egress NIC and source; the fibmatch answer the
// FIB entry that won (prefix, metric, table).
RouteLookup combine(const Prepared& q, const NetlinkReply& plain, const NetlinkReply& fib,
                    const IfNames& names) {
  RouteLookup out;
  if (plain.error || plain.messages.empty()) {
    out.error = plain.error ? std::strerror(-plain.error) : "no answer";
    return out;
  }
  Parsed p = parse_route(plain.messages.front(), names);
  out.oif = p.oif;
  out.src = p.src.empty() && q.src ? q.src->str() : p.src;
  out.gateway = p.gateway;
  out.type = p.type;
  out.table = p.table;
  if (!fib.error && !fib.messages.empty()) {
    Parsed f = parse_route(fib.messages.front(), names);
    out.route_dst = f.dst_len == 0 ? "default" : f.dst + "/" + std::to_string(f.dst_len);
    out.route_metric = f.metric;
    out.table = f.table;
    if (f.multipath) out.note = "multipath route: the kernel picked " + out.oif + " for this flow";
  } else {
    out.route_dst = q.dst->str() + "/" + std::to_string(q.dst->bits());
  }
  return out;
}

}  // namespace

std::vector<RouteLookup> kernel_route_get(const std::vector<RouteQuery>& queries) {
  std::vector<RouteLookup> out(queries.size());
  if (queries.empty()) return out;
  NetlinkSocket sock;
  IfNames names;
  // Two requests per query (plain, fibmatch), sent in batches: one datagram
  // and a few receives per batch instead of a round trip per request.
  const std::size_t per_batch = NetlinkSocket::kMaxBatch / 2;
  for (std::size_t begin = 0; begin < queries.size(); begin += per_batch) {
    std::size_t end = std::min(queries.size(), begin + per_batch);
    std::vector<Prepared> prepared;
    std::vector<std::size_t> asked;  // query index of each prepared pair
    std::vector<NetlinkMessage> batch;
    for (std::size_t i = begin; i < end; ++i) {
      Prepared p = prepare(queries[i]);
      if (!p.error.empty()) {
        out[i].error = p.error;
        continue;
      }
      batch.push_back(route_request(*p.dst, p.src, false));
      batch.push_back(route_request(*p.dst, p.src, true));
      prepared.push_back(std::move(p));
      asked.push_back(i);
    }
    std::vector<NetlinkReply> replies = sock.request_batch(batch);
    for (std::size_t k = 0; k < asked.size(); ++k)
      out[asked[k]] = combine(prepared[k], replies[2 * k], replies[2 * k + 1], names);
  }
  return out;
}

}  // namespace hn::stack::netplane::detail
