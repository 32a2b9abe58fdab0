#pragma once
// Environment variables declared in Kubernetes manifests: every
// containers[].env[] (and initContainers, ephemeralContainers) list anywhere
// in any document of the file, so Pod, Deployment, Job, StatefulSet,
// PyTorchJob and MPIJob shapes all work without knowing them by name.
//
// Each env item must be {name, value} or {name, valueFrom}; valueFrom
// (secrets, field refs) is only known at run time and comes back dynamic.
// Throws compat::InputError(file, line) for malformed YAML, an item without a
// name, an unknown key, or a value that is not a string (`value: 8` is
// rejected by the API server too: it must be written "8").

#include <string>
#include <vector>

#include "compat/translate/env_entry.h"

namespace hn::compat::translate {

// The whole reading. Besides containers[].env it follows envFrom (the
// ConfigMap's data when the same file holds it; otherwise a kUnread note),
// container command/args and other shell command lines (entrypoint, script:
// read as shell scripts, so `mpirun -x NAME=v` inside an MPIJob's args is a
// setting of that command), and environment maps anywhere: Ray's
// runtime_env env_vars (also inside a runtimeEnvYAML string), launcher
// ENV_VARS / env_vars maps, compose `environment`, AWS Batch/ECS
// `Environment: [{Name, Value}]`. A null map value is a kUnset note. Every
// other line that names a library variable as a key or assignment becomes a
// kUnread note.
EnvInput read_manifest_text(const std::string& text, const std::string& file);
std::vector<EnvEntry> parse_k8s_manifest_text(const std::string& text, const std::string& file);

}  // namespace hn::compat::translate
