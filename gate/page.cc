#include "gate/page.h"

#include "gate/findings.h"

namespace hn::gate {

reports::GatePage gate_page(const Comparison& c, const Baseline& b,
                            const std::string& baseline_source, std::size_t new_runs,
                            const std::string& rules_source) {
  reports::GatePage page;
  page.title = std::to_string(new_runs) + " run(s) vs baseline " + baseline_source;
  page.setup.push_back("baseline " + baseline_source + ": " + std::to_string(b.runs.size()) +
                       " run(s), created " + b.created + ", id " + b.id);
  page.setup.push_back("rules: " + rules_source);
  for (const auto& line : tally_lines(tally(c))) page.setup.push_back(line);
  for (const auto& m : c.metrics) {
    if (m.state != MetricState::kJudged) continue;
    reports::GatePage::Row r;
    r.identity = m.identity;
    r.unit = m.measurement.unit;
    r.higher_is_better = sense_of(m.measurement.better) == Sense::kHigherIsBetter;
    r.centre = m.baseline->centre;
    r.spread = m.baseline->spread;
    r.n = m.baseline->n;
    r.band_low = m.judgement->band_low;
    r.band_high = m.judgement->band_high;
    r.baseline_values = m.baseline_values;
    r.value = m.judgement->current;
    r.outcome = std::string(to_string(m.judgement->outcome));
    page.rows.push_back(std::move(r));
  }
  return page;
}

}  // namespace hn::gate
