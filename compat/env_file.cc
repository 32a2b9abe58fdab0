#include "compat/env_file.h"

#include <cctype>

#include "compat/input_error.h"
#include "compat/text_file.h"

namespace hn::compat {

namespace {

bool key_char(char c, bool first) {
  return c == '_' || std::isalpha(static_cast<unsigned char>(c)) ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

class LineParser {
 public:
  LineParser(std::string_view line, const std::string& source, int number)
      : s_(line), source_(source), number_(number) {}

  // nullopt for a blank or comment line.
  std::optional<EnvEntry> parse() {
    skip_blanks();
    if (at_end() || peek() == '#') return std::nullopt;
    if (s_.substr(pos_, 7) == "export " || s_.substr(pos_, 7) == "export\t") {
      pos_ += 7;
      skip_blanks();
    }
    EnvEntry e;
    e.line = number_;
    size_t start = pos_;
    while (!at_end() && key_char(peek(), pos_ == start)) ++pos_;
    e.key = std::string(s_.substr(start, pos_ - start));
    if (e.key.empty())
      fail("",
           "expected KEY=VALUE with KEY made of letters, digits and '_' (not starting with a "
           "digit)");
    if (at_end() || peek() != '=')
      fail(e.key, at_end() ? "missing '=' after the key"
                           : std::string("unexpected '") + peek() + "' in the key (expected '=')");
    ++pos_;
    e.value = value(e.key);
    skip_blanks();
    if (!at_end() && peek() != '#')
      fail(e.key, "unexpected text after the value: '" + std::string(s_.substr(pos_)) +
                      "' (quote a value that contains spaces)");
    return e;
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return s_[pos_]; }
  void skip_blanks() {
    while (!at_end() && (peek() == ' ' || peek() == '\t')) ++pos_;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(source_, number_, static_cast<int>(pos_) + 1, key, what);
  }
  void reject_expansion(const std::string& key) const {
    fail(key, "'$' expansion is not supported: write the literal value, or single-quote it");
  }

  std::string value(const std::string& key) {
    std::string out;
    while (!at_end()) {
      char c = peek();
      if (c == ' ' || c == '\t') break;
      if (c == '\'') {
        size_t end = s_.find('\'', pos_ + 1);
        if (end == std::string_view::npos) fail(key, "unterminated single quote");
        out += s_.substr(pos_ + 1, end - pos_ - 1);
        pos_ = end + 1;
      } else if (c == '"') {
        ++pos_;
        for (;;) {
          if (at_end()) fail(key, "unterminated double quote");
          char d = peek();
          if (d == '"') break;
          if (d == '$') reject_expansion(key);
          if (d == '`') fail(key, "command substitution is not supported");
          if (d == '\\' && pos_ + 1 < s_.size() &&
              (s_[pos_ + 1] == '"' || s_[pos_ + 1] == '\\' || s_[pos_ + 1] == '$' ||
               s_[pos_ + 1] == '`'))
            ++pos_;
          out += s_[pos_++];
        }
        ++pos_;
      } else if (c == '$') {
        reject_expansion(key);
      } else if (c == '`') {
        fail(key, "command substitution is not supported");
      } else if (c == '\\') {
        if (pos_ + 1 >= s_.size())
          fail(key, "a trailing '\\' (line continuation) is not supported");
        out += s_[pos_ + 1];
        pos_ += 2;
      } else if (c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')') {
        fail(key, std::string("shell operator '") + c + "' is not supported in an env file");
      } else {
        out += c;
        ++pos_;
      }
    }
    return out;
  }

  std::string_view s_;
  const std::string& source_;
  int number_;
  size_t pos_ = 0;
};

}  // namespace

const EnvEntry* EnvFile::find(const std::string& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

EnvFile parse_env_text(const std::string& text, const std::string& source_name) {
  reject_nul_bytes(text, source_name);
  EnvFile file;
  file.source = source_name;
  size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (auto e = LineParser(line, source_name, number).parse()) {
      for (auto it = file.entries.begin(); it != file.entries.end(); ++it)
        if (it->key == e->key) {
          file.entries.erase(it);
          break;
        }
      file.entries.push_back(*e);
    }
    start = end + 1;
  }
  return file;
}

EnvFile load_env_file(const std::string& path) {
  return parse_env_text(read_text_file(path), path);
}

}  // namespace hn::compat
