#include "compat/op_mapping.h"

#include "compat/yaml_input.h"

namespace hn::compat {

std::string display_name(const OpOccurrence& o) {
  if (o.naming == OpNaming::kOnnx && !o.domain.empty() && o.domain != "ai.onnx")
    return o.domain + "::" + o.op;
  return o.op;
}

std::optional<std::string> OpMapping::resolve(const OpOccurrence& o) const {
  switch (o.naming) {
    case OpNaming::kMatrix:
      return o.op;
    case OpNaming::kOnnx: {
      auto it = onnx.find(display_name(o));
      if (it == onnx.end()) return std::nullopt;
      return it->second;
    }
    case OpNaming::kAten: {
      std::string name = aten_base(o.op);
      auto it = aten.find(name);
      if (it == aten.end() && name.size() > 1 && name.back() == '_')
        it = aten.find(name.substr(0, name.size() - 1));
      if (it == aten.end()) return std::nullopt;
      return it->second;
    }
  }
  return std::nullopt;
}

bool OpMapping::no_kernel(const OpOccurrence& o) const {
  if (o.naming == OpNaming::kOnnx) return no_kernel_onnx.count(display_name(o)) > 0;
  if (o.naming != OpNaming::kAten) return false;
  std::string name = aten_base(o.op);
  if (no_kernel_aten.count(name)) return true;
  return name.size() > 1 && name.back() == '_' &&
         no_kernel_aten.count(name.substr(0, name.size() - 1));
}

std::string aten_base(const std::string& op) {
  // "aten::add.Tensor" -> "aten::add"; the namespace's "::" has no dot.
  size_t dot = op.find('.', op.rfind("::") == std::string::npos ? 0 : op.rfind("::") + 2);
  return dot == std::string::npos ? op : op.substr(0, dot);
}

namespace {
void read_table(YAML::Node n, const std::string& source, const std::string& field,
                std::map<std::string, std::string>& out, bool aten) {
  YamlMap m(n, source, field);
  if (!n.IsDefined() || n.IsNull()) return;
  for (auto it = n.begin(); it != n.end(); ++it) {
    std::string key = yaml_string(it->first, source, field);
    if (aten && key.rfind("aten::", 0) != 0)
      throw_at(it->first, source, field + "." + key, "aten ops are written aten::name");
    if (out.count(key)) throw_at(it->first, source, field + "." + key, "listed twice");
    out[key] = yaml_string(it->second, source, field + "." + key);
  }
}
}  // namespace

OpMapping parse_op_mapping(const std::string& text, const std::string& source) {
  YamlMap top(load_yaml_text(text, source), source, "");
  long long version = yaml_int(top.required("version"), source, "version", 1, 1000);
  if (version != 1)
    throw_at(top.get("version"), source, "version", "unsupported version (expected 1)");
  OpMapping m;
  m.source = source;
  read_table(top.get("onnx"), source, "onnx", m.onnx, false);
  read_table(top.get("aten"), source, "aten", m.aten, true);
  if (YAML::Node nk = top.get("no_kernel"); nk.IsDefined() && !nk.IsNull()) {
    YamlMap n(nk, source, "no_kernel");
    for (const auto& op : yaml_string_list(n.get("onnx"), source, "no_kernel.onnx"))
      m.no_kernel_onnx.insert(op);
    for (const auto& op : yaml_string_list(n.get("aten"), source, "no_kernel.aten")) {
      if (op.rfind("aten::", 0) != 0)
        throw_at(n.get("aten"), source, "no_kernel.aten", "aten ops are written aten::name");
      m.no_kernel_aten.insert(op);
    }
    n.finish();
  }
  top.finish();
  return m;
}

}  // namespace hn::compat
