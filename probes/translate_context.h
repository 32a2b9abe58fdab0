#pragma once
// What `hnprecheck translate` needs to know about the cluster, gathered from
// the profile, the command line and this host's kernel, in the translator's
// terms (compat::translate::Context):
//  * the parameter plane: the first plane of type parameter (or --plane NAME),
//    with the one NIC name that holds on every node (nodes[].nics overrides,
//    else the plane's nic), or the glob prefix, or with --node this node's
//    address on the plane; otherwise why none of these is known;
//  * comm.pfc_priority;
//  * the ephemeral port range: given (--local-port-range, --reserved-ports)
//    or read live from /proc, else unknown with the reason.
// Throws compat::InputError for a --node or --plane the profile lacks, or a
// malformed port option.

#include <optional>
#include <string>

#include "compat/translate/translator.h"
#include "formats/profile.h"

namespace hn::probes {

struct TranslateContextOptions {
  std::string platform = "a2";
  std::string node;                    // --node; empty = every node of the profile
  std::string plane;                   // --plane; empty = the first parameter plane
  std::optional<double> pg_timeout_s;  // --pg-timeout
  std::string pg_timeout_source;       // where it came from; empty: "--pg-timeout"
  std::string local_port_range;        // --local-port-range "LOW HIGH"; empty = read live
  std::string reserved_ports;          // --reserved-ports "a-b,c"
  std::string proc_root = "/proc";
};

compat::translate::ParamPlane resolve_param_plane(const formats::Profile& profile,
                                                  const std::string& node,
                                                  const std::string& plane);

compat::translate::Context make_translate_context(const formats::Profile* profile,
                                                  const TranslateContextOptions& options);

}  // namespace hn::probes
