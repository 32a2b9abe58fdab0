#pragma once
// A directory under $TMPDIR (or /tmp) that is removed with everything in it
// when the object goes out of scope.

#include <string>

namespace hn::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes content to path()/name and returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

}  // namespace hn::test
