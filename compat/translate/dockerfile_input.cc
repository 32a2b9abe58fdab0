#include "compat/translate/dockerfile_input.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "compat/input_error.h"
#include "compat/translate/nccl_conf_input.h"
#include "compat/translate/shell_budget.h"
#include "compat/translate/shell_input.h"
#include "compat/translate/shell_lexer.h"

namespace hn::compat::translate {

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// One instruction: its keyword, and its argument text line by line (a
// continuation keeps each physical line's own number).
struct Instruction {
  std::string keyword;
  std::vector<std::pair<int, std::string>> parts;
};

// Docker's parser: '\' at the end of a line continues the instruction;
// comment lines inside a continuation are dropped.
std::vector<Instruction> instructions(const std::string& text) {
  std::vector<Instruction> out;
  const std::vector<std::string> lines = text_lines(text);
  bool continuing = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    if (!l.empty() && l.back() == '\r') l.pop_back();
    const std::string t = trim(l);
    if (t.empty() || t[0] == '#') continue;  // also inside a continuation
    std::string body = l;
    bool more = false;
    std::size_t end = body.find_last_not_of(" \t");
    if (end != std::string::npos && body[end] == '\\') {
      more = true;
      body = body.substr(0, end);
    }
    const int line_no = static_cast<int>(i) + 1;
    if (!continuing) {
      std::string s = trim(body);
      std::size_t sp = s.find_first_of(" \t");
      Instruction ins;
      ins.keyword = upper(s.substr(0, sp));
      ins.parts.push_back({line_no, sp == std::string::npos ? "" : s.substr(sp + 1)});
      out.push_back(std::move(ins));
    } else {
      out.back().parts.push_back({line_no, body});
    }
    continuing = more;
  }
  return out;
}

struct Stage {
  std::string name;                 // "AS name", lower-cased as Docker does
  std::optional<std::size_t> base;  // an earlier stage it builds FROM
  int line = 0;
  std::vector<EnvEntry> env;
};

}  // namespace

bool names_dockerfile(const std::string& path) {
  std::size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string lower = base;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "dockerfile" || lower == "containerfile" || lower.rfind("dockerfile.", 0) == 0 ||
         lower.rfind("containerfile.", 0) == 0 ||
         (lower.size() > 11 && lower.substr(lower.size() - 11) == ".dockerfile");
}

