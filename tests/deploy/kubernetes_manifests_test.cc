// deploy/: the Kubernetes manifests and the Dockerfile, checked statically
// (docker build and a cluster cannot run here). Every manifest must parse and
// hang together (kinds, selectors, volumes, ConfigMap keys), and every
// hnprecheck command line in it is run with the real binary: the volumes it
// mounts become scratch directories (a ConfigMap's keys become its files), so
// the profile shipped in the ConfigMap is parsed and the --prometheus file is
// written as in the pod. Each check is shown to catch an injected fault.

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using hn::test::read_file;
using hn::test::run_process;
using hn::test::TempDir;

namespace {

const std::string kDeploy = std::string(HN_SOURCE_DIR) + "/deploy";
using Problems = std::vector<std::string>;

std::vector<YAML::Node> load(const std::string& text) {
  return YAML::LoadAll(text);
}

std::map<std::string, YAML::Node> config_maps(const std::vector<YAML::Node>& docs) {
  std::map<std::string, YAML::Node> out;
  for (const auto& d : docs)
    if (d["kind"].as<std::string>("") == "ConfigMap")
      out[d["metadata"]["name"].as<std::string>()] = d;
  return out;
}

YAML::Node pod_spec(const YAML::Node& doc) {
  return doc["spec"]["template"]["spec"];
}

// Kinds, selectors, volumes and ConfigMap references.
Problems structure(const std::vector<YAML::Node>& docs, const std::string& file) {
  Problems out;
  static const std::map<std::string, std::string> kApi = {
      {"Namespace", "v1"}, {"ConfigMap", "v1"}, {"DaemonSet", "apps/v1"}, {"Job", "batch/v1"}};
  const auto maps = config_maps(docs);
  for (const auto& d : docs) {
    const std::string kind = d["kind"].as<std::string>(""),
                      name = d["metadata"]["name"].as<std::string>("");
    const std::string where = file + ": " + kind + " " + name;
    if (!kApi.count(kind)) {
      out.push_back(where + ": unexpected kind");
      continue;
    }
    if (d["apiVersion"].as<std::string>("") != kApi.at(kind))
      out.push_back(where + ": apiVersion " + d["apiVersion"].as<std::string>("") + ", expected " +
                    kApi.at(kind));
    if (name.empty()) out.push_back(where + ": no metadata.name");
    if (kind != "DaemonSet" && kind != "Job") continue;
    const YAML::Node spec = pod_spec(d);
    if (kind == "DaemonSet") {
      const YAML::Node labels = d["spec"]["template"]["metadata"]["labels"];
      for (const auto& kv : d["spec"]["selector"]["matchLabels"])
        if (labels[kv.first.as<std::string>()].as<std::string>("") != kv.second.as<std::string>())
          out.push_back(where + ": selector " + kv.first.as<std::string>() +
                        " does not match the pod template's labels");
    }
    std::set<std::string> volumes;
    for (const auto& v : spec["volumes"]) {
      volumes.insert(v["name"].as<std::string>());
      if (v["configMap"]) {
        const std::string cm = v["configMap"]["name"].as<std::string>();
        if (!maps.count(cm))
          out.push_back(where + ": volume " + v["name"].as<std::string>() +
                        " refers to ConfigMap " + cm + ", defined nowhere");
      }
    }
    for (const char* list : {"initContainers", "containers"})
      for (const auto& c : spec[list])
        for (const auto& m : c["volumeMounts"])
          if (!volumes.count(m["name"].as<std::string>()))
            out.push_back(where + ": container " + c["name"].as<std::string>() + " mounts " +
                          m["name"].as<std::string>() + ", which is no volume of the pod");
  }
  return out;
}

struct Invocation {
  std::string where;
  std::vector<std::string> argv;             // from /usr/bin/hnprecheck on
  std::map<std::string, YAML::Node> mounts;  // mountPath -> volume
};

std::vector<Invocation> invocations(const std::vector<YAML::Node>& docs, const std::string& file) {
  std::vector<Invocation> out;
  for (const auto& d : docs) {
    if (!d["spec"] || !d["spec"]["template"]) continue;
    const YAML::Node spec = pod_spec(d);
    std::map<std::string, YAML::Node> volumes;
    for (const auto& v : spec["volumes"])
      volumes[v["name"].as<std::string>()] = static_cast<const YAML::Node&>(v);
    for (const char* list : {"initContainers", "containers"})
      for (const auto& c : spec[list]) {
        if (c["image"].as<std::string>("").rfind("hnprecheck:", 0) != 0) continue;
        Invocation inv;
        inv.where = file + ": " + d["metadata"]["name"].as<std::string>() + "/" +
                    c["name"].as<std::string>();
        for (const char* key : {"command", "args"})
          for (const auto& a : c[key]) inv.argv.push_back(a.as<std::string>());
        for (const auto& m : c["volumeMounts"])
          inv.mounts[m["mountPath"].as<std::string>()] = volumes[m["name"].as<std::string>()];
        out.push_back(inv);
      }
  }
  return out;
}

// Runs one invocation with the real binary, its mounts made scratch
// directories. Empty when it ran (exit 0 or 1) and wrote what it names.
Problems run_invocation(const Invocation& inv, const std::map<std::string, YAML::Node>& maps) {
  Problems out;
  std::vector<std::string> argv = inv.argv;
  if (!argv.empty() && argv[0] == "/usr/libexec/hnprecheck/run-every") {
    static const std::regex number("[0-9]+(\\.[0-9]+)?");
    if (argv.size() < 4 || !std::regex_match(argv[1], number) || argv[2] != "--")
      return {inv.where + ": run-every needs SECONDS -- COMMAND"};
    argv.erase(argv.begin(), argv.begin() + 3);
  }
  if (argv.empty() || argv[0] != "/usr/bin/hnprecheck")
    return {inv.where + ": runs " + (argv.empty() ? "nothing" : argv[0]) +
            ", not /usr/bin/hnprecheck"};
  TempDir t;
  std::vector<std::string> written;
  for (const auto& [path, volume] : inv.mounts) {
    const std::string dir = t.path() + path;
    fs::create_directories(dir);
    if (volume["configMap"])
      for (const auto& kv : maps.at(volume["configMap"]["name"].as<std::string>())["data"])
        std::ofstream(dir + "/" + kv.first.as<std::string>()) << kv.second.as<std::string>();
  }
  std::vector<std::string> args;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::string a = argv[i];
    for (const auto& [path, volume] : inv.mounts)
      if (a.rfind(path + "/", 0) == 0) a = t.path() + a;
    if (i > 1 && argv[i - 1] == "--prometheus") written.push_back(a);
    args.push_back(a);
  }
  auto r = hn::test::run_hnprecheck(args, 120);
  if (r.exit_code != 0 && r.exit_code != 1)
    out.push_back(inv.where + ": hnprecheck exited " + std::to_string(r.exit_code) + ": " + r.err);
  for (const auto& w : written)
    if (!fs::exists(w)) out.push_back(inv.where + ": did not write " + w);
  return out;
}

