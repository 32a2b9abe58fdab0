#pragma once
// Reading the `model:` section of the cluster profile (profile.cc calls it).
// Throws compat::InputError naming file:line and the field: unknown keys by
// name, a layout that does not parse, sizes that do not fit the layout.

#include "compat/yaml_input.h"
#include "formats/model_spec.h"

namespace hn::formats {

ModelSpec parse_model_spec(compat::YamlMap m);

}  // namespace hn::formats
