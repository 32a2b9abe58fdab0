#pragma once
// Each phase's table entry, defined in its own file (phase_<name>.cc), and
// the helpers they share.

#include <nlohmann/json.hpp>

#include "preflight/certify/phase.h"

namespace hn::preflight::certify {

Phase hosts_phase();        // phase_hosts.cc
Phase cross_host_phase();   // phase_hosts.cc
Phase links_phase();        // phase_links.cc
Phase collectives_phase();  // phase_collectives.cc
Phase storage_phase();      // phase_storage.cc
Phase model_phase();        // phase_placement.cc (not built in yet: SKIP)
Phase placement_phase();    // phase_placement.cc

// A host's finding as the cluster report shows it: the entity starts with
// the host name and Finding::host is set.
reports::Finding on_host(reports::Finding f, const std::string& host);

std::vector<reports::Finding> findings_from_json(const nlohmann::json& array);
nlohmann::json findings_to_json(const std::vector<reports::Finding>& findings);

// The planes certify exercises: parameter planes, and data planes.
std::vector<const stack::netplane::Plane*> collective_planes(const probes::Profile& profile);

}  // namespace hn::preflight::certify
