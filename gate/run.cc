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

std::string check_key(const Check& c) {
  return c.host + "|" + c.code + "|" + c.entity;
}

}  // namespace hn::gate
