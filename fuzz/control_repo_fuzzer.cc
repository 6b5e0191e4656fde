// Fuzzes the reading of a control repo's Puppetfile and environment.conf (fsmove check REPO
// reads them before anything runs, and r10k evaluates a Puppetfile as Ruby), of a --matrix file
// and of a module's .fixtures.yml repositories: a text is either read or refused with an error
// naming the file and a line; a module read has a name, and a module from this machine's files
// has its path; a matrix row's node names no path (it names a results folder); a fixture
// repository has a module's name and a URL.
#include <cstdint>
#include <filesystem>
#include <string>

#include "fsmove/exec/control_repo.h"
#include "fsmove/exec/fixture_repositories.h"
#include "fsmove/exec/target.h"
#include "fsmove/matrix/matrix_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fsmove;
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<exec::Puppetfile> pf = exec::ParsePuppetfile(text, "Puppetfile");
  if (!pf.ok()) {
    FSMOVE_FUZZ_CHECK(std::string(pf.status().message()).starts_with("Puppetfile:"));
  } else {
    for (const exec::PuppetfileModule& m : pf->modules) {
      FSMOVE_FUZZ_CHECK(!m.name.empty() && m.line >= 1);
      FSMOVE_FUZZ_CHECK(m.local.empty() || !m.git.empty());
    }
  }
  absl::StatusOr<exec::EnvironmentConf> conf = exec::ParseEnvironmentConf(text, "environment.conf");
  if (!conf.ok()) {
    FSMOVE_FUZZ_CHECK(std::string(conf.status().message()).starts_with("environment.conf:"));
  } else {
    // What the sandbox is shown stays in the repo: no absolute path, no `..`.
    auto inside = [](const std::string& p) {
      if (p.empty() || p[0] == '/') return false;
      for (const std::filesystem::path& part : std::filesystem::path(p)) {
        if (part == "..") return false;
      }
      return true;
    };
    for (const std::string& entry : conf->modulepath) {
      FSMOVE_FUZZ_CHECK(entry[0] == '$' || inside(entry));
    }
    FSMOVE_FUZZ_CHECK(inside(conf->manifest));
  }
  absl::StatusOr<std::vector<matrix::MatrixRow>> rows = matrix::ParseMatrix(text, "m/matrix.txt");
  if (!rows.ok()) {
    FSMOVE_FUZZ_CHECK(std::string(rows.status().message()).starts_with("m/matrix.txt"));
  } else {
    FSMOVE_FUZZ_CHECK(!rows->empty());
    for (const matrix::MatrixRow& r : *rows) {
      FSMOVE_FUZZ_CHECK(r.line >= 1 && !r.node.empty());
      FSMOVE_FUZZ_CHECK(r.node.find('/') == std::string::npos && r.node != "." && r.node != "..");
    }
  }
  for (const exec::FixtureRepository& r : exec::FixtureRepositories(text)) {
    FSMOVE_FUZZ_CHECK(exec::IsValidModuleName(r.name) && !r.repo.empty() && r.line >= 1);
  }
  return 0;
}
