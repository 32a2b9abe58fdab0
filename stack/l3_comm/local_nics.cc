#include "stack/l3_comm/local_nics.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace hn::stack::comm {

namespace {

// Canonical text of an address ("::1" for "0:0::1"), "" if it is not one.
std::string canonical(const std::string& ip) {
  unsigned char buf[16];
  char out[INET6_ADDRSTRLEN];
  for (int fam : {AF_INET, AF_INET6})
    if (inet_pton(fam, ip.c_str(), buf) == 1 && inet_ntop(fam, buf, out, sizeof out)) return out;
  return "";
}

}  // namespace

std::vector<compat::NicCandidate> local_nic_candidates() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) throw std::system_error(errno, std::generic_category(), "getifaddrs");
  std::vector<compat::NicCandidate> nics;
  auto entry = [&](const char* name, unsigned flags) -> compat::NicCandidate& {
    auto it = std::find_if(nics.begin(), nics.end(),
                           [&](const compat::NicCandidate& n) { return n.name == name; });
    if (it != nics.end()) return *it;
    nics.push_back({name, static_cast<int>(if_nametoindex(name)), (flags & IFF_UP) != 0, {}});
    return nics.back();
  };
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_name) continue;
    auto& nic = entry(a->ifa_name, a->ifa_flags);
    if (!a->ifa_addr) continue;
    int fam = a->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    if (fam == AF_INET6 &&
        IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr))
      continue;
    char host[NI_MAXHOST];
    socklen_t len = fam == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (getnameinfo(a->ifa_addr, len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) == 0)
      nic.addresses.emplace_back(host);
  }
  freeifaddrs(list);
  return nics;
}

std::string nic_holding(const std::string& ip, const std::vector<compat::NicCandidate>& nics) {
  const std::string want = canonical(ip);
  if (want.empty()) return "";
  for (const auto& n : nics)
    for (const auto& a : n.addresses)
      if (canonical(a) == want) return n.name;
  return "";
}

}  // namespace hn::stack::comm
