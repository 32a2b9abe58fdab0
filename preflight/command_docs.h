#pragma once
// The command table as documentation: for every command, what `hnprecheck
// <command> --help` prints (usage, summary, details, options, exit codes),
// as data. cli.cc prints --help from the same options_description this builds
// (command_options()), and the man page and the bash completion are rendered
// from command_docs() at build time (preflight/docgen_main.cc), so the three
// cannot disagree. Nothing here throws for a well-formed command table.

#include <string>
#include <vector>

#include "preflight/command.h"

namespace hn::preflight {

// The options `hnprecheck <command> --help` lists: --help, the command's own,
// less those that only carry positional arguments (diff's A and B: the usage
// line shows those).
po::options_description command_options(const Command& cmd);

struct OptionDoc {
  std::string long_name;   // "profile"
  std::string short_name;  // "v", or empty
  std::string argument;    // "FILE", "SECONDS (=30)"; empty for a switch
  std::string value_name;  // "FILE", "SECONDS"; empty for a switch
  std::string help;
};

struct CommandDoc {
  std::string name, summary, usage, details, exit_codes;
  std::vector<OptionDoc> options;
};

std::vector<CommandDoc> command_docs();

// What `hnprecheck --help` prints after the command list about exit codes.
std::string main_exit_codes();

}  // namespace hn::preflight
