#pragma once
// The migration of one job, assembled: the six concerns in order, their
// findings as one report, the verdicts, the ordered change list (blocking
// changes first, then by concern in report order) and the generated files.
// Writes nothing itself: the command writes the report and the artifacts.
// Throws compat::InputError for a malformed model or launch value (exit 2).

#include <optional>
#include <string>
#include <vector>

#include "migrate/job.h"
#include "reports/finding.h"
#include "reports/migrate_report.h"

namespace hn::migrate {

struct ArtifactFile {
  std::string kind;  // "env" or "script"
  std::string path;
  std::string content;
};

struct MigrationRun {
  reports::Report report;  // command "migrate"; every concern's findings, in concern order
  reports::Migration migration;
  std::vector<ArtifactFile> artifacts;  // empty without an out-dir
};

struct PlanOptions {
  std::optional<std::string> out_dir;
  std::string tool_version;
  std::string hostname;
};

MigrationRun plan_migration(const Job& job, const PlanOptions& options);

// The artifact paths plan_migration() will use for this job and out-dir (so
// the command can check them before any work).
std::vector<std::string> planned_artifact_paths(const Job& job, const std::string& out_dir);

}  // namespace hn::migrate
