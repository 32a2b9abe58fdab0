// The embedded rule tables: they load, they cover every variable of every
// source library, and a broken table is rejected with file:line.
#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "compat/translate/rules.h"
#include "compat/translate/value_check.h"

using namespace hn::compat::translate;
using hn::compat::InputError;

namespace {
const RuleBook& book() {
  static const RuleBook b = RuleBook::load();
  return b;
}
}  // namespace

TEST_CASE("rules: every embedded table loads and every map table resolves") {
  CHECK(book().libraries().size() == 8);
  CHECK(book().maps().size() == 12);
  for (const auto& [name, table] : book().maps()) {
    INFO(name);
    RuleSet rs = book().for_translation(table.from, table.to);
    CHECK_FALSE(rs.rows.empty());
    CHECK_FALSE(rs.target_vars.empty());
  }
}

TEST_CASE("rules: every row names known variables and cites a source") {
  for (const auto& [name, table] : book().maps()) {
    RuleSet rs = book().for_translation(table.from, table.to);
    for (const auto& row : rs.rows) {
      INFO(name << " row " << row.id() << " (" << row.file << ":" << row.line << ")");
      CHECK_FALSE(row.source.empty());
      for (const auto& f : row.from) CHECK((row.not_a_variable || rs.source(f) != nullptr));
      for (const auto& t : row.to) CHECK_FALSE(book().libraries_knowing(t).empty());
      if (row.action == "map") CHECK(!row.to.empty());
    }
  }
}

TEST_CASE("rules: every source variable has a row or carries over by name") {
  for (const auto& [name, table] : book().maps()) {
    RuleSet rs = book().for_translation(table.from, table.to);
    for (const auto& [var, spec] : rs.source_vars) {
      INFO(name << ": " << var << " (" << spec.file << ":" << spec.line << ")");
      CHECK((rs.row_for(var) != nullptr || rs.target(var) != nullptr));
    }
  }
}

TEST_CASE("rules: every variable cites its source, and enum/int rows are complete") {
  for (const auto& [name, lib] : book().libraries())
    for (const auto& [var, spec] : lib.vars) {
      INFO(name << ": " << var);
      CHECK_FALSE(spec.source.empty());
      if (spec.min && spec.max) CHECK(*spec.min <= *spec.max);
      if (!spec.default_value.empty() && spec.type == "int")
        CHECK_NOTHROW(std::stoll(spec.default_value));
    }
}

TEST_CASE("rules: includes let a table replace rows of another") {
  RuleSet rccl = book().for_translation("rccl", "hccl");
  const MapRow* debug = rccl.row_for("NCCL_DEBUG");
  REQUIRE(debug);
  CHECK(debug->table == "rccl-to-hccl");
  CHECK(debug->values.count("NONE"));
  CHECK(rccl.row_for("NCCL_BUFFSIZE")->table == "nccl-to-hccl");
  CHECK(rccl.source("NCCL_IB_TIMEOUT")->default_value == "18");
  const RuleSet nccl = book().for_translation("nccl", "hccl");
  CHECK(nccl.source("NCCL_IB_TIMEOUT")->default_value == "20");
}

TEST_CASE("rules: platform rows change the effective range") {
  const RuleSet hccl = book().for_check("hccl");
  const VarSpec* t = hccl.target("HCCL_RDMA_TIMEOUT");
  REQUIRE(t);
  CHECK(*effective_range(*t, "a2").max == 20);
  CHECK(*effective_range(*t, "a3").max == 20);
  CHECK(*effective_range(*t, "atlas-training").max == 24);
  const VarSpec* e = hccl.target("HCCL_EXEC_TIMEOUT");
  EffectiveRange r = effective_range(*e, "atlas-inference");
  CHECK(r.step == 68);
  CHECK(r.min_exclusive);
  CHECK(range_text(r) == "(0, 17340] in steps of 68");
  CHECK(range_text(effective_range(*e, "a2")) == "[0, 2147483647]");
}

TEST_CASE("rules: unknown translations and libraries are command-line errors") {
  CHECK_THROWS_AS(book().for_translation("nccl", "gloo"), InputError);
  CHECK_THROWS_AS(book().for_check("mpi"), InputError);
}

TEST_CASE("rules: a broken table is rejected with file, line and key") {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"library = \"x\"\n[[var]]\nname = \"A\"\nsource = \"k\"\ntyp = \"int\"\n",
       "t.toml:5: var[0].typ: unknown key 'typ'"},
      {"library = \"x\"\n[[var]]\nname = \"A\"\n", "t.toml:2: var[0].source: missing required key"},
      {"library = \"x\"\n[[var]]\nname = \"A\"\ntype = \"float\"\nsource = \"k\"\n",
       "t.toml:4: var[0].type: unknown type 'float'"},
      {"from = \"a\"\nto = \"b\"\n[[row]]\nfrom = \"X\"\naction = \"drop\"\nsource = \"k\"\n",
       "row[0].why: a drop row must say why"},
      {"from = \"a\"\nto = \"b\"\n[[row]]\nfrom = \"X\"\nto = \"Y\"\nconvert = \"magic\"\nsource = "
       "\"k\"\n",
       "t.toml:6: row[0].convert: unknown conversion 'magic'"},
      {"from = \"a\"\nto = \"b\"\n[[row]]\nfrom = \"X\"\naction = \"review\"\nwhy = \"w\"\nsource "
       "= \"k\"\n",
       "row[0].todo: this row must say what to do"},
      {"library = \"x\"\n[[var]]\nname = \"A\"\nsource = \"k\"\n[[var]]\nname = \"A\"\nsource = "
       "\"k\"\n",
       "variable A is listed twice"},
      {"library = \"x\"\n[[var]]\nname = \"A\"\nsource = \"k\"\n  [[var.platform]]\n  names = "
       "[\"b9\"]\n",
       "unknown platform 'b9'"},
      {"library = \"x\"\nlibrary = \"y\"\n", "t.toml:2: malformed TOML"},
      {"library = \"x\"\n[[cross]]\nid = \"c\"\nkind = \"greater\"\nvars = [\"A\"]\nwhy = "
       "\"w\"\nsource = \"k\"\n",
       "greater needs 2 vars"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    RuleBook b;
    try {
      b.add_table_text(c.text, "t.toml");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(c.expect));
    }
  }
}

