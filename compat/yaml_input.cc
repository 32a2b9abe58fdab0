#include "compat/yaml_input.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <istream>
#include <map>
#include <streambuf>

#include "compat/input_guard.h"
#include "compat/printable.h"
#include "compat/text_file.h"

namespace hn::compat {

namespace {

// yaml-cpp keeps roughly 300 to 500 bytes per node (measured on 0.7: 1M list
// items take 515 MB), so the node count, not the file size, bounds memory.
// The largest real input, a snapshot of a node with thousands of routes,
// holds well under 100,000 nodes.
constexpr std::size_t kMaxNodes = 500'000;
// What aliases may add on top of the nodes written out: every reader that
// walks the tree visits an aliased subtree once per alias ("billion laughs":
// 470 bytes that expand to 10^9 nodes).
constexpr std::size_t kMaxAliasNodes = 1'000'000;
constexpr std::size_t kMaxAliasBytes = kMaxInputBytes;

// The text at a parser mark, for "what is wrong": up to 40 bytes of the line,
// made printable.
std::string excerpt_at(const std::string& text, const YAML::Mark& mark) {
  if (mark.is_null() || mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= text.size())
    return "";
  std::size_t from = static_cast<std::size_t>(mark.pos);
  std::size_t to = text.find('\n', from);
  to = std::min(to == std::string::npos ? text.size() : to, from + 40);
  return printable(std::string_view(text).substr(from, to - from), 40);
}

InputError parse_error(const YAML::Exception& e, const std::string& text,
                       const std::string& source_name) {
  const bool parser = dynamic_cast<const YAML::ParserException*>(&e) != nullptr;
  std::string what = parser ? "malformed YAML: " + printable(e.msg) : printable(e.msg);
  if (std::string near = excerpt_at(text, e.mark); !near.empty()) what += " (at '" + near + "')";
  return InputError(source_name, e.mark.line + 1, e.mark.column + 1, "", what);
}

// Walks the parser's events before any node is built (an alias is one event,
// so anchors cannot make this walk explode) and enforces what yaml-cpp does
// not:
//  * progress: yaml-cpp 0.7 reports an empty document forever after a stray
//    ',' behind a top-level flow collection (`[a],`); each document must
//    start past the previous one, so the walk ends after at most one
//    document per byte;
//  * nesting (block collections; flow ones were counted before parsing), the
//    node count, and what aliases expand to;
//  * a key given twice in one map: yaml-cpp keeps both pairs and every lookup
//    returns the first, so `min_memory_gib: 1` followed by
//    `min_memory_gib: 100000` would silently mean 1.
class EventCheck final : public YAML::EventHandler {
 public:
  EventCheck(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (!document_lines_.empty() && mark.pos <= last_document_pos_) {
      std::string c = excerpt_at(text_, mark).substr(0, 1);
      throw InputError(
          source_, mark.line + 1, mark.column + 1, "",
          c == ","    ? "malformed YAML: unexpected ',' outside a flow collection ([...] or {...})"
          : c.empty() ? "malformed YAML: the parser cannot read past this point"
                      : "malformed YAML: unexpected '" + c + "': the parser cannot read past it");
    }
    last_document_pos_ = mark.pos;
    stack_.clear();
    anchors_.clear();
    document_lines_.push_back(mark.line + 1);
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node(mark, nullptr);
    leaf(mark, anchor, 0);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node(mark, nullptr);
    for (const auto& f : stack_)
      if (f.anchor == anchor)
        throw InputError(source_, mark.line + 1, mark.column + 1, path(),
                         "an alias inside the node it names makes a cycle (a tree that never "
                         "ends); write the value out instead");
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) return;  // yaml-cpp reports an unknown anchor itself
    expanded_nodes_ += it->second.nodes;
    expanded_bytes_ += it->second.bytes;
    alias_nodes_ += it->second.nodes;
    alias_bytes_ += it->second.bytes;
    if (alias_nodes_ > kMaxAliasNodes || alias_bytes_ > kMaxAliasBytes)
      throw InputError(source_, mark.line + 1, mark.column + 1, path(),
                       "the aliases (*name) in this file expand to more than " +
                           std::to_string(kMaxAliasNodes) + " nodes or " +
                           std::to_string(kMaxAliasBytes >> 20) +
                           " MiB (an alias bomb); write the repeated values out instead");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    node(mark, &value);
    leaf(mark, anchor, value.size());
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    node(mark, nullptr);
    open(mark, false, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    node(mark, nullptr);
    open(mark, true, anchor);
  }
  void OnMapEnd() override { close(); }

