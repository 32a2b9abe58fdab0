#pragma once
// Turns a translation (compat::translate::Translation) into findings: one per
// input variable, one per evaluated cross-variable rule, and one listing the
// variables no communication library reads. Layer L3. Statuses, which decide
// the exit code (docs/commands/translate.md):
//   translated, converted, dropped without risk    PASS
//   clamped, dropped with risk, unknown            WARN (exit 1 only with --strict)
//   invalid (--check: breaks the range/multiple)   FAIL (exit 1)
//   needs-review                                   FAIL (exit 1)
//   cross rule violated                            FAIL, or WARN for advice-only rules
//   cross rule not checkable (no profile/ports)    SKIP with the reason

#include <vector>

#include "compat/translate/translator.h"
#include "reports/finding.h"

namespace hn::probes {

std::vector<reports::Finding> translation_findings(const compat::translate::Translation& t);

// The translation as JSON text for Report::extra_json["translation"]: the
// tables used, the written env lines and every variable's outcome.
std::string translation_json(const compat::translate::Translation& t);

}  // namespace hn::probes
