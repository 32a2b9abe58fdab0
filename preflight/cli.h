#pragma once
// The process entry: parses `hnprecheck <command> [options]`, dispatches
// through command_table(), and maps errors to the documented exit codes:
//   0 all checks pass (warnings allowed unless --strict)
//   1 at least one check failed
//   2 bad usage or invalid input (unknown command/option, bad profile)
//   3 the tool itself could not run a check
// Never throws.

namespace hn::preflight {

int run_cli(int argc, char** argv);

}  // namespace hn::preflight
