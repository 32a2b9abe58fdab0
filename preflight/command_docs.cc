#include "preflight/command_docs.h"

#include <algorithm>

namespace hn::preflight {

po::options_description command_options(const Command& cmd) {
  po::options_description all("Options");
  po::positional_options_description pos;
  all.add_options()("help,h", "show this help");
  cmd.add_options(all, pos);
  po::options_description out("Options");
  std::vector<std::string> positional;
  for (unsigned i = 0; i < pos.max_total_count() && i < 16; ++i)
    positional.push_back(pos.name_for_position(i));
  for (const auto& o : all.options())
    if (std::find(positional.begin(), positional.end(), o->long_name()) == positional.end())
      out.add(o);
  return out;
}

namespace {

OptionDoc option_doc(const po::option_description& o) {
  OptionDoc d;
  d.long_name = o.long_name();
  const std::string s = o.canonical_display_name(po::command_line_style::allow_dash_for_short);
  if (s.size() == 2 && s[0] == '-') d.short_name = s.substr(1);
  d.argument = o.format_parameter();
  d.value_name = d.argument.substr(0, d.argument.find(' '));
  d.help = o.description();
  return d;
}

}  // namespace

std::vector<CommandDoc> command_docs() {
  std::vector<CommandDoc> out;
  for (const auto& c : command_table()) {
    CommandDoc d{c.name, c.summary, c.usage, c.details, c.exit_codes, {}};
    const po::options_description options = command_options(c);
    for (const auto& o : options.options()) d.options.push_back(option_doc(*o));
    out.push_back(std::move(d));
  }
  return out;
}

std::string main_exit_codes() {
  // Named from the table, so that a new command with codes of its own is
  // listed without anyone editing this text.
  std::vector<std::string> differ;
  for (const auto& c : command_table())
    if (c.exit_codes != kGenericExitCodes) differ.push_back(c.name);
  std::string out = kGenericExitCodes;
  if (differ.empty()) return out;
  out += "(";
  for (std::size_t i = 0; i < differ.size(); ++i)
    out += (i == 0 ? "" : i + 1 == differ.size() ? " and " : ", ") + differ[i];
  return out + (differ.size() == 1 ? " differs" : " differ") + ": see " +
         (differ.size() == 1 ? "its" : "their") + " --help)\n";
}

}  // namespace hn::preflight
