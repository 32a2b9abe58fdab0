#include "reports/catalog.h"

#include <stdexcept>
#include <vector>

namespace hn::reports {

std::span<const CatalogEntry> catalog() {
  static const std::vector<CatalogEntry> all = [] {
    std::vector<CatalogEntry> v;
    for (auto part : {
             catalog_parts::run(),
             catalog_parts::physical(),
             catalog_parts::netplane(),
             catalog_parts::ops(),
             catalog_parts::translate(),
             catalog_parts::storage(),
             catalog_parts::certify(),
             catalog_parts::model(),
             catalog_parts::gate(),
             catalog_parts::migrate(),
         })
      v.insert(v.end(), part.begin(), part.end());
    return v;
  }();
  return all;
}

const CatalogEntry& catalog_entry(std::string_view code) {
  for (const auto& e : catalog())
    if (e.code == code) return e;
  throw std::logic_error("finding code '" + std::string(code) + "' is not in the catalog");
}

std::string render_template(std::string_view tmpl, const Params& params) {
  std::string out;
  out.reserve(tmpl.size() + 32);
  for (size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if (c == '{' && i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    size_t end = tmpl.find('}', i);
    if (end == std::string_view::npos)
      throw std::logic_error("unterminated placeholder in template: " + std::string(tmpl));
    std::string name(tmpl.substr(i + 1, end - i - 1));
    auto it = params.find(name);
    if (it == params.end())
      throw std::logic_error("template placeholder {" + name +
                             "} has no parameter in: " + std::string(tmpl));
    out += it->second;
    i = end;
  }
  return out;
}

Finding make_finding(std::string_view code, Status status, std::string entity,
                     const Params& params) {
  const CatalogEntry& e = catalog_entry(code);
  Finding f;
  f.code = std::string(e.code);
  f.layer = e.layer;
  f.status = status;
  f.entity = std::move(entity);
  switch (status) {
    case Status::kPass:
      f.message = render_template(e.ok, params);
      break;
    case Status::kWarn:
    case Status::kFail:
      f.message = render_template(e.problem, params);
      f.remediation = render_template(e.remediation, params);
      break;
    case Status::kSkip:
    case Status::kError: {
      auto it = params.find("reason");
      if (it == params.end())
        throw std::logic_error("a SKIP or ERROR finding for " + std::string(code) +
                               " needs a 'reason' parameter");
      // The code names the check; the message is why it did not run.
      f.message = (status == Status::kSkip ? "not checked: " : "could not run: ") + it->second;
      if (status == Status::kError)
        f.remediation = "The check could not run; fix the cause above and re-run.";
      break;
    }
  }
  for (const auto& [k, v] : params) f.evidence[k] = v;
  return f;
}

}  // namespace hn::reports
