// libFuzzer target for the parsers of user-supplied operator inventories:
// the trace reader, both op-list readers and the ONNX reader. Anything but
// InputError escaping, or a crash, is a bug. Build with
//   CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DHN_FUZZ=ON -DHN_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_op_parsers
//   build-fuzz/bin/fuzz_op_parsers -max_total_time=60 tests/fixtures/ops
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/input_error.h"
#include "compat/onnx_reader.h"
#include "compat/op_list_reader.h"
#include "compat/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hn::compat::read_trace_text(text, "fuzz.json");
  } catch (const hn::compat::InputError&) {
  }
  try {
    hn::compat::read_op_list_text(text, "fuzz.txt");
  } catch (const hn::compat::InputError&) {
  }
  try {
    hn::compat::read_op_list_yaml(text, "fuzz.yaml");
  } catch (const hn::compat::InputError&) {
  }
  try {
    hn::compat::read_onnx_bytes(text, "fuzz.onnx");
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
