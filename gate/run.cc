#include "gate/run.h"

#include <stdexcept>

namespace hn::gate {

std::string_view to_string(RunKind k) {
  switch (k) {
    case RunKind::kCertificate:
      return "certificate";
    case RunKind::kBench:
      return "bench";
    case RunKind::kReport:
      return "report";
    case RunKind::kSnapshot:
      return "snapshot";
  }
  return "report";
}

RunKind run_kind_from_string(std::string_view s) {
  for (RunKind k : {RunKind::kCertificate, RunKind::kBench, RunKind::kReport, RunKind::kSnapshot})
    if (to_string(k) == s) return k;
  throw std::invalid_argument("'" + std::string(s) +
                              "' is not a run kind (expected certificate, bench, report or "
                              "snapshot)");
}

std::string machine_difference(const Machine& a, const Machine& b) {
  std::string out;
  auto field = [&](const char* name, const std::string& x, const std::string& y) {
    if (x.empty() || y.empty() || x == y) return;
    out += (out.empty() ? "" : "; ") + std::string(name) + " " + x + " -> " + y;
  };
  field("host", a.host, b.host);
  field("CPU", a.cpu, b.cpu);
  field("kernel", a.kernel, b.kernel);
  if (!a.nics.empty() && !b.nics.empty() && a.nics != b.nics) {
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
      return s;
    };
    out += (out.empty() ? "" : "; ") + std::string("NICs ") + list(a.nics) + " -> " + list(b.nics);
  }
  return out;
}

std::string check_key(const Check& c) {
  return c.host + "|" + c.code + "|" + c.entity;
}

}  // namespace hn::gate
