// `fsmove root build|list|remove`: the pinned OS roots that `check --root` and `scan --root`
// run Puppet on (built with mmdebstrap, cached; see exec/os_root.h).
#include <iostream>
#include <memory>

#include "commands.h"
#include "fmt/format.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/exec/root_archive.h"

namespace fsmove::cli {

std::string RootNames() { return std::string(exec::kHostRoot) + ", " + exec::KnownRootNames(); }

namespace {

struct RootCliOptions {
  std::string name;
  std::string mirror = std::string(exec::kDefaultMirror);
  bool rebuild = false;
  std::string file;           // export's FILE, import's FILE
  std::string expect_sha256;  // import --sha256
};

// NAME  DIR  Puppet VERSION  N packages[  uid 0 is ID on disk]; an outdated root says so.
void PrintRoot(const exec::OsRoot& r) {
  if (r.outdated) {
    std::cout << fmt::format("{}\t{}\told (minbase): rebuild with fsmove root build {} --rebuild\n",
                             r.name, r.dir, r.name);
    return;
  }
  std::cout << fmt::format("{}\t{}\tPuppet {}\t{} packages{}\n", r.name, r.dir,
                           r.puppet_version.empty() ? "unknown" : r.puppet_version, r.package_count,
                           r.id_base != 0 ? fmt::format("\tuid 0 is {} on disk", r.id_base) : "");
}

int Build(const RootCliOptions& o) {
  exec::RootBuildOptions options;
  options.mirror = o.mirror;
  options.rebuild = o.rebuild;
  options.say = SayRootBuild;
  absl::StatusOr<exec::OsRoot> root = exec::BuildRoot(o.name, options);
  if (!root.ok()) {
    return Fail(root.status());
  }
  PrintRoot(*root);
  return kExitOk;
}

int List() {
  for (const exec::RootRecipe& recipe : exec::KnownRoots()) {
    bool built = false;
    for (const exec::OsRoot& r : exec::BuiltRoots()) {
      if (r.name == recipe.name) {
        PrintRoot(r);
        built = true;
      }
    }
    if (!built) {
      std::cout << fmt::format("{}\t(not built: fsmove root build {}; Debian {})\n", recipe.name,
                               recipe.name, recipe.suite);
    }
  }
  exec::OsRoot host = *exec::ResolveRoot(std::string(exec::kHostRoot), false);
  PrintRoot(host);
  return kExitOk;
}

int Remove(const RootCliOptions& o) {
  if (absl::Status st = exec::RemoveRoot(o.name); !st.ok()) {
    return Fail(st);
  }
  return kExitOk;
}

// Prints the content hash (a CI cache key).
int Export(const RootCliOptions& o) {
  absl::StatusOr<std::string> hash = exec::ExportRoot(o.name, o.file, SayRootBuild);
  if (!hash.ok()) return Fail(hash.status());
  std::cout << *hash << "\n";
  return kExitOk;
}

int Import(const RootCliOptions& o) {
  exec::RootImportOptions options;
  options.expect_sha256 = o.expect_sha256;
  options.say = SayRootBuild;
  absl::StatusOr<exec::OsRoot> root = exec::ImportRoot(o.file, options);
  if (!root.ok()) return Fail(root.status());
  PrintRoot(*root);
  return kExitOk;
}

}  // namespace

std::function<int()> RegisterRoot(CLI::App& app) {
  auto o = std::make_shared<RootCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "root",
      "Pinned OS roots for the sandbox: a Debian of priority important with Puppet, strace "
      "and systemd, built once with mmdebstrap (--mode=unshare when not root) and kept in " +
          exec::RootCacheDir());
  cmd->require_subcommand(1);
  std::vector<std::string> names;
  for (const exec::RootRecipe& r : exec::KnownRoots()) names.push_back(r.name);
  CLI::App* build = cmd->add_subcommand("build", "build a root (or keep the one built already)");
  build->add_option("NAME", o->name, "which root")->required()->check(CLI::IsMember(names));
  build->add_option("--mirror", o->mirror, "the Debian mirror to build from")
      ->type_name("URL")
      ->default_val(std::string(exec::kDefaultMirror));
  build->add_flag("--rebuild", o->rebuild,
                  "build again (fresh package lists and versions), replacing the old one once "
                  "the checks on it are over");
  cmd->add_subcommand("list", "the roots, whether built, their Puppet and package count");
  CLI::App* remove = cmd->add_subcommand("remove", "remove a built root");
  remove->add_option("NAME", o->name, "which root")->required()->check(CLI::IsMember(names));
  CLI::App* exp = cmd->add_subcommand(
      "export",
      "write a built root to FILE (a zstd-compressed tar, its content hash recorded) to cache "
      "it between CI jobs; prints the content hash");
  exp->add_option("NAME", o->name, "which root")->required()->check(CLI::IsMember(names));
  exp->add_option("FILE", o->file, "the archive to write")->required();
  CLI::App* imp = cmd->add_subcommand(
      "import",
      "put the root in FILE (from `fsmove root export`) into the cache, once its listing is "
      "judged safe and what it unpacks to matches its content hash; as root");
  imp->add_option("FILE", o->file, "the archive to read")->required()->check(CLI::ExistingFile);
  imp->add_option("--sha256", o->expect_sha256,
                  "the content hash the root must have (as `root export` printed it)")
      ->type_name("HEX");
  return [o, cmd] {
    if (cmd->got_subcommand("build")) return Build(*o);
    if (cmd->got_subcommand("export")) return Export(*o);
    if (cmd->got_subcommand("import")) return Import(*o);
    if (cmd->got_subcommand("remove")) return Remove(*o);
    return List();
  };
}

}  // namespace fsmove::cli
