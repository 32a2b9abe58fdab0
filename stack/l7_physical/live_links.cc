// Links through rtnetlink (libnl-route), in the calling thread's network
// namespace, then the sysfs attributes netlink does not carry.

#include <linux/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vlan.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>

#include "stack/l7_physical/live_readers.h"

namespace hn::stack::physical::detail {

namespace {

struct SockFree {
  void operator()(nl_sock* s) const { nl_socket_free(s); }
};
struct CacheFree {
  void operator()(nl_cache* c) const { nl_cache_free(c); }
};
using SockPtr = std::unique_ptr<nl_sock, SockFree>;
using CachePtr = std::unique_ptr<nl_cache, CacheFree>;

std::string format_mac(nl_addr* addr) {
  if (!addr) return "";
  auto* bytes = static_cast<const unsigned char*>(nl_addr_get_binary_addr(addr));
  unsigned len = nl_addr_get_len(addr);
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%s%02x", i ? ":" : "", bytes[i]);
    out += b;
  }
  return out;
}

std::string operstate_text(rtnl_link* l) {
  char buf[32] = {};
  rtnl_link_operstate2str(rtnl_link_get_operstate(l), buf, sizeof buf);
  std::string s = buf;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Link to_link(rtnl_link* l, const std::map<int, std::string>& names) {
  Link out;
  const char* name = rtnl_link_get_name(l);
  out.name = name ? name : "";
  out.ifindex = rtnl_link_get_ifindex(l);
  unsigned flags = rtnl_link_get_flags(l);
  out.admin_up = (flags & IFF_UP) != 0;
  out.oper_state = operstate_text(l);
  // IFF_LOWER_UP is what `ip link` shows as NO-CARRIER's absence: the
  // kernel only sets it while the device is up and has carrier.
  out.carrier = (flags & IFF_LOWER_UP) != 0;
  out.mtu = static_cast<int>(rtnl_link_get_mtu(l));
  out.mac = format_mac(rtnl_link_get_addr(l));
  const char* kind = rtnl_link_get_type(l);
  out.kind = kind ? kind : "";

  auto name_of = [&](int index) {
    auto it = names.find(index);
    return it == names.end() ? std::string() : it->second;
  };
  if (int master = rtnl_link_get_master(l); master > 0) out.master = name_of(master);
  // IFLA_LINK with IFLA_LINK_NETNSID names a device in another namespace
  // (a veth peer that was moved); its index means nothing here.
  int32_t netnsid = 0;
  bool foreign = rtnl_link_get_link_netnsid(l, &netnsid) == 0;
  int parent = rtnl_link_get_link(l);
  if (!foreign && parent > 0 && parent != out.ifindex) out.parent = name_of(parent);
  if (out.kind == "vlan" && rtnl_link_is_vlan(l)) out.vlan_id = rtnl_link_vlan_get_id(l);

  out.rx_bytes = rtnl_link_get_stat(l, RTNL_LINK_RX_BYTES);
  out.tx_bytes = rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES);
  out.rx_packets = rtnl_link_get_stat(l, RTNL_LINK_RX_PACKETS);
  out.tx_packets = rtnl_link_get_stat(l, RTNL_LINK_TX_PACKETS);
  return out;
}

}  // namespace

std::vector<Link> read_links(const LiveRoots& roots) {
  SockPtr sock(nl_socket_alloc());
  if (!sock) throw SourceError("netlink: cannot allocate a socket (out of memory)");
  if (int err = nl_connect(sock.get(), NETLINK_ROUTE); err < 0)
    throw SourceError(std::string("netlink: cannot open a NETLINK_ROUTE socket: ") +
                      nl_geterror(err));
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sock.get(), AF_UNSPEC, &raw); err < 0)
    throw SourceError(std::string("netlink: cannot dump links (RTM_GETLINK): ") + nl_geterror(err));
  CachePtr cache(raw);

  // Resolve master/parent indexes against this dump, not with a second query,
  // so a link that vanishes meanwhile cannot make the answer inconsistent.
  std::map<int, std::string> names;
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* l = reinterpret_cast<rtnl_link*>(o);
    if (const char* n = rtnl_link_get_name(l)) names[rtnl_link_get_ifindex(l)] = n;
  }

  std::vector<Link> links;
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    Link link = to_link(reinterpret_cast<rtnl_link*>(o), names);
    fill_link_sysfs(roots.sys, link);
    links.push_back(std::move(link));
  }
  std::sort(links.begin(), links.end(),
            [](const Link& a, const Link& b) { return a.ifindex < b.ifindex; });
  return links;
}

}  // namespace hn::stack::physical::detail
