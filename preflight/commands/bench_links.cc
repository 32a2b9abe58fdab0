#include "preflight/commands/bench_links.h"

#include <cstdio>

namespace hn::preflight::commands {

namespace {

std::string seconds(std::chrono::milliseconds ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f s", ms.count() / 1000.0);
  return b;
}

std::string family_name(int f) {
  return f == AF_INET ? "AF_INET" : f == AF_INET6 ? "AF_INET6" : "any";
}

}  // namespace

void print_link_setup(std::ostream& os, const stack::comm::LinkParams& p,
                      const std::vector<stack::comm::LinkBinding>& links) {
  os << "# link setup: budget " << seconds(p.connect_timeout) << " (" << p.budget_source
     << "), attempts "
     << (p.retry_count < 0 ? std::string("unlimited") : "<= " + std::to_string(p.max_attempts()))
     << " (" << p.retry_source << "), back-off " << p.retry_sleep.count() << " ms x k\n";
  os << "# binding: ";
  if (p.bind_source.empty())
    os << "none (the kernel's routing picks the source address)\n";
  else
    os << (p.bind_interface.empty() ? "" : p.bind_interface + " ")
       << (p.bind_address.empty() ? "" : p.bind_address + " ") << "from " << p.bind_source << "\n";
  for (const auto& l : links) {
    os << "# rank " << l.rank << " -> rank " << l.peer << ": local " << l.local << " on "
       << (l.nic.empty() ? "?" : l.nic)
       << (l.device.empty() ? std::string(" (no SO_BINDTODEVICE)")
                            : " (SO_BINDTODEVICE " + l.device + ")")
       << ", remote " << l.remote << "\n";
  }
}

nlohmann::json link_setup_json(const stack::comm::LinkParams& p) {
  return {{"budget_ms", p.connect_timeout.count()},
          {"budget_source", p.budget_source},
          {"max_attempts",
           p.retry_count < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.max_attempts())},
          {"retry_source", p.retry_source},
          {"retry_sleep_ms", p.retry_sleep.count()},
          {"bind_address", p.bind_address},
          {"bind_interface", p.bind_interface},
          {"bind_source", p.bind_source},
          {"family", family_name(p.family)},
          {"plane", p.plane}};
}

nlohmann::json links_json(const std::vector<stack::comm::LinkBinding>& links) {
  auto a = nlohmann::json::array();
  for (const auto& l : links)
    a.push_back({{"rank", l.rank},
                 {"peer", l.peer},
                 {"local", l.local},
                 {"remote", l.remote},
                 {"device", l.device},
                 {"nic", l.nic}});
  return a;
}

}  // namespace hn::preflight::commands
