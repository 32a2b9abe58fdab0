#pragma once
// A backend's operator matrix (profiles/ops/<backend>.yaml): which operators
// it runs, for which dtypes, within which constraints, and what to use
// instead. Names are the matrix vocabulary (matmul, softmax, conv, ...);
// op_mapping.h maps ONNX op types and aten ops onto them.
//
//   version: 1
//   backend: reference-cpu
//   example: false                  # true: a sample for users to edit
//   description: ...
//   default_replacement: ...        # hint for ops the matrix does not list
//   ops:
//     softmax:
//       dtypes: [f32, f64, f16, bf16]   # [] lists an op as unsupported
//       constraints:
//         rank: {min: 1, max: 8}
//         opset: {min: 13}              # ONNX opset range of the op's domain
//         attributes: {axis: [-1]}      # allowed values, compared as text
//       replacement: ...
//       notes: ...
//
// Parsing is strict (yaml_input.h): unknown keys, unknown dtypes, duplicate
// ops and min > max throw InputError with file:line and the field.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hn::compat {

struct OpConstraints {
  std::optional<int> min_rank, max_rank;
  std::optional<int> min_opset, max_opset;
  std::map<std::string, std::vector<std::string>> attributes;  // name -> allowed values
  bool empty() const {
    return !min_rank && !max_rank && !min_opset && !max_opset && attributes.empty();
  }
};
// "rank 2..8, opset >= 13, axis in {-1}"; "" when empty.
std::string describe(const OpConstraints& c);

struct OpMatrixEntry {
  std::string name;
  std::vector<std::string> dtypes;  // empty: listed as not supported
  OpConstraints constraints;
  std::string replacement;
  std::string notes;
  int line = 0;  // where it is defined, for messages
  bool supports(const std::string& dtype) const;
};

struct OpMatrix {
  std::string backend;
  bool example = false;
  std::string description;
  std::string default_replacement;
  std::string source;  // file path, or "embedded:<backend>"
  std::vector<OpMatrixEntry> entries;
  // nullptr when the op is not listed.
  const OpMatrixEntry* find(const std::string& name) const;
};

OpMatrix parse_op_matrix(const std::string& text, const std::string& source_name);
OpMatrix load_op_matrix_file(const std::string& path);

// The dtype names a matrix may use (f32, f64, f16, bf16, i8 ... c128, the
// fp8/fp4 variants), so a typo is rejected rather than never matching.
const std::vector<std::string>& known_dtype_names();

}  // namespace hn::compat
