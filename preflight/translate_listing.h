#pragma once
// `hnprecheck translate --list-rules`: the rules in effect as text, one block
// per row (target, unit conversion, range, grammar, value mapping, default
// difference, source), then the cross-variable rules.

#include <string>

#include "compat/translate/rules.h"

namespace hn::preflight {

std::string render_rule_listing(const compat::translate::RuleSet& rules);

}  // namespace hn::preflight
