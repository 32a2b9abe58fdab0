// libFuzzer target for operator matrices (ops --matrix) and the op mapping
// table (ops --mapping). Anything but InputError escaping, a crash, a hang or
// a blow-up is a bug.
//   build-fuzz/bin/fuzz_op_matrix -max_total_time=60 tests/fuzz/corpus/fuzz_op_matrix
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/input_error.h"
#include "compat/op_mapping.h"
#include "compat/op_matrix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hn::compat::parse_op_matrix(text, "fuzz.yaml");
  } catch (const hn::compat::InputError&) {
  }
  try {
    hn::compat::parse_op_mapping(text, "fuzz.yaml");
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
