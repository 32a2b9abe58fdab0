#pragma once
// The operator matrices and the mapping table shipped in profiles/ops/,
// compiled into the binary (cmake/HnEmbed.cmake) so `hnprecheck ops` and the
// L4 executor work with no files around. Parsed on first use; a shipped file
// that does not parse is a build defect (tests parse every one).

#include <string>
#include <vector>

#include "compat/op_mapping.h"
#include "compat/op_matrix.h"

namespace hn::compat {

// "reference-cpu", "example-npu", "example-gpu".
std::vector<std::string> builtin_matrix_names();
// Throws InputError (field --backend) naming the choices when name is unknown.
const OpMatrix& builtin_matrix(const std::string& name);
const OpMapping& builtin_mapping();

}  // namespace hn::compat
