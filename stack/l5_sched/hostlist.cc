#include "stack/l5_sched/hostlist.h"

#include <cctype>
#include <stdexcept>

namespace hn::stack::sched {

namespace {

constexpr std::size_t kMaxHosts = 100000;

[[noreturn]] void bad(std::string_view list, const std::string& why) {
  throw std::invalid_argument("hostlist '" + std::string(list) + "': " + why);
}

// Splits at commas that are not inside brackets.
std::vector<std::string_view> split_top(std::string_view list) {
  std::vector<std::string_view> items;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    char c = list[i];
    if (c == '[') {
      if (++depth > 1) bad(list, "nested '['");
    } else if (c == ']') {
      if (--depth < 0) bad(list, "']' without '['");
    } else if (c == ',' && depth == 0) {
      items.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) bad(list, "'[' without ']'");
  items.push_back(list.substr(start));
  return items;
}

unsigned long parse_number(std::string_view list, std::string_view s) {
  if (s.empty() || s.size() > 9) bad(list, "bad number '" + std::string(s) + "' in a range");
  unsigned long v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      bad(list, "bad number '" + std::string(s) + "' in a range");
    v = v * 10 + static_cast<unsigned long>(c - '0');
  }
  return v;
}

// "01-04,07" -> {"01","02","03","04","07"}
std::vector<std::string> expand_ranges(std::string_view list, std::string_view body) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= body.size()) {
    std::size_t comma = body.find(',', start);
    if (comma == std::string_view::npos) comma = body.size();
    std::string_view part = body.substr(start, comma - start);
    if (part.empty()) bad(list, "empty range item");
    std::size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      parse_number(list, part);
      out.emplace_back(part);
    } else {
      std::string_view lo_s = part.substr(0, dash), hi_s = part.substr(dash + 1);
      unsigned long lo = parse_number(list, lo_s), hi = parse_number(list, hi_s);
      if (hi < lo) bad(list, "descending range '" + std::string(part) + "'");
      if (hi - lo >= kMaxHosts) bad(list, "range '" + std::string(part) + "' is too large");
      std::size_t width = lo_s.size();
      for (unsigned long v = lo; v <= hi; ++v) {
        std::string s = std::to_string(v);
        if (s.size() < width) s.insert(0, width - s.size(), '0');
        out.push_back(std::move(s));
      }
    }
    if (out.size() > kMaxHosts) bad(list, "expands to too many hosts");
    start = comma + 1;
  }
  return out;
}

// One item without top-level commas, possibly with several bracket groups.
void expand_item(std::string_view list, std::string_view item, std::vector<std::string>& out) {
  if (item.empty()) bad(list, "empty host name");
  std::vector<std::string> partial = {""};
  std::size_t i = 0;
  while (i < item.size()) {
    std::size_t open = item.find('[', i);
    std::string_view literal =
        item.substr(i, open == std::string_view::npos ? item.npos : open - i);
    for (auto& p : partial) p += literal;
    if (open == std::string_view::npos) break;
    std::size_t close = item.find(']', open);
    auto values = expand_ranges(list, item.substr(open + 1, close - open - 1));
    std::vector<std::string> next;
    for (const auto& p : partial)
      for (const auto& v : values) next.push_back(p + v);
    if (next.size() > kMaxHosts) bad(list, "expands to too many hosts");
    partial = std::move(next);
    i = close + 1;
  }
  for (auto& p : partial) {
    for (char c : p)
      if (std::isspace(static_cast<unsigned char>(c))) bad(list, "whitespace in a host name");
    out.push_back(std::move(p));
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view list) {
  if (list.empty()) bad(list, "empty");
  std::vector<std::string> out;
  for (auto item : split_top(list)) {
    expand_item(list, item, out);
    if (out.size() > kMaxHosts) bad(list, "expands to too many hosts");
  }
  return out;
}

std::string first_host(std::string_view list) {
  if (list.empty()) bad(list, "empty");
  auto items = split_top(list);  // validates brackets of the whole list
  std::vector<std::string> out;
  expand_item(list, items.front(), out);
  return out.front();
}

}  // namespace hn::stack::sched