EnvInput read_dockerfile_text(const std::string& text, const std::string& file) {
  EnvInput in;
  std::vector<Stage> stages(1);          // settings before any FROM (ARG) count as stage 0
  std::map<std::string, ShellVar> vars;  // ENV and ARG values for expansion
  std::set<int> run_lines;
  std::set<std::pair<std::string, int>> build_args;  // ARG NAME at its line
  // One budget for the whole file (shell_budget.h): expansion of earlier ENV
  // and ARG values across instructions cannot multiply past its limits.
  ShellBudget budget(file);
  auto lookup = [&vars](std::string_view n) -> std::optional<ShellVar> {
    auto it = vars.find(std::string(n));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  for (const Instruction& ins : instructions(text)) {
    if (ins.keyword == "FROM") {
      std::string args = trim(ins.parts.front().second);
      Stage s;
      s.line = ins.parts.front().first;
      std::string lower = args;
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::size_t as = lower.find(" as ");
      std::string image = trim(as == std::string::npos ? lower : lower.substr(0, as));
      if (image.rfind("--platform", 0) == 0) image = trim(image.substr(image.find(' ') + 1));
      if (as != std::string::npos) s.name = trim(lower.substr(as + 4));
      for (std::size_t k = 1; k < stages.size(); ++k)
        if (!stages[k].name.empty() && stages[k].name == image) s.base = k;
      // A new stage sees only its base's ENV (ARG values before FROM stay
      // for FROM lines only; later ARGs are declared again).
      vars.clear();
      for (std::optional<std::size_t> b = s.base; b; b = stages[*b].base)
        for (const auto& e : stages[*b].env)
          if (!vars.count(e.name)) vars[e.name] = ShellVar{e.value, e.dynamic};
      stages.push_back(std::move(s));
      continue;
    }
    if (ins.keyword == "RUN") {
      for (const auto& [l, t] : ins.parts) run_lines.insert(l);
      continue;
    }
    if (ins.keyword != "ENV" && ins.keyword != "ARG") continue;
    const bool env = ins.keyword == "ENV";
    // The legacy form: ENV KEY value with spaces (one key, no '=' in it).
    const std::string first = trim(ins.parts.front().second);
    const std::size_t sp = first.find_first_of(" \t"), eq = first.find('=');
    if (env && ins.parts.size() == 1 && sp != std::string::npos &&
        (eq == std::string::npos || eq > sp)) {
      EnvEntry e;
      e.name = first.substr(0, sp);
      e.raw = trim(first.substr(sp + 1));
      ShellLexer lex(e.raw, file, lookup, &budget);
      budget.assignment(ins.parts.front().first);
      std::string value;
      bool dynamic = false;
      for (ShellToken t = lex.next(); t.kind != ShellToken::kEnd; t = lex.next())
        if (t.kind == ShellToken::kWord) {
          value += (value.empty() ? "" : " ") + t.text;
          dynamic = dynamic || t.dynamic;
        }
      e.value = value;
      e.dynamic = dynamic;
      e.file = file;
      e.line = ins.parts.front().first;
      e.context = "Dockerfile ENV";
      vars[e.name] = ShellVar{e.value, e.dynamic};
      stages.back().env.push_back(std::move(e));
      continue;
    }
    for (const auto& [line_no, part] : ins.parts) {
      ShellLexer lex(part, file, lookup, &budget);
      for (ShellToken t = lex.next(); t.kind != ShellToken::kEnd; t = lex.next()) {
        if (t.kind != ShellToken::kWord) continue;
        if (!env)
          build_args.insert({t.assign_name ? *t.assign_name : t.text, line_no + t.line - 1});
        if (!env && !t.assign_name) {  // ARG NAME: a value given at build time
          vars.erase(t.text);
          continue;
        }
        if (!t.assign_name) continue;
        budget.assignment(line_no + t.line - 1);
        vars[*t.assign_name] = ShellVar{t.assign_value, t.assign_dynamic};
        if (!env) continue;
        EnvEntry e;
        e.name = *t.assign_name;
        e.value = t.assign_value;
        e.raw = t.assign_raw;
        e.dynamic = t.assign_dynamic;
        e.file = file;
        e.line = line_no + t.line - 1;
        e.context = "Dockerfile ENV";
        stages.back().env.push_back(std::move(e));
      }
    }
  }
  // The image is the last stage with the stages it builds on; a later ENV of
  // a name wins, as in the image's config.
  std::vector<std::size_t> chain;
  for (std::optional<std::size_t> k = stages.size() - 1; k; k = stages[*k].base) {
    chain.push_back(*k);
    if (*k == 0) break;
  }
  std::reverse(chain.begin(), chain.end());
  std::set<std::pair<std::string, int>> covered;
  // RUN steps: what they write into NCCL's configuration file is in the
  // image, below any ENV of the same name (NCCL never overwrites the
  // environment), so it comes first.
  std::vector<InputNote> long_lines;
  for (auto& e : nccl_conf_writes(text, file, {}, &long_lines)) {
    covered.insert({e.name, e.line});
    in.entries.push_back(std::move(e));
  }
  for (std::size_t k : chain)
    for (auto& e : stages[k].env) {
      covered.insert({e.name, e.line});
      in.entries.push_back(e);
    }
  for (std::size_t k = 0; k < stages.size(); ++k) {
    if (std::find(chain.begin(), chain.end(), k) != chain.end()) continue;
    for (const auto& e : stages[k].env) {
      covered.insert({e.name, e.line});
      if (is_comm_variable(e.name))
        in.notes.push_back(
            InputNote{InputNote::kNotFollowed, e.name, file, e.line, e.name + "=" + e.raw,
                      "an ENV of the build stage at line " + std::to_string(stages[k].line) +
                          ", which the image does not build on: not in the "
                          "running container"});
    }
  }
  for (auto& n : long_lines) {
    covered.insert({n.name, n.line});
    in.notes.push_back(std::move(n));
  }
  // The net: every other line that plainly sets a library variable.
  const std::vector<std::string> lines = text_lines(text);
  for (const auto& [line, name] : comm_mentions(text, false)) {
    if (covered.count({name, line})) continue;
    const std::string l = trim(lines[static_cast<std::size_t>(line) - 1]);
    if (build_args.count({name, line})) {
      in.notes.push_back(InputNote{InputNote::kNotFollowed, name, file, line, l,
                                   "a build argument (ARG): it expands in the Dockerfile's own "
                                   "lines, and the running container never sees it"});
      continue;
    }
    in.notes.push_back(InputNote{
        run_lines.count(line) ? InputNote::kNotFollowed : InputNote::kUnread, name, file, line, l,
        run_lines.count(line)
            ? "set inside a RUN step: in effect while that build step runs, not in the "
              "running container (use ENV, or write it to /etc/nccl.conf)"
            : "sets " + name + " in a form this reader does not follow"});
  }
  return in;
}

}  // namespace hn::compat::translate
