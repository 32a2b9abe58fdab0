#pragma once
// Each phase's table entry, defined in its own file (phase_<name>.cc), and
// the helpers they share.

#include <nlohmann/json.hpp>

#include "preflight/certify/phase.h"
#include "probes/model/model_options.h"

namespace hn::preflight::certify {

Phase hosts_phase();                               // phase_hosts.cc
Phase cross_host_phase();                          // phase_hosts.cc
Phase links_phase();                               // phase_links.cc
Phase bandwidth_phase();                           // phase_bandwidth.cc
Phase collectives_phase();                         // phase_collectives.cc
Phase storage_phase();                             // phase_storage.cc
Phase model_phase(const CertifyOptions& options);  // phase_model.cc
Phase placement_phase();                           // phase_placement.cc

// A host's finding as the cluster report shows it: the entity starts with
// the host name and Finding::host is set.
reports::Finding on_host(reports::Finding f, const std::string& host);

std::vector<reports::Finding> findings_from_json(const nlohmann::json& array);
nlohmann::json findings_to_json(const std::vector<reports::Finding>& findings);

// --layout, --steps and --checkpoint-dir as the model phase's overrides of
// the profile's model section (phase_model.cc).
probes::model::ModelOverrides model_overrides(const CertifyOptions& options);
// Whether the user configured the model step: the profile's model section,
// or --layout, --steps, --checkpoint-dir.
bool model_configured(const CertifyOptions& options);

// The planes certify exercises: parameter planes, and data planes.
std::vector<const stack::netplane::Plane*> collective_planes(const formats::Profile& profile);

}  // namespace hn::preflight::certify