  // 1-based line of each document's start, in order.
  const std::vector<int>& document_lines() const { return document_lines_; }

 private:
  struct Size {
    std::size_t nodes = 0, bytes = 0;
  };
  struct Frame {
    Frame(bool is_map, YAML::anchor_t a, std::size_t n, std::size_t b)
        : map(is_map), anchor(a), nodes_at_start(n), bytes_at_start(b) {}
    bool map;
    YAML::anchor_t anchor;            // this collection's anchor, 0 if none
    std::size_t nodes_at_start;       // expanded_nodes_ when it began
    std::size_t bytes_at_start;       // expanded_bytes_ when it began
    bool want_key = true;             // map: the next node is a key
    std::string key;                  // map: the key whose value is being read
    std::size_t index = 0;            // sequence: the element being read
    std::size_t count = 0;            // sequence: elements seen
    std::map<std::string, int> keys;  // map: scalar key -> its line
  };

  void count(const YAML::Mark& mark) {
    ++expanded_nodes_;
    if (++nodes_ > kMaxNodes)
      throw InputError(source_, mark.line + 1, mark.column + 1, path(),
                       "more than " + std::to_string(kMaxNodes) +
                           " YAML nodes; no real input holds that many, and parsing them would "
                           "take gigabytes of memory");
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, std::size_t bytes) {
    count(mark);
    expanded_bytes_ += bytes;
    if (anchor) anchors_[anchor] = {1, bytes};
  }
  void open(const YAML::Mark& mark, bool is_map, YAML::anchor_t anchor) {
    count(mark);
    stack_.emplace_back(is_map, anchor, expanded_nodes_ - 1, expanded_bytes_);
    if (stack_.size() > static_cast<std::size_t>(kMaxNesting))
      throw InputError(source_, mark.line + 1, mark.column + 1, path(),
                       "nested more than " + std::to_string(kMaxNesting) +
                           " levels deep; no real input nests that deep");
  }
  void close() {
    const Frame& f = stack_.back();
    if (f.anchor)
      anchors_[f.anchor] = {expanded_nodes_ - f.nodes_at_start, expanded_bytes_ - f.bytes_at_start};
    stack_.pop_back();
  }

  // A node starts inside the innermost container: a map key, a map value or
  // a list element.
  void node(const YAML::Mark& mark, const std::string* scalar) {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (!f.map) {
      f.index = f.count++;
      return;
    }
    if (!f.want_key) {
      f.want_key = true;
      return;
    }
    f.want_key = false;
    f.key = scalar ? *scalar : "?";
    if (!scalar) return;  // a complex key: nothing of ours uses them
    auto [it, inserted] = f.keys.emplace(*scalar, mark.line + 1);
    if (!inserted)
      throw InputError(source_, mark.line + 1, mark.column + 1, path(),
                       "duplicate key '" + printable(*scalar) + "' (first at line " +
                           std::to_string(it->second) + "); give each key once");
  }

  std::string path() const {
    std::string p;
    for (const auto& f : stack_) {
      if (f.map)
        p += (p.empty() ? "" : ".") + printable(f.key, 60);
      else
        p += "[" + std::to_string(f.index) + "]";
    }
    return p;
  }

