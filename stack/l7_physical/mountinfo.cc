#include "stack/l7_physical/mountinfo.h"

#include <charconv>
#include <map>
#include <set>

#include "stack/l7_physical/source.h"

namespace hn::stack::physical {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> split_options(std::string_view s) {
  std::vector<std::string> out;
  for (auto part : split(s, ',')) out.push_back(unescape_mount_field(part));
  return out;
}

int parse_id(std::string_view s, const std::string& where, const char* what) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw SourceError(where + ": " + what + " '" + std::string(s) + "' is not a number");
  return v;
}

MountEntry parse_line(std::string_view line, const std::string& where) {
  auto f = split(line, ' ');
  size_t dash = 0;
  for (size_t i = 6; i < f.size(); ++i)
    if (f[i] == "-") {
      dash = i;
      break;
    }
  if (f.size() < 10 || dash == 0 || f.size() < dash + 3)
    throw SourceError(where +
                      ": not a mountinfo line (expected 'id parent major:minor root "
                      "mount-point options [optional...] - fstype source super-options')");
  MountEntry m;
  m.mount_id = parse_id(f[0], where, "mount id");
  m.parent_id = parse_id(f[1], where, "parent id");
  m.major_minor = std::string(f[2]);
  if (m.major_minor.find(':') == std::string::npos)
    throw SourceError(where + ": device '" + m.major_minor + "' is not major:minor");
  m.root = unescape_mount_field(f[3]);
  m.mount_point = unescape_mount_field(f[4]);
  if (m.mount_point.empty() || m.mount_point[0] != '/')
    throw SourceError(where + ": mount point '" + m.mount_point + "' is not absolute");
  m.mount_options = split_options(f[5]);
  for (size_t i = 6; i < dash; ++i) m.optional_fields.emplace_back(f[i]);
  m.fstype = unescape_mount_field(f[dash + 1]);
  m.source = unescape_mount_field(f[dash + 2]);
  // Older kernels may omit super options; more fields than that never appear.
  if (f.size() > dash + 3) m.super_options = split_options(f[dash + 3]);
  return m;
}

const MountEntry* longest_prefix_last(const std::vector<MountEntry>& mounts,
                                      const std::string& path) {
  const MountEntry* best = nullptr;
  for (const auto& m : mounts)
    if (path_has_prefix(path, m.mount_point) &&
        (!best || m.mount_point.size() >= best->mount_point.size()))
      best = &m;
  return best;
}

}  // namespace

std::string unescape_mount_field(std::string_view s) {
  auto is_octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && is_octal(s[i + 1]) && is_octal(s[i + 2]) &&
        is_octal(s[i + 3])) {
      out +=
          static_cast<char>(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::vector<MountEntry> parse_mountinfo(std::string_view text, const std::string& source_name) {
  std::vector<MountEntry> out;
  int line_no = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    out.push_back(parse_line(line, source_name + ":" + std::to_string(line_no)));
  }
  return out;
}

bool path_has_prefix(const std::string& path, const std::string& prefix) {
  if (prefix == "/") return !path.empty() && path[0] == '/';
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

const MountEntry* covering_mount(const std::vector<MountEntry>& mounts, const std::string& path) {
  if (mounts.empty() || path.empty() || path[0] != '/') return nullptr;
  std::set<int> ids;
  for (const auto& m : mounts)
    if (!ids.insert(m.mount_id).second) return longest_prefix_last(mounts, path);

  // The last mount at `point` whose parent is `parent`: the next one up the stack.
  auto child_at = [&](const MountEntry* parent, const std::string& point) {
    const MountEntry* found = nullptr;
    for (const auto& m : mounts)
      if (m.parent_id == parent->mount_id && m.mount_id != parent->mount_id &&
          m.mount_point == point)
        found = &m;
    return found;
  };
  auto top_of_stack = [&](const MountEntry* m) {
    for (int guard = 0; guard < 1000; ++guard) {
      const MountEntry* up = child_at(m, m->mount_point);
      if (!up) break;
      m = up;
    }
    return m;
  };

  // The root mount: a "/" whose parent is not itself a "/" in this table (the
  // namespace's root hangs off a parent we cannot see).
  const MountEntry* cur = nullptr;
  for (const auto& m : mounts) {
    if (m.mount_point != "/") continue;
    bool parent_is_root = false;
    for (const auto& p : mounts)
      parent_is_root = parent_is_root || (p.mount_point == "/" && p.mount_id == m.parent_id &&
                                          p.mount_id != m.mount_id);
    if (!parent_is_root) cur = &m;
  }
  if (!cur) return longest_prefix_last(mounts, path);
  cur = top_of_stack(cur);

  // Down the path, one component at a time.
  std::string prefix;
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    prefix = path.substr(0, pos);
    if (prefix.size() > 1 && prefix.back() == '/') continue;  // "//"
    if (const MountEntry* c = child_at(cur, prefix)) cur = top_of_stack(c);
  }
  return cur;
}

std::vector<std::string> effective_options(const MountEntry& m) {
  std::vector<std::string> out = m.mount_options;
  out.insert(out.end(), m.super_options.begin(), m.super_options.end());
  return out;
}

bool is_read_only(const MountEntry& m) {
  for (const auto& o : effective_options(m))
    if (o == "ro") return true;
  return false;
}

std::string normalize_path(const std::string& path) {
  std::vector<std::string> parts;
  for (auto part : split(path, '/')) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.emplace_back(part);
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

}  // namespace hn::stack::physical
