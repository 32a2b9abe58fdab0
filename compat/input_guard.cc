#include "compat/input_guard.h"

#include <vector>

#include "compat/input_error.h"
#include "compat/text_file.h"

namespace hn::compat {

namespace {

// Walks the text once, keeping line and column for the error.
class Cursor {
 public:
  Cursor(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  bool done() const { return i_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0';
  }
  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      line_start_ = i_ + 1;
    }
    ++i_;
  }
  bool at_line_start() const { return i_ == line_start_; }
  std::size_t column() const { return i_ - line_start_; }  // 0-based
  bool after_blank() const {  // the previous byte is a space, a tab or a line break
    return i_ == 0 || text_[i_ - 1] == ' ' || text_[i_ - 1] == '\t' || text_[i_ - 1] == '\n' ||
           text_[i_ - 1] == '\r';
  }
  void skip_to_line_end() {
    while (!done() && peek() != '\n') advance();
  }
  // Indentation (spaces) of the current line.
  std::size_t indent() const {
    std::size_t n = 0;
    while (line_start_ + n < text_.size() && text_[line_start_ + n] == ' ') ++n;
    return n;
  }

  [[noreturn]] void too_deep(const char* what) const {
    throw InputError(source_, line_, static_cast<int>(i_ - line_start_) + 1, "",
                     std::string("nested more than ") + std::to_string(kMaxNesting) +
                         " levels deep (" + what +
                         "); no real input nests that deep, so the file is refused before it is "
                         "parsed");
  }

 private:
  std::string_view text_;
  const std::string& source_;
  std::size_t i_ = 0, line_start_ = 0;
  int line_ = 1;
};

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0';
}

