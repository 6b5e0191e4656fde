// The sandbox's network (sandbox_network.h), for real: slirp4netns gives a fresh network
// namespace its tap0, and the host's loopback stays out of reach through its gateway.
#include "fsmove/exec/sandbox_network.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "fsmove/base/read_file.h"
#include "fsmove/exec/user_namespace.h"

namespace fsmove::exec {
namespace {

// What the child saw inside its namespace, once the network was made: whether tap0 is there,
// and whether a connection to the host's loopback through slirp4netns's gateway was refused.
struct Inside {
  bool tap0 = false;
  bool gateway_refused = false;
};

TEST(SandboxNetworkTest, TapInsideAndNoWayToTheHostsLoopback) {
  if (geteuid() != 0) GTEST_SKIP() << "writing maps directly needs root";
  if (access("/usr/bin/slirp4netns", X_OK) != 0) GTEST_SKIP() << "no slirp4netns";
  if (access("/dev/net/tun", R_OK | W_OK) != 0) GTEST_SKIP() << "no /dev/net/tun";
  if (!ProbeUserNamespace().ok()) GTEST_SKIP() << "no user namespaces here";
  // A service on the host's loopback, which the sandbox must not reach.
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const uint16_t port = ntohs(addr.sin_port);

  int ready[2], go[2], result[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(result), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char b = 0;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) _exit(10);
    (void)!write(ready[1], &b, 1);
    if (read(go[0], &b, 1) != 1) _exit(11);
    Inside seen;
    seen.tap0 =
        base::ReadFile("/proc/self/net/dev").value_or("").find("tap0:") != std::string::npos;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in gw{};
    gw.sin_family = AF_INET;
    gw.sin_port = htons(port);
    inet_pton(AF_INET, "10.0.2.2", &gw.sin_addr);
    seen.gateway_refused = s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&gw), sizeof gw) != 0;
    (void)!write(result[1], &seen, sizeof seen);
    _exit(0);
  }
  char b = 0;
  ASSERT_EQ(read(ready[0], &b, 1), 1);
  IdMapping m;
  m.uid_first = m.gid_first = kRootModeIdBase;
  ASSERT_TRUE(WriteIdMaps(child, m).ok());
  int status_pipe[2];
  ASSERT_EQ(pipe(status_pipe), 0);
  fcntl(status_pipe[0], F_SETFL, O_NONBLOCK);
  StatusWriter status(status_pipe[1]);
  const pid_t slirp = StartUserModeNetwork(status, child);
  EXPECT_GT(slirp, 0);
  ASSERT_EQ(write(go[1], &b, 1), 1);
  Inside seen;
  EXPECT_EQ(read(result[0], &seen, sizeof seen), static_cast<ssize_t>(sizeof seen));
  int st = 0;
  waitpid(child, &st, 0);
  if (slirp > 0) {
    kill(slirp, SIGTERM);
    waitpid(slirp, nullptr, 0);
  }
  char said[512] = {};
  (void)!read(status_pipe[0], said, sizeof said - 1);
  EXPECT_NE(std::string(said).find("outbound through slirp4netns"), std::string::npos) << said;
  EXPECT_TRUE(seen.tap0) << "no tap0 in the namespace";
  EXPECT_TRUE(seen.gateway_refused) << "the host's loopback answered through 10.0.2.2";
  // Nothing of the listener was reached.
  fcntl(listener, F_SETFL, O_NONBLOCK);
  EXPECT_LT(accept(listener, nullptr, nullptr), 0);
  close(listener);
}

}  // namespace
}  // namespace fsmove::exec
