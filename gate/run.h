#pragma once
// One run as the gate sees it, whatever produced it: a certificate, the JSON
// of `bench`, a JSON report (`node`, `certify --json`, ...) or a snapshot.
// Each maps to the same three things: the figures it measured, the checks it
// judged, and (for a snapshot) the node state that drift compares. Plain data.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::gate {

enum class RunKind { kCertificate, kBench, kReport, kSnapshot };
std::string_view to_string(RunKind k);
// Throws std::invalid_argument naming the text when it is not a kind.
RunKind run_kind_from_string(std::string_view s);

// The machine a run measured on (bench JSON "machine", a certificate's
// hosts[].machine, a report's hostname). An empty field is unknown and never
// counts as a difference.
struct Machine {
  std::string host, cpu, kernel;
  std::vector<std::string> nics;  // "eth0 virtio_net 10000 Mb/s", sorted by name
  bool operator==(const Machine&) const = default;
};
// What differs between two identities of one host ("kernel 6.1.0 -> 6.5.0;
// NICs ..."), skipping unknown fields; "" when nothing known differs.
std::string machine_difference(const Machine& baseline, const Machine& now);

// Where a run came from: what the baseline records for each of its runs.
struct RunInfo {
  std::string source;  // the path as given
  RunKind kind = RunKind::kReport;
  std::string sha256;        // of the file's bytes
  std::string host;          // the host that wrote it ("" for a multi-host certificate)
  std::string started;       // ISO-8601 as the run wrote it ("" when it has none)
  std::string tool_version;  // hnprecheck version that wrote it ("" when unknown)
  std::string
      what;  // one line: "bench allreduce, 2 rank(s), tcp", "certificate of demo: certified"
  std::vector<Machine> machines;  // one per host it measured on; empty when it recorded none
};

// A measured figure. `measurement.better` is meaningful only when `stated`:
// false when neither the producer nor the figures table gives a direction.
struct Figure {
  reports::Measurement measurement;
  bool stated = true;
  reports::Layer layer = reports::Layer::kL3;  // where its findings are filed
};

// The outcome of one check in a run, keyed by host, code and entity.
struct Check {
  std::string host;  // the report's host; "" for certificates (their entities name the host)
  std::string code;
  std::string entity;
  reports::Layer layer = reports::Layer::kL7;
  reports::Status status = reports::Status::kPass;
  std::string message;
};
std::string check_key(const Check& c);  // "host|code|entity"

// A snapshot's state: its hostname and its (validated) YAML text.
struct NodeState {
  std::string host;
  std::string yaml;
};

struct Run {
  RunInfo info;
  std::vector<Figure> figures;
  std::vector<Check> checks;
  std::optional<NodeState> state;
};

}  // namespace hn::gate
