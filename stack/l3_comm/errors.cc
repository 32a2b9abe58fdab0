#include "stack/l3_comm/errors.h"

namespace hn::stack::comm {

const char* LinkError::kind_name(Kind k) {
  switch (k) {
    case Kind::kRefused:
      return "connection refused";
    case Kind::kNoRoute:
      return "no route";
    case Kind::kTimeout:
      return "timeout";
    case Kind::kAuthMismatch:
      return "authentication mismatch";
    case Kind::kPortInUse:
      return "port in use";
    case Kind::kPeerClosed:
      return "peer closed";
    case Kind::kNoInterface:
      return "no interface";
    case Kind::kUnresolved:
      return "host not resolved";
    case Kind::kOther:
      return "link error";
  }
  return "link error";
}

std::string CommError::format(const std::string& what, const ErrorContext& c) {
  std::string s;
  if (c.local_rank >= 0) s += "rank " + std::to_string(c.local_rank) + ": ";
  if (!c.operation.empty()) s += c.operation + ": ";
  s += what;
  std::string where;
  if (c.peer_rank >= 0) where += "peer rank " + std::to_string(c.peer_rank);
  if (!c.peer_address.empty())
    where += (where.empty() ? "" : " ") + std::string("at ") + c.peer_address;
  if (!c.plane.empty()) where += (where.empty() ? "" : ", ") + std::string("plane ") + c.plane;
  where += (where.empty() ? "" : ", ") + std::string("after ") + std::to_string(c.elapsed.count()) +
           " ms";
  return s + " (" + where + ")";
}

}  // namespace hn::stack::comm