  const std::string& text_;
  const std::string& source_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Size> anchors_;
  std::vector<int> document_lines_;
  int last_document_pos_ = -1;
  std::size_t nodes_ = 0;                          // nodes written in the file
  std::size_t expanded_nodes_ = 0;                 // nodes with every alias expanded
  std::size_t expanded_bytes_ = 0;                 // scalar bytes with every alias expanded
  std::size_t alias_nodes_ = 0, alias_bytes_ = 0;  // what aliases added
};

}  // namespace

std::vector<YAML::Node> load_yaml_documents(const std::string& text, const std::string& source_name,
                                            std::vector<int>* document_lines) {
  guard_structured_text(text, source_name, Syntax::kYaml);
  try {
    EventCheck check(text, source_name);
    // Read the text in place: a stringstream would copy it (64 MiB at the cap).
    struct ViewBuf : std::streambuf {
      explicit ViewBuf(const std::string& s) {
        char* p = const_cast<char*>(s.data());  // read-only: get area only
        setg(p, p, p + s.size());
      }
    } view(text);
    std::istream in(&view);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(check)) {
    }
    if (document_lines) *document_lines = check.document_lines();
    // The walk above ended, so LoadAll (the same parser on the same text)
    // ends too, after the same documents.
    return YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw parse_error(e, text, source_name);
  }
}

YAML::Node load_yaml_text(const std::string& text, const std::string& source_name) {
  std::vector<int> lines;
  std::vector<YAML::Node> docs = load_yaml_documents(text, source_name, &lines);
  // Everything after the first document would be silently ignored, so a
  // second one is an error; an empty one (a trailing `---`) holds nothing.
  for (std::size_t i = 1; i < docs.size(); ++i)
    if (!docs[i].IsNull())
      throw InputError(source_name, i < lines.size() ? lines[i] : 0, 0, "",
                       "a second YAML document (after '---'): this file holds exactly one "
                       "document; remove the '---' separator or split the file");
  return docs.empty() ? YAML::Node() : docs[0];
}

YAML::Node load_yaml_file(const std::string& path) {
  return load_yaml_text(read_text_file(path), path);
}

std::pair<int, int> yaml_position(const YAML::Node& node) {
  if (!node.IsDefined()) return {0, 0};
  YAML::Mark m = node.Mark();
  if (m.is_null()) return {0, 0};
  return {m.line + 1, m.column + 1};
}

void throw_at(const YAML::Node& node, const std::string& source, const std::string& field,
              const std::string& what) {
  auto [line, col] = yaml_position(node);
  throw InputError(source, line, col, field, what);
}

namespace {
std::string describe(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  if (n.IsNull()) return "nothing";
  return "an undefined value";
}
}  // namespace

std::string yaml_string(const YAML::Node& n, const std::string& source, const std::string& field) {
  if (!n.IsScalar()) throw_at(n, source, field, "expected a string, got " + describe(n));
  return n.Scalar();
}

long long yaml_int(const YAML::Node& n, const std::string& source, const std::string& field,
                   long long min, long long max) {
  if (!n.IsScalar()) throw_at(n, source, field, "expected an integer, got " + describe(n));
  const std::string& s = n.Scalar();
  // Decimal only: base 0 would read 010 as 8 and 0x10 as 16, and YAML 1.2
  // has no octal without 0o; a sign, then digits, nothing else.
  long long v = 0;
  const char* first = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
  const char* last = s.data() + s.size();
  auto [end, ec] = std::from_chars(first, last, v, 10);
  if (first == last || (*first == '-' && first != s.data()) || end != last ||
      ec == std::errc::invalid_argument)
    throw_at(n, source, field, "expected an integer, got '" + s + "' (decimal digits only)");
  if (ec == std::errc::result_out_of_range)
    throw_at(n, source, field,
             "value " + s + " is out of range [" + std::to_string(min) + ", " +
                 std::to_string(max) + "]");
  if (v < min || v > max)
    throw_at(n, source, field,
             "value " + s + " is out of range [" + std::to_string(min) + ", " +
                 std::to_string(max) + "]");
  return v;
}

