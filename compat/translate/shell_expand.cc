// $-expansion, command substitution and ${...} for ShellLexer: what can be
// resolved from variables the input set earlier, and what marks a word as
// only known at run time.
#include <cctype>

#include "compat/translate/shell_lexer.h"

namespace hn::compat::translate {

std::string ShellLexer::read_balanced(char open, char close, int start_line) {
  std::string out;
  int depth = 0;
  for (;;) {
    if (pos_ >= text_.size())
      fail(start_line, std::string("unterminated $") + open + "...: no matching '" + close + "'");
    char c = peek();
    if (c == '\\') {
      out += c;
      advance();
      if (pos_ < text_.size()) {
        out += peek();
        advance();
      }
      continue;
    }
    if (c == '\'' || c == '"') {  // quoted text inside: copy verbatim up to its end
      char q = c;
      out += c;
      advance();
      while (pos_ < text_.size() && peek() != q) {
        if (q == '"' && peek() == '\\' && pos_ + 1 < text_.size()) {
          out += peek();
          advance();
        }
        out += peek();
        advance();
      }
      if (pos_ >= text_.size()) fail(start_line, std::string("unterminated quote inside $") + open);
      out += peek();
      advance();
      continue;
    }
    out += c;
    advance();
    if (c == open) ++depth;
    if (c == close && --depth == 0) return out;
  }
}

std::string ShellLexer::read_braced(int start_line) {
  // Called after "${"; returns the text up to the matching '}', consumed.
  std::string inner;
  int depth = 1;
  for (;;) {
    if (pos_ >= text_.size()) fail(start_line, "unterminated ${...}");
    char c = peek();
    if (c == '\\' && pos_ + 1 < text_.size()) {
      inner += c;
      advance();
      inner += peek();
      advance();
      continue;
    }
    advance();
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) return inner;
    inner += c;
  }
}

void ShellLexer::expand_name(WordState& w, const std::string& name, const std::string& raw) {
  std::optional<ShellVar> v = lookup_ ? lookup_(name) : std::nullopt;
  if (!v) {
    w.text += raw;
    w.dynamic = true;
    return;
  }
  charge(w, v->value.size());
  w.text += v->value;
  w.dynamic = w.dynamic || v->dynamic;
}

void ShellLexer::charge(const WordState& w, size_t bytes) {
  budget_->word(w.text.size() + bytes, line_);
  budget_->expansion(bytes, line_);
}

void ShellLexer::expand_braced(WordState& w, const std::string& inner, const std::string& raw) {
  if (is_shell_name(inner)) {
    expand_name(w, inner, raw);
    return;
  }
  size_t n = 0;
  while (n < inner.size() && is_name_char(inner[n])) ++n;
  std::string name = inner.substr(0, n), rest = inner.substr(n);
  bool colon = !rest.empty() && rest[0] == ':';
  std::string op = rest.substr(colon ? 1 : 0, 1);
  if (!is_shell_name(name) || (op != "-" && op != "=")) {  // ${#x}, ${x#y}, ${x/a/b}: run time
    w.text += raw;
    w.dynamic = true;
    return;
  }
  std::string word = rest.substr(colon ? 2 : 1);
  std::optional<ShellVar> v = lookup_ ? lookup_(name) : std::nullopt;
  if (v && !(colon && v->value.empty())) {
    charge(w, v->value.size());
    w.text += v->value;
    w.dynamic = w.dynamic || v->dynamic;
    return;
  }
  if (word.find_first_of("$`") != std::string::npos) {
    w.text += raw;
    w.dynamic = true;
    return;
  }
  std::string value;
  for (char c : word)
    if (c != '\'' && c != '"') value += c;
  w.text += value;
  if (!v) w.defaulted.push_back(name);
  if (op == "=") w.default_assignments.push_back({name, value});
}

void ShellLexer::read_dollar(WordState& w, bool in_double_quotes) {
  (void)in_double_quotes;  // expansion rules are the same for what we support
  int start = line_;
  w.quoted_or_expanded = true;
  advance();  // '$'
  char c = peek();
  if (c == '{') {
    advance();
    std::string inner = read_braced(start);
    std::string raw = "${" + inner + "}";
    w.raw += raw;
    expand_braced(w, inner, raw);
  } else if (c == '(') {
    std::string body = read_balanced('(', ')', start);
    if (body.size() >= 2 && body[1] != '(')  // $((...)) is arithmetic, not a command
      w.substitutions.push_back({body.substr(1, body.size() - 2), start});
    w.raw += "$" + body;
    w.text += "$" + body;
    w.dynamic = true;
  } else if (is_name_start(c)) {
    std::string name;
    while (is_name_char(peek())) {
      name += peek();
      advance();
    }
    w.raw += "$" + name;
    expand_name(w, name, "$" + name);
  } else if (std::isdigit(static_cast<unsigned char>(c)) ||
             std::string_view("@*#?$!-").find(c) != std::string_view::npos) {
    advance();
    w.raw += std::string("$") + c;
    w.text += std::string("$") + c;
    w.dynamic = true;
  } else {
    w.raw += '$';
    w.text += '$';
  }
}

void ShellLexer::read_backtick(WordState& w) {
  int start = line_;
  w.quoted_or_expanded = true;
  std::string body = "`";
  advance();
  for (;;) {
    if (pos_ >= text_.size()) fail(start, "unterminated `...` command substitution");
    char c = peek();
    body += c;
    advance();
    if (c == '\\' && pos_ < text_.size()) {
      body += peek();
      advance();
      continue;
    }
    if (c == '`') break;
  }
  w.raw += body;
  w.text += body;
  w.dynamic = true;
}

}  // namespace hn::compat::translate
