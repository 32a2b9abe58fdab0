#pragma once
// Byte sizes as users write them: "4096", "4K", "4KiB", "64M", "1.5GiB".
// K/M/G/T are binary (1024-based) whether or not the "i" is written, as in
// nccl-tests' -b/-e and fio's bs=. Throws std::invalid_argument naming the
// text on anything else (negative, empty, unknown suffix, overflow).

#include <cstdint>
#include <string>
#include <string_view>

namespace hn::compat {

std::uint64_t parse_size(std::string_view text);
// 4096 -> "4KiB", 1536 -> "1.5KiB", 7 -> "7B".
std::string format_size(std::uint64_t bytes);

}  // namespace hn::compat
