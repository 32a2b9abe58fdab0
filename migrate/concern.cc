#include "migrate/concern.h"

namespace hn::migrate {

bool is_problem(const reports::Finding& f) {
  return f.status == reports::Status::kWarn || f.status == reports::Status::kFail ||
         f.status == reports::Status::kError;
}

Item& Concern::add(reports::Finding f, bool blocking, std::string where) {
  Item item;
  item.blocking = blocking && f.status == reports::Status::kFail;
  item.where = std::move(where);
  item.finding = std::move(f);
  items_.push_back(std::move(item));
  return items_.back();
}

reports::Verdict Concern::verdict() const {
  reports::Verdict v = reports::Verdict::kReady;
  for (const auto& i : items_) {
    if (i.finding.status == reports::Status::kSkip && v == reports::Verdict::kReady)
      v = reports::Verdict::kNotChecked;
    if (!is_problem(i.finding)) continue;
    if (i.blocking) return reports::Verdict::kBlocked;
    v = reports::Verdict::kNeedsChanges;
  }
  return v;
}

std::string Concern::unchecked() const {
  std::string out;
  for (const auto& i : items_)
    if (i.finding.status == reports::Status::kSkip &&
        out.find(i.finding.entity) == std::string::npos)
      out += (out.empty() ? "" : ", ") + i.finding.entity;
  return out;
}

}  // namespace hn::migrate
