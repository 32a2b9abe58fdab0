#pragma once
// Differences between two snapshots, by entity. Works on the YAML form so
// that every section a snapshot gains is compared without new code: a list of
// maps becomes one entity per item, identified by its natural key (name,
// path, pci_address, port, index, table+dst for routes, nic+address for
// addresses, priority+selectors for rules), and each scalar field is compared.
//
// Volatile readings (byte/packet counters, available memory, temperatures)
// differ between any two captures and are skipped unless include_volatile.


#include <string>
#include <vector>

// Callers hold the documents; the header needs only the name (yaml-cpp is
// heavy, and gate/ includes this through gate/drift.h everywhere).
namespace YAML {
class Node;
}

namespace hn::formats {

struct DiffEntry {
  std::string entity;  // "physical/links/eth1"
  std::string field;   // "mtu"; empty when the whole entity is on one side only
  std::string a;       // value in A, "(absent)" when missing
  std::string b;
};

std::vector<DiffEntry> diff_snapshots(const YAML::Node& a, const YAML::Node& b,
                                      bool include_volatile);

}  // namespace hn::formats
