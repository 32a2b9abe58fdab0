#include "compat/translate/shell_lexer.h"

#include <array>
#include <cctype>

#include "compat/input_error.h"

namespace hn::compat::translate {

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_operator_char(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}

struct OperatorSpec {
  std::string_view text;
  ShellToken::Kind kind;
};
// Longest first, so "&&" wins over "&" and "<<-" over "<<".
constexpr std::array<OperatorSpec, 23> kOperators = {{
    {";;&", ShellToken::kSeparator}, {"&>>", ShellToken::kRedirect}, {"<<<", ShellToken::kRedirect},
    {"<<-", ShellToken::kRedirect},  {"&&", ShellToken::kSeparator},  {"||", ShellToken::kSeparator},
    {";;", ShellToken::kSeparator},  {";&", ShellToken::kSeparator},  {"|&", ShellToken::kSeparator},
    {"&>", ShellToken::kRedirect},   {"<<", ShellToken::kRedirect},   {">>", ShellToken::kRedirect},
    {"<&", ShellToken::kRedirect},   {">&", ShellToken::kRedirect},   {"<>", ShellToken::kRedirect},
    {">|", ShellToken::kRedirect},   {";", ShellToken::kSeparator},   {"&", ShellToken::kSeparator},
    {"|", ShellToken::kSeparator},   {"(", ShellToken::kSeparator},   {")", ShellToken::kSeparator},
    {"<", ShellToken::kRedirect},    {">", ShellToken::kRedirect},
}};

}  // namespace

static ShellToken make_token(ShellToken::Kind kind, std::string text, int line) {
  ShellToken t;
  t.kind = kind;
  t.raw = text;
  t.text = std::move(text);
  t.line = line;
  return t;
}

bool is_shell_name(std::string_view s) {
  if (s.empty() || !is_name_start(s[0])) return false;
  for (char c : s)
    if (!is_name_char(c)) return false;
  return true;
}

struct ShellLexer::WordState {
  std::string text, raw;
  bool dynamic = false;
  bool quoted_or_expanded = false;  // once true, a later '=' cannot start an assignment
  std::optional<size_t> eq_text, eq_raw;
};

ShellLexer::ShellLexer(std::string_view text, std::string file, ShellLookup lookup)
    : text_(text), file_(std::move(file)), lookup_(std::move(lookup)) {}

char ShellLexer::peek(size_t ahead) const {
  return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
}

void ShellLexer::advance() {
  if (pos_ < text_.size() && text_[pos_] == '\n') ++line_;
  ++pos_;
}

void ShellLexer::fail(int line, const std::string& what) const {
  throw InputError(file_, line, 0, "", what);
}

void ShellLexer::skip_comment() {
  while (pos_ < text_.size() && peek() != '\n') advance();
}

ShellToken ShellLexer::next() {
  for (;;) {
    while (pos_ < text_.size()) {
      if (is_blank(peek())) {
        advance();
      } else if (peek() == '\\' && peek(1) == '\n') {
        advance();
        advance();
      } else {
        break;
      }
    }
    if (pos_ >= text_.size()) return make_token(ShellToken::kEnd, "", line_);
    char c = peek();
    if (c == '#') {
      skip_comment();
      continue;
    }
    if (c == '\n') {
      int line = line_;
      advance();
      read_heredoc_bodies();
      return make_token(ShellToken::kSeparator, "\n", line);
    }
    if (is_operator_char(c)) return read_operator();
    return read_word();
  }
}

ShellToken ShellLexer::read_operator() {
  for (const auto& op : kOperators) {
    if (text_.substr(pos_, op.text.size()) != op.text) continue;
    ShellToken t = make_token(op.kind, std::string(op.text), line_);
    for (size_t i = 0; i < op.text.size(); ++i) advance();
    if (op.text == "<<" || op.text == "<<-") {
      expect_heredoc_word_ = true;
      heredoc_strip_ = op.text == "<<-";
    }
    return t;
  }
  // Unreachable: every operator character starts some operator above.
  fail(line_, std::string("unexpected character '") + peek() + "'");
}

void ShellLexer::read_heredoc_bodies() {
  for (const auto& h : pending_heredocs_) {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      std::string_view line = text_.substr(pos_, end == std::string_view::npos ? end : end - pos_);
      if (h.strip_tabs)
        while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      size_t stop = end == std::string_view::npos ? text_.size() : end + 1;
      while (pos_ < stop) advance();
      if (line == h.delimiter) break;
    }
  }
  pending_heredocs_.clear();
}

