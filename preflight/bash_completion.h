#pragma once
// The bash completion of hnprecheck, rendered from command_docs(): commands
// after `hnprecheck`, each command's options (long and short, exactly those
// of its --help) after `hnprecheck <command> -`, file names after an option
// whose argument is a FILE, PATH or DIR and for positional arguments. Self-
// contained (compgen only, no bash-completion helpers). Pure.

#include <string>
#include <vector>

#include "preflight/command_docs.h"

namespace hn::preflight {

std::string render_bash_completion(const std::vector<CommandDoc>& commands);

}  // namespace hn::preflight
