#include "reports/certify_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "reports/html_report.h"
#include "reports/svg_chart.h"
#include "reports/utf8.h"

namespace hn::reports {

namespace {

using svg::esc;

using svg::fmt;

std::string label(const Measurement& m, const char* key) {
  auto it = m.labels.find(key);
  return it == m.labels.end() ? "" : it->second;
}

// "64K", "1M", "16M": the size as nccl-tests users write it.
std::string size_text(double bytes) {
  const char* units[] = {"", "K", "M", "G"};
  int u = 0;
  while (bytes >= 1024 && u < 3) bytes /= 1024, ++u;
  return fmt("%.4g", bytes) + units[u];
}

std::string bytes_text(double v) {
  if (v >= 1e9) return fmt("%.2f GB", v / 1e9);
  if (v >= 1e6) return fmt("%.1f MB", v / 1e6);
  if (v >= 1e3) return fmt("%.1f KB", v / 1e3);
  return fmt("%.0f B", v);
}

// plane -> op -> bytes -> busbw
using Busbw = std::map<std::string, std::map<std::string, std::map<double, double>>>;
Busbw busbw_by_size(const Certificate& c) {
  Busbw out;
  for (const auto& m : c.metrics)
    if (m.name == "collective.busbw" && std::isfinite(m.value) && !m.labels.count("condition"))
      out[label(m, "plane")][label(m, "op")][std::stod(label(m, "bytes"))] = m.value;
  return out;
}

std::set<double> sizes_of(const std::map<std::string, std::map<double, double>>& ops) {
  std::set<double> sizes;
  for (const auto& [op, pts] : ops)
    for (const auto& [b, v] : pts) sizes.insert(b);
  return sizes;
}

// plane -> host -> nic -> (tx, rx)
using NicBytes =
    std::map<std::string, std::map<std::string, std::map<std::string, std::pair<double, double>>>>;
NicBytes nic_bytes(const Certificate& c) {
  NicBytes out;
  for (const auto& m : c.metrics) {
    if (m.name != "nic.tx_bytes" && m.name != "nic.rx_bytes") continue;
    auto& cell = out[label(m, "plane")][label(m, "host")][label(m, "nic")];
    (m.name == "nic.tx_bytes" ? cell.first : cell.second) = m.value;
  }
  return out;
}

// (mount workload) -> condition -> percentile -> ms, over all hosts.
using StoragePct = std::map<std::string, std::map<std::string, std::map<std::string, double>>>;
StoragePct storage_percentiles(const Certificate& c) {
  StoragePct out;
  for (const auto& m : c.metrics) {
    if (m.name.rfind("storage.p", 0) != 0 || label(m, "host") != "all") continue;
    out[label(m, "mount") + " " + label(m, "workload")][label(m, "condition")]
       [m.name.substr(std::string("storage.").size())] = m.value;
  }
  return out;
}

// ---- text ----------------------------------------------------------------

std::string pad(const std::string& s, std::size_t w) {
  std::size_t n = display_width(s);
  return n >= w ? s : s + std::string(w - n, ' ');
}

std::string duration_text(double ms) {
  return ms < 1000 ? fmt("%.0f ms", ms) : fmt("%.1f s", ms / 1000);
}

// ---- HTML ------------------------------------------------------------------

void host_layer_table(std::ostringstream& os, const Certificate& c) {
  std::map<std::string, std::map<Layer, Status>> worst;
  std::set<Layer> layers;
  for (const auto& f : c.findings) {
    const std::string host = f.host.empty() ? "(cluster)" : f.host;
    layers.insert(f.layer);
    auto [it, fresh] = worst[host].emplace(f.layer, f.status);
    if (!fresh && outcome_weight(f.status) > outcome_weight(it->second)) it->second = f.status;
  }
  if (worst.empty()) return;
  os << "<h2>Hosts and layers (worst status)</h2>\n<table>\n<tr><th>host</th>";
  for (Layer l : layers) os << "<th>" << esc(to_string(l)) << ' ' << esc(layer_title(l)) << "</th>";
  os << "</tr>\n";
  auto row = [&](const std::string& host) {
    auto it = worst.find(host);
    if (it == worst.end()) return;
    os << "<tr><td>" << esc(host) << "</td>";
    for (Layer l : layers) {
      auto cell = it->second.find(l);
      if (cell == it->second.end()) {
        os << "<td></td>";
        continue;
      }
      os << "<td><span class=\"st\" style=\"background:" << svg::status_colour(cell->second)
         << "\">" << esc(to_string(cell->second)) << "</span></td>";
    }
    os << "</tr>\n";
  };
  row("(cluster)");
  for (const auto& h : c.hosts) row(h.name);
  os << "</table>\n";
}

// One chart per plane: busbw by message size (log2 axis), a series per
// collective, each in its own colour with its legend entry
// (docs/html-charts.md).
void busbw_charts(std::ostringstream& os, const Certificate& c) {
  for (const auto& [plane, ops] : busbw_by_size(c)) {
    double x0 = 1e300, x1 = 0, top = 0;
    for (const auto& [op, pts] : ops)
      for (const auto& [b, v] : pts) {
        x0 = std::min(x0, std::log2(b));
        x1 = std::max(x1, std::log2(b));
        top = std::max(top, v);
      }
    const bool one_size = x1 <= x0;  // its points sit mid-axis
    if (one_size) x1 = x0 + 1;
    double step = std::pow(10, std::floor(std::log10(top > 0 ? top : 1))), ymax = step;
    for (double k : {1.0, 2.0, 5.0, 10.0})
      if (k * step >= top) {
        ymax = k * step;
        break;
      }
    const int left = 60, topm = 10, w = 520, h = 240;
    auto X = [&](double b) {
      return one_size ? left + w / 2.0 : left + (std::log2(b) - x0) / (x1 - x0) * w;
    };
    auto Y = [&](double v) { return topm + h - v / ymax * h; };
    os << "<h3>busbw by size, plane " << esc(plane) << "</h3>\n<svg class=\"chart\" role=\"img\" "
       << "aria-label=\"busbw by size on plane " << esc(plane) << "\" width=\"" << left + w + 160
       << "\" height=\"" << topm + h + 40 << "\">\n";
    for (int i = 0; i <= 5; ++i) {
      double v = ymax * i / 5;
      os << "<line x1=\"" << left << "\" x2=\"" << left + w << "\" y1=\"" << fmt("%.1f", Y(v))
         << "\" y2=\"" << fmt("%.1f", Y(v)) << "\" stroke=\"#ddd\"/><text x=\"0\" y=\""
         << fmt("%.1f", Y(v) + 4) << "\">" << fmt("%g", v) << " GB/s</text>\n";
    }
    for (double b : sizes_of(ops))
      os << "<text x=\"" << fmt("%.1f", X(b) - 10) << "\" y=\"" << topm + h + 18 << "\">"
         << esc(size_text(b)) << "</text>\n";
    std::size_t k = 0;
    for (const auto& [op, pts] : ops) {
      const std::string colour = svg::series_colour(k);
      // The group carries the series' colour (the chart contract reads it there).
      os << "<g data-series=\"" << esc(op) << "\" stroke=\"" << colour << "\" fill=\"" << colour
         << "\"><polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << colour << "\" points=\"";
      for (const auto& [b, v] : pts) os << fmt("%.1f", X(b)) << ',' << fmt("%.1f", Y(v)) << ' ';
      os << "\"><title>" << esc(op) << "</title></polyline>\n";
      for (const auto& [b, v] : pts)
        os << "<circle cx=\"" << fmt("%.1f", X(b)) << "\" cy=\"" << fmt("%.1f", Y(v))
           << "\" r=\"3\" stroke=\"" << colour << "\" fill=\"" << colour << "\"><title>" << esc(op)
           << ' ' << esc(size_text(b)) << ": " << fmt("%.3f", v) << " GB/s</title></circle>\n";
      os << "</g>\n";
      svg::legend_entry(os, left + w + 14, topm + 16.0 * static_cast<double>(k), op, colour, op);
      ++k;
    }
    os << "</svg>\n";
  }
}

void nic_tables(std::ostringstream& os, const Certificate& c) {
  for (const auto& [plane, hosts] : nic_bytes(c)) {
    double most = 1;
    for (const auto& [h, nics] : hosts)
      for (const auto& [n, v] : nics) most = std::max({most, v.first, v.second});
    os << "<h3>Bytes per NIC during the traffic proof, plane " << esc(plane)
       << "</h3>\n<table>\n<tr><th>host</th><th>NIC</th><th>sent</th><th>received</th><th></th>"
          "</tr>\n";
    for (const auto& [host, nics] : hosts)
      for (const auto& [nic, v] : nics)
        os << "<tr><td>" << esc(host) << "</td><td><code>" << esc(nic) << "</code></td><td>"
           << esc(bytes_text(v.first)) << "</td><td>" << esc(bytes_text(v.second))
           << "</td><td><svg width=\"204\" height=\"12\"><rect width=\""
           << fmt("%.1f", 200 * v.first / most) << "\" height=\"12\" fill=\"#1565c0\"/></svg>"
           << "</td></tr>\n";
    os << "</table>\n";
  }
}

void storage_table(std::ostringstream& os, const Certificate& c) {
  auto pct = storage_percentiles(c);
  if (pct.empty()) return;
  os << "<h2>Shared storage: alone and under collective load</h2>\n<table>\n<tr><th>mount, "
        "workload</th><th>condition</th><th>p50 (ms)</th><th>p90 (ms)</th><th>p99 (ms)</th>"
        "<th>p99.9 (ms)</th></tr>\n";
  for (const auto& [what, conds] : pct)
    for (const auto& [cond, v] : conds) {
      os << "<tr><td>" << esc(what) << "</td><td>" << esc(cond) << "</td>";
      for (const char* p : {"p50", "p90", "p99", "p999"}) {
        auto it = v.find(p);
        os << "<td>" << (it == v.end() ? "" : fmt("%.3f", it->second)) << "</td>";
      }
      os << "</tr>\n";
    }
  os << "</table>\n";
}

}  // namespace

namespace {

// "not certified" for not_certified: the certificate's word, for people.
std::string verdict_words(CertVerdict v) {
  std::string s(to_string(v));
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

}  // namespace

std::string render_certify_summary(const Certificate& c, int exit_code, bool color) {
  std::ostringstream os;
  auto styled = [&](Status s, const std::string& text) {
    const char* code = s == Status::kPass   ? "\033[32m"
                       : s == Status::kWarn ? "\033[33m"
                       : s == Status::kFail ? "\033[31m"
                       : s == Status::kSkip ? "\033[90m"
                                            : "\033[35m";
    return color ? std::string(code) + text + "\033[0m" : text;
  };
  os << "\nphases\n";
  for (const auto& p : c.phases) {
    std::string layers;
    for (const auto& l : p.layers) layers += (layers.empty() ? "" : " ") + l;
    os << "  " << pad(p.name, 12) << pad(layers, 7)
       << styled(p.status, pad(std::string(to_string(p.status)), 6))
       << pad(duration_text(p.duration_ms), 9)
       << (p.skipped_because.empty() ? "" : to_valid_utf8(p.skipped_because)) << "\n";
  }
  for (const auto& [plane, ops] : busbw_by_size(c)) {
    const std::set<double> sizes = sizes_of(ops);
    os << "busbw (GB/s) by size, plane " << plane << "\n  " << pad("", 15);
    for (double b : sizes) os << pad(size_text(b), 10);
    os << "\n";
    for (const auto& [op, pts] : ops) {
      os << "  " << pad(op, 15);
      for (double b : sizes) {
        auto it = pts.find(b);
        os << pad(it == pts.end() ? "-" : fmt("%.3f", it->second), 10);
      }
      os << "\n";
    }
  }
  for (const auto& [plane, hosts] : nic_bytes(c)) {
    os << "bytes per NIC during the traffic proof, plane " << plane << "\n";
    for (const auto& [host, nics] : hosts) {
      os << "  " << pad(host, 16);
      for (const auto& [nic, v] : nics)
        os << pad(nic, 8) << pad("tx " + bytes_text(v.first), 13)
           << pad("rx " + bytes_text(v.second), 14);
      os << "\n";
    }
  }
  std::size_t ranks = 0;
  for (const auto& h : c.hosts) ranks += h.ranks.size();
  const Status vs = c.verdict == CertVerdict::kCertified ? Status::kPass
                    : c.verdict == CertVerdict::kPartial ? Status::kWarn
                    : c.verdict == CertVerdict::kNotCertified ? Status::kFail
                                                              : Status::kError;
  if (!c.not_covered.empty()) {
    os << "not covered\n";
    for (const auto& n : c.not_covered) os << "  " << pad(n.what, 12) << n.reason << "\n";
  }
  os << "verdict: " << styled(vs, verdict_words(c.verdict)) << " (exit " << exit_code
     << "): " << c.hosts.size() << " host(s), " << ranks << " rank(s), "
     << duration_text(static_cast<double>(c.finished_unix_ms - c.started_unix_ms)) << "\n";
  return os.str();
}

std::string render_certify_html(const Report& report, const Certificate& c) {
  std::ostringstream os;
  os << "<h2>Verdict: " << esc(verdict_words(c.verdict)) << "</h2>\n";
  if (!c.not_covered.empty()) {
    os << "<p>Not covered:</p>\n<ul>\n";
    for (const auto& n : c.not_covered)
      os << "<li>" << esc(n.what) << ": " << esc(n.reason) << "</li>\n";
    os << "</ul>\n";
  }
  os << "<table>\n<tr><th>phase</th><th>layers</th><th>status</th><th>time</th><th>"
        "skipped because</th></tr>\n";
  for (const auto& p : c.phases) {
    std::string layers;
    for (const auto& l : p.layers) layers += (layers.empty() ? "" : " ") + l;
    os << "<tr><td>" << esc(p.name) << "</td><td>" << esc(layers)
       << "</td><td><span class=\"st\" style=\"background:" << svg::status_colour(p.status) << "\">"
       << esc(to_string(p.status)) << "</span></td><td>" << esc(duration_text(p.duration_ms))
       << "</td><td>" << esc(p.skipped_because) << "</td></tr>\n";
  }
  os << "</table>\n";
  host_layer_table(os, c);
  if (!busbw_by_size(c).empty()) {
    os << "<h2>Collectives</h2>\n";
    busbw_charts(os, c);
  }
  if (!nic_bytes(c).empty()) {
    os << "<h2>Traffic proof</h2>\n";
    nic_tables(os, c);
  }
  storage_table(os, c);
  // The generic page, with these sections before its findings.
  std::string page = render_html(report);
  const std::string anchor = "<h2>Findings per layer</h2>";
  auto at = page.find(anchor);
  if (at == std::string::npos) at = page.rfind("</body>");
  page.insert(at, os.str());
  return page;
}

std::string certify_extra_json(const Certificate& c) {
  nlohmann::ordered_json j;
  j["verdict"] = std::string(to_string(c.verdict));
  j["launcher"] = to_valid_utf8(c.launcher);
  j["world"] = c.world;
  nlohmann::ordered_json phases = nlohmann::ordered_json::array();
  for (const auto& p : c.phases) {
    nlohmann::ordered_json q = {{"name", to_valid_utf8(p.name)},
                                {"layers", p.layers},
                                {"status", std::string(to_string(p.status))},
                                {"duration_ms", p.duration_ms}};
    if (!p.skipped_because.empty()) q["skipped_because"] = to_valid_utf8(p.skipped_because);
    if (!p.skip_kind.empty()) q["skip_kind"] = p.skip_kind;
    phases.push_back(std::move(q));
  }
  j["phases"] = std::move(phases);
  nlohmann::ordered_json nc = nlohmann::ordered_json::array();
  for (const auto& n : c.not_covered)
    nc.push_back({{"what", to_valid_utf8(n.what)}, {"reason", to_valid_utf8(n.reason)}});
  j["not_covered"] = std::move(nc);
  nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
  for (const auto& h : c.hosts)
    hosts.push_back(
        {{"name", to_valid_utf8(h.name)}, {"node", to_valid_utf8(h.node)}, {"ranks", h.ranks}});
  j["hosts"] = std::move(hosts);
  return j.dump();
}

}  // namespace hn::reports
