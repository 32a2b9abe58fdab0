#include "compat/translate/shell_lexer.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "compat/input_error.h"

namespace hn::compat::translate {

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}
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
    {"<<-", ShellToken::kRedirect},  {"&&", ShellToken::kSeparator}, {"||", ShellToken::kSeparator},
    {";;", ShellToken::kSeparator},  {";&", ShellToken::kSeparator}, {"|&", ShellToken::kSeparator},
    {"&>", ShellToken::kRedirect},   {"<<", ShellToken::kRedirect},  {">>", ShellToken::kRedirect},
    {"<&", ShellToken::kRedirect},   {">&", ShellToken::kRedirect},  {"<>", ShellToken::kRedirect},
    {">|", ShellToken::kRedirect},   {";", ShellToken::kSeparator},  {"&", ShellToken::kSeparator},
    {"|", ShellToken::kSeparator},   {"(", ShellToken::kSeparator},  {")", ShellToken::kSeparator},
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

ShellLexer::ShellLexer(std::string_view text, std::string file, ShellLookup lookup,
                       ShellBudget* budget)
    : text_(text), file_(std::move(file)), lookup_(std::move(lookup)), budget_(budget) {
  if (!budget_) budget_ = &own_budget_.emplace(file_);
}

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
      int at = line_;
      while (pos_ < stop) advance();
      if (line == h.delimiter) break;
      heredoc_lines_.push_back({at, std::string(line)});
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
      // One check per character of plain text: cheap, and the word never
      // holds more than the limit plus one expansion (itself capped).
      if (c == '=' && !w.eq_text && !w.quoted_or_expanded && is_shell_name(w.text)) {
        w.eq_text = w.text.size();
        w.eq_raw = w.raw.size();
      }
      w.text += c;
      w.raw += c;
      advance();
    }
    budget_->word(std::max(w.text.size(), w.raw.size()), start_line);
  }
  ShellToken t = make_token(ShellToken::kWord, w.text, start_line);
  t.raw = w.raw;
  t.dynamic = w.dynamic;
  t.end_line = line_;
  t.substitutions = std::move(w.substitutions);
  t.default_assignments = std::move(w.default_assignments);
  t.defaulted = std::move(w.defaulted);
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
      case 'n':
        w.text += '\n';
        break;
      case 't':
        w.text += '\t';
        break;
      case 'r':
        w.text += '\r';
        break;
      case 'a':
        w.text += '\a';
        break;
      case 'b':
        w.text += '\b';
        break;
      case 'e':
        w.text += '\x1b';
        break;
      case 'v':
        w.text += '\v';
        break;
      default:
        w.text += n;
        break;  // \\ \' \" and anything else: the character itself
    }
  }
}

}  // namespace hn::compat::translate
