#pragma once
// A report with one finding of every status over three layers, shared by the
// emitter tests so each checks its format against the same known content.

#include "reports/finding.h"

namespace hn::reports::test {

// started 2024-05-01T12:00:00.000Z, finished 1.5 s later; findings (given
// deliberately out of presentation order):
//   L7 HW-NIC-MTU eth1 FAIL, L7 HW-NIC-PRESENT eth1 PASS, L3 COMM-LINK node0-node1 WARN,
//   L1 DATA-READ /mnt/shared SKIP, L7 HW-TEMP cpu0 ERROR
Report sample_report();

// A finding whose every string holds characters that formats must escape.
Finding tricky_finding();

}  // namespace hn::reports::test
