#include "compat/onnx_reader.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "compat/input_error.h"
#include "compat/onnx_inference.h"
#include "compat/text_file.h"

namespace hn::compat {

std::string onnx_dtype_name(int code) {
  // TensorProto.DataType codes (onnx.proto; 17.. are newer than libonnx 1.12
  // but may appear in files written by newer exporters).
  static constexpr const char* kNames[] = {
      "",       "f32",      "u8",         "i8",     "u16",        "i16", "i32", "i64",
      "string", "bool",     "f16",        "f64",    "u32",        "u64", "c64", "c128",
      "bf16",   "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "u4",  "i4",  "f4e2m1"};
  if (code >= 0 && code < static_cast<int>(std::size(kNames))) return kNames[code];
  return "dtype<" + std::to_string(code) + ">";
}

namespace {

struct ValueType {
  int elem_type = 0;
  int rank = -1;  // -1: shape unknown
};

using TypeTable = std::unordered_map<std::string, ValueType>;

void add_value_info(TypeTable& t, const onnx::ValueInfoProto& v) {
  if (!v.has_type() || !v.type().has_tensor_type()) return;
  const auto& tt = v.type().tensor_type();
  ValueType vt;
  vt.elem_type = tt.elem_type();
  if (tt.has_shape()) vt.rank = tt.shape().dim_size();
  if (vt.elem_type != 0) t[v.name()] = vt;
}

std::string attribute_text(const onnx::AttributeProto& a) {
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  std::string s;
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      return std::to_string(a.i());
    case onnx::AttributeProto::FLOAT:
      return num(a.f());
    case onnx::AttributeProto::STRING:
      return a.s();
    case onnx::AttributeProto::INTS:
      for (int i = 0; i < a.ints_size(); ++i) s += (i ? "," : "") + std::to_string(a.ints(i));
      return s;
    case onnx::AttributeProto::FLOATS:
      for (int i = 0; i < a.floats_size(); ++i) s += (i ? "," : "") + num(a.floats(i));
      return s;
    case onnx::AttributeProto::STRINGS:
      for (int i = 0; i < a.strings_size(); ++i) s += (i ? "," : "") + a.strings(i);
      return s;
    default:
      return {};
  }
}

bool is_scalar_attribute(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::INT:
    case onnx::AttributeProto::FLOAT:
    case onnx::AttributeProto::STRING:
    case onnx::AttributeProto::INTS:
    case onnx::AttributeProto::FLOATS:
    case onnx::AttributeProto::STRINGS:
      return true;
    default:
      return false;
  }
}

class Walker {
 public:
  Walker(const onnx::ModelProto& m, OpInventory& inv) : inv_(inv) {
    for (const auto& o : m.opset_import()) {
      std::string d = o.domain().empty() ? "ai.onnx" : o.domain();
      opsets_[d] = static_cast<int>(o.version());
    }
  }

  // scopes: outer graphs' type tables, innermost last (subgraphs may use
  // values of the graphs that enclose them).
  void walk(const onnx::GraphProto& g, const std::string& prefix, std::vector<TypeTable>& scopes) {
    TypeTable t;
    for (const auto& v : g.input()) add_value_info(t, v);
    for (const auto& v : g.output()) add_value_info(t, v);
    for (const auto& v : g.value_info()) add_value_info(t, v);
    for (const auto& init : g.initializer())
      if (init.data_type() != 0) t[init.name()] = {init.data_type(), init.dims_size()};
    for (const auto& sp : g.sparse_initializer())
      if (sp.values().data_type() != 0)
        t[sp.values().name()] = {sp.values().data_type(), static_cast<int>(sp.dims_size())};
    for (const auto& n : g.node())
      if (n.op_type() == "Constant")
        for (const auto& a : n.attribute())
          if (a.name() == "value" && a.has_t() && n.output_size() > 0)
            t[n.output(0)] = {a.t().data_type(), a.t().dims_size()};
    scopes.push_back(std::move(t));
    for (const auto& n : g.node()) visit(n, prefix, scopes);
    scopes.pop_back();
  }