TEST_CASE("rules: a --rules table replaces the embedded one of the same name") {
  RuleBook b = RuleBook::load();
  b.add_table_text(
      "from = \"nccl\"\nto = \"hccl\"\n[[row]]\nfrom = \"NCCL_BUFFSIZE\"\nto = \"HCCL_BUFFSIZE\"\n"
      "divide = 1000000\nsource = \"site\"\n",
      "site.toml");
  RuleSet rs = b.for_translation("nccl", "hccl");
  REQUIRE(rs.rows.size() == 1);
  CHECK(rs.rows[0].divide == 1000000);
  CHECK(rs.rows[0].file == "site.toml");
}

TEST_CASE("rules: plausible bounds are read strictly and need a note") {
  RuleBook b;
  b.add_table_text(
      "library = \"x\"\n[[var]]\nname = \"A\"\ntype = \"int\"\nunit = \"MB\"\nmin = 1\n"
      "plausible_max = 100\nplausible_note = \"looks like bytes\"\nsource = \"k\"\n",
      "t.toml");
  const VarSpec& a = b.libraries().at("x").vars.at("A");
  CHECK(a.plausible_max == 100);
  CHECK_FALSE(a.plausible_min);
  CHECK(a.plausible_note == "looks like bytes");
  CHECK(plausibility_problem(a, 100).empty());
  CHECK(plausibility_problem(a, 101) ==
        "101 MB is above the plausible maximum of 100 MB for A: looks like bytes");

  const char* head = "library = \"x\"\n[[var]]\nname = \"A\"\nsource = \"k\"\n";
  struct Case {
    std::string text;
    const char* expect;
  };
  const Case cases[] = {
      {std::string(head) + "type = \"int\"\nplausible_max = \"100\"\nplausible_note = \"n\"\n",
       "t.toml:6: var[0].plausible_max: expected an integer"},
      {std::string(head) + "type = \"int\"\nplausible_max = 100\n",
       "var[0].plausible_note: plausible_min/plausible_max need a plausible_note"},
      {std::string(head) + "type = \"int\"\nplausible_note = \"n\"\n",
       "t.toml:6: var[0].plausible_note: plausible_note without plausible_min or plausible_max"},
      {std::string(head) + "type = \"string\"\nplausible_min = 1\nplausible_note = \"n\"\n",
       "t.toml:6: var[0].plausible_min: plausible bounds need type = \"int\""},
      {std::string(head) +
           "type = \"int\"\nplausible_min = 10\nplausible_max = 5\nplausible_note = \"n\"\n",
       "t.toml:6: var[0].plausible_min: is above plausible_max"},
      {std::string(head) + "type = \"int\"\nmax = 10\nplausible_max = 50\nplausible_note = \"n\"\n",
       "t.toml:7: var[0].plausible_max: is outside min/max"},
      {std::string(head) + "type = \"int\"\nmin = 1\nplausible_min = 0\nplausible_note = \"n\"\n",
       "t.toml:7: var[0].plausible_min: is outside min/max"},
      {std::string(head) + "type = \"int\"\nplausible_maximum = 5\n",
       "t.toml:6: var[0].plausible_maximum: unknown key 'plausible_maximum'"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    RuleBook bad;
    try {
      bad.add_table_text(c.text, "t.toml");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(c.expect));
    }
  }
}

TEST_CASE("rules: the buffer sizes carry plausible bounds against unit mix-ups") {
  const VarSpec* h = book().for_check("hccl").target("HCCL_BUFFSIZE");
  REQUIRE(h);
  CHECK(h->plausible_max == 65536);  // 64 GiB per buffer, allocated twice
  CHECK_THAT(h->plausible_note, Catch::Contains("looks like bytes"));
  const VarSpec* n = book().for_check("nccl").target("NCCL_BUFFSIZE");
  REQUIRE(n);
  CHECK(n->plausible_min == 65536);  // 64 KiB
  CHECK_THAT(n->plausible_note, Catch::Contains("looks like MB"));
}

TEST_CASE("rules: several source libraries in one run, the first named winning") {
  RuleBook book = RuleBook::load();
  // A ROCm job with torch's own settings: neither table alone knows both.
  RuleSet both = book.for_translation("rccl,torch", "hccl");
  CHECK(both.row_for("RCCL_MSCCL_ENABLE"));
  CHECK(both.row_for("TORCH_NCCL_ASYNC_ERROR_HANDLING"));
  CHECK_FALSE(book.for_translation("rccl", "hccl").row_for("TORCH_NCCL_ASYNC_ERROR_HANDLING"));
  // A table that does not exist is named.
  CHECK_THROWS_WITH(book.for_translation("rccl,nosuch", "hccl"),
                    Catch::Contains("no rules translate nosuch to hccl"));
}
