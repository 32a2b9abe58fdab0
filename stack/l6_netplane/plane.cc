#include "stack/l6_netplane/plane.h"

#include <fnmatch.h>

#include <stdexcept>
#include <string>

namespace hn::stack::netplane {

std::string_view to_string(PlaneType t) {
  switch (t) {
    case PlaneType::kParameter:
      return "parameter";
    case PlaneType::kData:
      return "data";
    case PlaneType::kStorage:
      return "storage";
    case PlaneType::kManagement:
      return "management";
    case PlaneType::kBusiness:
      return "business";
  }
  return "?";
}

PlaneType plane_type_from_string(std::string_view s) {
  for (PlaneType t : {PlaneType::kParameter, PlaneType::kData, PlaneType::kStorage,
                      PlaneType::kManagement, PlaneType::kBusiness})
    if (to_string(t) == s) return t;
  throw std::invalid_argument("unknown plane type '" + std::string(s) +
                              "' (expected parameter, data, storage, management or business)");
}

bool nic_matches(std::string_view pattern, std::string_view name) {
  return fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), 0) == 0;
}

}  // namespace hn::stack::netplane
