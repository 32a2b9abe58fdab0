#pragma once
// The fenced code blocks of a Markdown file (README.md, the reference pages
// under docs/), so tests can run every documented example through the real
// parser and the documentation cannot drift from the code.

#include <string>
#include <vector>

namespace hn::test {

struct CodeBlock {
  int line = 0;      // 1-based line of the block's first content line
  std::string text;  // the content, each line ending in '\n'
};

// Every block fenced by ```<language> ... ``` in the file, in order.
std::vector<CodeBlock> fenced_blocks(const std::string& path, const std::string& language);

}  // namespace hn::test
