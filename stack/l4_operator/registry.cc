#include "stack/l4_operator/registry.h"

#include <cstdio>

namespace hn::stack::op {

std::string attr_text(const AttrValue& v) {
  if (auto i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", *d);
    return buf;
  }
  if (auto s = std::get_if<std::string>(&v)) return *s;
  std::string out;
  for (auto x : std::get<std::vector<std::int64_t>>(v))
    out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

namespace {
template <typename T>
const T& typed(const Attributes& a, const std::string& name, const T& fallback, const char* what) {
  auto it = a.find(name);
  if (it == a.end()) return fallback;
  if (auto p = std::get_if<T>(&it->second)) return *p;
  throw ShapeError("attribute " + name + " must be " + what);
}
}  // namespace

std::int64_t attr_int(const Attributes& a, const std::string& name, std::int64_t fallback) {
  return typed(a, name, fallback, "an integer");
}
double attr_float(const Attributes& a, const std::string& name, double fallback) {
  auto it = a.find(name);
  if (it != a.end())
    if (auto i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  return typed(a, name, fallback, "a number");
}
std::string attr_string(const Attributes& a, const std::string& name, const std::string& fallback) {
  return typed(a, name, fallback, "a string");
}
std::vector<std::int64_t> attr_ints(const Attributes& a, const std::string& name,
                                    const std::vector<std::int64_t>& fallback) {
  return typed(a, name, fallback, "a list of integers");
}

void Registry::add(Kernel k) {
  if (find(k.name)) throw std::logic_error("kernel " + k.name + " registered twice");
  kernels_.push_back(std::move(k));
}

const Kernel* Registry::find(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return &k;
  return nullptr;
}

const Registry& builtin_registry() {
  static const Registry r = [] {
    Registry reg;
    register_linear_kernels(reg);
    register_layout_kernels(reg);
    register_elementwise_kernels(reg);
    register_reduction_kernels(reg);
    register_norm_kernels(reg);
    register_grad_kernels(reg);
    return reg;
  }();
  return r;
}

}  // namespace hn::stack::op
