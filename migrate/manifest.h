#pragma once
// The job manifest of `hnprecheck migrate` (docs/manifest-schema.md): a TOML
// file naming the job's launch material, model, target cluster, parallel
// layout, paths and optional evidence. Version 1:
//
//   version = 1
//   name = "llama-pretrain"
//   [launch]   script, env_files, k8s, from, pg_timeout_s
//   [model]    file, format
//   [target]   profile, backend | matrix, mapping, library, platform, plane,
//              local_port_range, reserved_ports
//   [layout]   tp, pp, cp, ep, dp, nodes, ranks_per_node
//   [storage]  data, checkpoint, load, logs, checkpoint_size
//   [observability] metrics
//   [evidence] certificate, snapshots, node_reports
//
// Every section and key is optional except `version`; what the manifest
// leaves out is discovered from the launch material or given on the command
// line. File names are relative to the manifest's directory. Strict: an
// unknown key, a wrong type, a layout size below 1, a malformed size or a
// version other than 1 throws compat::InputError naming the file, the line
// and the dotted key (exit 2).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hn::migrate {

// One value as the manifest wrote it, with its place ("job.toml:12").
template <class T>
struct Declared {
  T value{};
  std::string where;
};

struct Manifest {
  std::string file;  // as given
  std::optional<Declared<std::string>> name;

  // [launch] (file names already resolved against the manifest's directory)
  std::optional<Declared<std::string>> script, k8s;
  std::vector<Declared<std::string>> env_files;
  std::optional<Declared<std::string>> from;
  std::optional<Declared<double>> pg_timeout_s;

  // [model]
  std::optional<Declared<std::string>> model, model_format;

  // [target]
  std::optional<Declared<std::string>> profile, backend, matrix, mapping, library, platform, plane;
  std::optional<Declared<std::string>> local_port_range, reserved_ports;

  // [layout]
  std::optional<Declared<long long>> tp, pp, cp, ep, dp, nodes, ranks_per_node;

  // [storage]: paths as the job uses them on the nodes (never resolved here)
  std::vector<Declared<std::string>> data, logs;
  std::optional<Declared<std::string>> checkpoint, load;
  std::optional<Declared<std::uint64_t>> checkpoint_size;

  // [observability]: where the job sends metrics (a directory, or a URL)
  std::vector<Declared<std::string>> metrics;

  // [evidence]
  std::optional<Declared<std::string>> certificate;
  std::vector<Declared<std::string>> snapshots, node_reports;
};

Manifest parse_manifest(const std::string& text, const std::string& file);
Manifest load_manifest(const std::string& path);

}  // namespace hn::migrate