using Files = std::map<std::string, std::string>;  // file name -> text

// The manifests as one set (a Job may mount the ConfigMap that another file
// defines, as `kubectl apply -f deploy/kubernetes/` would see them).
Problems check_manifests(const Files& files) {
  Problems out;
  std::map<std::string, std::vector<YAML::Node>> docs;
  std::vector<YAML::Node> all;
  for (const auto& [file, text] : files) {
    try {
      docs[file] = load(text);
    } catch (const YAML::Exception& e) {
      out.push_back(file + ": does not parse: " + e.what());
      continue;
    }
    all.insert(all.end(), docs[file].begin(), docs[file].end());
  }
  const auto maps = config_maps(all);
  for (const auto& [file, d] : docs) {
    std::vector<YAML::Node> with_maps = d;
    for (const auto& [name, cm] : maps) with_maps.push_back(cm);
    for (const auto& p : structure(with_maps, file)) out.push_back(p);
    for (const auto& inv : invocations(d, file)) {
      bool mounted = true;
      for (const auto& [path, volume] : inv.mounts)
        if (volume["configMap"] && !maps.count(volume["configMap"]["name"].as<std::string>()))
          mounted = false;  // reported by structure()
      if (mounted)
        for (const auto& p : run_invocation(inv, maps)) out.push_back(p);
    }
  }
  return out;
}

