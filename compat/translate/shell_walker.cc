// Follows a shell script the way the shell would, as far as environment
// settings go: which variables end up exported, with which value on which
// path (shell_walker.h).
#include "compat/translate/shell_walker.h"

#include <algorithm>

#include "compat/input_error.h"

namespace hn::compat::translate {

namespace {

// Commands whose words are read, never set (echo "NCCL_DEBUG=$NCCL_DEBUG").
const std::set<std::string> kReadOnlyCommands = {"echo",  "printf", "[",   "[[", "test",
                                                 "alias", "logger", "tee", ":"};
const std::set<std::string> kOptionBuiltins = {"export", "declare", "typeset", "readonly", "local"};

std::string basename_of(const std::string& w) {
  size_t slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

}  // namespace

ShellWalker::ShellWalker(const std::string& text, const std::string& file, ShellMode mode,
                         ShellLookup outer, ShellBudget* budget, int depth)
    : file_(file),
      mode_(mode),
      outer_(std::move(outer)),
      budget_(budget ? budget : &own_budget_.emplace(file)),
      lexer_(
          text, file, [this](std::string_view n) { return lookup(std::string(n)); }, budget_),
      depth_(depth),
      launch_(file, *this, record_) {}

std::optional<EnvEntry> ShellWalker::hand_on(const std::string& name) {
  auto it = state_.find(name);
  if (it == state_.end() || it->second.alts.empty()) return std::nullopt;
  Var& v = it->second;
  v.passed = true;
  if (v.alts.size() == 1 && !v.maybe_unset) return to_entry(name, alts_[v.alts[0]]);
  return conditional_entry(name, v);
}

std::optional<NestedRun> ShellWalker::run_nested(const std::string& body) {
  if (depth_ >= 8) return std::nullopt;
  // The body is read again: its bytes count as expansion, so a body that
  // repeats itself through variables cannot multiply the work.
  budget_->expansion(body.size(), lexer_line());
  ShellWalker sub(
      body, file_, ShellMode::kScript,
      [this](std::string_view n) { return lookup(std::string(n)); }, budget_, depth_ + 1);
  NestedRun out;
  out.in = sub.run();
  out.read_only_lines = sub.record_.read_only_lines;
  return out;
}

EnvInput ShellWalker::run() {
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
      budget_->words_in_command(words.size() + 1, t.line);
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

std::optional<ShellVar> ShellWalker::lookup(const std::string& name) const {
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

bool ShellWalker::in_conditional() const {
  return std::any_of(frames_.begin(), frames_.end(),
                     [](const Frame& f) { return f.conditional(); });
}
std::string ShellWalker::condition() const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (it->conditional()) return it->condition;
  return "";
}

void ShellWalker::assign(const std::string& name, const std::string& value, const std::string& raw,
                         int line, bool dynamic, bool export_now, const ShellToken* from,
                         bool env_default) {
  budget_->assignment(line);
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

EnvEntry ShellWalker::to_entry(const std::string& name, const Alt& a) const {
  EnvEntry e;
  e.name = name;
  e.value = a.value;
  e.raw = a.raw;
  e.file = file_;
  e.line = a.line;
  e.dynamic = a.dynamic;
  return e;
}

ShellWalker::State ShellWalker::merge(const std::vector<State>& states) const {
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
      m.alts.insert(m.alts.end(), it->second.alts.begin(), it->second.alts.end());
      m.maybe_unset = m.maybe_unset || it->second.maybe_unset || it->second.alts.empty();
      m.exported = m.exported || it->second.exported;
      m.passed = m.passed || it->second.passed;
    }
    std::sort(m.alts.begin(), m.alts.end());
    m.alts.erase(std::unique(m.alts.begin(), m.alts.end()), m.alts.end());
    out[n] = std::move(m);
  }
  return out;
}

size_t ShellWalker::state_cost(const State& s) {
  size_t units = s.size();
  for (const auto& [n, v] : s) units += v.alts.size();
  return units;
}

void ShellWalker::push(Frame::Kind kind, const std::string& cond) {
  budget_->nesting(frames_.size(), lexer_line());
  budget_->work(state_cost(state_) + 1, lexer_line());
  Frame f;
  f.kind = kind;
  f.pre = state_;
  f.condition = cond;
  frames_.push_back(std::move(f));
}
ShellWalker::Frame* ShellWalker::top(Frame::Kind kind) {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (it->kind == kind) return &*it;
  return nullptr;
}
// Closes the innermost frame of `kind` (and anything left open inside it).
void ShellWalker::close(Frame::Kind kind) {
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
    size_t units = 1;
    for (const auto& s : states) units += state_cost(s);
    budget_->work(units, lexer_line());
    state_ = merge(states);
    if (f.kind == kind) return;
  }
}
void ShellWalker::branch_end(Frame& f) {
  budget_->work(state_cost(state_) + state_cost(f.pre) + 1, lexer_line());
  if (f.in_branch) f.done.push_back(state_);
  state_ = f.pre;
  f.in_branch = false;
}

// Returns true when the word was a keyword that opens or closes a branch.
bool ShellWalker::keyword(const std::vector<ShellToken>& words, size_t& i) {
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

void ShellWalker::separator(std::vector<ShellToken>& words, const ShellToken& sep,
                            const std::string& prev) {
  // "case WORD in" opens a case; what follows "in" on the same line is a pattern.
  if (mode_ == ShellMode::kScript && !(top(Frame::kCase) && top(Frame::kCase)->case_pattern)) {
    size_t i = 0;
    while (i < words.size() && words[i].raw != "case" && keyword(words, i)) {
    }
    if (i < words.size() && words[i].raw == "case" && words[i].text == "case") {
      size_t in = i + 1;
      while (in < words.size() && words[in].raw != "in") ++in;
      push(Frame::kCase, "case at line " + std::to_string(words[i].line));
      words.erase(words.begin(), words.begin() + static_cast<long>(std::min(in + 1, words.size())));
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

void ShellWalker::command(const std::vector<ShellToken>& words, const std::string& prev_sep) {
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

void ShellWalker::side_effects(const ShellToken& w) {
  for (const auto& [name, value] : w.default_assignments)
    if (!state_.count(name) || state_[name].alts.empty()) {
      assign(name, value, "${" + name + ":=" + value + "}", w.line, false, false, nullptr, true);
      // `: "${NCCL_IB_TIMEOUT:=22}"` states the job's default for a
      // library variable; it is read as a setting of the job.
      if (is_comm_variable(name)) state_[name].exported = true;
    }
  for (const auto& sub : w.substitutions)
    launch_.nested(sub.body, sub.line, w.line, w.end_line, "$(...)");
}

void ShellWalker::simple_command(const std::vector<ShellToken>& words, size_t i) {
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
  for (size_t k = first; k < i; ++k) launch_.prefix(words[k], "prefix of " + cmd, cmd_word.line);
  if (kOptionBuiltins.count(cmd)) return builtin(words, i + 1, cmd);
  if (cmd == "set") {
    for (size_t k = i + 1; k < words.size(); ++k) {
      const std::string& o = words[k].text;
      if (o == "-a" || (o == "allexport" && k > 0 && words[k - 1].text == "-o")) allexport_ = true;
      if (o == "+a" || (o == "allexport" && k > 0 && words[k - 1].text == "+o")) allexport_ = false;
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
  launch_.command(words, i);
}

void ShellWalker::read_only(const ShellToken& w) {
  for (int l = w.line; l <= std::max(w.line, w.end_line); ++l) record_.read_only_lines.insert(l);
}

void ShellWalker::builtin(const std::vector<ShellToken>& words, size_t i, const std::string& cmd) {
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
void ShellWalker::check_identifier(const ShellToken& w, const std::string& cmd) {
  if (w.assign_name || w.text.empty() || w.text[0] == '-') return;
  // export "$key"="$value": the name is only known at run time.
  if (w.dynamic || w.raw.find('$') != std::string::npos) return;
  size_t eq = w.text.find('=');
  std::string name = w.text.substr(0, eq);
  if (eq != std::string::npos || !is_shell_name(name))
    throw InputError(file_, w.line, 0, name,
                     "'" + w.raw + "' after " + cmd + " is not NAME=value with a valid name");
}

EnvEntry ShellWalker::conditional_entry(const std::string& name, const Var& v) const {
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

EnvInput ShellWalker::finish() {
  while (!frames_.empty()) close(frames_.back().kind);  // unterminated: the shell would fail
  EnvInput out;
  std::vector<EnvEntry> entries = overridden_;
  for (const auto& [name, v] : state_) {
    if (v.alts.empty()) continue;
    if (!v.exported) {
      if (is_comm_variable(name) && !v.passed)
        for (size_t a : v.alts)
          record_.notes.push_back(InputNote{InputNote::kNotExported, name, file_, alts_[a].line,
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
  entries.insert(entries.end(), record_.scoped.begin(), record_.scoped.end());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const EnvEntry& a, const EnvEntry& b) { return a.line < b.line; });
  out.entries = std::move(entries);
  out.notes = record_.notes;
  return out;
}

}  // namespace hn::compat::translate
