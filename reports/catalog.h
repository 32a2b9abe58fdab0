#pragma once
// The one findings catalog: every stable code with its layer, title, message
// templates and remediation. Probes never write message text themselves; they
// call make_finding() with named parameters, so wording stays in one place and
// a code means the same thing in every report.
//
// Templates use {name} placeholders. make_finding() throws std::logic_error
// when a code is unknown or a placeholder has no parameter: both are
// programming errors, caught by tests/reports/catalog_test.cc over every entry.

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "reports/finding.h"

namespace hn::reports {

struct CatalogEntry {
  std::string_view code;
  Layer layer;
  std::string_view title;        // one line, what the check is
  std::string_view ok;           // message template when the check passes
  std::string_view problem;      // message template for WARN and FAIL
  std::string_view remediation;  // template for the next step (non-PASS only)
};

using Params = std::map<std::string, std::string>;

// All entries, in catalog order. Codes are unique (tested).
std::span<const CatalogEntry> catalog();

// Throws std::logic_error for an unknown code.
const CatalogEntry& catalog_entry(std::string_view code);

// Substitutes {name} from params; "{{" is a literal brace. Throws
// std::logic_error naming the placeholder when params lacks it.
std::string render_template(std::string_view tmpl, const Params& params);

// Builds a finding from the catalog. PASS uses `ok`; WARN and FAIL use
// `problem` plus the remediation; SKIP ("not checked: <reason>") and ERROR
// ("could not run: <reason>") use params["reason"]. Every
// parameter is also copied into evidence, so a report shows what was compared.
Finding make_finding(std::string_view code, Status status, std::string entity,
                     const Params& params = {});

// Per-area tables, each defined in its own catalog_<area>.cc and concatenated
// by catalog(). Split only to keep the files small; the code space is one.
namespace catalog_parts {
std::span<const CatalogEntry> run();
std::span<const CatalogEntry> physical();
std::span<const CatalogEntry> ops();
std::span<const CatalogEntry> translate();
std::span<const CatalogEntry> netplane();
std::span<const CatalogEntry> storage();
std::span<const CatalogEntry> certify();
std::span<const CatalogEntry> model();
std::span<const CatalogEntry> gate();
std::span<const CatalogEntry> migrate();
}  // namespace catalog_parts

}  // namespace hn::reports
