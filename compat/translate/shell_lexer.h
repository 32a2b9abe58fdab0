#pragma once
// A POSIX-shell tokenizer, just deep enough to find environment assignments in
// env files and launch scripts: quoting ('', "", $'', backslash), line
// continuations, comments, operators, here-documents (skipped), and $-expansion
// of variables that the same input set earlier. Anything that is only known at
// run time ($(...), `...`, $((...)), ${x#y}, a variable the input never set)
// marks the word dynamic instead of guessing.
//
// Contract: next() returns tokens in order with the 1-based line where each
// starts. It throws compat::InputError(file, line) for an unterminated quote,
// command substitution or ${...}, and for a word or an expansion past the
// limits of shell_budget.h (charged to `budget`, or to the lexer's own when
// none is given); nothing else in shell text is an error here.

#include <cctype>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compat/translate/shell_budget.h"

namespace hn::compat::translate {

// A shell variable name: [A-Za-z_][A-Za-z0-9_]*.
inline bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A command substitution $(...) inside a word: its body and the line it starts on.
struct ShellSubstitution {
  std::string body;
  int line = 0;
};

struct ShellToken {
  enum Kind { kWord, kSeparator, kRedirect, kEnd };
  Kind kind = kEnd;
  std::string text;  // word after quote removal/expansion; operator text otherwise
  std::string raw;   // the word as written
  int line = 0;
  bool dynamic = false;
  // Set when the word has the form NAME=value with NAME unquoted and valid.
  std::optional<std::string> assign_name;
  std::string assign_value;  // after quote removal/expansion
  std::string assign_raw;    // as written
  bool assign_dynamic = false;
  int end_line = 0;  // the line the word ends on (quoted text may span lines)
  std::vector<ShellSubstitution> substitutions;  // every $(...) of the word, in order
  // ${NAME:=word} / ${NAME=word} of a variable the input never set: the shell
  // assigns word to NAME as a side effect.
  std::vector<std::pair<std::string, std::string>> default_assignments;
  // Variables the input never set whose ${NAME:-word} default the word used:
  // at run time the environment's value would win.
  std::vector<std::string> defaulted;
};

// What a variable expands to: its value, or nullopt when the input never set
// it; `dynamic` is true when its own value was only known at run time.
struct ShellVar {
  std::string value;
  bool dynamic = false;
};
using ShellLookup = std::function<std::optional<ShellVar>(std::string_view name)>;

class ShellLexer {
 public:
  ShellLexer(std::string_view text, std::string file, ShellLookup lookup,
             ShellBudget* budget = nullptr);
  ShellToken next();
  // The line the lexer has reached (where a limit passed mid-command is named).
  int line() const { return line_; }

 private:
  // The word being read: its text after quote removal and expansion, as
  // written, and where an assignment's '=' is.
  struct WordState {
    std::string text, raw;
    bool dynamic = false;
    bool quoted_or_expanded = false;  // once true, a later '=' cannot start an assignment
    std::optional<size_t> eq_text, eq_raw;
    std::vector<ShellSubstitution> substitutions;
    std::vector<std::pair<std::string, std::string>> default_assignments;
    std::vector<std::string> defaulted;
  };
  char peek(size_t ahead = 0) const;
  void advance();
  void skip_comment();
  void read_single_quoted(WordState& w);
  void read_double_quoted(WordState& w);
  void read_ansi_c(WordState& w);
  void read_dollar(WordState& w, bool in_double_quotes);
  void read_backtick(WordState& w);
  std::string read_balanced(char open, char close, int start_line);
  std::string read_braced(int start_line);
  void expand_braced(WordState& w, const std::string& inner, const std::string& raw);
  void expand_name(WordState& w, const std::string& name, const std::string& raw);
  // Charges `bytes` of expansion into w to the budget (throws past a limit).
  void charge(const WordState& w, size_t bytes);
  ShellToken read_operator();
  ShellToken read_word();
  void read_heredoc_bodies();
  [[noreturn]] void fail(int line, const std::string& what) const;

  std::string_view text_;
  std::string file_;
  ShellLookup lookup_;
  std::optional<ShellBudget> own_budget_;
  ShellBudget* budget_;
  size_t pos_ = 0;
  int line_ = 1;
  struct Heredoc {
    std::string delimiter;
    bool strip_tabs = false;
  };
  std::vector<Heredoc> pending_heredocs_;
  std::vector<std::pair<int, std::string>> heredoc_lines_;  // skipped body lines, for notes

 public:
  // Here-document body lines skipped so far (line, text); the reader scans
  // them for settings it cannot follow.
  const std::vector<std::pair<int, std::string>>& heredoc_lines() const { return heredoc_lines_; }

 private:
  bool expect_heredoc_word_ = false;
  bool heredoc_strip_ = false;
};

bool is_shell_name(std::string_view s);

}  // namespace hn::compat::translate
