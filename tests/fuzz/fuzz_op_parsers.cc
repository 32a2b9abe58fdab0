// libFuzzer target for the parsers of user-supplied operator inventories:
// the trace reader, both op-list readers, the ONNX reader and the gzip reader
// (with small limits, so one input costs at most 8 MiB). Anything but
// InputError escaping, or a crash, is a bug. Build with
//   CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DHN_FUZZ=ON -DHN_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_op_parsers
//   build-fuzz/bin/fuzz_op_parsers -max_total_time=60 tests/fixtures/ops
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/gzip_input.h"
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
  try {
    static const hn::compat::GzipLimits kLimits{100, std::size_t{1} << 20, std::size_t{8} << 20};
    hn::compat::gunzip(text, "fuzz.gz", kLimits);
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
