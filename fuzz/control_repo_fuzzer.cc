// Fuzzes the reading of a control repo's Puppetfile and environment.conf (fsmove check REPO
// reads them before anything runs, and r10k evaluates a Puppetfile as Ruby): a text is either
// read or refused with an error naming the file and a line; a module read has a name, and a
// module from this machine's files has its path.
#include <cstdint>
#include <filesystem>
#include <string>

#include "fsmove/exec/control_repo.h"
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
  return 0;
}
