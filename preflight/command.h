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

struct Command {
  std::string name;
  std::string summary;  // one line for `hnprecheck --help`
  std::string usage;    // "hnprecheck node [options]"
  std::string details;  // paragraph(s) for `hnprecheck <command> --help`
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
void add_timeout_option(po::options_description& d, double default_seconds);
// Reads --timeout; throws compat::InputError when it is not a positive number.
std::chrono::milliseconds timeout_from(const po::variables_map& vm);

}  // namespace hn::preflight
