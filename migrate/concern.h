#pragma once
// One of the six migration concerns while it is being judged: its findings,
// each with what it means for the move. A finding's status decides its
// impact, so the verdict and the findings can never disagree:
//   PASS                no change
//   SKIP                no change, but the concern is "not fully checked"
//                        rather than ready: the report names what was not
//                        checked (a verdict must not promise more)
//   WARN, FAIL          the job needs a change (a person edits the job)
//   FAIL marked blocking the job cannot run on the target until it is done
//                        (an operator with no kernel, more ranks than the
//                        cluster has, a checkpoint that does not fit)
// A concern with no WARN, FAIL or SKIP is ready. Each problem adds one change to
// the report's ordered list, unless the concern folds several into one
// (comm parameters: "apply the translated environment").

#include <string>
#include <vector>

#include "reports/finding.h"
#include "reports/migrate_report.h"

namespace hn::migrate {

struct Item {
  reports::Finding finding;
  bool blocking = false;
  bool listed = true;  // becomes an entry of the change list when it is a problem
  std::string change;  // the step; default: the finding's remediation
  std::string where;   // file:line the step applies to
};

class Concern {
 public:
  Concern(std::string key, std::string title) : key_(std::move(key)), title_(std::move(title)) {}

  // Adds a finding; blocking only counts when the finding FAILs.
  Item& add(reports::Finding f, bool blocking = false, std::string where = "");
  void set_summary(std::string s) { summary_ = std::move(s); }

  reports::Verdict verdict() const;
  // The entities of the SKIPped checks ("capacity, tp groups"), or "".
  std::string unchecked() const;
  const std::string& key() const { return key_; }
  const std::string& title() const { return title_; }
  const std::string& summary() const { return summary_; }
  const std::vector<Item>& items() const { return items_; }
  std::vector<Item>& items() { return items_; }

 private:
  std::string key_, title_, summary_;
  std::vector<Item> items_;
};

bool is_problem(const reports::Finding& f);

}  // namespace hn::migrate
