// Catalog entries for `hnprecheck translate`: one code per outcome of an
// input variable, and one per kind of cross-variable rule. The rule tables
// (profiles/translate/*.toml) supply the variable-specific reasons that fill
// {detail} and {todo}; the words around them live here.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kTranslateEntries[] = {
    {"COMM-PARAM-TRANSLATED", Layer::kL3, "variable translated",
     "{var}={value} ({where}) -> {result}{note}", "{var}={value} ({where}) -> {result}{note}",
     "Nothing to do."},
    {"COMM-PARAM-VALID", Layer::kL3, "variable valid for the target",
     "{var}={value} ({where}) is valid for {library}{note}",
     "{var}={value} ({where}) is valid for {library}{note}", "Nothing to do."},
    {"COMM-PARAM-CONVERTED", Layer::kL3, "variable converted (unit or encoding changed)",
     "{var}={value} ({where}) -> {result}: {detail}",
     "{var}={value} ({where}) -> {result}: {detail}", "Nothing to do."},
    {"COMM-PARAM-CLAMPED", Layer::kL3, "variable within the target's range",
     "{var}={value} ({where}) -> {result}", "{var}={value} ({where}) -> {result}: {detail}",
     "{todo}"},
    // --check: the value breaks the library's own range or multiple rule, so
    // the library would reject or reinterpret it; {result} is the fix.
    {"COMM-PARAM-INVALID", Layer::kL3, "variable within the target's own rules",
     "{var}={value} ({where}) is valid for {library}",
     "{var}={value} ({where}) is not valid for {library}: {detail}; the nearest valid setting is "
     "{result}",
     "{todo}"},
    {"COMM-PARAM-REVIEW", Layer::kL3, "variable translated automatically",
     "{var}={value} ({where}) translated", "{var}={value} ({where}) needs review: {detail}",
     "{todo}"},
    {"COMM-PARAM-DROPPED", Layer::kL3, "variable has a counterpart",
     "{var}={value} ({where}) dropped: {detail}",
     "{var}={value} ({where}) dropped although it had an effect: {detail}", "{todo}"},
    {"COMM-PARAM-UNKNOWN", Layer::kL3, "variable known to the rules", "{var} is known",
     "{var}={value} ({where}) is not a variable the rules know: {detail}; it is "
     "not carried over",
     "Check the spelling. If the setting matters on {library}, set its counterpart by hand, or "
     "add a row to a rule table and pass it with --rules FILE."},
    // The input sets it only on some paths or to different values on
    // different paths: never translated as if it were certain.
    {"COMM-PARAM-CONDITIONAL", Layer::kL3, "variable set unconditionally",
     "{var} ({where}) is set unconditionally",
     "{var} ({where}) depends on the path the script takes, so it is not written: {detail}",
     "{todo}"},
    {"COMM-PARAM-NOT-EXPORTED", Layer::kL3, "shell variable exported",
     "{var} ({where}) is exported", "{text} ({where}) is {why}; it is not translated",
     "Export it (export {var}) or pass it to the launcher (mpirun -x {var}, srun --export) if "
     "the job needs it; otherwise remove it."},
    {"COMM-PARAM-UNSET", Layer::kL3, "variable left unset", "{text} ({where}): {why}",
     "{text} ({where}): {why}", "Nothing to do."},
    // A line that plainly carries a setting the reader could not follow.
    {"COMM-INPUT-UNREAD", Layer::kL3, "every setting in the input read",
     "every setting in {where} was read",
     "{where}: '{text}' carries {subject} that was not read: {why}",
     "Translate the file that really holds it, or write the setting as export NAME=value (or "
     "in the manifest's env list) so that it can be read."},
    // A setting the file hands elsewhere: a here-document written out, or a
    // variable passed on (-x NAME) whose value the file never sets.
    {"COMM-INPUT-NOT-FOLLOWED", Layer::kL3, "every setting in the input followed",
     "every setting in {where} was followed",
     "{where}: '{text}' holds {subject}, which was not translated: {why}",
     "Translate the file the setting ends up in (or the environment that sets it: "
     "translate --from-env inside the job) as well."},
    {"COMM-INPUT-EMPTY", Layer::kL3, "input holds settings", "{file} holds settings",
     "{file}: nothing was recognised: no environment setting (export NAME=value, NAME=value "
     "cmd, mpirun -x, srun --export, a manifest's env/envFrom/env_vars) and no line naming a "
     "communication variable",
     "Check that this is the job's launch file, script, manifest or env file; give the file that "
     "sets the job's environment."},
    {"COMM-PARAM-OTHERS", Layer::kL3, "variables outside the communication libraries",
     "{count} variable(s) that no communication library reads were left as they are: {names}",
     "{count} variable(s) that no communication library reads: {names}", "Nothing to do."},
    {"COMM-PARAM-ORDER", Layer::kL3, "timeouts in the right order", "{detail}", "{detail}",
     "{todo}"},
    {"COMM-PARAM-PFC", Layer::kL3, "RDMA service level matches the PFC priority",
     "{values} matches comm.pfc_priority in the profile", "{detail}", "{todo}"},
    {"COMM-PARAM-PFC-SET", Layer::kL3, "RDMA service level set from the profile",
     "{values}, which differs from comm.pfc_priority {result} in the profile: wrote {written}",
     "{values}: wrote {written}", "Nothing to do."},
    {"COMM-PARAM-PORTS", Layer::kL3, "communication ports outside the ephemeral range",
     "{values}: none in the unreserved part of ip_local_port_range", "{detail}", "{todo}"},
    {"COMM-PARAM-REQUIRES", Layer::kL3, "variable's prerequisite set",
     "{values}: the prerequisite is set", "{detail}", "{todo}"},
    {"COMM-PARAM-EXCLUSIVE", Layer::kL3, "mutually exclusive variables", "{values}: not both on",
     "{detail}", "{todo}"},
    {"COMM-PARAM-LIMIT", Layer::kL3, "combined limit of two variables",
     "{values}: within the limit", "{detail}", "{todo}"},
};
}  // namespace

std::span<const CatalogEntry> translate() {
  return kTranslateEntries;
}

}  // namespace hn::reports::catalog_parts
