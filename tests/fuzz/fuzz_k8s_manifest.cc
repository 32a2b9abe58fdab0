// libFuzzer target for Kubernetes manifests alone (translate job.yaml):
// multi-document YAML, aliases, every workload shape. Anything but
// InputError escaping, a crash, a hang or a blow-up is a bug.
//   build-fuzz/bin/fuzz_k8s_manifest -max_total_time=60 tests/fuzz/corpus/fuzz_k8s_manifest
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/input_error.h"
#include "compat/translate/k8s_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hn::compat::translate::parse_k8s_manifest_text(text, "fuzz.yaml");
  } catch (const hn::compat::InputError&) {
  }
  return 0;
}
