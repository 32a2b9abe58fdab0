#pragma once
// What `certify` shows besides the findings, all read from its certificate
// (certificate.h), so the page, the terminal and the file never disagree:
//
//   render_certify_summary  the terminal's tail: phases with status and
//                           time, busbw by size per plane, bytes per NIC
//                           during the traffic proof, the verdict
//   render_certify_html     the HTML report's page: the generic report
//                           (html_report.h) with, before its findings, a
//                           host x layer table of worst status, busbw by
//                           size per plane (inline SVG), bytes per NIC per
//                           plane, and storage percentiles alone against
//                           under collective load
//   certify_extra_json      the JSON report's "extra.certify": verdict,
//                           phases and hosts (the figures are in the
//                           certificate)
//
// Plain data in; everything is escaped (HTML) or made printable (text).

#include <string>

#include "reports/certificate.h"
#include "reports/finding.h"

namespace hn::reports {

std::string render_certify_summary(const Certificate& c, int exit_code, bool color);
std::string render_certify_html(const Report& report, const Certificate& c);
std::string certify_extra_json(const Certificate& c);

}  // namespace hn::reports
