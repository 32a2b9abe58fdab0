#include "tests/support/skip.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace hn::test {

void skip(const std::string& reason) {
  std::fprintf(stdout, "SKIPPED: %s\n", reason.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(77);
}

std::string netns_unavailable_reason() {
  if (geteuid() != 0) return "needs root to create network namespaces";
  if (std::system("ip netns list >/dev/null 2>&1") != 0) return "`ip netns` is not usable here";
  return "";
}

}  // namespace hn::test
