#include "compat/op_list_reader.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "compat/input_error.h"
#include "compat/op_matrix.h"
#include "compat/text_file.h"
#include "compat/yaml_input.h"

namespace hn::compat {

void classify_op_name(const std::string& name, OpOccurrence& o) {
  o.op = name;
  o.domain.clear();
  if (name.rfind("aten::", 0) == 0) {
    o.naming = OpNaming::kAten;
  } else if (auto p = name.rfind("::"); p != std::string::npos) {
    o.naming = OpNaming::kOnnx;
    o.domain = name.substr(0, p);
    o.op = name.substr(p + 2);
    if (o.domain.empty()) o.domain = "ai.onnx";
  } else if (!name.empty() && std::isupper(static_cast<unsigned char>(name[0]))) {
    o.naming = OpNaming::kOnnx;
    o.domain = "ai.onnx";
  } else {
    o.naming = OpNaming::kMatrix;
  }
}

namespace {

OpInventory make_inventory(const std::string& file) {
  OpInventory inv;
  inv.kind = InventoryKind::kOpList;
  inv.file = file;
  return inv;
}

// A dtype in a hand-made list must be one a matrix can name; a typo ("f99")
// would otherwise surface as "unsupported dtype" instead of as the input error
// it is.
void check_dtype(const std::string& dtype, const std::string& file, int line, int col,
                 const std::string& field) {
  const auto& known = known_dtype_names();
  if (std::find(known.begin(), known.end(), dtype) != known.end()) return;
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw InputError(file, line, col, field,
                   "unknown dtype '" + dtype + "' (expected one of: " + list + ")");
}

void check_name(const std::string& name, const std::string& file, int line, int col,
                const std::string& field) {
  bool ends_in_scope = name.size() >= 2 && name.compare(name.size() - 2, 2, "::") == 0;
  if (name.empty() || ends_in_scope || name.find_first_of(" \t") != std::string::npos)
    throw InputError(file, line, col, field, "expected an operator name");
}

}  // namespace

OpInventory read_op_list_yaml(const std::string& text, const std::string& file) {
  YamlMap top(load_yaml_text(text, file), file, "");
  if (auto v = top.opt_int("version", 1, 1000); v && *v != 1)
    throw_at(top.get("version"), file, "version", "unsupported op list version (expected 1)");
  YAML::Node ops = top.required("ops");
  top.finish();
  if (!ops.IsSequence()) throw_at(ops, file, "ops", "expected a list of operators");
  OpInventory inv = make_inventory(file);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string field = "ops[" + std::to_string(i) + "]";
    const YAML::Node& n = ops[i];
    OpOccurrence o;
    auto [line, col] = yaml_position(n);
    o.position = o.last_position = line;
    if (n.IsScalar()) {
      std::string name = yaml_string(n, file, field);
      check_name(name, file, line, col, field);
      classify_op_name(name, o);
    } else {
      YamlMap m(n, file, field);
      std::string name = m.req_string("op");
      check_name(name, file, line, col, m.field("op"));
      classify_op_name(name, o);
      if (auto d = m.opt_string("domain")) {
        if (o.naming != OpNaming::kOnnx)
          throw_at(m.get("domain"), file, m.field("domain"), "only ONNX op types have a domain");
        o.domain = *d;
      }
      o.dtype = m.opt_string("dtype").value_or("");
      if (!o.dtype.empty()) {
        auto [dl, dc] = yaml_position(m.get("dtype"));
        check_dtype(o.dtype, file, dl, dc, m.field("dtype"));
      }
      o.count = m.opt_int("count", 1, 1LL << 40).value_or(1);
      if (auto r = m.opt_int("rank", 0, 64)) o.rank = static_cast<int>(*r);
      o.opset = static_cast<int>(m.opt_int("opset", 1, 1000).value_or(0));
      YamlMap attrs(m.get("attributes"), file, m.field("attributes"));
      if (attrs.node().IsMap())
        for (auto it = attrs.node().begin(); it != attrs.node().end(); ++it) {
          std::string key = it->first.Scalar();
          o.attributes[key] = yaml_string(it->second, file, attrs.field(key));
        }
      m.finish();
    }
    o.where = file + ":" + std::to_string(line);
    inv.ops.push_back(std::move(o));
  }
  inv.detail = "op list (YAML), " + std::to_string(inv.ops.size()) + " entries";
  return inv;
}

OpInventory read_op_list_text(const std::string& text, const std::string& file) {
  reject_nul_bytes(text, file);
  OpInventory inv = make_inventory(file);
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (auto hash = raw.find('#'); hash != std::string::npos) raw.resize(hash);
    std::istringstream words(raw);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;
    if (w.size() > 3)
      throw InputError(file, line, 0, "",
                       "expected `OP [DTYPE] [COUNT]`, got " + std::to_string(w.size()) + " words");
    for (unsigned char c : raw)
      if (c < 0x20 && c != '\t' && c != '\r')
        throw InputError(file, line, 0, "", "control character in an op list (binary file?)");
    OpOccurrence o;
    classify_op_name(w[0], o);
    if (w.size() >= 2) {
      o.dtype = w[1];
      check_dtype(o.dtype, file, line, 0, "dtype");
    }
    if (w.size() == 3) {
      std::size_t used = 0;
      long long c = 0;
      try {
        c = std::stoll(w[2], &used, 10);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != w[2].size() || c < 1)
        throw InputError(file, line, 0, "count", "expected a positive integer, got '" + w[2] + "'");
      o.count = c;
    }
    o.position = o.last_position = line;
    o.where = file + ":" + std::to_string(line);
    inv.ops.push_back(std::move(o));
  }
  inv.detail = "op list (text), " + std::to_string(inv.ops.size()) + " entries";
  return inv;
}

}  // namespace hn::compat
