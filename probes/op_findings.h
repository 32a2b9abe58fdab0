#pragma once
// Turns an operator check (compat/op_check.h) into findings: one per distinct
// (op, dtype) pair, then one OP-MODEL-SUMMARY for the file. Status: supported
// is PASS (WARN when a model or trace did not say the dtype), unsupported-op,
// unsupported-dtype and constraint-violated are FAIL, unknown-mapping is WARN.
// Every finding's evidence carries file, start, end, op and class, which the
// migration CSV (reports/migration_csv.h) reads.

#include <map>
#include <string>
#include <vector>

#include "compat/op_check.h"
#include "reports/finding.h"

namespace hn::probes {

// prefix_entities: put the file name before every entity (several inputs).
std::vector<reports::Finding> op_findings(const compat::OpCheckResult& result,
                                          const compat::OpMatrix& matrix, bool prefix_entities);

// The catalog parameters of one pair; also what the L4 error's params hold.
std::map<std::string, std::string> op_pair_params(const compat::OpPairResult& pair,
                                                  const compat::OpCheckResult& result,
                                                  const compat::OpMatrix& matrix);

// "3 nodes: a, b, c", "120 calls, 3.456 ms self (12.3% of cpu_op self time)".
std::string occurrence_text(const compat::OpPairResult& pair, const compat::OpCheckResult& result);

reports::Status op_status(const compat::OpPairResult& pair, compat::InventoryKind kind);

}  // namespace hn::probes
