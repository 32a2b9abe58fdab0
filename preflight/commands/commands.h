#pragma once
// Each subcommand's table row, defined in commands/<name>.cc.

#include "preflight/command.h"

namespace hn::preflight::commands {

Command node();
Command snapshot();
Command diff();
Command ops();
Command translate();
Command consistency();
Command bench();
Command certify();
Command gate();
Command migrate();

}  // namespace hn::preflight::commands
