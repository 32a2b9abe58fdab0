// The fuzz target with a planted bug (planted_bug.h): proof that a bug the
// fuzzer finds fails the fuzz label. Not one of the product's targets.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  hn::fuzz_check::planted_bug(data, size);
  return 0;
}