Files manifests() {
  Files out;
  for (const auto& e : fs::directory_iterator(kDeploy + "/kubernetes"))
    if (e.path().extension() == ".yaml") out[e.path().filename()] = read_file(e.path());
  return out;
}

// The Dockerfile: Debian 12 stages, multi-stage, COPY --from a stage it
// defines, the scripts it runs exist with the options it passes, and the
// entrypoint is the binary the package installs.
Problems check_dockerfile(const std::string& text) {
  Problems out;
  std::istringstream in(text);
  std::set<std::string> stages;
  int froms = 0;
  bool entrypoint = false;
  static const std::regex from("^FROM (\\S+)( AS (\\S+))?$"), copy_from("--from=(\\S+)"),
      script("\\./scripts/([\\w.-]+)((?: -{1,2}[\\w-]+(?:=\\S+)?)*)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, from)) {
      ++froms;
      if (m[1].str().rfind("debian:12", 0) != 0)
        out.push_back("stage " + m[1].str() + " is not Debian 12");
      if (m[3].matched) stages.insert(m[3]);
    }
    if (std::regex_search(line, m, copy_from) && !stages.count(m[1]))
      out.push_back("COPY --from=" + m[1].str() + ": no such stage");
    for (auto it = std::sregex_iterator(line.begin(), line.end(), script);
         it != std::sregex_iterator(); ++it) {
      const std::string path = std::string(HN_SOURCE_DIR) + "/scripts/" + (*it)[1].str();
      if (!fs::exists(path)) {
        out.push_back("runs scripts/" + (*it)[1].str() + ", which does not exist");
        continue;
      }
      std::istringstream opts((*it)[2].str());
      for (std::string o; opts >> o;) {
        // -DNAME=VALUE goes to CMake: NAME must be one of its options.
        const bool cmake = o.rfind("-D", 0) == 0;
        const std::string known =
            cmake ? read_file(std::string(HN_SOURCE_DIR) + "/cmake/HnOptions.cmake")
                  : read_file(path);
        // A script's options are the labels of its `case`: "--test)".
        const std::string name =
            cmake ? "option(" + o.substr(2, o.find('=') - 2) + " " : o.substr(0, o.find('=')) + ")";
        if (known.find(name) == std::string::npos)
          out.push_back("passes " + o + " to scripts/" + (*it)[1].str() +
                        ", which does not know it");
      }
    }
    if (line.rfind("ENTRYPOINT ", 0) == 0) {
      entrypoint = true;
      if (line != "ENTRYPOINT [\"/usr/bin/hnprecheck\"]")
        out.push_back("the entrypoint is not /usr/bin/hnprecheck: " + line);
    }
  }
  if (froms < 2) out.push_back("not multi-stage");
  if (!entrypoint) out.push_back("no ENTRYPOINT");
  return out;
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string joined(const Problems& p) {
  std::string s;
  for (const auto& x : p) s += x + "\n";
  return s;
}

}  // namespace

TEST_CASE("deploy: every Kubernetes manifest parses, hangs together and runs valid commands") {
  const Files files = manifests();
  CHECK(files.size() >= 2);
  auto problems = check_manifests(files);
  INFO(joined(problems));
  CHECK(problems.empty());
  std::size_t commands = 0;
  for (const auto& [file, text] : files) commands += invocations(load(text), file).size();
  CHECK(commands >= 2);  // the DaemonSet's loop and the Job's init container
}