ShellToken ShellLexer::read_word() {
  WordState w;
  int start_line = line_;
  while (pos_ < text_.size()) {
    char c = peek();
    if (c == '\\') {
      if (peek(1) == '\n') {  // line continuation inside a word
        advance();
        advance();
        continue;
      }
      w.quoted_or_expanded = true;
      w.raw += c;
      advance();
      if (pos_ < text_.size()) {
        w.text += peek();
        w.raw += peek();
        advance();
      }
      continue;
    }
    if (is_blank(c) || c == '\n' || is_operator_char(c)) break;
    if (c == '\'') {
      read_single_quoted(w);
    } else if (c == '"') {
      read_double_quoted(w);
    } else if (c == '$' && peek(1) == '\'') {
      read_ansi_c(w);
    } else if (c == '$' && peek(1) == '"') {
      advance();  // $"..." is a translated string: the same as "..." for us
      w.raw += '$';
      read_double_quoted(w);
    } else if (c == '$') {
      read_dollar(w, false);
    } else if (c == '`') {
      read_backtick(w);
    } else {
      if (c == '=' && !w.eq_text && !w.quoted_or_expanded && is_shell_name(w.text)) {
        w.eq_text = w.text.size();
        w.eq_raw = w.raw.size();
      }
      w.text += c;
      w.raw += c;
      advance();
    }
  }
  ShellToken t = make_token(ShellToken::kWord, w.text, start_line);
  t.raw = w.raw;
  t.dynamic = w.dynamic;
  if (expect_heredoc_word_) {
    pending_heredocs_.push_back(Heredoc{w.text, heredoc_strip_});
    expect_heredoc_word_ = false;
  }
  // "2>&1": a bare number glued to a redirection is its file descriptor.
  if ((peek() == '<' || peek() == '>') && !w.quoted_or_expanded && !w.text.empty() &&
      w.text.find_first_not_of("0123456789") == std::string::npos) {
    t.kind = ShellToken::kRedirect;
    return t;
  }
  if (w.eq_text) {
    t.assign_name = w.text.substr(0, *w.eq_text);
    t.assign_value = w.text.substr(*w.eq_text + 1);
    t.assign_raw = w.raw.substr(*w.eq_raw + 1);
    t.assign_dynamic = w.dynamic;
  }
  return t;
}

void ShellLexer::read_single_quoted(WordState& w) {
  int start = line_;
  w.quoted_or_expanded = true;
  w.raw += '\'';
  advance();
  for (;;) {
    if (pos_ >= text_.size()) fail(start, "unterminated single quote");
    char c = peek();
    advance();
    w.raw += c;
    if (c == '\'') return;
    w.text += c;
  }
}

void ShellLexer::read_double_quoted(WordState& w) {
  int start = line_;
  w.quoted_or_expanded = true;
  w.raw += '"';
  advance();
  for (;;) {
    if (pos_ >= text_.size()) fail(start, "unterminated double quote");
    char c = peek();
    if (c == '"') {
      w.raw += c;
      advance();
      return;
    }
    if (c == '\\') {
      char n = peek(1);
      if (n == '\n') {
        advance();
        advance();
        continue;
      }
      if (n == '$' || n == '`' || n == '"' || n == '\\') {
        w.text += n;
        w.raw += c;
        w.raw += n;
        advance();
        advance();
        continue;
      }
      w.text += c;
      w.raw += c;
      advance();
      continue;
    }
    if (c == '$') {
      read_dollar(w, true);
      continue;
    }
    if (c == '`') {
      read_backtick(w);
      continue;
    }
    w.text += c;
    w.raw += c;
    advance();
  }
}

void ShellLexer::read_ansi_c(WordState& w) {
  int start = line_;
  w.quoted_or_expanded = true;
  w.raw += "$'";
  advance();
  advance();
  for (;;) {
    if (pos_ >= text_.size()) fail(start, "unterminated $'...' quote");
    char c = peek();
    w.raw += c;
    advance();
    if (c == '\'') return;
    if (c != '\\') {
      w.text += c;
      continue;
    }
    char n = peek();
    w.raw += n;
    advance();
    switch (n) {
      case 'n': w.text += '\n'; break;
      case 't': w.text += '\t'; break;
      case 'r': w.text += '\r'; break;
      case 'a': w.text += '\a'; break;
      case 'b': w.text += '\b'; break;
      case 'e': w.text += '\x1b'; break;
      case 'v': w.text += '\v'; break;
      default: w.text += n; break;  // \\ \' \" and anything else: the character itself
    }
  }
}

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
  w.text += v->value;
  w.dynamic = w.dynamic || v->dynamic;
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
    w.text += v->value;
    w.dynamic = w.dynamic || v->dynamic;
    return;
  }
  if (word.find_first_of("$`") != std::string::npos) {
    w.text += raw;
    w.dynamic = true;
    return;
  }
  for (char c : word)
    if (c != '\'' && c != '"') w.text += c;
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
