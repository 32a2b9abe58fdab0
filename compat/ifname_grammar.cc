#include "compat/ifname_grammar.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "compat/join.h"

namespace hn::compat {

namespace {

// NCCL stops collecting socket interfaces at MAX_IFS.
constexpr size_t kNcclMaxIfs = 16;

struct RawIp {
  int family = 0;
  std::array<unsigned char, 16> bytes{};
};

std::optional<RawIp> parse_raw_ip(std::string_view text) {
  std::string s(text);
  RawIp ip;
  if (inet_pton(AF_INET, s.c_str(), ip.bytes.data()) == 1) {
    ip.family = 4;
    return ip;
  }
  if (inet_pton(AF_INET6, s.c_str(), ip.bytes.data()) == 1) {
    ip.family = 6;
    return ip;
  }
  return std::nullopt;
}

bool has_family(const NicCandidate& nic, int family) {
  for (const auto& a : nic.addresses) {
    auto ip = parse_raw_ip(a);
    if (ip && (family == 0 || ip->family == family)) return true;
  }
  return false;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> split_commas(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    if (comma > start) out.emplace_back(value.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// getifaddrs order: the kernel dumps IPv4 addresses (by ifindex) before IPv6
// ones, and NCCL keeps the first entry per name.
std::vector<const NicCandidate*> getifaddrs_order(const std::vector<NicCandidate>& nics,
                                                  int family) {
  std::vector<const NicCandidate*> v4, v6;
  for (const auto& n : nics) {
    if (family != 6 && has_family(n, 4))
      v4.push_back(&n);
    else if (family != 4 && has_family(n, 6))
      v6.push_back(&n);
  }
  auto by_index = [](const NicCandidate* a, const NicCandidate* b) { return a->index < b->index; };
  std::stable_sort(v4.begin(), v4.end(), by_index);
  std::stable_sort(v6.begin(), v6.end(), by_index);
  v4.insert(v4.end(), v6.begin(), v6.end());
  return v4;
}

// NCCL's findInterfaces(): every candidate the list selects.
std::vector<std::string> nccl_find(std::string_view list_text,
                                   const std::vector<const NicCandidate*>& ordered) {
  IfList list = parse_if_list(list_text);
  std::vector<std::string> out;
  for (const auto* n : ordered) {
    if (out.size() == kNcclMaxIfs) break;
    if (if_list_selects(list, n->name)) out.push_back(n->name);
  }
  return out;
}

// HCCL's documented priority: other NICs by name, then docker*, then lo.
int hccl_rank(std::string_view name) {
  if (name == "lo") return 2;
  if (starts_with(name, "docker")) return 1;
  return 0;
}

}  // namespace

std::vector<std::string> IfSelection::used() const {
  if (first_only && !nics.empty()) return {nics.front()};
  return nics;
}

IfList parse_if_list(std::string_view value) {
  IfList list;
  if (!value.empty() && value.front() == '^') {
    list.exclude = true;
    value.remove_prefix(1);
  }
  if (!value.empty() && value.front() == '=') {
    list.exact = true;
    value.remove_prefix(1);
  }
  for (const auto& token : split_commas(value)) {
    // NCCL's parseStringList: the name ends at ':'; atoi of what follows is
    // the port; anything after a second ':' (rail, plane) is ignored here.
    IfListItem item;
    size_t colon = token.find(':');
    item.name = token.substr(0, colon);
    if (colon != std::string::npos) item.port = std::atoi(token.c_str() + colon + 1);
    if (!item.name.empty()) list.items.push_back(item);
  }
  return list;
}

bool if_list_selects(const IfList& list, std::string_view name, int port) {
  if (list.items.empty()) return true;
  bool hit = false;
  for (const auto& item : list.items) {
    bool name_ok = list.exact ? name == item.name : starts_with(name, item.name);
    bool port_ok = item.port == -1 || port == -1 || item.port == port;
    if (name_ok && port_ok) {
      hit = true;
      break;
    }
  }
  return hit != list.exclude;
}

bool hccl_name_before(std::string_view a, std::string_view b) {
  int ra = hccl_rank(a), rb = hccl_rank(b);
  return ra != rb ? ra < rb : a < b;
}

int socket_family_from(std::string_view value) {
  if (value == "AF_INET") return 4;
  if (value == "AF_INET6") return 6;
  return 0;
}

IfSelection resolve_nccl_socket_ifname(const std::optional<std::string>& value,
                                       const std::vector<NicCandidate>& nics, int family) {
  IfSelection sel;
  auto ordered = getifaddrs_order(nics, family);
  // ncclFindInterfaces(): a value of length <= 1 is treated as unset.
  if (value && value->size() > 1) {
    sel.nics = nccl_find(*value, ordered);
    if (sel.nics.empty())
      sel.error = "NCCL_SOCKET_IFNAME=" + *value + " matches no interface with an address";
    return sel;
  }
  sel.automatic = true;
  if (value && !value->empty())
    sel.notes.push_back("a value of one character is ignored by NCCL (automatic choice)");
  for (const char* step : {"ib", "^docker,lo", "docker", "lo"}) {
    sel.nics = nccl_find(step, ordered);
    if (!sel.nics.empty()) return sel;
  }
  sel.error = "no interface with an address";
  return sel;
}

IfSelection resolve_hccl_socket_ifname(const std::optional<std::string>& value,
                                       const std::vector<NicCandidate>& nics, int family) {
  IfSelection sel;
  sel.first_only = true;
  std::vector<const NicCandidate*> ordered;
  for (const auto& n : nics)
    if (has_family(n, family)) ordered.push_back(&n);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const NicCandidate* a, const NicCandidate* b) {
                     return hccl_name_before(a->name, b->name);
                   });
  IfList list;
  if (value && !value->empty())
    list = parse_if_list(*value);
  else
    sel.automatic = true;
  for (const auto* n : ordered)
    if (sel.automatic || if_list_selects(list, n->name)) sel.nics.push_back(n->name);
  if (sel.nics.empty())
    sel.error = sel.automatic ? "no interface with an address"
                              : "HCCL_SOCKET_IFNAME=" + *value + " matches no interface";
  return sel;
}

IfSelection resolve_hccl_if_ip(const std::string& value, const std::vector<NicCandidate>& nics) {
  IfSelection sel;
  sel.first_only = true;
  auto want = parse_raw_ip(value);
  if (!want) {
    sel.error = "HCCL_IF_IP=" + value + " is not an IPv4 or IPv6 address";
    return sel;
  }
  for (const auto& n : nics)
    for (const auto& a : n.addresses) {
      auto ip = parse_raw_ip(a);
      if (ip && ip->family == want->family && ip->bytes == want->bytes) {
        sel.nics.push_back(n.name);
        return sel;
      }
    }
  sel.error = "no interface holds " + value;
  return sel;
}

IfSelection resolve_gloo_socket_ifname(const std::optional<std::string>& value,
                                       const std::vector<NicCandidate>& nics) {
  IfSelection sel;
  if (!value || value->empty()) {
    sel.automatic = true;
    sel.notes.push_back("unset: Gloo uses the address the hostname resolves to");
    return sel;
  }
  for (const auto& name : split_commas(*value)) {
    auto it = std::find_if(nics.begin(), nics.end(),
                           [&](const NicCandidate& n) { return n.name == name; });
    if (it == nics.end() || !it->up || !has_family(*it, 0)) {
      sel.error = "Unable to find address for: " + name;
      sel.nics.clear();  // Gloo throws at init: nothing is used
      return sel;
    }
    sel.nics.push_back(name);
  }
  if (sel.nics.empty()) sel.error = "GLOO_SOCKET_IFNAME=" + *value + " names no interface";
  return sel;
}

IfSelection resolve_ompi_btl_tcp_if(const std::optional<std::string>& include,
                                    const std::optional<std::string>& exclude,
                                    const std::vector<NicCandidate>& nics) {
  IfSelection sel;
  if (include && exclude) {
    sel.error =
        "btl_tcp_if_include and btl_tcp_if_exclude are mutually exclusive; Open MPI "
        "disables the TCP BTL";
    return sel;
  }
  bool is_include = include.has_value();
  sel.automatic = !include && !exclude;
  std::string list_text = include ? *include : exclude ? *exclude : "127.0.0.1/8,sppp";
  std::vector<std::string> items = split_commas(list_text);
  std::vector<std::string> kept;
  for (const auto& item : items) {
    bool cidr = item.find('/') != std::string::npos;
    bool known = cidr ? parse_raw_ip(item.substr(0, item.find('/'))).has_value()
                      : std::any_of(nics.begin(), nics.end(),
                                    [&](const NicCandidate& n) { return n.name == item; });
    if (known)
      kept.push_back(item);
    else if (!sel.automatic)
      sel.notes.push_back("Open MPI skips unknown interface '" + item + "'");
  }
  std::vector<const NicCandidate*> ordered;
  for (const auto& n : nics)
    if (n.up && has_family(n, 4)) ordered.push_back(&n);
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const NicCandidate* a, const NicCandidate* b) { return a->index < b->index; });
  for (const auto* n : ordered) {
    bool match = false;
    for (const auto& item : kept) {
      if (item.find('/') == std::string::npos) {
        match = match || item == n->name;
        continue;
      }
      for (const auto& a : n->addresses) match = match || cidr_contains(item, a);
    }
    if (match == is_include) sel.nics.push_back(n->name);
  }
  if (sel.nics.empty())
    sel.error = "no interface is left for the TCP BTL (" +
                std::string(is_include ? "include=" : "exclude=") + join(kept, ",") + ")";
  return sel;
}

bool cidr_contains(std::string_view cidr, std::string_view address) {
  size_t slash = cidr.find('/');
  auto net = parse_raw_ip(cidr.substr(0, slash));
  auto ip = parse_raw_ip(address);
  if (!net || !ip || net->family != ip->family) return false;
  int bits = net->family == 4 ? 32 : 128;
  int len = bits;
  if (slash != std::string_view::npos) {
    std::string len_text(cidr.substr(slash + 1));
    char* end = nullptr;
    long v = std::strtol(len_text.c_str(), &end, 10);
    if (len_text.empty() || *end != '\0' || v < 0 || v > bits) return false;
    len = static_cast<int>(v);
  }
  for (int i = 0; i < len; ++i) {
    int byte = i / 8, bit = 7 - i % 8;
    if (((net->bytes[byte] >> bit) & 1) != ((ip->bytes[byte] >> bit) & 1)) return false;
  }
  return true;
}

}  // namespace hn::compat
