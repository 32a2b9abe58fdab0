#pragma once
// The CSV of the common PyTorch migration-analysis format (the columns of
// ms_fmk_transplt's unsupported_api.csv): File, Start Line, End Line, OP,
// Tips. One row per finding that is not PASS or SKIP and whose evidence names
// file, start, end and op (the operator findings do); other findings are left
// out. Tips is "<class>: <message> -> <remediation>". Fields are quoted as
// RFC 4180 says (quotes doubled) when they hold a comma, quote or line break.

#include <string>

#include "reports/finding.h"

namespace hn::reports {

std::string render_migration_csv(const Report& report);

}  // namespace hn::reports
