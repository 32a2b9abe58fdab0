#include "compat/translate/nccl_conf_input.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "compat/translate/shell_input.h"

namespace hn::compat::translate {

namespace {

constexpr std::size_t kNcclMaxField = 1023;    // param.cc: char envVar[1024], envValue[1024]
constexpr std::size_t kNcclLineBuffer = 4096;  // param.cc reads lines through a 4096-byte buffer

bool valid_name(const std::string& n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// One KEY=VALUE line as NCCL takes it, or false for a line NCCL skips.
bool conf_line(std::string line, std::string& key, std::string& value) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (line.empty() || line[0] == '#') return false;
  std::size_t eq = line.find('=');
  if (eq == std::string::npos) return false;
  key = line.substr(0, std::min(eq, kNcclMaxField));
  value = line.substr(eq + 1, kNcclMaxField);
  return !key.empty();
}

EnvEntry conf_entry(const std::string& key, const std::string& value, const std::string& file,
                    int line, const std::string& context) {
  EnvEntry e;
  e.name = key;
  e.value = e.raw = value;
  e.file = file;
  e.line = line;
  e.context = context;
  e.dynamic = value.find('$') != std::string::npos || value.find('`') != std::string::npos;
  return e;
}

// The text an echo or printf writes: its arguments with quotes removed and,
// for printf and echo -e, "\n" as a line break.
std::string written_text(const std::string& command, const std::string& args, bool escapes) {
  std::string out;
  char quote = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    char c = args[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
        continue;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (c == '\\' && i + 1 < args.size() && (escapes || quote != '\'')) {
      char n = args[i + 1];
      if (escapes && n == 'n') {
        out += '\n';
        ++i;
        continue;
      }
      if (quote != '\'' && (n == '"' || n == '\\' || n == '$')) {
        out += n;
        ++i;
        continue;
      }
    }
    out += c;
  }
  // echo separates its arguments with one space; printf's format is one word
  // here (the arguments of %s are not followed).
  (void)command;
  return out;
}

std::string clean_path(std::string p) {
  while (!p.empty() && (p.back() == '"' || p.back() == '\'' || p.back() == ';')) p.pop_back();
  while (!p.empty() && (p.front() == '"' || p.front() == '\'')) p.erase(0, 1);
  return p;
}

}  // namespace

bool names_nccl_conf(std::string_view path) {
  while (!path.empty() && (path.back() == '"' || path.back() == '\'' || path.back() == ';'))
    path.remove_suffix(1);
  while (!path.empty() && (path.front() == '"' || path.front() == '\'')) path.remove_prefix(1);
  if (path == "$NCCL_CONF_FILE" || path == "${NCCL_CONF_FILE}") return true;
  std::size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  // nccl.conf, .nccl.conf, and variants kept side by side (h100.nccl.conf).
  return base == "nccl.conf" || base.ends_with(".nccl.conf");
}

EnvInput read_nccl_conf_text(const std::string& text, const std::string& file) {
  EnvInput in;
  const std::vector<std::string> lines = text_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string key, value;
    if (!conf_line(lines[i], key, value)) continue;
    in.entries.push_back(conf_entry(key, value, file, static_cast<int>(i) + 1,
                                    "NCCL configuration file; the process environment wins"));
  }
  return in;
}

std::vector<EnvEntry> nccl_conf_writes(
    const std::string& text, const std::string& file,
    const std::vector<std::pair<int, std::string>>& heredoc_lines, std::vector<InputNote>* notes) {
  // echo/printf ... >> FILE, echo/printf ... | [sudo] tee [-a] FILE
  static const std::regex kWrite(
      R"((?:^|[;&|(\s])(echo|printf)((?:\s+-[neE]+)*)\s+(.*?)\s*(?:>>?\s*|\|\s*(?:sudo\s+)?tee\s+(?:-a\s+|--append\s+)?)(\S+))");
  // cat > FILE <<EOF, cat <<EOF > FILE, tee [-a] FILE <<EOF
  static const std::regex kHeredocTarget(R"((?:>>?\s*|\btee\s+(?:-a\s+|--append\s+)?)(\S+))");
  std::vector<EnvEntry> out;
  const std::vector<std::string> lines = text_lines(text);
  std::vector<bool> in_heredoc(lines.size() + 2, false);
  for (const auto& [l, t] : heredoc_lines)
    if (l >= 1 && static_cast<std::size_t>(l) < in_heredoc.size()) in_heredoc[l] = true;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    if (in_heredoc[line_no]) continue;
    const std::string& l = lines[i];
    if (l.find("nccl.conf") == std::string::npos && l.find("NCCL_CONF_FILE") == std::string::npos)
      continue;
    // std::regex recurses per character: a line longer than NCCL's own line
    // buffer is left to the readers' net, which notes what it carries.
    if (l.size() > kNcclLineBuffer) {
      if (notes)
        for (const auto& [at, name] : comm_mentions(l, false, line_no))
          notes->push_back(InputNote{InputNote::kUnread, name, file, at, l.substr(0, 80) + "...",
                                     "a line longer than NCCL's 4096-byte line buffer writing "
                                     "its configuration file: not read"});
      continue;
    }
    if (std::size_t a = l.find_first_not_of(" \t"); a != std::string::npos && l[a] == '#')
      continue;  // a comment, in a script or a Dockerfile
    for (auto it = std::sregex_iterator(l.begin(), l.end(), kWrite); it != std::sregex_iterator();
         ++it) {
      const std::smatch& m = *it;
      if (!names_nccl_conf(m[4].str())) continue;
      const bool escapes = m[1] == "printf" || m[2].str().find('e') != std::string::npos;
      const std::string written = written_text(m[1], m[3], escapes);
      for (const std::string& w : text_lines(written)) {
        std::string key, value;
        if (conf_line(w, key, value) && valid_name(key))
          out.push_back(
              conf_entry(key, value, file, line_no,
                         "written to " + clean_path(m[4].str()) +
                             ", NCCL's configuration file; the process environment wins"));
      }
    }
  }
  // Here-documents: the body of a command that writes an NCCL configuration file.
  for (std::size_t i = 0; i < heredoc_lines.size();) {
    std::size_t j = i + 1;
    while (j < heredoc_lines.size() && heredoc_lines[j].first == heredoc_lines[j - 1].first + 1)
      ++j;
    const int first = heredoc_lines[i].first;
    std::string target;
    if (first >= 2) {
      const std::string& command = lines[static_cast<std::size_t>(first) - 2];
      for (auto it = std::sregex_iterator(command.begin(), command.end(), kHeredocTarget);
           it != std::sregex_iterator(); ++it)
        if (names_nccl_conf((*it)[1].str())) target = (*it)[1].str();
    }
    if (!target.empty())
      for (std::size_t k = i; k < j; ++k) {
        std::string key, value;
        if (conf_line(heredoc_lines[k].second, key, value) && valid_name(key))
          out.push_back(
              conf_entry(key, value, file, heredoc_lines[k].first,
                         "written to " + clean_path(target) +
                             ", NCCL's configuration file; the process environment wins"));
      }
    i = j;
  }
  return out;
}

}  // namespace hn::compat::translate
