#include "preflight/bash_completion.h"

#include <sstream>

namespace hn::preflight {

namespace {

// Arguments that name files, as the commands' value names say.
bool names_a_file(const std::string& value_name) {
  for (const char* n : {"FILE", "PATH", "DIR", "INPUT", "MODEL", "SNAPSHOT"})
    if (value_name == n) return true;
  return false;
}

}  // namespace

std::string render_bash_completion(const std::vector<CommandDoc>& commands) {
  std::ostringstream os;
  os << "# bash completion for hnprecheck. Generated from its command table by\n"
        "# hnprecheck-docgen; do not edit.\n"
        "_hnprecheck() {\n"
        "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        "    COMPREPLY=($(compgen -W \"";
  for (const auto& c : commands) os << c.name << ' ';
  os << "--help --version\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  local opts=\"\" files=\"\" values=\"\"\n"
        "  case \"${COMP_WORDS[1]}\" in\n";
  for (const auto& c : commands) {
    std::string opts, files, values;
    for (const auto& o : c.options) {
      std::string names = "--" + o.long_name + (o.short_name.empty() ? "" : " -" + o.short_name);
      opts += (opts.empty() ? "" : " ") + names;
      if (o.argument.empty()) continue;
      values += (values.empty() ? "" : " ") + names;
      if (names_a_file(o.value_name)) files += (files.empty() ? "" : " ") + names;
    }
    os << "    " << c.name << ")\n      opts=\"" << opts << "\"\n      values=\"" << values
       << "\"\n      files=\"" << files << "\" ;;\n";
  }
  os << "    *) return ;;\n"
        "  esac\n"
        "  if [[ \" $values \" == *\" $prev \"* ]]; then\n"
        "    if [[ \" $files \" == *\" $prev \"* ]]; then\n"
        "      COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "    else\n"
        "      COMPREPLY=()\n"
        "    fi\n"
        "    return\n"
        "  fi\n"
        "  if [[ \"$cur\" == -* ]]; then\n"
        "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
        "  else\n"
        "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "  fi\n"
        "}\n"
        "complete -o filenames -o bashdefault -F _hnprecheck hnprecheck\n";
  return os.str();
}

}  // namespace hn::preflight
