#pragma once
// One row of the subcommand table. A command declares its options into the
// description it is given (common ones come from the helpers below) and runs
// with the parsed map. run() returns the process exit code; it throws
// compat::InputError for bad input (exit 2) and anything else for "could not
// run" (exit 3). The dispatcher (cli.cc) owns parsing and error mapping.

#include <boost/program_options.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace hn::preflight {

namespace po = boost::program_options;

// The exit codes of commands that report findings (node, ops, translate):
// what `hnprecheck --help` prints, and a command's default.
inline constexpr const char* kGenericExitCodes =
    "Exit codes:\n"
    "  0  all checks passed (warnings allowed unless --strict)\n"
    "  1  at least one check failed (or warned, with --strict)\n"
    "  2  bad usage or invalid input (unknown command or option, malformed profile)\n"
    "  3  the tool could not run a check (internal error)\n";

struct Command {
  std::string name;
  std::string summary;  // one line for `hnprecheck --help`
  std::string usage;    // "hnprecheck node [options]"
  std::string details;  // paragraph(s) for `hnprecheck <command> --help`
  // The "Exit codes:" block of `hnprecheck <command> --help`; a command whose
  // codes differ (no --strict, other meanings of 1) sets its own.
  std::string exit_codes = kGenericExitCodes;
  std::function<void(po::options_description&, po::positional_options_description&)> add_options;
  std::function<int(const po::variables_map&)> run;
};

const std::vector<Command>& command_table();
const char* tool_version();

// --profile, --node
void add_profile_options(po::options_description& d);
// --json, --junit, --ctrf, --strict, --verbose, --quiet, --no-color
void add_report_options(po::options_description& d);
// --timeout SECONDS with the command's default
void add_timeout_option(po::options_description& d, double default_seconds,
                        const char* help = nullptr);
// Reads --timeout; throws compat::InputError when it is not a positive number.
std::chrono::milliseconds timeout_from(const po::variables_map& vm);

}  // namespace hn::preflight
