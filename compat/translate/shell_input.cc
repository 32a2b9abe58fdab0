#include "compat/translate/shell_input.h"

#include <map>
#include <set>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/translate/shell_lexer.h"

namespace hn::compat::translate {

namespace {

// Words that may come before a command without being one ("then export X=1").
const std::set<std::string> kLeadingKeywords = {"if", "then", "else",  "elif",  "fi",
                                                "do", "done", "while", "until", "{",
                                                "}",  "!",    "time",  "esac"};
// Commands whose remaining words are never environment assignments.
const std::set<std::string> kSkipCommands = {"for",  "case", "select", "function", "[[",   "[",
                                             "test", "echo", "printf", "alias",    "unset"};

class Extractor {
 public:
  Extractor(const std::string& text, const std::string& file, ShellMode mode)
      : file_(file), mode_(mode), lexer_(text, file, [this](std::string_view name) {
          auto it = vars_.find(std::string(name));
          return it == vars_.end() ? std::nullopt : std::optional<ShellVar>(it->second);
        }) {}

  std::vector<EnvEntry> run() {
    std::vector<ShellToken> words;
    bool skip_next_word = false;
    for (;;) {
      ShellToken t = lexer_.next();
      if (t.kind == ShellToken::kWord) {
        if (skip_next_word) {
          skip_next_word = false;
          continue;
        }
        words.push_back(std::move(t));
        continue;
      }
      if (t.kind == ShellToken::kRedirect) {
        if (mode_ == ShellMode::kEnvFile)
          throw InputError(file_, t.line, 0, "", "expected NAME=value, found '" + t.text + "'");
        // A bare fd number ("2" of 2>&1) is itself marked as a redirect; the
        // operator's target word is dropped, except after "&>"-style fd dups.
        skip_next_word = t.text.find_first_of("<>") != std::string::npos;
        continue;
      }
      command(words);
      words.clear();
      skip_next_word = false;
      if (t.kind == ShellToken::kEnd) break;
      if (mode_ == ShellMode::kEnvFile && t.text != "\n")
        throw InputError(file_, t.line, 0, "", "expected NAME=value, found '" + t.text + "'");
    }
    return std::move(out_);
  }

 private:
  void record(const ShellToken& w) {
    EnvEntry e;
    e.name = *w.assign_name;
    e.value = w.assign_value;
    e.raw = w.assign_raw;
    e.file = file_;
    e.line = w.line;
    e.dynamic = w.assign_dynamic;
    vars_[e.name] = ShellVar{e.value, e.dynamic};
    out_.push_back(std::move(e));
  }
  void set_shell_var(const ShellToken& w) {
    vars_[*w.assign_name] = ShellVar{w.assign_value, w.assign_dynamic};
  }

  // "export 1X=2": bash refuses it ("not a valid identifier"); so do we.
  void check_identifier(const ShellToken& w, const std::string& cmd) {
    if (w.assign_name || w.text.empty() || w.text[0] == '-') return;
    size_t eq = w.text.find('=');
    std::string name = w.text.substr(0, eq);
    if (eq != std::string::npos || !is_shell_name(name))
      throw InputError(file_, w.line, 0, name,
                       "'" + w.raw + "' after " + cmd + " is not NAME=value with a valid name");
  }

  void command(const std::vector<ShellToken>& words) {
    size_t i = 0;
    if (mode_ == ShellMode::kScript)
      while (i < words.size() && !words[i].assign_name && kLeadingKeywords.count(words[i].text))
        ++i;
    size_t first_assignment = i;
    while (i < words.size() && words[i].assign_name) ++i;
    // Prefix and plain assignments: the program (or the shell) sees them.
    for (size_t k = first_assignment; k < i; ++k) record(words[k]);
    if (i == words.size()) return;
    const std::string& cmd = words[i].text;
    bool is_export = cmd == "export";
    if (mode_ == ShellMode::kEnvFile && !is_export)
      throw InputError(file_, words[i].line, 0, "",
                       "expected NAME=value or export NAME=value, found '" + words[i].raw + "'");
    if (is_export || cmd == "declare" || cmd == "typeset" || cmd == "readonly" || cmd == "local") {
      builtin(words, i + 1, cmd);
    } else if (cmd == "env") {
      env_command(words, i + 1);
    } else if (kSkipCommands.count(cmd)) {
      return;
    }
  }

  void builtin(const std::vector<ShellToken>& words, size_t i, const std::string& cmd) {
    bool exports = cmd == "export";
    for (; i < words.size() && !words[i].assign_name && !words[i].text.empty() &&
           words[i].text[0] == '-';
         ++i) {
      const std::string& opt = words[i].text;
      if (cmd == "export" && opt.find('n') != std::string::npos) return;  // export -n: un-export
      if (cmd != "export" && opt.find('x') != std::string::npos) exports = true;
      if (opt == "--") {
        ++i;
        break;
      }
    }
    for (; i < words.size(); ++i) {
      const ShellToken& w = words[i];
      if (cmd == "export" || exports) check_identifier(w, cmd);
      if (!w.assign_name) continue;
      if (exports)
        record(w);
      else
        set_shell_var(w);
    }
  }

  void env_command(const std::vector<ShellToken>& words, size_t i) {
    while (i < words.size() && !words[i].assign_name && !words[i].text.empty() &&
           words[i].text[0] == '-') {
      bool takes_arg = words[i].text == "-u" || words[i].text == "--unset" ||
                       words[i].text == "-C" || words[i].text == "--chdir";
      i += takes_arg ? 2 : 1;
    }
    for (; i < words.size() && words[i].assign_name; ++i) record(words[i]);
  }

  std::string file_;
  ShellMode mode_;
  std::map<std::string, ShellVar> vars_;
  ShellLexer lexer_;
  std::vector<EnvEntry> out_;
};

}  // namespace

std::vector<EnvEntry> parse_shell_text(const std::string& text, const std::string& file,
                                       ShellMode mode) {
  reject_nul_bytes(text, file);
  return Extractor(text, file, mode).run();
}

}  // namespace hn::compat::translate
