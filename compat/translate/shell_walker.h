#pragma once
// The shell-state walker of the shell reader (shell_input.h): follows a
// script the way the shell would, as far as environment settings go. It
// keeps every variable's possible values with their lines and conditions
// (assignments, ${NAME:=v} defaults, export/declare -x/set -a, unset), the
// control flow that makes a value conditional (if/elif/else, case, loops,
// functions, && and ||, subshells and groups), and which variables end up
// exported. Each command other than an assignment or a builtin goes to the
// launcher interpreter (shell_launch.h), which asks back for a variable's
// values (hand_on) and for nested scripts (run_nested).
//
// Contract: run() reads the whole text once and returns the job's settings
// (exported variables, one entry each, conditional with every alternative
// when a branch decides) and the settings of single commands, in line order,
// with kNotExported notes for library variables never exported nor handed
// on. It throws compat::InputError(file, line) on an unterminated quote or
// substitution, an invalid name after export, or (env-file mode) a line that
// is not an assignment. The whole-text passes (#SBATCH directives,
// here-document manifests, the net for unread settings) are the reader's
// (shell_input.cc), over record() and heredoc_lines().

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compat/translate/env_entry.h"
#include "compat/translate/shell_input.h"
#include "compat/translate/shell_launch.h"
#include "compat/translate/shell_lexer.h"

namespace hn::compat::translate {

class ShellWalker final : public ShellScope {
 public:
  // `text` must outlive the walker (the lexer keeps a view); `outer` answers
  // for variables this text never set (a nested script's enclosing one).
  // `budget` is the enclosing read's (shell_budget.h), or none for a read of
  // its own; every limit there throws InputError(file, line).
  ShellWalker(const std::string& text, const std::string& file, ShellMode mode, ShellLookup outer,
              ShellBudget* budget = nullptr, int depth = 0);

  EnvInput run();

  const LaunchRecord& record() const { return record_; }
  const std::vector<std::pair<int, std::string>>& heredoc_lines() const {
    return lexer_.heredoc_lines();
  }

  std::optional<EnvEntry> hand_on(const std::string& name) override;
  std::optional<NestedRun> run_nested(const std::string& body) override;

 private:
  struct Alt {
    std::string value, raw;
    int line = 0;
    bool dynamic = false;
    std::string condition;
    bool conditional_site = false;  // assigned inside a branch
    bool env_default = false;       // ${NAME:-v} / ${NAME:=v}: the environment's value wins
  };
  struct Var {
    std::vector<size_t> alts;  // indices into alts_
    bool maybe_unset = false;
    bool exported = false;
    bool passed = false;  // handed to a command (-x NAME, --export=NAME)
  };
  using State = std::map<std::string, Var>;
  struct Frame {
    enum Kind { kIf, kCase, kLoop, kGroup, kFunc, kAndOr };
    Kind kind = kGroup;
    State pre;
    std::vector<State> done;
    bool has_else = false;
    bool case_pattern = true;  // kCase: reading a pattern, not a branch body
    bool case_default = false;
    bool in_branch = false;
    std::string condition;
    bool conditional() const { return kind != kGroup; }
  };

  std::optional<ShellVar> lookup(const std::string& name) const;
  bool in_conditional() const;
  std::string condition() const;
  void assign(const std::string& name, const std::string& value, const std::string& raw, int line,
              bool dynamic, bool export_now, const ShellToken* from = nullptr,
              bool env_default = false);
  EnvEntry to_entry(const std::string& name, const Alt& a) const;
  EnvEntry conditional_entry(const std::string& name, const Var& v) const;
  State merge(const std::vector<State>& states) const;

  // Units of ShellBudget::work a copy or merge of `s` costs.
  static size_t state_cost(const State& s);
  int lexer_line() const { return lexer_.line(); }
  void push(Frame::Kind kind, const std::string& cond);
  Frame* top(Frame::Kind kind);
  void close(Frame::Kind kind);
  void branch_end(Frame& f);
  bool keyword(const std::vector<ShellToken>& words, size_t& i);
  void separator(std::vector<ShellToken>& words, const ShellToken& sep, const std::string& prev);

  void command(const std::vector<ShellToken>& words, const std::string& prev_sep);
  void side_effects(const ShellToken& w);
  void simple_command(const std::vector<ShellToken>& words, size_t i);
  void read_only(const ShellToken& w);
  void builtin(const std::vector<ShellToken>& words, size_t i, const std::string& cmd);
  void check_identifier(const ShellToken& w, const std::string& cmd);

  EnvInput finish();

  std::string file_;
  ShellMode mode_;
  ShellLookup outer_;
  std::optional<ShellBudget> own_budget_;
  ShellBudget* budget_;
  ShellLexer lexer_;
  int depth_ = 0;
  State state_;
  std::vector<Alt> alts_;
  std::vector<Frame> frames_;
  std::vector<EnvEntry> overridden_;
  LaunchRecord record_;
  LauncherInterpreter launch_;
  std::string pending_function_;
  bool allexport_ = false;
};

}  // namespace hn::compat::translate