 private:
  const ValueType* lookup(const std::vector<TypeTable>& scopes, const std::string& name) const {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  void visit(const onnx::NodeProto& n, const std::string& prefix, std::vector<TypeTable>& scopes) {
    OpOccurrence o;
    o.naming = OpNaming::kOnnx;
    o.op = n.op_type();
    o.domain = n.domain().empty() ? "ai.onnx" : n.domain();
    auto os = opsets_.find(o.domain);
    o.opset = os == opsets_.end() ? 0 : os->second;
    o.position = o.last_position = ++position_;
    std::string name = n.name().empty() ? n.op_type() + "#" + std::to_string(o.position) : n.name();
    o.where = prefix + name;

    const ValueType* vt = nullptr;
    for (const auto& in : n.input())
      if (!in.empty() && (vt = lookup(scopes, in))) break;
    if (!vt)
      for (const auto& out : n.output())
        if (!out.empty() && (vt = lookup(scopes, out))) break;
    if (vt) {
      o.dtype = onnx_dtype_name(vt->elem_type);
      if (vt->rank >= 0) o.rank = vt->rank;
    }
    for (const auto& a : n.attribute())
      if (is_scalar_attribute(a)) o.attributes[a.name()] = attribute_text(a);
    inv_.ops.push_back(std::move(o));

    for (const auto& a : n.attribute()) {
      if (a.has_g()) walk(a.g(), o_prefix(prefix, name, a.name()), scopes);
      for (int i = 0; i < a.graphs_size(); ++i)
        walk(a.graphs(i), o_prefix(prefix, name, a.name() + "[" + std::to_string(i) + "]"), scopes);
    }
  }

  static std::string o_prefix(const std::string& prefix, const std::string& node,
                              const std::string& attr) {
    return prefix + node + "/" + attr + "/";
  }

  OpInventory& inv_;
  std::unordered_map<std::string, int> opsets_;
  int position_ = 0;
};

// The inventory needs each tensor's element type and rank, never its values;
// shape inference reads values only from small shape tensors. Dropping the
// rest keeps the copy shape inference works on (and the model itself) near
// the size of the graph instead of the weights: a 2 GB model held three times
// over would not fit any memory budget.
void drop_weights(onnx::TensorProto& t) {
  std::size_t bytes = t.raw_data().size() + t.string_data_size() +
                      4 * static_cast<std::size_t>(t.float_data_size() + t.int32_data_size()) +
                      8 * static_cast<std::size_t>(t.int64_data_size() + t.double_data_size() +
                                                   t.uint64_data_size());
  if (bytes <= 8192) return;
  t.clear_raw_data();
  t.clear_float_data();
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_double_data();
  t.clear_uint64_data();
  t.clear_string_data();
}

void drop_weights(onnx::GraphProto& g) {
  for (auto& init : *g.mutable_initializer()) drop_weights(init);
  for (auto& sp : *g.mutable_sparse_initializer()) drop_weights(*sp.mutable_values());
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t()) drop_weights(*a.mutable_t());
      if (a.has_g()) drop_weights(*a.mutable_g());
      for (auto& sub : *a.mutable_graphs()) drop_weights(sub);
    }
}

