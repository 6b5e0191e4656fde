// strace's command line and Puppet's node name; see puppet_command.h.
#include "fsmove/exec/puppet_command.h"

#include <netdb.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <string_view>

#include "absl/strings/match.h"
#include "fsmove/base/blanks.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/sandbox_layout.h"
#include "nlohmann/json.hpp"
#include "re2/re2.h"

namespace fsmove::exec {
namespace {

// Ruby resolves every required file with readlink(2): ~330,000 calls before the first
// resource, the bulk of the tracing cost. Symlinks inside resource blocks are still seen
// through readlinkat, open, stat and the other calls of the table.
constexpr std::string_view kNotTraced[] = {"readlink"};

}  // namespace

std::vector<std::string> StraceArguments(const std::string& strace, const std::string& output,
                                         const std::vector<std::string>& traced_syscalls,
                                         int string_limit, bool timestamps) {
  // -D: Puppet stays the supervisor's own child (its exit status is exact) and the tracer is
  // a detached grandchild. -s 65535 (the default): marker titles are never cut. -I2: fatal
  // signals are blocked only while a call is decoded, so SIGINT makes strace detach cleanly.
  std::vector<std::string> argv = {strace, "-D", "-f", "-s", std::to_string(string_limit), "-I2"};
  if (timestamps) argv.insert(argv.end(), {"-ttt", "-T", "-yy"});
  if (!traced_syscalls.empty()) {
    std::string list = "trace=";
    for (std::string_view name : traced_syscalls) {
      if (std::find(std::begin(kNotTraced), std::end(kNotTraced), name) != std::end(kNotTraced)) {
        continue;
      }
      if (list.size() > 6) list += ',';
      // '?': a name this strace or architecture does not know (stat64 on x86_64) is skipped.
      list += '?';
      list += name;
    }
    argv.insert(argv.end(), {"--seccomp-bpf", "-e", list});
  }
  argv.insert(argv.end(), {"-o", output, "--"});
  return argv;
}

std::string CertName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "localhost";
  std::string name = host;
  addrinfo hints{};
  hints.ai_flags = AI_CANONNAME;
  hints.ai_family = AF_UNSPEC;
  addrinfo* res = nullptr;
  if (getaddrinfo(host, nullptr, &hints, &res) == 0 && res != nullptr) {
    if (res->ai_canonname != nullptr && *res->ai_canonname != '\0') name = res->ai_canonname;
    freeaddrinfo(res);
  }
  if (name.find('.') == std::string::npos) {
    name = QualifiedHostName(name, base::ReadFile("/etc/hosts").value_or(""),
                             base::ReadFile("/etc/resolv.conf").value_or(""));
  }
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string FactsCopyName(std::string_view path) {
  return absl::EndsWithIgnoreCase(absl::string_view(path.data(), path.size()), ".json")
             ? kFactsJsonFile
             : kFactsYamlFile;
}

std::vector<std::string> FactsCompileArgv(const std::string& ruby, const std::string& script,
                                          const std::string& shown, const std::string& facts,
                                          const std::vector<std::string>& catalog_argv) {
  std::vector<std::string> argv = {ruby, script, shown, facts, "--"};
  // The facts face with the same settings: `puppet facts find ... NODE`, no catalog terminus.
  for (size_t i = 0; i < catalog_argv.size(); ++i) {
    if (catalog_argv[i] == "--terminus" && i + 1 < catalog_argv.size()) {
      ++i;
      continue;
    }
    argv.push_back(i == 1 ? std::string("facts") : catalog_argv[i]);
  }
  argv.push_back("--");
  argv.insert(argv.end(), catalog_argv.begin(), catalog_argv.end());
  return argv;
}

std::string FactsFileNode(std::string_view text) {
  std::string name;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("values") && j["values"].is_object() && j.contains("name") &&
        j["name"].is_string()) {
      name = j["name"].get<std::string>();
    }
  } else if (text.find("\nvalues:") != std::string_view::npos) {
    // A yaml cache: `name: NODE` at the top level, beside `values:`.
    static const RE2 kName(R"((?m)^name: *['"]?([^'"\s]+)['"]? *$)");
    RE2::PartialMatch(std::string(text), kName, &name);
  }
  // Puppet's certnames: lower-case letters, digits, '.', '-' and '_'.
  static const RE2 kCertName(R"([a-z0-9_][a-z0-9._-]{0,253})");
  return RE2::FullMatch(name, kCertName) && name.find("..") == std::string::npos ? name : "";
}

std::string RubyOf(const std::string& puppet) {
  std::ifstream in(puppet);
  std::string line;
  if (std::getline(in, line) && line.starts_with("#!")) {
    std::string_view interpreter = base::TrimBlanks(std::string_view(line).substr(2));
    interpreter = interpreter.substr(0, interpreter.find_first_of(" \t"));
    // /usr/bin/ruby, /opt/puppetlabs/puppet/bin/ruby (`#!/usr/bin/env ruby`: the PATH's).
    const std::string_view name = interpreter.substr(interpreter.rfind('/') + 1);
    if (interpreter.starts_with('/') && name.starts_with("ruby")) return std::string(interpreter);
  }
  return FindExecutable("ruby", kSafePath).value_or("ruby");
}

}  // namespace fsmove::exec
