#include "preflight/report_output.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "compat/input_error.h"
#include "preflight/command.h"
#include "reports/atomic_file.h"
#include "reports/ctrf_report.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/prometheus_report.h"
#include "reports/text_report.h"

namespace hn::preflight {

namespace {
struct Format {
  const char* option;
  std::string (*render)(const reports::Report&);
};
constexpr Format kFormats[] = {
    {"json", reports::render_json}, {"junit", reports::render_junit},
    {"ctrf", reports::render_ctrf}, {"markdown", reports::render_markdown},
    {"html", reports::render_html}, {"prometheus", reports::render_prometheus},
};
}  // namespace

void check_output_path(const std::string& option, const std::string& path) {
  if (std::string why = reports::output_path_problem(path); !why.empty())
    throw compat::InputError("command line", 0, 0, option, why);
}

void check_output_options(const boost::program_options::variables_map& vm) {
  int on_stdout = 0;
  for (const auto& f : kFormats)
    if (vm.count(f.option) && vm[f.option].as<std::string>() == "-") ++on_stdout;
  if (on_stdout > 1)
    throw compat::InputError(
        "command line", 0, 0, "",
        "only one of --json, --junit, --ctrf, --markdown, --html, --prometheus can write to "
        "stdout ('-')");
  for (const auto& f : kFormats)
    if (vm.count(f.option))
      check_output_path(std::string("--") + f.option, vm[f.option].as<std::string>());
}

bool report_on_stdout(const boost::program_options::variables_map& vm) {
  for (const auto& f : kFormats)
    if (vm.count(f.option) && vm[f.option].as<std::string>() == "-") return true;
  return false;
}

void emit_report(const reports::Report& report, const boost::program_options::variables_map& vm,
                 bool stdout_taken, const std::vector<ExtraOutput>& extra,
                 const ReportRenderers& renderers) {
  std::vector<ExtraOutput> files;
  for (const auto& f : kFormats) {
    if (!vm.count(f.option)) continue;
    const std::string option = f.option;
    std::string content = option == "markdown" && renderers.markdown ? renderers.markdown(report)
                          : option == "html" && renderers.html       ? renderers.html(report)
                          : option == "ctrf" && renderers.ctrf       ? renderers.ctrf(report)
                                                                     : f.render(report);
    files.push_back({vm[f.option].as<std::string>(), std::move(content)});
  }
  files.insert(files.end(), extra.begin(), extra.end());
  for (const auto& f : files) stdout_taken = stdout_taken || f.path == "-";

  // The text first: the results are on the terminal whatever happens to the files.
  bool quiet = vm.count("quiet") && vm["quiet"].as<bool>();
  reports::TextOptions opts;
  opts.verbose = vm.count("verbose") && vm["verbose"].as<bool>();
  bool no_color = (vm.count("no-color") && vm["no-color"].as<bool>()) || std::getenv("NO_COLOR");
  std::ostream& os = stdout_taken ? std::cerr : std::cout;
  opts.color = !no_color && isatty(stdout_taken ? STDERR_FILENO : STDOUT_FILENO);
  opts.only_problems = quiet;
  os << (renderers.text ? renderers.text(report, opts) : reports::render_text(report, opts));
  os.flush();

  // Files are written by the run's deadline (--timeout counted from the
  // start) so that a FIFO nobody reads ends the command with exit 3 instead
  // of hanging it; commands without --timeout get the default bound.
  auto deadline = std::chrono::steady_clock::now() + reports::kDefaultOutputDeadline;
  if (vm.count("timeout")) {
    const auto end_ms = report.started_unix_ms + timeout_from(vm).count();
    deadline = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(std::max<std::int64_t>(0, end_ms - unix_ms_now()));
  }
  std::string failures;
  for (const auto& f : files) {
    try {
      reports::write_output(f.path, f.content, deadline);
    } catch (const std::exception& e) {
      failures += (failures.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  if (!failures.empty()) throw std::runtime_error(failures);
}

std::string local_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace hn::preflight
