#include "compat/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compat/input_error.h"

namespace hn::compat {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, 0, "", "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "", std::string("cannot open: ") + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, 0, "", "read failed");
  return ss.str();
}

}  // namespace hn::compat
