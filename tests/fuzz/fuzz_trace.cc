// libFuzzer target for torch.profiler JSON traces alone (ops TRACE.json), so
// the fuzzer's effort is not shared with the other op readers. Anything but
// InputError escaping, a crash, a hang or a blow-up is a bug.
//   build-fuzz/bin/fuzz_trace -max_total_time=60 tests/fuzz/corpus/fuzz_trace
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/input_error.h"
#include "compat/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hn::compat::read_trace_text(text, "fuzz.json");
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
