#pragma once
// The certificate `hnprecheck certify --certificate` writes: the record that a
// cluster was (or was not) certified, with every figure the run measured. It
// is the input of `gate` and `migrate`, so its layout is a contract,
// described field by field in docs/certificate-schema.md.
//
// render_certificate() never throws for any content (strings are made valid
// UTF-8, non-finite numbers are written as null). certificate_from_json()
// reads what render_certificate() writes, any schema_version up to ours, and
// throws std::runtime_error "<source>: <field>: <problem>" for anything else
// (a newer version names both versions). Plain data; no I/O, and no parsing:
// the readers take a document the caller parsed through the guarded entry
// point (compat::parse_json_text, which refuses over-deep or oversized text
// with the file's name before the parser sees it); reports/ cannot include
// compat/, so the guard is the caller's job and the parse is too.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::reports {

inline constexpr const char* kCertificateSchemaName = "hnprecheck.certificate";
inline constexpr int kCertificateSchemaVersion = 1;

enum class CertVerdict { kCertified, kNotCertified, kIncomplete };
// The status a group of findings shows (a phase, a host's layer): FAIL 4,
// ERROR 3, WARN 2, PASS 1, SKIP 0, higher wins; a failed check outranks one
// that could not run, as in exit_code_for().
int outcome_weight(Status s);

std::string_view to_string(CertVerdict v);  // "certified", "not_certified", "incomplete"
// Throws std::invalid_argument naming the text.
CertVerdict verdict_from_string(std::string_view s);
// The verdict of a run that exits with `exit_code` (0, 1, 3).
CertVerdict verdict_for_exit_code(int exit_code);

struct CertificateHost {
  std::string name;        // gethostname() of the host
  std::string node;        // the profile node it was identified as ("" if none)
  std::vector<int> ranks;  // the job ranks on it
  bool operator==(const CertificateHost&) const = default;
};

struct CertificatePhase {
  std::string name;                 // hosts, cross_host, links, collectives, ...
  std::vector<std::string> layers;  // "L7", "L6"
  Status status = Status::kPass;    // worst status of its findings
  double duration_ms = 0;
  std::string skipped_because;  // SKIP only: the failure it depends on
  bool operator==(const CertificatePhase&) const = default;
};

struct Certificate {
  std::string tool_version;
  std::string cluster;
  std::string profile_source;  // a path, or "embedded:default"
  std::string profile_sha256;  // hex of the profile's bytes
  std::string launcher;        // local, slurm, mpirun, torchrun, kubernetes
  int world = 0;
  std::vector<CertificateHost> hosts;
  std::int64_t started_unix_ms = 0, finished_unix_ms = 0;
  CertVerdict verdict = CertVerdict::kIncomplete;
  std::vector<CertificatePhase> phases;
  std::vector<Measurement> metrics;
  std::vector<Finding> findings;
  bool operator==(const Certificate&) const = default;
};

// Two-space indented JSON with a trailing newline.
std::string render_certificate(const Certificate& certificate);
Certificate certificate_from_json(const nlohmann::json& doc, const std::string& source_name);

// The certificate's `metrics` array on its own (a rank handing its figures
// to rank 0): measurements_from_json() reads the parsed form of what
// measurements_to_json() writes and throws std::runtime_error naming
// source_name and the field.
std::string measurements_to_json(const std::vector<Measurement>& metrics);
std::vector<Measurement> measurements_from_json(const nlohmann::json& doc,
                                                const std::string& source_name);

}  // namespace hn::reports
