#pragma once
// Writes a finished Report everywhere the user asked: the text report on the
// terminal, and --json/--junit/--ctrf files (atomically; "-" is stdout). When
// a machine format claims stdout, the text report moves to stderr so the
// machine output stays parseable. Returns nothing; throws std::runtime_error
// when a file cannot be written (the caller maps that to exit 3).

#include <boost/program_options.hpp>

#include "reports/finding.h"

namespace hn::preflight {

// Validates the output options before any work is done: two formats on "-"
// is a usage error (compat::InputError).
void check_output_options(const boost::program_options::variables_map& vm);

// `stdout_taken`: the command itself writes to stdout (e.g. translate --out -),
// so the text report goes to stderr.
void emit_report(const reports::Report& report, const boost::program_options::variables_map& vm,
                 bool stdout_taken = false);

std::string local_hostname();
std::int64_t unix_ms_now();

}  // namespace hn::preflight
