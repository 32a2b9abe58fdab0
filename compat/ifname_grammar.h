#pragma once
// Which network interfaces a communication library selects for the value of
// one of its interface-selection variables, resolved with that library's own
// grammar (restated below from each library's documentation and source).
// Pure functions over a list of NICs: no I/O, no environment. The node
// probes use them to judge the live node; `translate` uses them to explain a
// value.
//
// The grammars, as the libraries implement them:
//
//   NCCL_SOCKET_IFNAME  "eth,ib" prefixes; "^eth,ib" all but those prefixes;
//                       "=eth0,eth1" exact names; "^=eth0" all but those names.
//                       Items are "name[:port]" (the port is ignored for
//                       sockets); empty items are dropped; nothing is trimmed
//                       (" eth1" matches no NIC). A value shorter than two
//                       characters counts as unset. Unset: prefix "ib", else
//                       "^docker,lo", else "docker", else "lo". NCCL may use
//                       EVERY match (up to 16), in getifaddrs order: NICs with
//                       an IPv4 address by ifindex, then IPv6-only NICs.
//   HCCL_SOCKET_IFNAME  the same four forms, but HCCL uses only the FIRST
//                       match, with candidates in HCCL's own order: other NICs
//                       by name ascending, then docker*, then lo. Unset: the
//                       first of that order.
//   HCCL_IF_IP          one IPv4/IPv6 address: the NIC that holds it. It
//                       outranks HCCL_SOCKET_IFNAME (the caller decides that).
//   GLOO_SOCKET_IFNAME  comma list of EXACT names, every one used
//                       (round-robin); a name that is absent, down or has no
//                       address makes Gloo throw at init.
//   Open MPI btl_tcp_if_include / btl_tcp_if_exclude
//                       comma lists of exact names and/or CIDR blocks (a NIC
//                       matches a block when one of its addresses is inside).
//                       Setting both disables the TCP BTL. An exclude list
//                       replaces the default "127.0.0.1/8,sppp", so unless it
//                       names lo, lo is used too. Only NICs that are up count;
//                       every selected NIC is used. Unknown names are skipped
//                       with a warning (notes), as Open MPI does.
//
// Nothing here throws for a bad value: a value the library itself would
// reject yields IfSelection::error, because that is a finding about the job,
// not bad input to hnprecheck.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hn::compat {

// One NIC as the libraries see it (getifaddrs): name, kernel index, state and
// addresses (bare text, no prefix length; IPv4 or IPv6).
struct NicCandidate {
  std::string name;
  int index = 0;
  bool up = true;
  std::vector<std::string> addresses;
};

// What a library would do with a value.
struct IfSelection {
  std::vector<std::string> nics;   // every match, in the library's order
  bool first_only = false;         // the library uses nics.front() only (HCCL)
  bool automatic = false;          // the value counted as unset: the library's own choice
  std::string error;               // non-empty: the library fails at init with this value
  std::vector<std::string> notes;  // warnings the library would print (skipped items)

  // The NICs that really carry traffic: nics, or just the first for HCCL.
  std::vector<std::string> used() const;
};

// The NCCL/HCCL list grammar: a leading '^' (exclude), then '=' (exact), then
// comma-separated "name[:port[:...]]" items. port is -1 when absent.
struct IfListItem {
  std::string name;
  int port = -1;
  bool operator==(const IfListItem&) const = default;
};
struct IfList {
  bool exclude = false;
  bool exact = false;
  std::vector<IfListItem> items;
};
IfList parse_if_list(std::string_view value);
// True when `name` (and `port`, -1 = any) is selected by the list: it matches
// an item (prefix, or exact with '='; an item port of -1 matches any port),
// inverted for '^'. An empty list selects everything.
bool if_list_selects(const IfList& list, std::string_view name, int port = -1);

// HCCL's candidate order, which the comm layer also uses to pick "the first
// match" of any interface spec: other NICs by name ascending, then docker*,
// then lo. A strict weak ordering over names.
bool hccl_name_before(std::string_view a, std::string_view b);

// Address family filter for socket libraries: 0 any, 4 IPv4 only, 6 IPv6 only
// (NCCL_SOCKET_FAMILY / HCCL_SOCKET_FAMILY = AF_INET / AF_INET6).
int socket_family_from(std::string_view value);  // "" -> 0; unknown text -> 0

// nullopt value = the variable is unset.
IfSelection resolve_nccl_socket_ifname(const std::optional<std::string>& value,
                                       const std::vector<NicCandidate>& nics, int family = 0);
// HCCL defaults to IPv4 (HCCL_SOCKET_FAMILY unset means AF_INET).
IfSelection resolve_hccl_socket_ifname(const std::optional<std::string>& value,
                                       const std::vector<NicCandidate>& nics, int family = 4);
IfSelection resolve_hccl_if_ip(const std::string& value, const std::vector<NicCandidate>& nics);
IfSelection resolve_gloo_socket_ifname(const std::optional<std::string>& value,
                                       const std::vector<NicCandidate>& nics);
IfSelection resolve_ompi_btl_tcp_if(const std::optional<std::string>& include,
                                    const std::optional<std::string>& exclude,
                                    const std::vector<NicCandidate>& nics);

// True when text is an IPv4/IPv6 address inside the CIDR block ("10.0.0.0/8",
// or a bare address meaning a host block). False for malformed input.
bool cidr_contains(std::string_view cidr, std::string_view address);

}  // namespace hn::compat
