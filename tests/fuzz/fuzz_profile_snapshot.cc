// libFuzzer target for the YAML documents users hand us: cluster profiles and
// node snapshots. Anything but InputError escaping, or a crash, is a bug.
//   build-fuzz/bin/hn_fuzz_profile_snapshot -max_total_time=60 tests/fixtures/profiles
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/input_error.h"
#include "formats/profile.h"
#include "formats/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hn::formats::parse_profile(text, "fuzz.yaml");
  } catch (const hn::compat::InputError&) {
  }
  try {
    hn::formats::parse_snapshot(text, "fuzz.yaml");
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
