#pragma once
// hnprecheck(1) in man(7) roff, rendered from command_docs(): one section per
// command with its usage, summary, details, every option (the same
// names, arguments and help as its --help) and its exit codes. Pure; the
// build runs it through hnprecheck-docgen (preflight/docgen_main.cc).

#include <string>
#include <vector>

#include "preflight/command_docs.h"

namespace hn::preflight {

std::string render_man_page(const std::vector<CommandDoc>& commands, const std::string& version,
                            const std::string& main_exit_codes);

}  // namespace hn::preflight
