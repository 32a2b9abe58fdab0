#pragma once
// Writes a finished Report everywhere the user asked: the text report on the
// terminal, and --json/--junit/--ctrf files (atomically; "-" is stdout). When
// a machine format claims stdout, the text report moves to stderr so the
// machine output stays parseable. Output paths are checked before any work
// (check_output_options / check_output_path, exit 2), and the text report is
// printed before any file is written, so a write that still fails late (disk
// full, a directory removed meanwhile) never hides the results; that failure
// is a std::runtime_error (the caller maps it to exit 3).

#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/text_report.h"

namespace hn::preflight {

// Validates the output options before any work is done: two formats on "-"
// is a usage error, and so is every --json/--junit/--ctrf path that cannot be
// written (check_output_path). Throws compat::InputError.
void check_output_options(const boost::program_options::variables_map& vm);

// Throws compat::InputError (field = option, e.g. "--out") when path cannot
// be written: empty, a directory, a missing or non-writable parent directory
// (reports::output_path_problem). "-" (stdout) is always fine.
void check_output_path(const std::string& option, const std::string& path);

// A file the command writes besides the report formats (ops --csv,
// translate --out); "-" is stdout.
struct ExtraOutput {
  std::string path;
  std::string content;
};

// A command whose text, Markdown, HTML or CTRF are laid out its own way
// (migrate groups findings by concern, not by layer; gate's page and CTRF
// carry its baseline) passes its renderers; an unset one and the other
// formats are the shared ones.
struct ReportRenderers {
  std::function<std::string(const reports::Report&, const reports::TextOptions&)> text;
  std::function<std::string(const reports::Report&)> markdown, html, ctrf;
};

// Prints the text report, then writes the report formats and `extra`. Every
// file is attempted, each by the run's deadline (report.started_unix_ms +
// --timeout, or reports::kDefaultOutputDeadline from now for commands without
// --timeout): a FIFO nobody reads is a failure at the deadline, not a hang.
// Then a std::runtime_error names each one that failed.
// `stdout_taken`: the command itself writes to stdout, so the text report
// goes to stderr (implied by an extra output on "-").
void emit_report(const reports::Report& report, const boost::program_options::variables_map& vm,
                 bool stdout_taken = false, const std::vector<ExtraOutput>& extra = {},
                 const ReportRenderers& renderers = {});

// True when a report format option (--json, --junit, ...) writes to stdout.
bool report_on_stdout(const boost::program_options::variables_map& vm);

std::string local_hostname();
std::int64_t unix_ms_now();

}  // namespace hn::preflight
