#include "preflight/man_page.h"

#include <sstream>

namespace hn::preflight {

namespace {

// Text for roff: backslashes escaped, a line that would start with a control
// character ('.' or '\'') made literal, and ASCII hyphen-minus kept as such
// (\-) so that options copy and search as typed.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// Paragraph text: blank lines start a new paragraph; roff fills the rest.
void paragraphs(std::ostringstream& os, const std::string& text) {
  std::istringstream in(text);
  bool first = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      first = true;
      continue;
    }
    if (first) os << ".PP\n";
    first = false;
    os << roff(line) << "\n";
  }
}

// A block printed as is (exit-code tables).
void verbatim(std::ostringstream& os, const std::string& text) {
  os << ".PP\n.nf\n" << roff(text);
  if (!text.empty() && text.back() != '\n') os << "\n";
  os << ".fi\n";
}

}  // namespace

std::string render_man_page(const std::vector<CommandDoc>& commands, const std::string& version,
                            const std::string& main_exit_codes) {
  std::ostringstream os;
  os << ".\\\" Generated from hnprecheck's command table by hnprecheck-docgen; do not edit.\n"
     << ".TH HNPRECHECK 1 \"\" \"hnprecheck " << roff(version) << "\" \"User Commands\"\n"
     << ".SH NAME\nhnprecheck \\- pre\\-flight checks and certification for AI training "
        "clusters\n"
     << ".SH SYNOPSIS\n.B hnprecheck\n.I command\n.RI [ options ]\n.br\n.B hnprecheck\n"
        ".I command\n.B \\-\\-help\n.br\n.B hnprecheck \\-\\-version\n"
     << ".SH DESCRIPTION\nhnprecheck checks the nodes of an AI training cluster against a "
        "cluster profile, from the model down to the physical layer, and validates the "
        "migration of distributed jobs onto integrated supernode platforms. Every check has "
        "a stable code, the values it saw and the next step to take.\n"
     << ".SH COMMANDS\n";
  for (const auto& c : commands)
    os << ".TP\n.B " << roff(c.name) << "\n" << roff(c.summary) << "\n";
  for (const auto& c : commands) {
    os << ".SH \"HNPRECHECK " << roff(c.name) << "\"\n"
       << ".PP\n\\fBUsage:\\fR " << roff(c.usage) << "\n";
    paragraphs(os, c.summary);
    paragraphs(os, c.details);
    os << ".SS Options\n";
    for (const auto& o : c.options) {
      os << ".TP\n";
      if (!o.short_name.empty()) os << "\\fB\\-" << roff(o.short_name) << "\\fR, ";
      os << "\\fB\\-\\-" << roff(o.long_name) << "\\fR";
      if (!o.argument.empty()) os << " \\fI" << roff(o.argument) << "\\fR";
      os << "\n" << roff(o.help) << "\n";
    }
    os << ".SS \"Exit status\"\n";
    verbatim(os, c.exit_codes);
  }
  os << ".SH \"EXIT STATUS\"\n";
  verbatim(os, main_exit_codes);
  os << ".SH FILES\n.TP\n.I /usr/share/doc/hnprecheck/examples/\n"
        "example cluster profiles\n"
        ".TP\n.I /usr/libexec/hnprecheck/slurm\\-prolog\n"
        "Slurm Prolog: fails (and so drains the node) when a check fails\n"
        ".TP\n.I /usr/libexec/hnprecheck/slurm\\-healthcheck\n"
        "Slurm HealthCheckProgram: drains the node itself, with a reason, when a check "
        "fails\n"
        ".SH \"SEE ALSO\"\n.BR slurm.conf (5)\n";
  return os.str();
}

}  // namespace hn::preflight
