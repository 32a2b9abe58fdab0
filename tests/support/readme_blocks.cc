#include "tests/support/readme_blocks.h"

#include <fstream>
#include <stdexcept>

namespace hn::test {

std::vector<CodeBlock> fenced_blocks(const std::string& path, const std::string& language) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<CodeBlock> out;
  std::string line;
  int n = 0;
  bool inside = false, wanted = false;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      if (!inside) {
        inside = true;
        wanted = line.substr(3) == language;
        if (wanted) out.push_back({n + 1, ""});
      } else {
        inside = false;
      }
      continue;
    }
    if (inside && wanted) out.back().text += line + "\n";
  }
  return out;
}

}  // namespace hn::test
