#include "reports/finding.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace hn::reports {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::kPass:
      return "PASS";
    case Status::kWarn:
      return "WARN";
    case Status::kFail:
      return "FAIL";
    case Status::kSkip:
      return "SKIP";
    case Status::kError:
      return "ERROR";
  }
  return "ERROR";
}

std::string_view to_string(Layer l) {
  static constexpr std::string_view kNames[] = {"L1", "L2", "L3", "L4", "L5", "L6", "L7"};
  int i = static_cast<int>(l) - 1;
  return (i >= 0 && i < 7) ? kNames[i] : "L?";
}

std::string_view layer_title(Layer l) {
  switch (l) {
    case Layer::kL1:
      return "model & data";
    case Layer::kL2:
      return "framework";
    case Layer::kL3:
      return "collective communication";
    case Layer::kL4:
      return "operator adaptation";
    case Layer::kL5:
      return "scheduling";
    case Layer::kL6:
      return "network plane";
    case Layer::kL7:
      return "physical";
  }
  return "?";
}

Status status_from_string(std::string_view s) {
  for (Status v : {Status::kPass, Status::kWarn, Status::kFail, Status::kSkip, Status::kError})
    if (to_string(v) == s) return v;
  throw std::invalid_argument("unknown status '" + std::string(s) +
                              "' (expected PASS, WARN, FAIL, SKIP or ERROR)");
}

Layer layer_from_string(std::string_view s) {
  for (int i = 1; i <= 7; ++i)
    if (to_string(static_cast<Layer>(i)) == s) return static_cast<Layer>(i);
  throw std::invalid_argument("unknown layer '" + std::string(s) + "' (expected L1..L7)");
}

Summary summarize(const std::vector<Finding>& findings) {
  Summary sum;
  for (const auto& f : findings) {
    switch (f.status) {
      case Status::kPass:
        ++sum.pass;
        break;
      case Status::kWarn:
        ++sum.warn;
        break;
      case Status::kFail:
        ++sum.fail;
        break;
      case Status::kSkip:
        ++sum.skip;
        break;
      case Status::kError:
        ++sum.error;
        break;
    }
  }
  return sum;
}

int exit_code_for(const std::vector<Finding>& findings, bool strict) {
  Summary s = summarize(findings);
  if (s.fail > 0) return 1;  // a failed check outranks a check we could not run
  if (s.error > 0) return 3;
  if (strict && s.warn > 0) return 1;
  return 0;
}

int severity_rank(Status s) {
  switch (s) {
    case Status::kError:
      return 0;
    case Status::kFail:
      return 1;
    case Status::kWarn:
      return 2;
    case Status::kPass:
      return 3;
    case Status::kSkip:
      return 4;
  }
  return 5;
}

namespace {
// Natural order: runs of digits compare as numbers, so host2 < host10.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && digit(a[i2])) ++i2;
      while (j2 < b.size() && digit(b[j2])) ++j2;
      std::string_view x(a.data() + i, i2 - i), y(b.data() + j, j2 - j);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i2, j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}
}  // namespace

std::vector<Finding> sorted_for_report(std::vector<Finding> findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.layer != b.layer) return a.layer < b.layer;
    if (a.host != b.host) return natural_less(a.host, b.host);
    return severity_rank(a.status) < severity_rank(b.status);
  });
  return findings;
}

}  // namespace hn::reports
