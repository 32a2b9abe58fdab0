// Settings a script gives one command: launcher options, NAME=value
// prefixes, variables handed on, nested scripts (shell_launch.h).
#include "compat/translate/shell_launch.h"

#include <algorithm>

#include "compat/input_error.h"
#include "compat/translate/launcher_options.h"
#include "compat/translate/shell_input.h"

namespace hn::compat::translate {

void LauncherInterpreter::prefix(const ShellToken& w, const std::string& how, int cmd_line) {
  std::string name = *w.assign_name;
  for (const char* p : {"SINGULARITYENV_", "APPTAINERENV_"})
    if (name.rfind(p, 0) == 0 && name.size() > std::string(p).size())
      name = name.substr(std::string(p).size());
  scoped_value(name, w.assign_value, w.assign_raw, w.line, w.assign_dynamic, how, cmd_line);
}

void LauncherInterpreter::scoped_value(const std::string& name, const std::string& value,
                                       const std::string& raw, int line, bool dynamic,
                                       const std::string& how, int cmd_line) {
  EnvEntry e;
  e.name = name;
  e.value = value;
  e.raw = raw;
  e.file = file_;
  e.line = line;
  e.dynamic = dynamic;
  e.context = how;
  e.scope = how + " at line " + std::to_string(cmd_line);
  record_.scoped.push_back(std::move(e));
}

// A name handed on from the script's environment (-x NAME, --export=NAME).
void LauncherInterpreter::pass_on(const std::string& name, int line, const std::string& how,
                                  int cmd_line) {
  std::optional<EnvEntry> held = scope_.hand_on(name);
  if (!held) {
    if (is_comm_variable(name))
      record_.notes.push_back(InputNote{InputNote::kNotFollowed, name, file_, line,
                                        how + " " + name,
                                        "handed on from the environment the script runs in; its "
                                        "value is not in this file"});
    return;
  }
  record_.handed_on.insert({name, line});
  if (!held->conditional) {
    scoped_value(name, held->value, held->raw, line, held->dynamic, how, cmd_line);
    return;
  }
  EnvEntry e = std::move(*held);
  e.line = line;
  e.context = how;
  e.scope = how + " at line " + std::to_string(cmd_line);
  record_.scoped.push_back(std::move(e));
}

void LauncherInterpreter::command(const std::vector<ShellToken>& words, std::size_t i) {
  LauncherScan scan;
  const int cmd_line = words[i].line;
  for (std::size_t k = i; k < words.size(); ++k) {
    std::vector<LauncherSetting> found = scan.word(words, k);
    for (const auto& s : found) {
      if (s.kind == LauncherSetting::kAssign)
        scoped_value(s.name, s.value, s.value, s.line,
                     s.dynamic && s.value.find_first_of("$`") != std::string::npos, s.how,
                     cmd_line);
      else if (s.kind == LauncherSetting::kPassOn)
        pass_on(s.name, s.line, s.how, cmd_line);
      else if (s.kind == LauncherSetting::kScript)
        nested(s.value, s.line, s.line, words[s.word].end_line, s.how);
      else if (s.kind == LauncherSetting::kEnvWord)
        prefix(words[s.word], s.how, cmd_line);
    }
  }
}

void LauncherInterpreter::nested(const std::string& body, int base_line, int lo, int hi,
                                 const std::string& how) {
  std::optional<NestedRun> run = scope_.run_nested(body);
  if (!run) return;
  const int shift = base_line - 1;
  for (auto& e : run->in.entries) {
    e.line += shift;
    for (auto& a : e.alternatives) a.line += shift;
    if (e.scope.empty()) {
      e.context = how;
      e.scope = how + " at line " + std::to_string(base_line);
    }
    record_.nested.push_back({e.name, lo, std::max(hi, e.line)});
    record_.scoped.push_back(std::move(e));
  }
  for (auto& n : run->in.notes) {
    n.line += shift;
    record_.nested.push_back({n.name, lo, std::max(hi, n.line)});
    record_.notes.push_back(std::move(n));
  }
  for (int l : run->read_only_lines) record_.read_only_lines.insert(l + shift);
}

std::vector<EnvEntry> sbatch_exports(const std::string& text, const std::string& file) {
  std::size_t pos = 0;
  int line = 0;
  std::vector<EnvEntry> found;
  while (pos <= text.size()) {
    ++line;
    std::size_t end = text.find('\n', pos);
    std::string l = text.substr(pos, end == std::string::npos ? end : end - pos);
    pos = end == std::string::npos ? text.size() + 1 : end + 1;
    std::size_t a = l.find_first_not_of(" \t");
    if (a == std::string::npos || l.compare(a, 7, "#SBATCH") != 0 ||
        l.find("--export") == std::string::npos)
      continue;
    std::vector<ShellToken> words;
    try {
      const std::string directive = "sbatch " + l.substr(a + 7);  // the lexer keeps a view
      ShellLexer lx(directive, file, nullptr);
      for (ShellToken t = lx.next(); t.kind != ShellToken::kEnd; t = lx.next())
        if (t.kind == ShellToken::kWord) words.push_back(t);
    } catch (const InputError&) {
      continue;  // an unterminated quote in a directive: the net reports it
    }
    LauncherScan scan;
    for (std::size_t k = 0; k < words.size(); ++k)
      for (const auto& st : scan.word(words, k)) {
        if (st.kind != LauncherSetting::kAssign) continue;
        EnvEntry e;
        e.name = st.name;
        e.value = e.raw = st.value;
        e.file = file;
        e.line = line;
        e.context = "#SBATCH --export";
        found.push_back(std::move(e));
      }
  }
  return found;
}

}  // namespace hn::compat::translate