double yaml_number(const YAML::Node& n, const std::string& source, const std::string& field) {
  if (!n.IsScalar()) throw_at(n, source, field, "expected a number, got " + describe(n));
  const std::string& s = n.Scalar();
  // Decimal (or exponent) notation only: strtod would also take hex floats
  // and leading spaces.
  double v = 0;
  const char* first = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
  const char* last = s.data() + s.size();
  auto [end, ec] = std::from_chars(first, last, v, std::chars_format::general);
  if (first == last || (*first == '-' && first != s.data()) || end != last || ec != std::errc() ||
      !std::isfinite(v))
    throw_at(n, source, field, "expected a number, got '" + s + "'");
  return v;
}

bool yaml_bool(const YAML::Node& n, const std::string& source, const std::string& field) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  throw_at(n, source, field, "expected true or false, got " + describe(n));
}

std::string yaml_index(const std::string& base, size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

void require_yaml_sequence(const YAML::Node& n, const std::string& source,
                           const std::string& field) {
  if (n.IsDefined() && !n.IsNull() && !n.IsSequence())
    throw_at(n, source, field, "expected a list");
}

std::vector<std::string> yaml_string_list(const YAML::Node& n, const std::string& source,
                                          const std::string& field) {
  std::vector<std::string> out;
  if (!n.IsDefined() || n.IsNull()) return out;
  if (n.IsScalar()) return {n.Scalar()};
  if (!n.IsSequence())
    throw_at(n, source, field, "expected a string or a list of strings, got " + describe(n));
  for (size_t i = 0; i < n.size(); ++i)
    out.push_back(yaml_string(n[i], source, field + "[" + std::to_string(i) + "]"));
  return out;
}

YamlMap::YamlMap(YAML::Node node, std::string source, std::string path)
    : node_(std::move(node)), source_(std::move(source)), path_(std::move(path)) {
  if (node_.IsDefined() && !node_.IsNull() && !node_.IsMap())
    throw_at(node_, source_, path_.empty() ? "(document)" : path_,
             "expected a map of key: value, got " + describe(node_));
}

std::string YamlMap::field(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool YamlMap::has(std::string_view key) {
  known_.emplace_back(key);
  if (!node_.IsMap()) return false;
  return static_cast<bool>(node_[std::string(key)]);
}

YAML::Node YamlMap::get(std::string_view key) {
  known_.emplace_back(key);
  if (!node_.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node& cn = node_;
  YAML::Node child = cn[std::string(key)];
  // An absent key yields yaml-cpp's "invalid" node, which throws on most uses;
  // hand back a valid Undefined node instead.
  if (!child) return YAML::Node(YAML::NodeType::Undefined);
  return child;
}

YAML::Node YamlMap::required(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) throw_at(node_, source_, field(key), "missing required field");
  return n;
}

std::optional<std::string> YamlMap::opt_string(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_string(n, source_, field(key));
}

std::string YamlMap::req_string(std::string_view key) {
  return yaml_string(required(key), source_, field(key));
}

std::optional<long long> YamlMap::opt_int(std::string_view key, long long min, long long max) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_int(n, source_, field(key), min, max);
}

std::optional<double> YamlMap::opt_number(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_number(n, source_, field(key));
}

std::optional<bool> YamlMap::opt_bool(std::string_view key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return yaml_bool(n, source_, field(key));
}

std::vector<std::string> YamlMap::string_list(std::string_view key) {
  return yaml_string_list(get(key), source_, field(key));
}

void YamlMap::finish() const {
  if (!node_.IsMap()) return;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.Scalar();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string allowed;
    std::vector<std::string> sorted = known_;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (const auto& k : sorted) allowed += (allowed.empty() ? "" : ", ") + k;
    throw_at(it->first, source_, field(key),
             "unknown key '" + key + "' (allowed: " + allowed + ")");
  }
}

}  // namespace hn::compat
