#pragma once
// One job to migrate, with everything the six concerns need, each value
// carrying where it came from. resolve_job() merges, strongest first:
//   the command line  >  the manifest  >  the launch material  >  defaults
// and keeps the values that lost as "overridden" inputs for the report, so a
// reader sees what was found where (file:line) and what was used.
//
// It reads every file the job names (launch material, profile, matrix,
// mapping, evidence) and throws compat::InputError for anything missing or
// malformed, naming the file and line (exit 2). A profile is required; a
// model without an operator matrix is left for the operators concern to
// report. Launch material is
// read in this order, a later assignment of a name winning: env files, the
// script, the Kubernetes manifest.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compat/op_mapping.h"
#include "compat/op_matrix.h"
#include "compat/translate/env_entry.h"
#include "formats/profile.h"
#include "migrate/discovery.h"
#include "migrate/evidence.h"
#include "reports/migrate_report.h"

namespace hn::migrate {

struct Sourced {
  std::string value;
  std::string where;   // "job.toml:12", "train.sbatch:40", "--model", "derived", ""
  std::string origin;  // "manifest", "launch", "command line", "derived", "default"
  bool dynamic = false;
};

// A path the job reads or writes on the nodes.
struct JobPath {
  std::string role;  // data, checkpoint, load, logs, metrics
  Sourced path;
};

// What the command line gave; every field is optional.
struct JobOptions {
  std::optional<std::string> manifest, name;
  std::optional<std::string> script, k8s;
  std::vector<std::string> env_files;
  std::optional<std::string> model, model_format;
  std::optional<std::string> profile, backend, matrix, mapping;
  std::optional<std::string> from, to, platform, plane, local_port_range, reserved_ports;
  std::optional<double> pg_timeout_s;
  std::optional<std::uint64_t> checkpoint_size;
  std::optional<std::string> certificate;
  std::vector<std::string> snapshots, node_reports;
};

struct Job {
  std::string name;
  std::optional<Sourced> manifest;

  // Launch material and what was read from it.
  std::optional<Sourced> script, k8s;
  std::vector<Sourced> env_files;
  std::string script_text;
  std::vector<compat::translate::EnvEntry> env;
  Discovery discovery;

  // Communication translation.
  Sourced from, to, platform;
  std::optional<Sourced> pg_timeout_s, plane, local_port_range, reserved_ports;

  // Model and operator matrix (either may be missing: the operators concern says so).
  std::optional<Sourced> model;
  std::string model_format = "auto";
  std::optional<compat::OpMatrix> matrix;
  std::optional<compat::OpMapping> mapping;  // nullopt: the built-in table

  // Target cluster.
  Sourced profile_file;
  formats::Profile profile;

  // Layout: tp, pp, cp, ep, dp, nodes, ranks_per_node, gpus_per_node, as
  // written (a dynamic value stays text such as "$NNODES").
  std::map<std::string, Sourced> layout;

  std::vector<JobPath> paths;
  std::optional<std::uint64_t> checkpoint_bytes;
  std::optional<Sourced> checkpoint_size;
  std::vector<Sourced> metrics;

  Evidence evidence;

  // Every value considered, used or overridden, for the report.
  std::vector<reports::MigrationInput> inputs;

  // A layout value as a positive integer, or nullopt (absent or dynamic).
  std::optional<long long> count(const std::string& key) const;
  std::vector<const JobPath*> paths_of(const std::string& role) const;
};

Job resolve_job(const JobOptions& options);

}  // namespace hn::migrate
