#pragma once
// A Markdown report (GitHub-flavoured tables) for CI job summaries, pull
// request comments and tickets: a title with host and profile, the summary
// line, then one table per layer, problems first, each row status, code,
// entity, message and the next step. Cell text is escaped so that a `|` or a
// line break in a message never breaks the table.

#include <string>
#include <string_view>

#include "reports/finding.h"

namespace hn::reports {

std::string render_markdown(const Report& report);

// One table cell's text, escaped as render_markdown escapes it (code spans
// kept, `|` and markup escaped, line breaks as <br>).
std::string markdown_cell(std::string_view text);

}  // namespace hn::reports
