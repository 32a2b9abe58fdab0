#pragma once
// The job plan rank 0 builds from every rank's hello: which ranks share a
// host (the same hostname, boot and network namespace: one network host),
// each host's leader (its lowest rank) and its profile node.
//
// build_plan() throws compat::InputError (exit 2) when the profile does not
// match the job: the profile lists nodes and a host is none of them (which
// covers more hosts than declared). Two hosts that resolve to one node are
// not an input error but a finding of the cross_host phase.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/profile.h"
#include "preflight/certify/state.h"

namespace hn::preflight::certify {

struct Hello {
  std::string hostname;
  std::string host_key;
  nlohmann::json machine;  // preflight/machine_identity.h; null from an older peer
};

// This process's hello: gethostname(), and the key hostname|boot id|netns.
Hello local_hello();
std::string hello_to_json(const Hello& h);
Hello hello_from_json(const std::string& text);  // throws std::runtime_error

// hellos[r] is rank r's.
JobPlan build_plan(const std::vector<Hello>& hellos, const formats::Profile& profile);

// The job's parallel layout (--layout, else the profile's model.layout)
// must fit its world, and, when the model phase is selected, the model its
// sizes (and --steps, --checkpoint-dir): throws compat::InputError naming
// where it came from and the numbers.
void check_layout(const CertifyOptions& options, const JobPlan& plan);

std::string role_to_json(const Role& r);
Role role_from_json(const std::string& text);  // throws std::runtime_error

}  // namespace hn::preflight::certify
