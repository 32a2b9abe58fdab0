// The model section of the cluster profile.
#include "formats/profile_model.h"

#include <filesystem>

#include "compat/builtin_ops.h"

namespace hn::formats {

using compat::YamlMap;

namespace {

stack::framework::Layout parse_layout_field(YamlMap& m) {
  YAML::Node n = m.get("layout");
  const std::string field = m.field("layout");
  stack::framework::Layout l;
  try {
    if (n.IsMap()) {
      YamlMap lm(n, m.source(), field);
      for (const char* key : {"tp", "pp", "dp", "ep"})
        if (auto v = lm.opt_int(key, 1, 1 << 20)) {
          int* slot = key[0] == 't' ? &l.tp : key[0] == 'p' ? &l.pp : key[0] == 'd' ? &l.dp : &l.ep;
          *slot = static_cast<int>(*v);
        }
      lm.finish();
      l.validate();
    } else {
      l = stack::framework::parse_layout(compat::yaml_string(n, m.source(), field));
    }
  } catch (const stack::framework::LayoutError& e) {
    compat::throw_at(n, m.source(), field, e.what());
  }
  return l;
}

stack::model::ModelConfig parse_size(YamlMap m) {
  stack::model::ModelConfig c;
  auto num = [&](const char* key, int& out, long long min) {
    if (auto v = m.opt_int(key, min, 1 << 20)) out = static_cast<int>(*v);
  };
  num("vocab", c.vocab, 2);
  num("hidden", c.hidden, 1);
  num("heads", c.heads, 1);
  num("ffn", c.ffn, 1);
  num("layers", c.layers, 1);
  num("seq", c.seq, 1);
  num("batch", c.batch, 1);
  num("micro_batches", c.micro_batches, 1);
  num("experts", c.experts, 0);
  if (auto d = m.opt_string("dtype")) {
    if (*d != "f32" && *d != "f64")
      compat::throw_at(m.get("dtype"), m.source(), m.field("dtype"),
                       "expected f32 or f64, got '" + *d + "'");
    c.dtype = stack::op::dtype_from_string(*d);
  }
  try {
    c.validate();
  } catch (const stack::model::ConfigError& e) {
    // "size" is the whole section (the parameter count), anything else a key.
    const bool whole = e.field() == "size";
    YAML::Node at = whole ? m.node() : m.get(e.field());
    compat::throw_at(at.IsDefined() ? at : m.node(), m.source(),
                     whole ? m.path() : m.field(e.field()),
                     std::string(e.what()).substr(e.field().size() + 2));
  }
  m.finish();
  return c;
}

stack::framework::OptimizerConfig parse_optimizer(YamlMap m) {
  stack::framework::OptimizerConfig o;
  if (auto k = m.opt_string("kind")) {
    try {
      o.kind = stack::framework::optimizer_from_string(*k);
    } catch (const std::invalid_argument& e) {
      compat::throw_at(m.get("kind"), m.source(), m.field("kind"), e.what());
    }
  }
  // Bounds are exclusive except where the range says [0, ...).
  auto num = [&](const char* key, double& out, bool zero_ok, double hi, const char* range) {
    if (auto v = m.opt_number(key)) {
      if (!((zero_ok ? *v >= 0 : *v > 0) && *v < hi))
        compat::throw_at(m.get(key), m.source(), m.field(key), std::string("must be in ") + range);
      out = *v;
    }
  };
  num("lr", o.lr, false, 10, "(0, 10)");
  num("momentum", o.momentum, true, 1, "[0, 1)");
  num("beta1", o.beta1, true, 1, "[0, 1)");
  num("beta2", o.beta2, true, 1, "[0, 1)");
  num("eps", o.eps, false, 1, "(0, 1)");
  m.finish();
  return o;
}

double seconds(YamlMap& m, const char* key, double fallback) {
  auto v = m.opt_number(key);
  if (!v) return fallback;
  if (*v <= 0 || *v > 86400)
    compat::throw_at(m.get(key), m.source(), m.field(key), "must be in (0, 86400] seconds");
  return *v;
}

}  // namespace

ModelSpec parse_model_spec(YamlMap m) {
  ModelSpec s;
  s.line = compat::yaml_position(m.node()).first;
  if (YAML::Node n = m.get("layout"); n.IsDefined() && !n.IsNull()) {
    s.layout = parse_layout_field(m);
    s.layout_line = compat::yaml_position(n).first;
  }
  if (auto v = m.opt_int("steps", 1, 100000)) s.steps = static_cast<int>(*v);
  if (auto v = m.opt_int("seed", 0, INT64_MAX)) s.seed = static_cast<std::uint64_t>(*v);
  if (YAML::Node n = m.get("size"); n.IsDefined() && !n.IsNull()) {
    s.size = parse_size(YamlMap(n, m.source(), m.field("size")));
    s.batch_set = n["batch"].IsDefined() || n["micro_batches"].IsDefined();
    s.size_line = compat::yaml_position(n).first;
  }
  if (YAML::Node n = m.get("optimizer"); n.IsDefined() && !n.IsNull())
    s.optimizer = parse_optimizer(YamlMap(n, m.source(), m.field("optimizer")));
  const bool has_backend = m.has("backend"), has_matrix = m.has("matrix");
  if (has_backend && has_matrix)
    compat::throw_at(m.get("matrix"), m.source(), m.field("matrix"),
                     "give backend (a built-in matrix) or matrix (a file), not both");
  if (has_backend) {
    s.backend = m.req_string("backend");
    try {
      compat::builtin_matrix(s.backend);
    } catch (const compat::InputError& e) {
      compat::throw_at(
          m.get("backend"), m.source(),
          m.field("backend"), "unknown backend '" + s.backend + "' (built in: " + [] {
            std::string names;
            for (const auto& n : compat::builtin_matrix_names())
              names += (names.empty() ? "" : ", ") + n;
            return names;
          }() + ")");
    }
  }
  if (has_matrix) {
    std::filesystem::path p = m.req_string("matrix");
    if (p.empty())
      compat::throw_at(m.get("matrix"), m.source(), m.field("matrix"), "must name a file");
    if (p.is_relative() && m.source().rfind("embedded:", 0) != 0)
      p = std::filesystem::path(m.source()).parent_path() / p;
    s.matrix_file = p.lexically_normal().string();
    s.backend.clear();
  }
  if (YAML::Node c = m.get("checkpoint"); c.IsDefined() && !c.IsNull()) {
    YamlMap cm(c, m.source(), m.field("checkpoint"));
    s.checkpoint_dir = cm.opt_string("dir").value_or("");
    if (cm.has("dir") && (s.checkpoint_dir.empty() || s.checkpoint_dir[0] != '/'))
      compat::throw_at(cm.get("dir"), m.source(), cm.field("dir"), "must be an absolute path");
    s.checkpoint_timeout_s = seconds(cm, "timeout_s", s.checkpoint_timeout_s);
    cm.finish();
  }
  if (YAML::Node n = m.get("planes"); n.IsDefined() && !n.IsNull()) {
    YamlMap pm(n, m.source(), m.field("planes"));
    for (const char* kind : {"tp", "pp", "dp", "ep", "expert_dp"})
      if (auto plane = pm.opt_string(kind)) s.group_planes[kind] = *plane;
    pm.finish();
  }
  if (auto v = m.opt_int("replica_check_every", 1, 100000))
    s.replica_check_every = static_cast<int>(*v);
  s.timeout_s = seconds(m, "timeout_s", s.timeout_s);
  if (s.layout) {
    try {
      s.size.check_layout(*s.layout);
    } catch (const stack::model::ConfigError& e) {
      compat::throw_at(m.get("size").IsDefined() ? m.get("size") : m.get("layout"), m.source(),
                       m.field("size." + e.field()),
                       std::string(e.what()).substr(e.field().size() + 2));
    }
  }
  m.finish();
  return s;
}

}  // namespace hn::formats