void guard_json(Cursor& c) {
  int depth = 0;
  bool in_string = false;
  while (!c.done()) {
    char ch = c.peek();
    if (in_string) {
      if (ch == '\\') {
        c.advance();
        if (c.done()) break;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxNesting) c.too_deep("arrays and objects");
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
    c.advance();
  }
}

// TOML: brackets of arrays, inline tables and headers, and the segments of a
// dotted key (toml11 makes one nested table per segment).
void guard_toml(Cursor& c) {
  enum class Frame { kHeader, kArray, kInline };
  std::vector<Frame> stack;  // bounded by kMaxNesting
  bool key_mode = true;      // reading a key (dots nest) rather than a value
  int key_segments = 1;
  auto push = [&](Frame f) {
    if (stack.size() >= static_cast<std::size_t>(kMaxNesting))
      c.too_deep("arrays, inline tables and headers");
    stack.push_back(f);
  };
  auto skip_string = [&](char quote) {
    const bool multi = c.peek(1) == quote && c.peek(2) == quote;
    const std::size_t open = multi ? 3 : 1;
    for (std::size_t k = 0; k < open; ++k) c.advance();
    while (!c.done()) {
      char ch = c.peek();
      if (quote == '"' && ch == '\\') {
        c.advance();
        if (!c.done()) c.advance();
        continue;
      }
      if (!multi && ch == '\n') return;  // unterminated: the parser reports it
      if (ch == quote && (!multi || (c.peek(1) == quote && c.peek(2) == quote))) {
        for (std::size_t k = 0; k < open; ++k) c.advance();
        return;
      }
      c.advance();
    }
  };
  while (!c.done()) {
    char ch = c.peek();
    if (ch == '"' || ch == '\'') {
      skip_string(ch);
      continue;
    }
    if (ch == '#') {
      c.skip_to_line_end();
      continue;
    }
    const bool in_key = key_mode || (!stack.empty() && stack.back() == Frame::kHeader);
    switch (ch) {
      case '\n':
        if (stack.empty()) {
          key_mode = true;
          key_segments = 1;
        }
        break;
      case '[':
        if (stack.empty() && key_mode) {
          // A header: [table] or [[array.of.tables]].
          push(Frame::kHeader);
          if (c.peek(1) == '[') {
            c.advance();
            push(Frame::kHeader);
          }
          key_segments = 1;
        } else {
          push(Frame::kArray);
        }
        break;
      case '{':
        push(Frame::kInline);
        key_mode = true;
        key_segments = 1;
        break;
      case ']':
      case '}':
        if (!stack.empty()) stack.pop_back();
        if (stack.empty()) key_mode = false;
        break;
      case ',':
        if (!stack.empty() && stack.back() == Frame::kInline) {
          key_mode = true;
          key_segments = 1;
        }
        break;
      case '=':
        key_mode = false;
        break;
      case '.':
        if (in_key && ++key_segments > kMaxNesting) c.too_deep("segments of a dotted key");
        break;
      default:
        break;
    }
    c.advance();
  }
}

// YAML: flow collections ([...] and {...}) outside quoted scalars, comments
// and block scalars. Block nesting (by indentation, or `- - -` on one line)
// costs the scanner nothing and is bounded while the events are walked
// (yaml_input.cc). A line is skipped as block-scalar text only when YAML
// would read it as text too (indented at least as far as the scalar's first
// line, which is indented past its key): anything else is scanned, so text
// cannot hide a flow collection from the guard.
void guard_yaml(Cursor& c) {
  int flow = 0;
  bool node_start = true;    // a [ or { here opens a collection, a quote a string
  std::size_t node_col = 0;  // column of the last block node (its key or its '-')
  bool in_block_scalar = false;
  std::size_t scalar_parent = 0, scalar_indent = 0;  // text lines: indent > parent, >= indent
  auto skip_quoted = [&](char quote) {
    c.advance();
    while (!c.done()) {
      char ch = c.peek();
      if (quote == '"' && ch == '\\') {
        c.advance();
        if (!c.done()) c.advance();
        continue;
      }
      if (ch == quote) {
        if (quote == '\'' && c.peek(1) == '\'') {  // '' is an escaped quote
          c.advance();
          c.advance();
          continue;
        }
        c.advance();
        return;
      }
      c.advance();
    }
  };
  while (!c.done()) {
    if (c.at_line_start()) {
      if (in_block_scalar) {
        const std::size_t ind = c.indent();
        std::size_t k = ind;
        while (c.peek(k) == ' ' || c.peek(k) == '\t' || c.peek(k) == '\r') ++k;
        const bool empty = c.peek(k) == '\n' || c.peek(k) == '\0';
        if (!empty && scalar_indent == 0 && ind > scalar_parent) scalar_indent = ind;
        if (empty || (scalar_indent > 0 && ind >= scalar_indent)) {
          c.skip_to_line_end();
          if (!c.done()) c.advance();
          continue;
        }
        in_block_scalar = false;
      }
      if (flow == 0) node_start = true;
    }
    char ch = c.peek();
    if (ch == '#' && c.after_blank()) {
      c.skip_to_line_end();
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
      c.advance();
      continue;
    }
    if ((ch == '\'' || ch == '"') && node_start) {
      if (flow == 0) node_col = c.column();
      skip_quoted(ch);
      node_start = false;
      continue;
    }
    if (flow > 0) {
      if (ch == '[' || ch == '{') {
        if (++flow > kMaxNesting) c.too_deep("flow collections [...] and {...}");
        node_start = true;
      } else if (ch == ']' || ch == '}') {
        --flow;
        node_start = false;
      } else if (ch == ',' || ch == '?' || (ch == ':' && (blank(c.peek(1)) || c.peek(1) == ','))) {
        node_start = true;
      } else {
        node_start = false;
      }
      c.advance();
      continue;
    }
    // Block context: only a node's first character opens anything.
    if (node_start) {
      if (ch == '[' || ch == '{') {
        flow = 1;
        c.advance();
        continue;
      }
      if ((ch == '-' || ch == '?') && blank(c.peek(1))) {
        node_col = c.column();
        c.advance();
        continue;
      }
      if (ch == ':' && blank(c.peek(1))) {
        c.advance();
        continue;
      }
      if (ch == '&' || ch == '!') {  // an anchor or a tag: the node follows it
        while (!c.done() && !blank(c.peek())) c.advance();
        continue;
      }
      if (ch == '|' || ch == '>') {
        in_block_scalar = true;
        scalar_parent = node_col;
        scalar_indent = 0;
        c.skip_to_line_end();
        continue;
      }
      node_col = c.column();
      node_start = false;
    }
    if (ch == ':' && blank(c.peek(1))) node_start = true;
    c.advance();
  }
}


}  // namespace

void guard_structured_text(std::string_view text, const std::string& source, Syntax syntax,
                           std::size_t max_bytes) {
  if (text.size() > max_bytes)
    throw InputError(source, 0, 0, "",
                     "file too large (" + std::to_string(text.size()) + " bytes; the limit is " +
                         limit_text(max_bytes) + ")");
  reject_nul_bytes(text, source);
  Cursor c(text, source);
  switch (syntax) {
    case Syntax::kYaml:
      guard_yaml(c);
      break;
    case Syntax::kJson:
      guard_json(c);
      break;
    case Syntax::kToml:
      guard_toml(c);
      break;
  }
}

}  // namespace hn::compat
