#include "compat/printable.h"

namespace hn::compat {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0; a C1 control
// counts as invalid unless allow_c1.
std::size_t utf8_length(std::string_view s, std::size_t i, bool allow_c1 = false) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if ((b == 0xe0 && b1 < 0xa0) || (b == 0xed && b1 >= 0xa0) || (b == 0xf0 && b1 < 0x90) ||
      (b == 0xf4 && b1 >= 0x90) || (!allow_c1 && b == 0xc2 && b1 < 0xa0))
    return 0;  // overlong, surrogate, past U+10FFFF, or a C1 control (CSI is one)
  return n;
}

}  // namespace

std::size_t first_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(text, i, true);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view raw, std::size_t max_chars) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < raw.size();) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto b = static_cast<unsigned char>(raw[i]);
    if (b >= 0x20 && b < 0x7f) {
      out += raw[i++];
      continue;
    }
    if (std::size_t n = b >= 0x80 ? utf8_length(raw, i) : 0; n > 0) {
      out.append(raw.substr(i, n));
      i += n;
      continue;
    }
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 15];
    ++i;
  }
  return out;
}

}  // namespace hn::compat
