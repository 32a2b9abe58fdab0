#pragma once
// Catch2 v2 has no SKIP. A test that cannot run on this machine calls
// hn_skip(reason): it prints the reason and exits with 77, which ctest reports
// as "Skipped" (SKIP_RETURN_CODE in hn_test). Never use it to hide a failure.

#include <string>

namespace hn::test {

[[noreturn]] void skip(const std::string& reason);

// Empty when we run as root with CAP_NET_ADMIN and `ip netns` works; otherwise
// the reason the netns tests cannot run here.
std::string netns_unavailable_reason();

}  // namespace hn::test
