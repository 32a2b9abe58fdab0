#include "compat/json_input.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "compat/input_error.h"
#include "compat/input_guard.h"
#include "compat/printable.h"

namespace hn::compat {

namespace {

using nlohmann::json;

std::pair<int, int> line_col(const std::string& text, std::size_t byte) {
  byte = std::min(byte, text.size());
  int line = 1, col = 1;
  for (std::size_t i = 0; i < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// What nlohmann said, as an InputError. byte: its 1-based offset of a syntax
// error (0 for other errors). Messages start "[json.exception.parse_error.101]
// parse error at line 1, column 2: "; the reason is what follows.
InputError to_input_error(int id, std::size_t byte, const std::string& what,
                          const std::string& text, const std::string& source,
                          const std::string& malformed) {
  if (id == 406) {
    // "number overflow parsing '1e400'": find the token to say where it is.
    auto q = what.find('\'');
    auto q2 = q == std::string::npos ? q : what.find('\'', q + 1);
    std::string token = q2 == std::string::npos ? "" : what.substr(q + 1, q2 - q - 1);
    auto at = token.empty() ? std::string::npos : text.find(token);
    auto [line, col] = at == std::string::npos ? std::pair{0, 0} : line_col(text, at);
    return InputError(source, line, col, "",
                      "number out of range: '" + printable(token, 60) +
                          "' is beyond the largest double (about 1.8e308)");
  }
  std::string reason = what;
  if (auto p = reason.find("] "); p != std::string::npos) reason = reason.substr(p + 2);
  if (reason.rfind("parse error", 0) == 0)
    if (auto p = reason.find(": "); p != std::string::npos) reason = reason.substr(p + 2);
  if (id >= 100 && id < 200 && byte > 0) {
    auto [line, col] = line_col(text, byte - 1);
    return InputError(source, line, col, "", malformed + ": " + printable(reason, 200));
  }
  return InputError(source, 0, 0, "", malformed + ": " + printable(reason, 200));
}

InputError to_input_error(const json::exception& e, const std::string& text,
                          const std::string& source, const std::string& malformed) {
  const auto* pe = dynamic_cast<const json::parse_error*>(&e);
  return to_input_error(e.id, pe ? pe->byte : 0, e.what(), text, source, malformed);
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& source, std::size_t max_bytes,
                     const std::string& malformed) {
  guard_structured_text(text, source, Syntax::kJson, max_bytes);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw to_input_error(e, text, source, malformed);
  }
}

nlohmann::ordered_json parse_ordered_json_text(const std::string& text, const std::string& source,
                                               std::size_t max_bytes,
                                               const std::string& malformed) {
  guard_structured_text(text, source, Syntax::kJson, max_bytes);
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const json::exception& e) {
    throw to_input_error(e, text, source, malformed);
  }
}

void sax_parse_json_text(const std::string& text, const std::string& source,
                         nlohmann::json_sax<json>& sax, std::size_t max_bytes,
                         const std::string& malformed) {
  guard_structured_text(text, source, Syntax::kJson, max_bytes);
  // A SAX parse reports errors through sax.parse_error(); wrap it so the
  // exception can be thrown with the file's name.
  struct Relay : nlohmann::json_sax<json> {
    explicit Relay(nlohmann::json_sax<json>& inner) : inner_(inner) {}
    bool null() override { return inner_.null(); }
    bool boolean(bool v) override { return inner_.boolean(v); }
    bool number_integer(number_integer_t v) override { return inner_.number_integer(v); }
    bool number_unsigned(number_unsigned_t v) override { return inner_.number_unsigned(v); }
    bool number_float(number_float_t v, const string_t& s) override {
      return inner_.number_float(v, s);
    }
    bool string(string_t& v) override { return inner_.string(v); }
    bool binary(binary_t& v) override { return inner_.binary(v); }
    bool start_object(std::size_t n) override { return inner_.start_object(n); }
    bool key(string_t& v) override { return inner_.key(v); }
    bool end_object() override { return inner_.end_object(); }
    bool start_array(std::size_t n) override { return inner_.start_array(n); }
    bool end_array() override { return inner_.end_array(); }
    bool parse_error(std::size_t, const std::string&,
                     const nlohmann::detail::exception& ex) override {
      const auto* pe = dynamic_cast<const json::parse_error*>(&ex);
      error_ = {ex.id, pe ? pe->byte : 0, ex.what()};
      return false;
    }
    nlohmann::json_sax<json>& inner_;
    std::optional<std::tuple<int, std::size_t, std::string>> error_;
  } relay(sax);
  try {
    json::sax_parse(text, &relay);
  } catch (const json::exception& e) {
    throw to_input_error(e, text, source, malformed);
  }
  if (relay.error_) {
    auto& [id, byte, what] = *relay.error_;
    throw to_input_error(id, byte, what, text, source, malformed);
  }
}

}  // namespace hn::compat
