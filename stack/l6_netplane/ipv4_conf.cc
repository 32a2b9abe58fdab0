// The per-interface IPv4 settings that decide reply paths on multi-homed
// nodes, read from procfs (per network namespace: /proc/sys/net follows the
// reader's namespace).
#include <dirent.h>

#include <cstdlib>
#include <fstream>

#include "stack/l6_netplane/live_readers.h"

namespace hn::stack::netplane::detail {

namespace {

std::optional<int> read_int(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text) || text.empty()) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str()) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

std::map<std::string, Ipv4Conf> read_ipv4_conf(const std::string& proc_root) {
  std::map<std::string, Ipv4Conf> out;
  const std::string base = proc_root + "/sys/net/ipv4/conf";
  DIR* dir = opendir(base.c_str());
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string d = base + "/" + name + "/";
    Ipv4Conf c;
    c.rp_filter = read_int(d + "rp_filter");
    c.arp_ignore = read_int(d + "arp_ignore");
    c.arp_announce = read_int(d + "arp_announce");
    if (c.rp_filter || c.arp_ignore || c.arp_announce) out[name] = c;
  }
  closedir(dir);
  return out;
}

}  // namespace hn::stack::netplane::detail
