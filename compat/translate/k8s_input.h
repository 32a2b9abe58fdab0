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

std::vector<EnvEntry> parse_k8s_manifest_text(const std::string& text, const std::string& file);

}  // namespace hn::compat::translate
