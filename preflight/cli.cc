#include "preflight/cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "compat/input_error.h"
#include "compat/printable.h"
#include "preflight/command.h"
#include "preflight/command_docs.h"
#include "preflight/runner.h"

namespace hn::preflight {

namespace {

void print_main_help(std::ostream& os) {
  os << "hnprecheck " << tool_version()
     << ": pre-flight checks and certification for AI training clusters\n\n"
        "Usage: hnprecheck <command> [options]\n"
        "       hnprecheck <command> --help\n\nCommands:\n";
  size_t width = 0;
  for (const auto& c : command_table()) width = std::max(width, c.name.size() + 2);
  for (const auto& c : command_table()) {
    std::string name = c.name;
    name.resize(width, ' ');
    os << "  " << name << c.summary << "\n";
  }
  os << "\n" << main_exit_codes();
}

const Command* find_command(const std::string& name) {
  for (const auto& c : command_table())
    if (c.name == name) return &c;
  return nullptr;
}

std::string command_names() {
  std::string s;
  for (const auto& c : command_table()) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

// The first positional argument past what the command takes, to name it.
std::string first_extra_positional(const std::vector<std::string>& args,
                                   const po::options_description& desc,
                                   const po::positional_options_description& pos) {
  try {
    auto parsed = po::command_line_parser(args).options(desc).allow_unregistered().run();
    auto rest = po::collect_unrecognized(parsed.options, po::include_positional);
    if (rest.size() > pos.max_total_count()) return rest[pos.max_total_count()];
  } catch (const po::error&) {
  }
  return "";
}

// Every error names text from outside (a path, a key, a value); a newline or
// an ESC in it must not forge a log line or drive the terminal, so messages
// are printed with control bytes escaped (compat/printable.h).
std::string shown(const std::string& message) {
  return compat::printable(message, 4096);
}

int usage_error(const std::string& where, const std::string& what, const std::string& hint) {
  std::cerr << where << ": " << shown(what) << "\n" << hint << "\n";
  return 2;
}

int dispatch(const Command& cmd, const std::vector<std::string>& args) {
  const std::string prog = "hnprecheck " + cmd.name;
  po::options_description desc("Options");
  po::positional_options_description pos;
  desc.add_options()("help,h", "show this help");
  cmd.add_options(desc, pos);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "Usage: " << cmd.usage << "\n\n" << cmd.summary << "\n";
      if (!cmd.details.empty()) std::cout << "\n" << cmd.details << "\n";
      std::cout << "\n" << command_options(cmd) << "\n" << cmd.exit_codes;
      return 0;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    return usage_error(prog, "unknown option '" + e.get_option_name() + "'",
                       "Run '" + prog + " --help' for the options.");
  } catch (const po::too_many_positional_options_error&) {
    const std::string extra = first_extra_positional(args, desc, pos);
    return usage_error(prog,
                       extra.empty() ? "too many arguments" : "unexpected argument '" + extra + "'",
                       "Usage: " + cmd.usage);
  } catch (const po::error& e) {
    return usage_error(prog, e.what(), "Run '" + prog + " --help' for the options.");
  }
  try {
    int code = cmd.run(vm);
    if (threads_abandoned()) {
      // A probe thread past its deadline may still run: skip static
      // destructors it could race with, after flushing what we printed.
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      std::_Exit(code);
    }
    return code;
  } catch (const compat::InputError& e) {
    std::cerr << prog << ": " << shown(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": could not run: " << shown(e.what()) << "\n";
    return 3;
  }
}

}  // namespace

int run_cli(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
      print_main_help(std::cerr);
      return 2;
    }
    const std::string& first = args.front();
    if (first == "--help" || first == "-h" || first == "help") {
      if (args.size() > 1) {
        if (const Command* c = find_command(args[1])) return dispatch(*c, {"--help"});
        return usage_error("hnprecheck", "unknown command '" + args[1] + "'",
                           "Commands: " + command_names());
      }
      print_main_help(std::cout);
      return 0;
    }
    if (first == "--version") {
      std::cout << "hnprecheck " << tool_version() << "\n";
      return 0;
    }
    if (!first.empty() && first[0] == '-')
      return usage_error("hnprecheck", "unknown option '" + first + "' (expected a command first)",
                         "Commands: " + command_names() + ". Run 'hnprecheck --help'.");
    const Command* cmd = find_command(first);
    if (!cmd)
      return usage_error("hnprecheck", "unknown command '" + first + "'",
                         "Commands: " + command_names() + ". Run 'hnprecheck --help'.");
    return dispatch(*cmd, std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const std::exception& e) {
    std::cerr << "hnprecheck: internal error: " << shown(e.what()) << "\n";
    return 3;
  } catch (...) {
    std::cerr << "hnprecheck: internal error\n";
    return 3;
  }
}

}  // namespace hn::preflight
