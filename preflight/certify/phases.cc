#include "preflight/certify/phases.h"

#include "compat/input_error.h"
#include "reports/json_report.h"

namespace hn::preflight::certify {

std::vector<Phase> certify_phases(const CertifyOptions& o) {
  return {hosts_phase(),       cross_host_phase(), links_phase(),    bandwidth_phase(),
          collectives_phase(), storage_phase(),    model_phase(o),   placement_phase()};
}

void check_phase_names(const std::vector<std::string>& names, const std::string& field) {
  static const char* kNames[] = {"hosts",   "cross_host", "links", "bandwidth", "collectives",
                                 "storage", "model",      "placement"};
  for (const auto& n : names) {
    bool known = false;
    for (const char* k : kNames) known = known || n == k;
    if (!known)
      throw compat::InputError("command line", 0, 0, field,
                               "unknown phase '" + n +
                                   "' (expected hosts, cross_host, links, bandwidth, collectives, "
                                   "storage, model or placement)");
  }
}

reports::Finding on_host(reports::Finding f, const std::string& host) {
  f.entity = f.entity.empty() ? host : host + " " + f.entity;
  f.host = host;
  return f;
}

std::vector<reports::Finding> findings_from_json(const nlohmann::json& array) {
  std::vector<reports::Finding> out;
  for (const auto& j : array) out.push_back(reports::finding_from_json(j));
  return out;
}

nlohmann::json findings_to_json(const std::vector<reports::Finding>& findings) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& f : findings) arr.push_back(reports::finding_to_json(f));
  return arr;
}

std::vector<const stack::netplane::Plane*> collective_planes(const formats::Profile& profile) {
  std::vector<const stack::netplane::Plane*> out;
  for (const auto& p : profile.planes)
    if (p.type == stack::netplane::PlaneType::kParameter ||
        p.type == stack::netplane::PlaneType::kData)
      out.push_back(&p);
  return out;
}

}  // namespace hn::preflight::certify