TEST_CASE("deploy: injected faults in a manifest are caught") {
  const Files files = manifests();
  const std::string ds = files.at("hnprecheck-daemonset.yaml");
  // The set with the DaemonSet's file replaced by `text`.
  auto check_manifest = [&](const std::string& text, const std::string&) {
    Files f = files;
    f["hnprecheck-daemonset.yaml"] = text;
    return check_manifests(f);
  };
  REQUIRE(check_manifest(ds, "ds").empty());
  CHECK_THAT(joined(check_manifest(replaced(ds, "- --quiet", "- --quiett"), "ds")),
             Catch::Contains("hnprecheck exited 2: hnprecheck node: unknown option '--quiett'"));
  CHECK_THAT(
      joined(check_manifest(replaced(ds, "min_memory_gib: 0.5", "min_memory_gib: lots"), "ds")),
      Catch::Contains("hnprecheck exited 2"));
  CHECK_THAT(joined(check_manifest(replaced(ds, "- name: textfile\n          hostPath",
                                            "- name: textfiles\n          hostPath"),
                                   "ds")),
             Catch::Contains("mounts textfile, which is no volume of the pod"));
  CHECK_THAT(joined(check_manifest(replaced(ds, "name: hnprecheck-profile\n  namespace",
                                            "name: profile\n  namespace"),
                                   "ds")),
             Catch::Contains("refers to ConfigMap hnprecheck-profile, defined nowhere"));
  CHECK_THAT(joined(check_manifest(replaced(ds, "app.kubernetes.io/name: hnprecheck\n    spec",
                                            "app.kubernetes.io/name: other\n    spec"),
                                   "ds")),
             Catch::Contains("does not match the pod template's labels"));
  CHECK_THAT(joined(check_manifest(replaced(ds, "- \"300\"", "- five"), "ds")),
             Catch::Contains("run-every needs SECONDS -- COMMAND"));
  CHECK_THAT(joined(check_manifest(replaced(ds, "apiVersion: apps/v1", "apiVersion: v1"), "ds")),
             Catch::Contains("apiVersion v1, expected apps/v1"));
  CHECK_THAT(joined(check_manifest(ds + "\n  bad: [", "ds")), Catch::Contains("does not parse"));
}

TEST_CASE("deploy: the Dockerfile is multi-stage on Debian 12 and runs what exists") {
  const std::string df = read_file(kDeploy + "/Dockerfile");
  INFO(joined(check_dockerfile(df)));
  CHECK(check_dockerfile(df).empty());
  CHECK(fs::exists(std::string(HN_SOURCE_DIR) + "/.dockerignore"));
  CHECK_THAT(joined(check_dockerfile(replaced(df, "FROM debian:12-slim", "FROM debian:11-slim"))),
             Catch::Contains("stage debian:11-slim is not Debian 12"));
  CHECK_THAT(joined(check_dockerfile(replaced(df, "--from=build", "--from=builder"))),
             Catch::Contains("COPY --from=builder: no such stage"));
  CHECK_THAT(joined(check_dockerfile(replaced(df, "./scripts/install-deps.sh --package",
                                              "./scripts/install-deps.sh --pkg"))),
             Catch::Contains("passes --pkg to scripts/install-deps.sh, which does not know it"));
  CHECK_THAT(joined(check_dockerfile(replaced(df, "./scripts/build.sh", "./scripts/make.sh"))),
             Catch::Contains("runs scripts/make.sh, which does not exist"));
}

TEST_CASE("deploy: run-every repeats its command and stops on SIGTERM") {
  TempDir t;
  const std::string out = t.path() + "/runs";
  auto r = run_process({"/usr/bin/timeout", "1.5", kDeploy + "/run-every", "0.2", "--", "/bin/sh",
                        "-c", "echo run >> " + out},
                       30);
  CHECK(r.exit_code == 124);  // timeout's code: it had to be stopped
  std::istringstream in(read_file(out));
  int runs = 0;
  for (std::string l; std::getline(in, l);) ++runs;
  CHECK(runs >= 3);
  auto bad = run_process({kDeploy + "/run-every", "soon", "--", "/bin/true"}, 30);
  CHECK(bad.exit_code == 2);
}