// ONNX's shape inference trusts some attributes to size its own vectors: a
// Scan whose num_scan_inputs is 2^30 makes it allocate 8 GiB from a 99-byte
// file. Such a node is not a valid model, so it is an input error, found
// before inference runs.
void check_inference_attributes(const onnx::GraphProto& g, const std::string& source,
                                const std::string& prefix) {
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string name =
        prefix + (n.name().empty() ? n.op_type() + "#" + std::to_string(i + 1) : n.name());
    if (n.op_type() == "Scan" &&
        std::none_of(n.attribute().begin(), n.attribute().end(),
                     [](const onnx::AttributeProto& a) { return a.name() == "num_scan_inputs"; }))
      throw InputError(source, 0, 0, name + ".num_scan_inputs",
                       "missing: a Scan node must say how many of its inputs are scanned");
    for (const auto& a : n.attribute()) {
      if (n.op_type() == "Scan" && a.name() == "num_scan_inputs" &&
          (a.i() < 1 || a.i() > n.input_size()))
        throw InputError(source, 0, 0, name + ".num_scan_inputs",
                         "is " + std::to_string(a.i()) + ", but the Scan node has " +
                             std::to_string(n.input_size()) +
                             " inputs (it must be between 1 and its number of inputs)");
      if (n.op_type() == "Scan" && a.ints_size() > n.input_size() + n.output_size())
        throw InputError(source, 0, 0, name + "." + a.name(),
                         "lists " + std::to_string(a.ints_size()) + " values, more than the " +
                             std::to_string(n.input_size() + n.output_size()) +
                             " inputs and outputs of the Scan node");
      if (a.has_g()) check_inference_attributes(a.g(), source, name + "/" + a.name() + "/");
      for (int k = 0; k < a.graphs_size(); ++k)
        check_inference_attributes(a.graphs(k), source,
                                   name + "/" + a.name() + "[" + std::to_string(k) + "]/");
    }
  }
}

}  // namespace

OpInventory read_onnx_bytes(const std::string& bytes, const std::string& source_name) {
  onnx::ModelProto model;
  if (bytes.empty())
    throw InputError(source_name, 0, 0, "", "not an ONNX model: the file is empty");
  if (!model.ParseFromString(bytes))
    throw InputError(source_name, 0, 0, "",
                     "not a valid ONNX model: the protobuf does not parse (truncated or corrupt "
                     "file, " +
                         std::to_string(bytes.size()) + " bytes)");
  if (!model.has_graph())
    throw InputError(source_name, 0, 0, "ModelProto.graph",
                     "not an ONNX model: no graph (truncated, or not an ONNX file)");
  if (model.opset_import_size() == 0 && model.ir_version() >= 3)
    throw InputError(source_name, 0, 0, "ModelProto.opset_import",
                     "missing, but IR version " + std::to_string(model.ir_version()) +
                         " requires it (truncated file?)");

  OpInventory inv;
  inv.kind = InventoryKind::kOnnx;
  inv.file = source_name;
  inv.detail = "ONNX IR version " + std::to_string(model.ir_version());
  for (const auto& o : model.opset_import())
    inv.detail += ", opset " + (o.domain().empty() ? std::string("ai.onnx") : o.domain()) + " " +
                  std::to_string(o.version());
  if (model.functions_size() > 0)
    inv.notes.push_back(std::to_string(model.functions_size()) +
                        " model-local function(s): nodes calling them are listed by the "
                        "function's name, their bodies are not expanded");

  check_inference_attributes(model.graph(), source_name, "");
  drop_weights(*model.mutable_graph());
  // Shape inference fills value_info for intermediates, in a child under
  // limits (onnx_inference.h); when it fails, the file's own types stand and
  // the inventory says so. With error_mode 0 a node it cannot infer is skipped.
  std::string why;
  std::optional<onnx::ModelProto> inferred = infer_shapes_isolated(model, why);
  if (!inferred)
    inv.notes.push_back("shape inference stopped: " + why +
                        "; dtypes come from the file's own types only");
  const onnx::ModelProto& typed = inferred ? *inferred : model;
  std::vector<TypeTable> scopes;
  Walker(typed, inv).walk(typed.graph(), "", scopes);
  return inv;
}

OpInventory read_onnx_file(const std::string& path) {
  return read_onnx_bytes(read_text_file(path, kMaxModelBytes), path);
}

}  // namespace hn::compat
