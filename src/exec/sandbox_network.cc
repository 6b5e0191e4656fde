// slirp4netns for the sandbox's network namespace; see sandbox_network.h.
#include "fsmove/exec/sandbox_network.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "fmt/format.h"

namespace fsmove::exec {

pid_t StartUserModeNetwork(StatusWriter& status, pid_t target) {
  const char* binary = "/usr/bin/slirp4netns";
  if (access(binary, X_OK) != 0) {
    status.Send(status::Warning{
        "the sandbox has no network: slirp4netns is not installed (apt-get install slirp4netns); "
        "a Package that needs a download fails"});
    return -1;
  }
  // slirp4netns opens the TUN device as the caller (rootless: the user); Debian's udev makes
  // it 0666, some machines keep it root's.
  if (access("/dev/net/tun", R_OK | W_OK) != 0) {
    status.Send(status::Warning{fmt::format(
        "the sandbox has no network: /dev/net/tun is not open to this user ({}), so "
        "slirp4netns cannot make its interface; a Package that needs a download fails (Debian's "
        "udev makes the device 0666: chmod 0666 /dev/net/tun, or run fsmove as root; "
        "`fsmove doctor` checks it)",
        std::strerror(errno))});
    return -1;
  }
  int ready[2], exit_pipe[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return -1;
  if (pipe2(exit_pipe, O_CLOEXEC) != 0) {
    close(ready[0]);
    close(ready[1]);
    return -1;
  }
  const std::string pid_arg = std::to_string(target), ready_arg = std::to_string(ready[1]),
                    exit_arg = std::to_string(exit_pipe[0]),
                    userns = fmt::format("--userns-path=/proc/{}/ns/user", target);
  pid_t pid = fork();
  if (pid == 0) {
    // slirp4netns lives in the host's network (its sockets are the way out); it enters the
    // sandbox's only to make the interface.
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);  // it chats on stdout and stderr
    if (devnull >= 0) {
      dup2(devnull, STDOUT_FILENO);
      dup2(devnull, STDERR_FILENO);
    }
    // The child keeps the ready pipe's write end and the exit pipe's read end.
    fcntl(ready[1], F_SETFD, 0);
    fcntl(exit_pipe[0], F_SETFD, 0);
    char* const envp[] = {const_cast<char*>("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), nullptr};
    execle(binary, binary, "--configure", "--mtu=65520", "--disable-host-loopback",
           ("--ready-fd=" + ready_arg).c_str(), ("--exit-fd=" + exit_arg).c_str(), userns.c_str(),
           pid_arg.c_str(), "tap0", static_cast<char*>(nullptr), envp);
    _exit(127);
  }
  close(ready[1]);
  close(exit_pipe[0]);  // the write end stays open (close-on-exec) until we exit
  if (pid < 0) {
    close(ready[0]);
    return -1;
  }
  pollfd p{ready[0], POLLIN, 0};
  char byte = 0;
  bool up = poll(&p, 1, 10000) > 0 && read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  if (up) {
    status.Send(status::Note{"network: private namespace, outbound through slirp4netns"});
  } else {
    status.Send(status::Warning{
        "the sandbox has no network: slirp4netns did not come up within 10 s; a Package that "
        "needs a download fails"});
  }
  return pid;
}

}  // namespace fsmove::exec
