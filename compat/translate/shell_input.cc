// Follows a shell script the way the shell would, as far as environment
// settings go: which variables end up exported, with which value on which
// path, and which commands get settings of their own (shell_input.h).
#include "compat/translate/shell_input.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/translate/k8s_input.h"
#include "compat/translate/launcher_options.h"
#include "compat/translate/shell_lexer.h"

namespace hn::compat::translate {

namespace {

// Commands whose words are read, never set (echo "NCCL_DEBUG=$NCCL_DEBUG").
const std::set<std::string> kReadOnlyCommands = {"echo",  "printf", "[",   "[[", "test",
                                                 "alias", "logger", "tee", ":"};
const std::set<std::string> kOptionBuiltins = {"export", "declare", "typeset", "readonly", "local"};

struct Alt {
  std::string value, raw;
  int line = 0;
  bool dynamic = false;
  std::string condition;
  bool conditional_site = false;  // assigned inside a branch
  bool env_default = false;       // ${NAME:-v} / ${NAME:=v}: the environment's value wins
};

struct Var {
  std::vector<size_t> alts;  // indices into Extractor::alts_
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

std::string basename_of(const std::string& w) {
  size_t slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

class Extractor {
 public:
  Extractor(const std::string& text, const std::string& file, ShellMode mode, ShellLookup outer)
      : file_(file),
        mode_(mode),
        outer_(std::move(outer)),
        lexer_(text, file, [this](std::string_view n) { return lookup(std::string(n)); }) {}

  EnvInput run() {
    std::vector<ShellToken> words;
    bool skip_next_word = false;
    std::string prev_sep = "\n";
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
        skip_next_word = t.text.find_first_of("<>") != std::string::npos;
        continue;
      }
      if (mode_ == ShellMode::kEnvFile && t.kind != ShellToken::kEnd && t.text != "\n")
        throw InputError(file_, t.line, 0, "", "expected NAME=value, found '" + t.text + "'");
      separator(words, t, prev_sep);
      words.clear();
      skip_next_word = false;
      if (t.kind == ShellToken::kEnd) break;
      prev_sep = t.text;
    }
    return finish();
  }

 private:
  // ---- state -------------------------------------------------------------

  std::optional<ShellVar> lookup(const std::string& name) const {
    auto it = state_.find(name);
    if (it == state_.end() || (it->second.alts.empty() && !it->second.maybe_unset))
      return outer_ ? outer_(name) : std::nullopt;
    const Var& v = it->second;
    if (v.alts.size() == 1 && !v.maybe_unset) {
      const Alt& a = alts_[v.alts[0]];
      return ShellVar{a.value, a.dynamic};  // an environment default still expands to its value
    }
    return ShellVar{"$" + name, true};  // depends on a branch: not one value
  }

  bool in_conditional() const {
    return std::any_of(frames_.begin(), frames_.end(),
                       [](const Frame& f) { return f.conditional(); });
  }
  std::string condition() const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->conditional()) return it->condition;
    return "";
  }

  void assign(const std::string& name, const std::string& value, const std::string& raw, int line,
              bool dynamic, bool export_now, const ShellToken* from = nullptr,
              bool env_default = false) {
    Var& v = state_[name];
    const bool cond = in_conditional();
    if (from &&
        std::find(from->defaulted.begin(), from->defaulted.end(), name) != from->defaulted.end())
      env_default = true;  // export NAME=${NAME:-v}
    // NAME="${NAME:-}" after a branch that may have set it: both values stay possible.
    const bool self_ref =
        raw.find("$" + name) != std::string::npos || raw.find("${" + name) != std::string::npos;
    std::vector<size_t> keep;
    if (self_ref && !env_default && (v.alts.size() > 1 || (v.maybe_unset && !v.alts.empty())))
      keep = v.alts;
    // An unconditional assignment replaces a value the job would otherwise
    // have seen: that earlier setting is reported as overridden.
    if (!cond && keep.empty() && v.exported && v.alts.size() == 1 && !v.maybe_unset &&
        !alts_[v.alts[0]].conditional_site && !alts_[v.alts[0]].env_default)
      overridden_.push_back(to_entry(name, alts_[v.alts[0]]));
    std::string condition_text = condition();
    if (env_default) condition_text = "unless the environment already sets " + name;
    alts_.push_back(
        Alt{value, raw, line, dynamic, condition_text, cond || !keep.empty(), env_default});
    keep.push_back(alts_.size() - 1);
    v.alts = keep;
    v.maybe_unset = false;
    if (export_now || allexport_ || mode_ == ShellMode::kEnvFile) v.exported = true;
  }

