// strace's command line and Puppet's node name; see puppet_command.h.
#include "fsmove/exec/puppet_command.h"

#include <netdb.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

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
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace fsmove::exec
