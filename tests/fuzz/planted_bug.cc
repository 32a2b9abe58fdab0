#include "tests/fuzz/planted_bug.h"

#include <cstring>

namespace hn::fuzz_check {

int planted_bug(const std::uint8_t* data, std::size_t size) {
  // Byte by byte, so only coverage feedback from this library (or 2^-32
  // luck) gets the fuzzer past the comparison.
  if (size < 4 || data[0] != 'H' || data[1] != 'N' || data[2] != '1' || data[3] != '8') return 0;
  char* copy = new char[size];
  std::memcpy(copy, data, size);
  const int past_the_end = copy[size];  // the planted bug: ASan reports a heap-buffer-overflow
  delete[] copy;
  return past_the_end;
}

}  // namespace hn::fuzz_check
