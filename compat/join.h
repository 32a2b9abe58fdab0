#pragma once
// Joining a list of words into one line of text, for messages and finding
// parameters: join({"a", "b"}, ", ") is "a, b"; an empty list gives
// `if_empty` ("" unless the caller names it, e.g. "none").
// (compat/translate keeps its own join in values.h until the compat/ split.)

#include <string>
#include <string_view>
#include <vector>

namespace hn::compat {

inline std::string join(const std::vector<std::string>& items, std::string_view sep,
                        std::string_view if_empty = "") {
  if (items.empty()) return std::string(if_empty);
  std::string s = items.front();
  for (std::size_t i = 1; i < items.size(); ++i) s.append(sep).append(items[i]);
  return s;
}

}  // namespace hn::compat
