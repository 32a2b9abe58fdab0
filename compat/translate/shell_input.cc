// The shell reader's entry points (shell_input.h) and the passes over the
// whole text after the walk: here-document manifests, and the net that turns
// every line plainly setting a library variable that nothing read into a
// note. The walk itself is shell_walker.cc, the commands' own settings
// shell_launch.cc.
#include "compat/translate/shell_input.h"

#include <algorithm>
#include <set>

#include "compat/input_error.h"
#include "compat/printable.h"
#include "compat/text_file.h"
#include "compat/translate/k8s_input.h"
#include "compat/translate/nccl_conf_input.h"
#include "compat/translate/shell_launch.h"
#include "compat/translate/shell_walker.h"

namespace hn::compat::translate {

namespace {

using HeredocLines = std::vector<std::pair<int, std::string>>;

// A here-document that is a manifest (kubectl apply -f - <<EOF) is read as
// one; its settings are those of the workload it describes.
void heredoc_manifests(const HeredocLines& lines, const std::string& file, EnvInput& out) {
  for (size_t i = 0; i < lines.size();) {
    size_t j = i + 1;
    while (j < lines.size() && lines[j].first == lines[j - 1].first + 1) ++j;
    std::string body;
    for (size_t k = i; k < j; ++k) body += lines[k].second + "\n";
    const int first = lines[i].first;
    i = j;
    if (body.find("apiVersion:") == std::string::npos && body.find("kind:") == std::string::npos)
      continue;
    EnvInput m;
    try {
      m = read_manifest_text(body, file);
    } catch (const InputError&) {
      continue;  // not YAML after all (a template): the net reports its settings
    }
    for (auto& e : m.entries) {
      e.line += first - 1;
      e.context = "here-document manifest" + (e.context.empty() ? "" : ", " + e.context);
      e.scope = "here-document at line " + std::to_string(first);
      out.entries.push_back(std::move(e));
    }
    for (auto& n : m.notes) {
      n.line += first - 1;
      out.notes.push_back(std::move(n));
    }
  }
}

std::string line_text(const std::string& text, int line) {
  size_t pos = 0;
  for (int l = 1; l < line && pos != std::string::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos) return "";
  size_t end = text.find('\n', pos);
  std::string s = text.substr(pos, end == std::string::npos ? end : end - pos);
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r\\");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// "Running tests (NCCL_ISOLATION_TESTS=1)": text inside a quoted message
// (an argument with spaces and no shell command in it) mentions a setting
// without making one.
bool in_message(const std::string& l, const std::string& name) {
  size_t at = l.find(name + "=");
  if (at == std::string::npos) return false;
  char q = 0;
  size_t open = 0;
  for (size_t i = 0; i < at; ++i)
    if ((l[i] == '"' || l[i] == '\'') && (i == 0 || l[i - 1] != '\\')) {
      if (!q) {
        q = l[i];
        open = i;
      } else if (q == l[i]) {
        q = 0;
      }
    }
  if (!q) return false;
  size_t close = l.find(q, at);
  std::string inside =
      l.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
  for (const char* shell : {"export ", "-x ", "env ", ";", "&&", "--export", "-e "})
    if (inside.find(shell) != std::string::npos) return false;
  return inside.find(' ') != std::string::npos && inside.compare(0, name.size(), name) != 0;
}

// Every line that plainly sets a library variable must be accounted for.
void safety_net(const std::string& text, const std::string& file, const HeredocLines& heredoc_lines,
                const LaunchRecord& record, EnvInput& out) {
  std::set<std::pair<std::string, int>> covered;
  for (const auto& e : out.entries) {
    covered.insert({e.name, e.line});
    for (const auto& a : e.alternatives) covered.insert({e.name, a.line});
  }
  for (const auto& n : out.notes) covered.insert({n.name, n.line});
  covered.insert(record.handed_on.begin(), record.handed_on.end());
  std::set<int> heredoc;
  for (const auto& [l, t] : heredoc_lines) heredoc.insert(l);
  // Here-document bodies are often manifests (kubectl apply -f - <<EOF).
  std::vector<std::pair<int, std::string>> mentions = comm_mentions(text, false);
  for (const auto& [l, t] : heredoc_lines)
    for (const auto& m : comm_mentions(t, true, l))
      if (std::find(mentions.begin(), mentions.end(), m) == mentions.end()) mentions.push_back(m);
  for (const auto& [line, name] : mentions) {
    if (covered.count({name, line}) || record.read_only_lines.count(line)) continue;
    if (!heredoc.count(line) && in_message(line_text(text, line), name)) continue;
    bool in_range = std::any_of(record.nested.begin(), record.nested.end(),
                                [&name = name, line = line](const NameLines& r) {
                                  return r.name == name && line >= r.lo && line <= r.hi;
                                });
    if (in_range) continue;
    out.notes.push_back(InputNote{
        heredoc.count(line) ? InputNote::kNotFollowed : InputNote::kUnread, name, file, line,
        line_text(text, line),
        heredoc.count(line) ? "inside a here-document: written to a file or fed to a command "
                              "that this reader does not follow"
                            : "sets " + name + " in a form this reader does not follow"});
  }
}

}  // namespace

bool is_comm_variable(std::string_view n) {
  for (const char* p :
       {"NCCL_", "RCCL_", "HCCL_", "TORCH_NCCL_", "TORCH_HCCL_", "GLOO_", "OMPI_MCA_", "CCL_"})
    if (n.substr(0, std::string_view(p).size()) == p) return true;
  return false;
}

EnvInput read_shell_text(const std::string& text, const std::string& file, ShellMode mode) {
  reject_nul_bytes(text, file);
  // A byte-order mark glues itself to the first name: bash runs that line as
  // a command, so the assignment on it never happens.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0)
    throw InputError(file, 1, 1, "",
                     "the file starts with a UTF-8 byte-order mark (bytes EF BB BF): a shell runs "
                     "the first line as a command, not an assignment; save the file without it");
  // The values go into reports that must be UTF-8; an env file holds nothing
  // else, so a byte that is not UTF-8 is a bad file, named where it is.
  if (mode == ShellMode::kEnvFile)
    if (std::size_t at = first_invalid_utf8(text); at != std::string::npos) {
      int line = 1;
      std::size_t start = 0;
      for (std::size_t i = 0; i < at; ++i)
        if (text[i] == '\n') {
          ++line;
          start = i + 1;
        }
      static const char kHex[] = "0123456789ABCDEF";
      const auto b = static_cast<unsigned char>(text[at]);
      throw InputError(file, line, static_cast<int>(at - start + 1), "",
                       std::string("a byte that is not UTF-8 (0x") + kHex[b >> 4] + kHex[b & 15] +
                           "); save the file as UTF-8 (iconv -t UTF-8)");
    }
  ShellWalker walker(text, file, mode, nullptr);
  EnvInput in = walker.run();
  if (mode == ShellMode::kScript) {
    std::vector<EnvEntry> job = sbatch_exports(text, file);
    in.entries.insert(in.entries.begin(), job.begin(), job.end());
    heredoc_manifests(walker.heredoc_lines(), file, in);
    // echo NCCL_X=v >> /etc/nccl.conf: in effect for every later NCCL init,
    // unless the environment sets the name (NCCL never overwrites it), so
    // these come first and any other setting of the name wins over them.
    std::vector<EnvEntry> conf = nccl_conf_writes(text, file, walker.heredoc_lines(), &in.notes);
    in.entries.insert(in.entries.begin(), conf.begin(), conf.end());
    safety_net(text, file, walker.heredoc_lines(), walker.record(), in);
    in.flags = framework_flags(text, file);
  }
  return in;
}

std::vector<EnvEntry> parse_shell_text(const std::string& text, const std::string& file,
                                       ShellMode mode) {
  return read_shell_text(text, file, mode).entries;
}

}  // namespace hn::compat::translate
