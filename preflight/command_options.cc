// Option groups shared by several commands, so each spelling and help text
// exists once.
#include <cmath>
#include <sstream>

#include "compat/input_error.h"
#include "preflight/command.h"

namespace hn::preflight {

void add_profile_options(po::options_description& d) {
  d.add_options()(
      "profile", po::value<std::string>()->value_name("FILE"),
      "cluster profile (YAML, version 1); default: the embedded profile for this machine")(
      "node", po::value<std::string>()->value_name("NAME"),
      "this node's name in the profile's nodes list (default: match the hostname)");
}

void add_report_options(po::options_description& d) {
  d.add_options()("json", po::value<std::string>()->value_name("PATH"),
                  "write the JSON report ('-' = stdout)")(
      "junit", po::value<std::string>()->value_name("PATH"), "write JUnit XML ('-' = stdout)")(
      "ctrf", po::value<std::string>()->value_name("PATH"), "write a CTRF report ('-' = stdout)")(
      "markdown", po::value<std::string>()->value_name("PATH"),
      "write a Markdown report, e.g. for a CI job summary ('-' = stdout)")(
      "html", po::value<std::string>()->value_name("PATH"),
      "write a self-contained HTML report with charts ('-' = stdout)")(
      "prometheus", po::value<std::string>()->value_name("PATH"),
      "write Prometheus text exposition for node_exporter's textfile collector ('-' = "
      "stdout)")("strict", po::bool_switch(), "exit 1 on warnings too")(
      "verbose,v", po::bool_switch(), "show evidence and metrics for every finding")(
      "quiet,q", po::bool_switch(), "show only WARN, FAIL and ERROR findings (and the summary)")(
      "no-color", po::bool_switch(), "never colour the text report (NO_COLOR is honoured too)");
}

void add_timeout_option(po::options_description& d, double default_seconds, const char* help) {
  d.add_options()(
      "timeout", po::value<double>()->default_value(default_seconds)->value_name("SECONDS"),
      help ? help : "deadline for the whole run; probes still running then are reported as FAIL");
}

namespace {
// 0.0001 and 1e+06 as written, not std::to_string's 0.000100 / 1000000.000000.
std::string shortest(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

std::chrono::milliseconds timeout_from(const po::variables_map& vm) {
  // Deadlines are whole milliseconds. Truncating would turn 0.0001 into a
  // zero deadline that fails every probe at once, so anything under 1 ms is
  // refused and the rest is rounded up (0.0015 -> 2 ms), never down. The
  // 1e-9 absorbs binary fractions: 0.001 * 1000 is 1 ms, not 2.
  double s = vm["timeout"].as<double>();
  if (!std::isfinite(s) || !(s * 1000 >= 1 - 1e-9) || s > 86400)
    throw compat::InputError(
        "command line", 0, 0, "--timeout",
        "must be a number of seconds in [0.001, 86400] (at least 1 ms), got " + shortest(s));
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(s * 1000 - 1e-9)));
}

}  // namespace hn::preflight
