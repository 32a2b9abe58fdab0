#pragma once
// Reads a whole user-supplied file. Throws InputError naming the path and the
// OS reason when it is missing, a directory, or unreadable.

#include <string>

namespace hn::compat {

std::string read_text_file(const std::string& path);

}  // namespace hn::compat
