#pragma once
// A Markdown report (GitHub-flavoured tables) for CI job summaries, pull
// request comments and tickets: a title with host and profile, the summary
// line, then one table per layer, problems first, each row status, code,
// entity, message and the next step. Cell text is escaped so that a `|` or a
// line break in a message never breaks the table.

#include <string>

#include "reports/finding.h"

namespace hn::reports {

std::string render_markdown(const Report& report);

}  // namespace hn::reports
