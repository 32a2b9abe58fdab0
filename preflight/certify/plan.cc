#include "preflight/certify/plan.h"
#include "preflight/certify/message.h"

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "compat/input_error.h"
#include "preflight/certify/phases.h"
#include "preflight/machine_identity.h"
#include "preflight/report_output.h"
#include "probes/model/model_options.h"
#include "probes/node_context.h"
#include "stack/l2_framework/layout.h"

namespace hn::preflight::certify {

using nlohmann::json;

std::vector<int> JobPlan::leaders() const {
  std::vector<int> out;
  for (const auto& h : hosts) out.push_back(h.ranks.front());
  return out;
}

Hello local_hello() {
  Hello h;
  h.hostname = local_hostname();
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  struct stat st {};
  std::string netns = stat("/proc/self/ns/net", &st) == 0 ? std::to_string(st.st_ino) : "?";
  h.host_key = h.hostname + "|" + boot + "|" + netns;
  h.machine = machine_identity();
  return h;
}

std::string hello_to_json(const Hello& h) {
  return json{{"hostname", h.hostname}, {"key", h.host_key}, {"machine", h.machine}}.dump();
}

Hello hello_from_json(const std::string& text) {
  json j = parse_message(text);
  return {j.at("hostname").get<std::string>(), j.at("key").get<std::string>(),
          j.value("machine", json())};
}

namespace {

// A peer's identity as the certificate records it; nothing when the peer
// sent none or sent something malformed (an identity is evidence, not a
// reason to fail the run).
std::optional<reports::CertificateMachine> machine_of(const json& m) {
  if (!m.is_object()) return std::nullopt;
  try {
    reports::CertificateMachine out;
    out.cpu = m.value("cpu", "");
    out.kernel = m.value("kernel", "");
    for (const auto& n : m.value("nics", json::array())) {
      reports::MachineNic nic;
      nic.name = n.value("name", "");
      nic.driver = n.value("driver", "");
      if (n.contains("speed_mbps") && n["speed_mbps"].is_number_integer())
        nic.speed_mbps = n["speed_mbps"].get<long long>();
      out.nics.push_back(std::move(nic));
    }
    return out;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

JobPlan build_plan(const std::vector<Hello>& hellos, const formats::Profile& profile) {
  JobPlan plan;
  std::map<std::string, int> index;
  for (std::size_t r = 0; r < hellos.size(); ++r) {
    auto [it, fresh] = index.emplace(hellos[r].host_key, static_cast<int>(plan.hosts.size()));
    if (fresh) {
      HostEntry h;
      h.name = hellos[r].hostname;
      h.key = hellos[r].host_key;
      if (const auto* n = probes::identify_node(profile, h.name)) h.node = n->name;
      h.machine = machine_of(hellos[r].machine);
      plan.hosts.push_back(std::move(h));
    }
    plan.hosts[static_cast<std::size_t>(it->second)].ranks.push_back(static_cast<int>(r));
    plan.host_of.push_back(it->second);
  }
  if (!profile.nodes.empty()) {
    std::vector<std::string> strangers;
    for (const auto& h : plan.hosts)
      if (h.node.empty()) strangers.push_back(h.name);
    if (!strangers.empty())
      throw compat::InputError(
          profile.source, 0, 0, "nodes",
          "the job runs on " + std::to_string(plan.hosts.size()) + " host(s), and " +
              probes::node_name_list(strangers) + (strangers.size() == 1 ? " is" : " are") +
              " none of the " + std::to_string(profile.nodes.size()) +
              " nodes the profile declares (" + probes::declared_node_names(profile) +
              "); the profile does not match the job (a node's name must be its hostname or "
              "short hostname)");
  }
  return plan;
}

void check_layout(const CertifyOptions& o, const JobPlan& plan) {
  const int world = static_cast<int>(plan.host_of.size());
  // The model phase's whole set of options (layout against the model's
  // sizes, steps, checkpoint directory, backend), when the user gave any:
  // bad input before any phase. (The defaults alone may not fit a world:
  // the phase is then SKIP saying so, see phase_model.cc.)
  if (o.selected("model") && model_configured(o)) {
    const std::string& node = plan.hosts.empty() ? std::string() : plan.hosts.front().node;
    probes::model::resolve_model(*o.profile, model_overrides(o), world, o.profile->find_node(node));
  }
  const auto* model = o.profile->model ? &*o.profile->model : nullptr;
  const bool from_profile = o.layout.empty();
  if (from_profile && !(model && model->layout)) return;
  const std::string text = from_profile ? model->layout->to_string() : o.layout;
  try {
    stack::framework::parse_layout(text, world).fits(world);
  } catch (const stack::framework::LayoutError& e) {
    if (from_profile)
      throw compat::InputError(o.profile->source, model->line, 0, "model.layout",
                               std::string(e.what()) + " (the profile does not match the job)");
    throw compat::InputError("command line", 0, 0, "--layout", e.what());
  }
}

std::string role_to_json(const Role& r) {
  return json{{"host", r.host}, {"leader", r.leader}, {"hostname", r.hostname}, {"node", r.node}}
      .dump();
}

Role role_from_json(const std::string& text) {
  json j = parse_message(text);
  Role r;
  r.host = j.at("host").get<int>();
  r.leader = j.at("leader").get<bool>();
  r.hostname = j.at("hostname").get<std::string>();
  r.node = j.at("node").get<std::string>();
  return r;
}

}  // namespace hn::preflight::certify
