// Live policy rules: RTM_GETRULE dumps (libnl's rule object hides the
// `not` flag, so the dump is parsed here).
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "stack/l6_netplane/live_readers.h"
#include "stack/l6_netplane/netlink_socket.h"
#include "stack/l7_physical/source.h"

namespace hn::stack::netplane::detail {

namespace {

std::string prefix_text(int family, const void* data, int len) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family, data, buf, sizeof buf);
  return std::string(buf) + "/" + std::to_string(len);
}

std::uint32_t u32(const rtattr* a) {
  std::uint32_t v = 0;
  std::memcpy(&v, RTA_DATA(a), sizeof v);
  return v;
}

std::string action_name(int action) {
  switch (action) {
    case FR_ACT_TO_TBL:
      return "lookup";
    case FR_ACT_GOTO:
      return "goto";
    case FR_ACT_NOP:
      return "nop";
    case FR_ACT_BLACKHOLE:
      return "blackhole";
    case FR_ACT_UNREACHABLE:
      return "unreachable";
    case FR_ACT_PROHIBIT:
      return "prohibit";
    default:
      return "action" + std::to_string(action);
  }
}

void add_unmodelled(Rule& r, const std::string& what) {
  r.unmodelled += (r.unmodelled.empty() ? "" : ", ") + what;
}

Rule parse_rule(const std::string& msg) {
  const auto* h = reinterpret_cast<const nlmsghdr*>(msg.data());
  const auto* frh = static_cast<const fib_rule_hdr*>(NLMSG_DATA(h));
  Rule r;
  r.family = frh->family == AF_INET6 ? 6 : 4;
  r.table = frh->table;
  r.action = action_name(frh->action);
  r.invert = (frh->flags & FIB_RULE_INVERT) != 0;
  if (frh->tos) add_unmodelled(r, "tos " + std::to_string(frh->tos));
  int len = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof(fib_rule_hdr)));
  auto* a = reinterpret_cast<const rtattr*>(reinterpret_cast<const char*>(frh) +
                                            NLMSG_ALIGN(sizeof(fib_rule_hdr)));
  for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
    switch (a->rta_type) {
      case FRA_PRIORITY:
        r.priority = static_cast<int>(u32(a));
        break;
      case FRA_TABLE:
        r.table = static_cast<int>(u32(a));
        break;
      case FRA_SRC:
        if (frh->src_len) r.src = prefix_text(frh->family, RTA_DATA(a), frh->src_len);
        break;
      case FRA_DST:
        if (frh->dst_len) r.dst = prefix_text(frh->family, RTA_DATA(a), frh->dst_len);
        break;
      case FRA_IIFNAME:
        r.iif = static_cast<const char*>(RTA_DATA(a));
        break;
      case FRA_OIFNAME:
        r.oif = static_cast<const char*>(RTA_DATA(a));
        break;
      case FRA_FWMARK:
        r.fwmark = u32(a);
        break;
      case FRA_FWMASK:
        r.fwmask = u32(a);
        break;
      case FRA_GOTO:
        r.goto_priority = static_cast<int>(u32(a));
        break;
      case FRA_SUPPRESS_PREFIXLEN:
        r.suppress_prefixlen = static_cast<int>(u32(a));
        break;
      case FRA_SUPPRESS_IFGROUP:
        add_unmodelled(r, "suppress_ifgroup");
        break;
      case FRA_L3MDEV:
        add_unmodelled(r, "l3mdev");
        break;
      case FRA_UID_RANGE:
        add_unmodelled(r, "uidrange");
        break;
      case FRA_IP_PROTO:
        add_unmodelled(r, "ipproto");
        break;
      case FRA_SPORT_RANGE:
        add_unmodelled(r, "sport");
        break;
      case FRA_DPORT_RANGE:
        add_unmodelled(r, "dport");
        break;
      case FRA_TUN_ID:
        add_unmodelled(r, "tun_id");
        break;
      default:
        break;
    }
  }
  return r;
}

}  // namespace

std::vector<Rule> read_rules() {
  NetlinkSocket sock;
  std::vector<Rule> out;
  for (int family : {AF_INET, AF_INET6}) {
    fib_rule_hdr frh{};
    frh.family = static_cast<std::uint8_t>(family);
    NetlinkMessage m(RTM_GETRULE, NLM_F_REQUEST | NLM_F_DUMP, &frh, sizeof frh);
    NetlinkReply reply = sock.request(m, true);
    // A kernel built without IPv6 answers EAFNOSUPPORT: no rules of that family.
    if (reply.error && reply.error != -EAFNOSUPPORT)
      throw physical::SourceError(std::string("netlink: rule dump failed: ") +
                                  std::strerror(-reply.error));
    for (const auto& msg : reply.messages) out.push_back(parse_rule(msg));
  }
  return out;
}

}  // namespace hn::stack::netplane::detail
