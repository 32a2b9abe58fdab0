#include "stack/l5_sched/rendezvous.h"

#include <stdexcept>

#include "compat/input_error.h"
#include "stack/l5_sched/hostlist.h"

namespace hn::stack::sched {

namespace {

int parse_port(const std::string& s, const std::string& field, const std::string& whole) {
  bool digits = !s.empty() && s.size() <= 5;
  for (char c : s) digits = digits && c >= '0' && c <= '9';
  int port = digits ? std::stoi(s) : -1;
  if (port < 1 || port > 65535)
    throw compat::InputError("environment", 0, 0, field,
                             "'" + whole + "': port must be an integer in [1, 65535]");
  return port;
}

}  // namespace

Endpoint parse_endpoint(const std::string& text, const std::string& field) {
  Endpoint e;
  e.source = field;
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      throw compat::InputError("environment", 0, 0, field, "'" + text + "' is not [ADDR]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon)
      throw compat::InputError("environment", 0, 0, field, "'" + text + "' is not HOST:PORT");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty())
    throw compat::InputError("environment", 0, 0, field, "'" + text + "' has no host");
  e.host = host;
  e.port = parse_port(port, field, text);
  return e;
}

Endpoint resolve_rendezvous(const EnvLookup& env, const Identity& id, const std::string& option,
                            int default_port) {
  if (!option.empty()) return parse_endpoint(option, "--rendezvous");
  if (const char* v = env("HN_RENDEZVOUS"); v && *v) return parse_endpoint(v, "HN_RENDEZVOUS");
  const char* addr = env("MASTER_ADDR");
  const char* port = env("MASTER_PORT");
  if (addr || port) {
    if (!addr || !*addr)
      throw compat::InputError("environment", 0, 0, "MASTER_ADDR",
                               "is empty or unset while MASTER_PORT is set");
    Endpoint e;
    e.host = addr;
    e.port = port ? parse_port(port, "MASTER_PORT", port) : default_port;
    e.source = "MASTER_ADDR/MASTER_PORT";
    return e;
  }
  if (const char* nodes = env("SLURM_JOB_NODELIST"); nodes && id.launcher == Launcher::kSlurm) {
    Endpoint e;
    try {
      e.host = first_host(nodes);
    } catch (const std::invalid_argument& ex) {
      throw compat::InputError("environment", 0, 0, "SLURM_JOB_NODELIST", ex.what());
    }
    e.port = default_port;
    e.source = "SLURM_JOB_NODELIST";
    return e;
  }
  if (id.world == 1 || (id.local_world > 0 && id.local_world == id.world)) {
    return Endpoint{"127.0.0.1", default_port, "all ranks on this host"};
  }
  throw compat::InputError("command line", 0, 0, "--rendezvous",
                           "no rendezvous address: pass --rendezvous HOST:PORT, or set MASTER_ADDR "
                           "and MASTER_PORT (rank 0 listens there)");
}

}  // namespace hn::stack::sched
