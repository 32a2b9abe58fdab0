#include "formats/snapshot_diff.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <set>

namespace hn::formats {

namespace {

constexpr const char* kAbsent = "(absent)";

// entity -> field -> value, in document order of first appearance.
struct Flat {
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, std::string>> fields;
  void add(const std::string& entity, const std::string& field, const std::string& value) {
    if (!fields.count(entity)) order.push_back(entity);
    fields[entity][field] = value;
  }
  void touch(const std::string& entity) {
    if (!fields.count(entity)) {
      order.push_back(entity);
      fields[entity];
    }
  }
};

bool is_volatile(const std::string& field) {
  static const std::set<std::string> kVolatile = {
      "rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "available_kib", "temp_c",
      // mount ids, st_dev and propagation peer groups are assigned per boot
      "mount_id", "parent_id", "major_minor", "optional_fields"};
  auto dot = field.rfind('.');
  return kVolatile.count(dot == std::string::npos ? field : field.substr(dot + 1)) > 0;
}

std::string scalar(const YAML::Node& n, const char* key) {
  YAML::Node v = n[key];
  return v && v.IsScalar() ? v.Scalar() : "";
}

std::string item_id(const YAML::Node& item, size_t position) {
  if (item.IsMap()) {
    if (!scalar(item, "priority").empty()) {  // a policy rule: priority and selectors
      std::string id = "rule " + scalar(item, "priority");
      if (scalar(item, "family") == "6") id += " inet6";
      if (!scalar(item, "src").empty()) id += " from " + scalar(item, "src");
      if (!scalar(item, "dst").empty()) id += " to " + scalar(item, "dst");
      return id;
    }
    if (!scalar(item, "dst").empty())  // a route; "default" exists in both families
      return "table " + (scalar(item, "table").empty() ? "254" : scalar(item, "table")) + " " +
             scalar(item, "dst") + (scalar(item, "family") == "6" ? " inet6" : "");
    if (!scalar(item, "address").empty() && !scalar(item, "nic").empty())
      return scalar(item, "nic") + " " + scalar(item, "address");
    for (const char* key : {"name", "path", "pci_address", "port", "index", "id"})
      if (!scalar(item, key).empty()) return scalar(item, key);
  }
  return "#" + std::to_string(position);
}

void flatten(const YAML::Node& node, const std::string& entity, const std::string& field,
             Flat& out);

void flatten_sequence(const YAML::Node& seq, const std::string& entity, const std::string& field,
                      Flat& out) {
  bool of_maps = seq.size() > 0 && seq[0].IsMap();
  if (!of_maps) {
    std::string joined;
    for (size_t i = 0; i < seq.size(); ++i)
      joined += (i ? "," : "") + (seq[i].IsScalar() ? seq[i].Scalar() : std::string("?"));
    out.add(entity, field, joined);
    return;
  }
  std::string base = entity + "/" + field;
  // Two items with one key (two default routes of different metrics) must
  // not merge into one entity, where the second would hide the first's fields.
  std::map<std::string, int> uses;
  for (size_t i = 0; i < seq.size(); ++i) {
    std::string id = item_id(seq[i], i);
    if (int n = ++uses[id]; n > 1) id += " #" + std::to_string(n);
    std::string child = base + "/" + id;
    out.touch(child);
    flatten(seq[i], child, "", out);
  }
}

void flatten(const YAML::Node& node, const std::string& entity, const std::string& field,
             Flat& out) {
  if (node.IsScalar()) {
    out.add(entity, field, node.Scalar());
  } else if (node.IsSequence()) {
    flatten_sequence(node, entity, field, out);
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string key = it->first.Scalar();
      flatten(it->second, entity, field.empty() ? key : field + "." + key, out);
    }
  }
}

Flat flatten_snapshot(const YAML::Node& root) {
  Flat out;
  if (!root.IsMap()) return out;
  for (auto it = root.begin(); it != root.end(); ++it) {
    std::string key = it->first.Scalar();
    // Identity and capture metadata describe the file, not the node's state.
    if (key == "version" || key == "hostname" || key == "captured_at" || key == "tool_version")
      continue;
    if (it->second.IsMap()) {
      for (auto jt = it->second.begin(); jt != it->second.end(); ++jt)
        flatten(jt->second, key, jt->first.Scalar(), out);
    } else {
      flatten(it->second, key, "", out);
    }
  }
  return out;
}

}  // namespace

std::vector<DiffEntry> diff_snapshots(const YAML::Node& a, const YAML::Node& b,
                                      bool include_volatile) {
  Flat fa = flatten_snapshot(a), fb = flatten_snapshot(b);
  std::vector<std::string> entities = fa.order;
  for (const auto& e : fb.order)
    if (!fa.fields.count(e)) entities.push_back(e);
  std::vector<DiffEntry> out;
  for (const auto& e : entities) {
    bool in_a = fa.fields.count(e) > 0, in_b = fb.fields.count(e) > 0;
    if (!in_a || !in_b) {
      out.push_back({e, "", in_a ? "present" : kAbsent, in_b ? "present" : kAbsent});
      continue;
    }
    const auto& ma = fa.fields[e];
    const auto& mb = fb.fields[e];
    std::set<std::string> keys;
    for (const auto& [k, v] : ma) keys.insert(k);
    for (const auto& [k, v] : mb) keys.insert(k);
    for (const auto& k : keys) {
      if (!include_volatile && is_volatile(k)) continue;
      auto ia = ma.find(k), ib = mb.find(k);
      std::string va = ia == ma.end() ? kAbsent : ia->second;
      std::string vb = ib == mb.end() ? kAbsent : ib->second;
      if (va != vb) out.push_back({e, k, va, vb});
    }
  }
  return out;
}

}  // namespace hn::formats
