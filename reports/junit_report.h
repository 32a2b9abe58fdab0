#pragma once
// JUnit XML for CI systems (Jenkins, GitLab, GitHub annotations): one
// <testsuite> per layer present, one <testcase> per finding. FAIL is a
// <failure>, ERROR an <error>, SKIP <skipped/>; WARN passes (CI would
// otherwise block on advisories) but says so in <system-out>.

#include <string>
#include <string_view>

#include "reports/finding.h"

namespace hn::reports {

// The whole document, UTF-8, with a trailing newline. Findings are in
// sorted_for_report() order. Every string is escaped; characters XML 1.0
// cannot carry (most C0 controls, U+FFFE, bad UTF-8) become U+FFFD.
std::string render_junit(const Report& report);

// XML-escapes text for element content or, with attribute = true, for a
// double-quoted attribute (where tab and newlines are kept as character
// references instead of being normalised to spaces by the reader).
std::string xml_escape(std::string_view text, bool attribute);

}  // namespace hn::reports
