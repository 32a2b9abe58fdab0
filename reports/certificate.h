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
#include <optional>
#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::reports {

inline constexpr const char* kCertificateSchemaName = "hnprecheck.certificate";
// 2: the verdict `partial`, `not_covered` and phases' `skip_kind`.
inline constexpr int kCertificateSchemaVersion = 2;

// certified: every phase this cluster can run ran, and every check passed
// (warnings allowed unless --strict); partial: every check that ran passed,
// but something this cluster could run did not (not selected, one host only,
// the model did not fit, declared nodes absent: `not_covered` says what);
// not_certified: a check failed or a rank was lost; incomplete: the run
// could not complete (a phase could not run, --timeout).
enum class CertVerdict { kCertified, kPartial, kNotCertified, kIncomplete };
// The status a group of findings shows (a phase, a host's layer): FAIL 4,
// ERROR 3, WARN 2, PASS 1, SKIP 0, higher wins; a failed check outranks one
// that could not run, as in exit_code_for().
int outcome_weight(Status s);

// "certified", "partial", "not_certified", "incomplete"
std::string_view to_string(CertVerdict v);
// Throws std::invalid_argument naming the text.
CertVerdict verdict_from_string(std::string_view s);
// The verdict of a run with these findings: a FAIL is not_certified, else an
// ERROR incomplete, else a WARN CERT-COVERAGE partial, else certified (with
// `strict`, another WARN is not_certified).
CertVerdict verdict_for(const std::vector<Finding>& findings, bool strict);
// The exit code of a verdict: 0 certified, 0 partial (1 with `strict`), 1
// not_certified, 3 incomplete.
int exit_code_of(CertVerdict v, bool strict);

// What the host is, so that `gate` can tell a run on another machine from a
// regression: the CPU model, the kernel release and the device-backed NICs.
struct MachineNic {
  std::string name, driver;
  std::optional<long long> speed_mbps;  // none while the link reports no speed
  bool operator==(const MachineNic&) const = default;
};
struct CertificateMachine {
  std::string cpu, kernel;
  std::vector<MachineNic> nics;
  bool operator==(const CertificateMachine&) const = default;
};

struct CertificateHost {
  std::string name;        // gethostname() of the host
  std::string node;        // the profile node it was identified as ("" if none)
  std::vector<int> ranks;  // the job ranks on it
  std::optional<CertificateMachine> machine;  // absent in certificates before it was recorded
  bool operator==(const CertificateHost&) const = default;
};

struct CertificatePhase {
  std::string name;                 // hosts, cross_host, links, collectives, ...
  std::vector<std::string> layers;  // "L7", "L6"
  Status status = Status::kPass;    // worst status of its findings
  double duration_ms = 0;
  std::string skipped_because;  // SKIP only: why, in words
  // SKIP only: not_selected, not_applicable (the profile asks for nothing it
  // does), not_possible (this job cannot run it: one host, the model does
  // not fit), after_failure (an earlier failure or a lost rank).
  std::string skip_kind;
  bool operator==(const CertificatePhase&) const = default;
};

// Something this cluster could run that the run did not cover.
struct NotCovered {
  std::string what;    // a phase name, or "nodes"
  std::string reason;  // why, in words
  bool operator==(const NotCovered&) const = default;
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
  std::vector<NotCovered> not_covered;  // empty unless the verdict is partial (or worse)
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
