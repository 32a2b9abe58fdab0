#pragma once
// How `hnprecheck bench` reports its link setup: the parameters in force
// (budget, attempts, back-off, binding, each with its source) and where each
// rank's links really bound (stack/l3_comm/link_bindings.h), as "# " lines
// under the table's header and as the JSON keys "link_setup" and "links".

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "stack/l3_comm/link_bindings.h"
#include "stack/l3_comm/link_params.h"

namespace hn::preflight::commands {

void print_link_setup(std::ostream& os, const stack::comm::LinkParams& p,
                      const std::vector<stack::comm::LinkBinding>& links);

nlohmann::json link_setup_json(const stack::comm::LinkParams& p);
nlohmann::json links_json(const std::vector<stack::comm::LinkBinding>& links);

}  // namespace hn::preflight::commands
