#include "stack/l3_comm/link_bindings.h"

#include <sstream>

#include "stack/l3_comm/local_nics.h"

namespace hn::stack::comm {

namespace {

// "10.0.0.1:80" -> "10.0.0.1", "[::1]:80" -> "::1"
std::string ip_part(const std::string& addr) {
  auto colon = addr.rfind(':');
  std::string host = colon == std::string::npos ? addr : addr.substr(0, colon);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  return host;
}

std::string encode(const std::vector<LinkBinding>& v) {
  std::string s;
  for (const auto& b : v)
    s += std::to_string(b.peer) + "\t" + b.local + "\t" + b.remote + "\t" + b.device + "\t" +
         b.nic + "\n";
  return s;
}

std::vector<LinkBinding> decode(int rank, const std::string& text) {
  std::vector<LinkBinding> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
      auto tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (f.size() != 5) continue;
    v.push_back({rank, std::stoi(f[0]), f[1], f[2], f[3], f[4]});
  }
  return v;
}

}  // namespace

std::vector<LinkBinding> local_link_bindings(const Communicator& c) {
  std::vector<LinkBinding> v;
  Device* d = c.device();
  if (!d || std::string(d->name()) != "tcp") return v;
  const auto nics = local_nic_candidates();
  for (int peer = 0; peer < c.size(); ++peer) {
    if (peer == c.rank()) continue;
    Pair& p = d->pair(peer);
    LinkBinding b;
    b.rank = c.rank();
    b.peer = peer;
    b.local = p.local_address();
    b.remote = p.address();
    b.device = p.bound_device();
    b.nic = nic_holding(ip_part(b.local), nics);
    v.push_back(std::move(b));
  }
  return v;
}

std::vector<LinkBinding> gather_link_bindings(Communicator& c, std::chrono::milliseconds timeout) {
  auto mine = local_link_bindings(c);
  if (c.size() == 1) return mine;
  c.store().set("links/" + std::to_string(c.rank()), encode(mine));
  if (c.rank() != 0) return mine;
  std::vector<LinkBinding> all;
  for (int r = 0; r < c.size(); ++r) {
    auto v = r == c.rank() ? mine : decode(r, c.store().get("links/" + std::to_string(r), timeout));
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

}  // namespace hn::stack::comm