  EnvEntry to_entry(const std::string& name, const Alt& a) const {
    EnvEntry e;
    e.name = name;
    e.value = a.value;
    e.raw = a.raw;
    e.file = file_;
    e.line = a.line;
    e.dynamic = a.dynamic;
    return e;
  }

  State merge(const std::vector<State>& states) const {
    State out;
    std::set<std::string> names;
    for (const auto& s : states)
      for (const auto& [n, v] : s) names.insert(n);
    for (const auto& n : names) {
      Var m;
      for (const auto& s : states) {
        auto it = s.find(n);
        if (it == s.end()) {
          m.maybe_unset = true;
          continue;
        }
        for (size_t a : it->second.alts)
          if (std::find(m.alts.begin(), m.alts.end(), a) == m.alts.end()) m.alts.push_back(a);
        m.maybe_unset = m.maybe_unset || it->second.maybe_unset || it->second.alts.empty();
        m.exported = m.exported || it->second.exported;
        m.passed = m.passed || it->second.passed;
      }
      std::sort(m.alts.begin(), m.alts.end());
      out[n] = std::move(m);
    }
    return out;
  }

  // ---- control flow ------------------------------------------------------

  void push(Frame::Kind kind, const std::string& cond) {
    Frame f;
    f.kind = kind;
    f.pre = state_;
    f.condition = cond;
    frames_.push_back(std::move(f));
  }
  Frame* top(Frame::Kind kind) {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->kind == kind) return &*it;
    return nullptr;
  }
  // Closes the innermost frame of `kind` (and anything left open inside it).
  void close(Frame::Kind kind) {
    if (!top(kind)) return;
    while (!frames_.empty()) {
      Frame f = std::move(frames_.back());
      frames_.pop_back();
      if (f.kind == Frame::kGroup) {
        if (kind == Frame::kGroup) return;
        continue;
      }
      std::vector<State> states = std::move(f.done);
      if (f.in_branch || (f.kind != Frame::kIf && f.kind != Frame::kCase)) states.push_back(state_);
      bool exhaustive =
          (f.kind == Frame::kIf && f.has_else) || (f.kind == Frame::kCase && f.case_default);
      if (!exhaustive) states.push_back(f.pre);
      state_ = merge(states);
      if (f.kind == kind) return;
    }
  }
  void branch_end(Frame& f) {
    if (f.in_branch) f.done.push_back(state_);
    state_ = f.pre;
    f.in_branch = false;
  }

  // Returns true when the word was a keyword that opens or closes a branch.
  bool keyword(const std::vector<ShellToken>& words, size_t& i) {
    const ShellToken& w = words[i];
    if (w.assign_name || w.raw != w.text) return false;
    const std::string& k = w.text;
    const std::string at = " at line " + std::to_string(w.line);
    if (k == "if") {
      push(Frame::kIf, "if" + at);
    } else if (k == "then" || k == "elif" || k == "else") {
      Frame* f = top(Frame::kIf);
      if (!f) return ++i, true;
      if (k != "then") branch_end(*f);
      if (k == "else") f->has_else = true;
      if (k == "elif") f->condition = "elif" + at;
      if (k == "else") f->condition = "else" + at;
      f->in_branch = k != "elif";
    } else if (k == "fi") {
      close(Frame::kIf);
    } else if (k == "esac") {
      if (Frame* f = top(Frame::kCase); f && !f->case_pattern) branch_end(*f);
      close(Frame::kCase);
    } else if (k == "do") {
      push(Frame::kLoop, "loop" + at);
    } else if (k == "done") {
      close(Frame::kLoop);
    } else if (k == "{") {
      push(pending_function_.empty() ? Frame::kGroup : Frame::kFunc,
           "function " + pending_function_ + at);
      pending_function_.clear();
    } else if (k == "}") {
      if (!frames_.empty()) close(frames_.back().kind);
    } else if (k == "function" && i + 1 < words.size()) {
      pending_function_ = words[i + 1].text;
      size_t p = pending_function_.find('(');
      if (p != std::string::npos) pending_function_.resize(p);
      ++i;
    } else if (k == "for" || k == "select") {
      i = words.size();  // the loop variable is the shell's, not the job's
      return true;
    } else if (k == "!" || k == "time" || k == "while" || k == "until") {
    } else {
      return false;
    }
    ++i;
    return true;
  }

  void separator(std::vector<ShellToken>& words, const ShellToken& sep, const std::string& prev) {
    // "case WORD in" opens a case; what follows "in" on the same line is a pattern.
    if (mode_ == ShellMode::kScript && !(top(Frame::kCase) && top(Frame::kCase)->case_pattern)) {
      size_t i = 0;
      while (i < words.size() && words[i].raw != "case" && keyword(words, i)) {
      }
      if (i < words.size() && words[i].raw == "case" && words[i].text == "case") {
        size_t in = i + 1;
        while (in < words.size() && words[in].raw != "in") ++in;
        push(Frame::kCase, "case at line " + std::to_string(words[i].line));
        words.erase(words.begin(),
                    words.begin() + static_cast<long>(std::min(in + 1, words.size())));
      } else if (i > 0) {
        words.erase(words.begin(), words.begin() + static_cast<long>(i));
      }
    }
    Frame* c = frames_.empty() || frames_.back().kind != Frame::kCase ? nullptr : &frames_.back();
    if (c && c->case_pattern) {
      if (!words.empty() && words[0].text == "esac" && words[0].raw == "esac") {
        close(Frame::kCase);
        words.erase(words.begin());
        if (!words.empty()) command(words, prev);
        return;
      }
      if (sep.text == ")") {
        for (const auto& w : words)
          if (w.text == "*") c->case_default = true;
        std::string pattern;
        for (const auto& w : words) pattern += (pattern.empty() ? "" : "|") + w.raw;
        c->condition = "case '" + pattern + ")' at line " + std::to_string(sep.line);
        c->case_pattern = false;
        c->in_branch = true;
      }
      return;  // pattern words, '(' and '|' between patterns
    }
    if (sep.text == "(" && words.size() == 1 && !words[0].assign_name) {
      pending_function_ = words[0].text;  // name() { ... }
      return;
    }
    if (sep.text == "(" && words.empty()) {
      push(Frame::kGroup, "");
      return;
    }
    if (!words.empty()) command(words, prev);
    if (sep.text == ")" && !frames_.empty() && frames_.back().kind == Frame::kGroup)
      close(Frame::kGroup);
    if (c && (sep.text == ";;" || sep.text == ";&" || sep.text == ";;&")) {
      branch_end(*c);
      c->case_pattern = true;
    }
  }

  // ---- commands ----------------------------------------------------------

  void command(const std::vector<ShellToken>& words, const std::string& prev_sep) {
    size_t i = 0;
    if (mode_ == ShellMode::kScript)
      while (i < words.size() && keyword(words, i)) {
      }
    if (i >= words.size()) return;
    const bool and_or = mode_ == ShellMode::kScript && (prev_sep == "&&" || prev_sep == "||");
    if (and_or)
      push(Frame::kAndOr, "after " + prev_sep + " at line " + std::to_string(words[i].line));
    simple_command(words, i);
    if (and_or) close(Frame::kAndOr);
  }

  void side_effects(const ShellToken& w) {
    for (const auto& [name, value] : w.default_assignments)
      if (!state_.count(name) || state_[name].alts.empty()) {
        assign(name, value, "${" + name + ":=" + value + "}", w.line, false, false, nullptr, true);
        // `: "${NCCL_IB_TIMEOUT:=22}"` states the job's default for a
        // library variable; it is read as a setting of the job.
        if (is_comm_variable(name)) state_[name].exported = true;
      }
    for (const auto& sub : w.substitutions)
      nested(sub.body, sub.line, w.line, w.end_line, "$(...)");
  }

  void simple_command(const std::vector<ShellToken>& words, size_t i) {
    for (size_t k = i; k < words.size(); ++k) side_effects(words[k]);
    size_t first = i;
    while (i < words.size() && words[i].assign_name) ++i;
    if (i == words.size()) {  // plain assignments: shell variables (exported under set -a)
      for (size_t k = first; k < i; ++k)
        assign(*words[k].assign_name, words[k].assign_value, words[k].assign_raw, words[k].line,
               words[k].assign_dynamic, false, &words[k]);
      return;
    }
    const ShellToken& cmd_word = words[i];
    const std::string cmd = basename_of(cmd_word.text);
    if (mode_ == ShellMode::kEnvFile && cmd != "export")
      throw InputError(file_, cmd_word.line, 0, "",
                       "expected NAME=value or export NAME=value, found '" + cmd_word.raw + "'");
    // NAME=value cmd: the command's own environment.
    for (size_t k = first; k < i; ++k) scoped(words[k], "prefix of " + cmd, cmd_word.line);
    if (kOptionBuiltins.count(cmd)) return builtin(words, i + 1, cmd);
    if (cmd == "set") {
      for (size_t k = i + 1; k < words.size(); ++k) {
        const std::string& o = words[k].text;
        if (o == "-a" || (o == "allexport" && k > 0 && words[k - 1].text == "-o"))
          allexport_ = true;
        if (o == "+a" || (o == "allexport" && k > 0 && words[k - 1].text == "+o"))
          allexport_ = false;
      }
      return;
    }
    if (cmd == "unset") {
      for (size_t k = i + 1; k < words.size(); ++k) state_.erase(words[k].text);
      return;
    }
    if (kReadOnlyCommands.count(cmd) || cmd == "]]") {
      for (size_t k = i; k < words.size(); ++k) read_only(words[k]);
      return;
    }
    launcher(words, i);
  }

  void read_only(const ShellToken& w) {
    for (int l = w.line; l <= std::max(w.line, w.end_line); ++l) read_only_lines_.insert(l);
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
      if (exports) check_identifier(w, cmd);
      if (w.assign_name) {
        assign(*w.assign_name, w.assign_value, w.assign_raw, w.line, w.assign_dynamic, exports, &w);
      } else if (exports && is_shell_name(w.text)) {
        if (auto it = state_.find(w.text); it != state_.end()) it->second.exported = true;
      }
    }
  }

  // "export 1X=2": bash refuses it ("not a valid identifier"); so do we.
  void check_identifier(const ShellToken& w, const std::string& cmd) {
    if (w.assign_name || w.text.empty() || w.text[0] == '-') return;
    // export "$key"="$value": the name is only known at run time.
    if (w.dynamic || w.raw.find('$') != std::string::npos) return;
    size_t eq = w.text.find('=');
    std::string name = w.text.substr(0, eq);
    if (eq != std::string::npos || !is_shell_name(name))
      throw InputError(file_, w.line, 0, name,
                       "'" + w.raw + "' after " + cmd + " is not NAME=value with a valid name");
  }

  // A setting given to one command.
  void scoped(const ShellToken& w, const std::string& how, int cmd_line) {
    std::string name = *w.assign_name;
    for (const char* p : {"SINGULARITYENV_", "APPTAINERENV_"})
      if (name.rfind(p, 0) == 0 && name.size() > std::string(p).size())
        name = name.substr(std::string(p).size());
    scoped_value(name, w.assign_value, w.assign_raw, w.line, w.assign_dynamic, how, cmd_line);
  }
  void scoped_value(const std::string& name, const std::string& value, const std::string& raw,
                    int line, bool dynamic, const std::string& how, int cmd_line) {
    EnvEntry e;
    e.name = name;
    e.value = value;
    e.raw = raw;
    e.file = file_;
    e.line = line;
    e.dynamic = dynamic;
    e.context = how;
    e.scope = how + " at line " + std::to_string(cmd_line);
    scoped_.push_back(std::move(e));
  }
  // A name handed on from the script's environment (-x NAME, --export=NAME).
  void pass_on(const std::string& name, int line, const std::string& how, int cmd_line) {
    auto it = state_.find(name);
    if (it == state_.end() || it->second.alts.empty()) {
      if (is_comm_variable(name))
        notes_.push_back(InputNote{InputNote::kNotFollowed, name, file_, line, how + " " + name,
                                   "handed on from the environment the script runs in; its "
                                   "value is not in this file"});
      return;
    }
    Var& v = it->second;
    v.passed = true;
    handed_on_.insert({name, line});
    if (v.alts.size() == 1 && !v.maybe_unset) {
      const Alt& a = alts_[v.alts[0]];
      scoped_value(name, a.value, a.raw, line, a.dynamic, how, cmd_line);
      return;
    }
    EnvEntry e = conditional_entry(name, v);
    e.line = line;
    e.context = how;
    e.scope = how + " at line " + std::to_string(cmd_line);
    scoped_.push_back(std::move(e));
  }

  void launcher(const std::vector<ShellToken>& words, size_t i) {
    LauncherScan scan;
    const int cmd_line = words[i].line;
    for (size_t k = i; k < words.size(); ++k) {
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
          scoped(words[s.word], s.how, cmd_line);
      }
    }
  }

  // A script inside this one (bash -c '...', $(...)): its settings are
  // settings of that command; its notes are ours, at our lines.
  void nested(const std::string& body, int base_line, int lo, int hi, const std::string& how) {
    if (depth_ >= 8) return;
    Extractor sub(body, file_, ShellMode::kScript,
                  [this](std::string_view n) { return lookup(std::string(n)); });
    sub.depth_ = depth_ + 1;
    EnvInput in = sub.run_nested();
    const int shift = base_line - 1;
    for (auto& e : in.entries) {
      e.line += shift;
      for (auto& a : e.alternatives) a.line += shift;
      if (e.scope.empty()) {
        e.context = how;
        e.scope = how + " at line " + std::to_string(base_line);
      }
      ranges_.push_back({e.name, lo, std::max(hi, e.line)});
      scoped_.push_back(std::move(e));
    }
    for (auto& n : in.notes) {
      n.line += shift;
      ranges_.push_back({n.name, lo, std::max(hi, n.line)});
      notes_.push_back(std::move(n));
    }
    for (int l : sub.read_only_lines_) read_only_lines_.insert(l + shift);
  }

  EnvInput run_nested() {
    nested_ = true;
    return run();
  }

  EnvEntry conditional_entry(const std::string& name, const Var& v) const {
    EnvEntry e = to_entry(name, alts_[v.alts.front()]);
    e.conditional = true;
    e.maybe_unset = v.maybe_unset;
    bool all_dynamic = true;
    for (size_t a : v.alts) {
      const Alt& alt = alts_[a];
      e.alternatives.push_back(
          EnvAlternative{alt.value, file_, alt.line, alt.dynamic,
                         alt.condition.empty() ? "before the branch" : alt.condition});
      all_dynamic = all_dynamic && alt.dynamic;
    }
    e.dynamic = all_dynamic;
    return e;
  }

  // ---- the result ----------------------------------------------------------

  EnvInput finish() {
    while (!frames_.empty()) close(frames_.back().kind);  // unterminated: the shell would fail
    EnvInput out;
    std::vector<EnvEntry> entries = overridden_;
    for (const auto& [name, v] : state_) {
      if (v.alts.empty()) continue;
      if (!v.exported) {
        if (is_comm_variable(name) && !v.passed)
          for (size_t a : v.alts)
            notes_.push_back(InputNote{InputNote::kNotExported, name, file_, alts_[a].line,
                                       name + "=" + alts_[a].value,
                                       "a shell variable: the script never exports it nor "
                                       "hands it to a command, so the job does not see it"});
        continue;
      }
      if (v.alts.size() == 1 && !v.maybe_unset && !alts_[v.alts[0]].env_default)
        entries.push_back(to_entry(name, alts_[v.alts[0]]));
      else
        entries.push_back(conditional_entry(name, v));
    }
    entries.insert(entries.end(), scoped_.begin(), scoped_.end());
    std::stable_sort(entries.begin(), entries.end(),
                     [](const EnvEntry& a, const EnvEntry& b) { return a.line < b.line; });
    out.entries = std::move(entries);
    out.notes = std::move(notes_);
    if (!nested_ && mode_ == ShellMode::kScript) {
      sbatch_exports(out);
      heredoc_manifests(out);
      safety_net(out);
    }
    return out;
  }

  // "#SBATCH --export=ALL,NCCL_DEBUG=INFO" is a comment to the shell but sets
  // the batch job's environment to Slurm: settings of the whole job, before
  // anything the script itself exports.
  void sbatch_exports(EnvInput& out) {
    size_t pos = 0;
    int line = 0;
    std::vector<EnvEntry> found;
    while (pos <= text_copy_.size()) {
      ++line;
      size_t end = text_copy_.find('\n', pos);
      std::string l = text_copy_.substr(pos, end == std::string::npos ? end : end - pos);
      pos = end == std::string::npos ? text_copy_.size() + 1 : end + 1;
      size_t a = l.find_first_not_of(" \t");
      if (a == std::string::npos || l.compare(a, 7, "#SBATCH") != 0 ||
          l.find("--export") == std::string::npos)
        continue;
      std::vector<ShellToken> words;
      try {
        const std::string directive = "sbatch " + l.substr(a + 7);  // the lexer keeps a view
        ShellLexer lx(directive, file_, nullptr);
        for (ShellToken t = lx.next(); t.kind != ShellToken::kEnd; t = lx.next())
          if (t.kind == ShellToken::kWord) words.push_back(t);
      } catch (const InputError&) {
        continue;  // an unterminated quote in a directive: the net reports it
      }
      LauncherScan scan;
      for (size_t k = 0; k < words.size(); ++k)
        for (const auto& st : scan.word(words, k)) {
          if (st.kind != LauncherSetting::kAssign) continue;
          EnvEntry e;
          e.name = st.name;
          e.value = e.raw = st.value;
          e.file = file_;
          e.line = line;
          e.context = "#SBATCH --export";
          found.push_back(std::move(e));
        }
    }
    out.entries.insert(out.entries.begin(), found.begin(), found.end());
  }

  // A here-document that is a manifest (kubectl apply -f - <<EOF) is read as
  // one; its settings are those of the workload it describes.
  void heredoc_manifests(EnvInput& out) {
    const auto& lines = lexer_.heredoc_lines();
    for (size_t i = 0; i < lines.size();) {
      size_t j = i + 1;
      while (j < lines.size() && lines[j].first == lines[j - 1].first + 1) ++j;
      std::string body;
      for (size_t k = i; k < j; ++k) body += lines[k].second + "\n";
      const int first = lines[i].first;
      i = j;
      if (body.find("apiVersion:") == std::string::npos && body.find("kind:") == std::string::npos)
        continue;
      EnvInput m;
      try {
        m = read_manifest_text(body, file_);
      } catch (const InputError&) {
        continue;  // not YAML after all (a template): the net reports its settings
      }
      for (auto& e : m.entries) {
        e.line += first - 1;
        e.context = "here-document manifest" + (e.context.empty() ? "" : ", " + e.context);
        e.scope = "here-document at line " + std::to_string(first);
        out.entries.push_back(std::move(e));
      }
      for (auto& n : m.notes) {
        n.line += first - 1;
        out.notes.push_back(std::move(n));
      }
    }
  }

  // Every line that plainly sets a library variable must be accounted for.
  void safety_net(EnvInput& out) {
    std::set<std::pair<std::string, int>> covered;
    for (const auto& e : out.entries) {
      covered.insert({e.name, e.line});
      for (const auto& a : e.alternatives) covered.insert({e.name, a.line});
    }
    for (const auto& n : out.notes) covered.insert({n.name, n.line});
    covered.insert(handed_on_.begin(), handed_on_.end());
    std::set<int> heredoc;
    for (const auto& [l, t] : lexer_.heredoc_lines()) heredoc.insert(l);
    // Here-document bodies are often manifests (kubectl apply -f - <<EOF).
    std::vector<std::pair<int, std::string>> mentions = comm_mentions(text_copy_, false);
    for (const auto& [l, t] : lexer_.heredoc_lines())
      for (const auto& m : comm_mentions(t, true, l))
        if (std::find(mentions.begin(), mentions.end(), m) == mentions.end()) mentions.push_back(m);
    for (const auto& [line, name] : mentions) {
      if (covered.count({name, line}) || read_only_lines_.count(line)) continue;
      if (!heredoc.count(line) && in_message(line_text(line), name)) continue;
      bool in_range =
          std::any_of(ranges_.begin(), ranges_.end(), [&name = name, line = line](const Range& r) {
            return r.name == name && line >= r.lo && line <= r.hi;
          });
      if (in_range) continue;
      out.notes.push_back(InputNote{
          heredoc.count(line) ? InputNote::kNotFollowed : InputNote::kUnread, name, file_, line,
          line_text(line),
          heredoc.count(line) ? "inside a here-document: written to a file or fed to a command "
                                "that this reader does not follow"
                              : "sets " + name + " in a form this reader does not follow"});
    }
  }

  // "Running tests (NCCL_ISOLATION_TESTS=1)": text inside a quoted message
  // (an argument with spaces and no shell command in it) mentions a setting
  // without making one.
  static bool in_message(const std::string& l, const std::string& name) {
    size_t at = l.find(name + "=");
    if (at == std::string::npos) return false;
    char q = 0;
    size_t open = 0;
    for (size_t i = 0; i < at; ++i)
      if ((l[i] == '"' || l[i] == '\'') && (i == 0 || l[i - 1] != '\\')) {
        if (!q) {
          q = l[i];
          open = i;
        } else if (q == l[i]) {
          q = 0;
        }
      }
    if (!q) return false;
    size_t close = l.find(q, at);
    std::string inside =
        l.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
    for (const char* shell : {"export ", "-x ", "env ", ";", "&&", "--export", "-e "})
      if (inside.find(shell) != std::string::npos) return false;
    return inside.find(' ') != std::string::npos && inside.compare(0, name.size(), name) != 0;
  }

  std::string line_text(int line) const {
    size_t pos = 0;
    for (int l = 1; l < line && pos != std::string::npos; ++l) {
      pos = text_copy_.find('\n', pos);
      if (pos != std::string::npos) ++pos;
    }
    if (pos == std::string::npos) return "";
    size_t end = text_copy_.find('\n', pos);
    std::string s = text_copy_.substr(pos, end == std::string::npos ? end : end - pos);
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r\\");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
  }

  struct Range {
    std::string name;
    int lo, hi;
  };

  std::string file_;
  ShellMode mode_;
  ShellLookup outer_;

 public:
  std::string text_copy_;

 private:
  ShellLexer lexer_;
  State state_;
  std::vector<Alt> alts_;
  std::vector<Frame> frames_;
  std::vector<EnvEntry> overridden_, scoped_;
  std::vector<InputNote> notes_;
  std::set<int> read_only_lines_;
  std::set<std::pair<std::string, int>> handed_on_;  // -x NAME of a variable already exported
  std::vector<Range> ranges_;
  std::string pending_function_;
  bool allexport_ = false;
  bool nested_ = false;
  int depth_ = 0;
};

}  // namespace

bool is_comm_variable(std::string_view n) {
  for (const char* p :
       {"NCCL_", "RCCL_", "HCCL_", "TORCH_NCCL_", "TORCH_HCCL_", "GLOO_", "OMPI_MCA_", "CCL_"})
    if (n.substr(0, std::string_view(p).size()) == p) return true;
  return false;
}

EnvInput read_shell_text(const std::string& text, const std::string& file, ShellMode mode) {
  reject_nul_bytes(text, file);
  Extractor x(text, file, mode, nullptr);
  x.text_copy_ = text;
  EnvInput in = x.run();
  if (mode == ShellMode::kScript) in.flags = framework_flags(text, file);
  return in;
}

std::vector<EnvEntry> parse_shell_text(const std::string& text, const std::string& file,
                                       ShellMode mode) {
  return read_shell_text(text, file, mode).entries;
}

}  // namespace hn::compat::translate
