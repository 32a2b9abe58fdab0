#pragma once
// What was measured on the target, when the job brings it: a certify
// certificate (docs/certificate-schema.md), `node --json` reports and node
// snapshots. The storage and observability concerns ask it for a mount's
// free space and checkpoint write throughput, for the mount that really
// holds a path on a node, and for the certificate's phases.
//
// Loading is strict: a certificate that is not JSON, has another schema, a
// newer schema_version, or a mistyped field throws compat::InputError naming
// the file and the field (exit 2); reports and snapshots are read with their
// own strict readers (reports/json_report.h, formats/snapshot.h).

#include <optional>
#include <string>
#include <vector>

#include "formats/snapshot.h"
#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::migrate {

struct CertificatePhase {
  std::string name;
  reports::Status status = reports::Status::kPass;
  std::vector<std::string> layers;  // "L3", ...
};

struct Certificate {
  std::string file;
  std::string cluster;
  std::string verdict;  // certified | not_certified | incomplete
  std::string finished;
  std::vector<std::string> hosts;
  std::vector<CertificatePhase> phases;
  std::vector<reports::Measurement> metrics;
  std::vector<reports::Finding> findings;
};

inline constexpr int kCertificateSchemaVersion = 2;  // reports/certificate.h: 2 adds the verdict `partial`

Certificate parse_certificate(const std::string& text, const std::string& file);

// One figure and where it was measured ("certificate.json, host node1").
struct Figure {
  double value = 0;
  std::string from;
};

struct Evidence {
  std::optional<Certificate> certificate;
  std::vector<reports::Report> node_reports;
  std::vector<std::string> node_report_files;
  std::vector<formats::Snapshot> snapshots;
  std::vector<std::string> snapshot_files;

  bool empty() const { return !certificate && node_reports.empty() && snapshots.empty(); }
  // The smallest free space (GiB) and checkpoint write throughput (MB/s)
  // measured on the mount at `mount_path` by any node: STOR-MOUNT-FREE-SPACE
  // and STOR-CHECKPOINT-WRITE findings of the certificate and the reports,
  // and the certificate's storage.write_throughput metrics (labels.mount).
  std::optional<Figure> free_gib(const std::string& mount_path) const;
  std::optional<Figure> write_mbps(const std::string& mount_path) const;
};

Evidence load_evidence(const std::optional<std::string>& certificate,
                       const std::vector<std::string>& node_reports,
                       const std::vector<std::string>& snapshots);

}  // namespace hn::migrate
