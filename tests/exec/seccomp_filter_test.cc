// The sandbox's seccomp filter: the program's shape, its verdicts on made-up calls (a small BPF
// interpreter), and the real thing in forked children that install it and make the calls.
#include "fsmove/exec/seccomp_filter.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <thread>

#include "fmt/format.h"

namespace fsmove::exec {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kArch = AUDIT_ARCH_AARCH64;
#endif

uint32_t Errno(int error) { return SECCOMP_RET_ERRNO | static_cast<uint32_t>(error); }

// Runs the program the way the kernel does, on the instructions it uses.
uint32_t Verdict(const std::vector<sock_filter>& program, const seccomp_data& data) {
  uint32_t a = 0;
  for (size_t pc = 0; pc < program.size(); ++pc) {
    const sock_filter& in = program[pc];
    switch (in.code) {
      case BPF_LD | BPF_W | BPF_ABS:
        std::memcpy(&a, reinterpret_cast<const char*>(&data) + in.k, sizeof(a));
        break;
      case BPF_JMP | BPF_JEQ | BPF_K:
        pc += a == in.k ? in.jt : in.jf;
        break;
      case BPF_JMP | BPF_JSET | BPF_K:
        pc += (a & in.k) != 0 ? in.jt : in.jf;
        break;
      case BPF_RET | BPF_K:
        return in.k;
      default:
        ADD_FAILURE() << "instruction " << pc << " has an unexpected code " << in.code;
        return 0;
    }
  }
  ADD_FAILURE() << "the program ran off its end";
  return 0;
}

uint32_t VerdictFor(int nr, uint64_t arg0 = 0, uint32_t arch = kArch) {
  seccomp_data data{};
  data.nr = nr;
  data.arch = arch;
  data.args[0] = arg0;
  return Verdict(SandboxSeccompProgram(), data);
}

TEST(SeccompFilterTest, ProgramChecksTheArchitectureFirstAndNamesEveryDeniedNumber) {
  const std::vector<sock_filter> program = SandboxSeccompProgram();
  ASSERT_GE(program.size(), 4u);
  EXPECT_LT(program.size(), size_t{BPF_MAXINSNS});
  EXPECT_EQ(program[0].code, BPF_LD | BPF_W | BPF_ABS);
  EXPECT_EQ(program[0].k, offsetof(seccomp_data, arch));
  EXPECT_EQ(program[1].code, BPF_JMP | BPF_JEQ | BPF_K);
  EXPECT_EQ(program[1].k, kArch);
  EXPECT_EQ(program[3].code, BPF_LD | BPF_W | BPF_ABS);
  EXPECT_EQ(program[3].k, offsetof(seccomp_data, nr));
  EXPECT_EQ(program.back().code, BPF_RET | BPF_K);
  EXPECT_EQ(program.back().k, SECCOMP_RET_ALLOW);

  auto compared = [&](int nr) {
    return std::any_of(program.begin(), program.end(), [&](const sock_filter& in) {
      return in.code == (BPF_JMP | BPF_JEQ | BPF_K) && in.k == static_cast<uint32_t>(nr);
    });
  };
  for (const SeccompDenial& row : SeccompDeniedSyscalls()) {
    EXPECT_TRUE(compared(row.nr)) << row.name;
  }
  for (int nr : {__NR_open_by_handle_at,
                 __NR_name_to_handle_at,
                 __NR_keyctl,
                 __NR_add_key,
                 __NR_request_key,
                 __NR_bpf,
                 __NR_perf_event_open,
                 __NR_kexec_load,
                 __NR_kexec_file_load,
                 __NR_init_module,
                 __NR_finit_module,
                 __NR_delete_module,
                 __NR_userfaultfd,
                 __NR_acct,
                 __NR_swapon,
                 __NR_swapoff,
                 __NR_reboot,
                 __NR_settimeofday,
                 __NR_clock_settime,
                 __NR_clock_adjtime,
                 __NR_adjtimex,
                 __NR_syslog,
                 __NR_quotactl,
                 __NR_clone3,
                 __NR_clone,
                 __NR_unshare}) {
    EXPECT_TRUE(compared(nr)) << nr;
  }
  // Left to the user namespace and the capabilities (strace needs ptrace).
  for (int nr : {__NR_ptrace, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_fanotify_init,
                 __NR_setns, __NR_fsopen, __NR_fsmount, __NR_move_mount, __NR_open_tree}) {
    EXPECT_FALSE(compared(nr)) << nr;
  }
}

TEST(SeccompFilterTest, TableRowsAreUniqueAndKnown) {
  auto rows = SeccompDeniedSyscalls();
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_GE(rows[i].nr, 0) << rows[i].name;
    EXPECT_TRUE(rows[i].error == EPERM || rows[i].error == ENOSYS) << rows[i].name;
    for (size_t j = i + 1; j < rows.size(); ++j) EXPECT_NE(rows[i].nr, rows[j].nr) << rows[i].name;
  }
}

TEST(SeccompFilterTest, Verdicts) {
  EXPECT_EQ(VerdictFor(__NR_getpid), SECCOMP_RET_ALLOW);
  EXPECT_EQ(VerdictFor(__NR_ptrace), SECCOMP_RET_ALLOW);
  EXPECT_EQ(VerdictFor(__NR_mount), SECCOMP_RET_ALLOW);
  EXPECT_EQ(VerdictFor(__NR_keyctl), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_open_by_handle_at), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_clone3), Errno(ENOSYS));
  EXPECT_EQ(VerdictFor(__NR_unshare, CLONE_NEWUSER), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_unshare, CLONE_NEWUSER | CLONE_NEWNS), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_unshare, CLONE_NEWNS | CLONE_NEWUTS), SECCOMP_RET_ALLOW);
  EXPECT_EQ(VerdictFor(__NR_clone, CLONE_NEWUSER | SIGCHLD), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_clone, SIGCHLD), SECCOMP_RET_ALLOW);
  // A child strace -f would not follow.
  EXPECT_EQ(VerdictFor(__NR_clone, CLONE_UNTRACED | SIGCHLD), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_clone, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
                                       CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
                                       CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID),
            SECCOMP_RET_ALLOW);
#ifdef __NR_io_uring_setup
  EXPECT_EQ(VerdictFor(__NR_io_uring_setup), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_io_uring_enter), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_io_uring_register), Errno(EPERM));
#endif
  // Only the flags' word counts: high bits of the argument do not hide nor add the flag.
  EXPECT_EQ(VerdictFor(__NR_unshare, (uint64_t{1} << 40) | CLONE_NEWUSER), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_unshare, uint64_t{CLONE_NEWUSER} << 32), SECCOMP_RET_ALLOW);
  // Another architecture's numbers are refused whatever they are.
  EXPECT_EQ(VerdictFor(__NR_getpid, 0, AUDIT_ARCH_I386), Errno(EPERM));
  EXPECT_EQ(VerdictFor(__NR_getpid, 0,
                       kArch == AUDIT_ARCH_X86_64 ? AUDIT_ARCH_AARCH64 : AUDIT_ARCH_X86_64),
            Errno(EPERM));
#if defined(__x86_64__)
  EXPECT_EQ(VerdictFor(__X32_SYSCALL_BIT | __NR_getpid), Errno(EPERM));
#endif
}

TEST(SeccompFilterTest, SummaryIsOneLineFromTheTable) {
  std::string_view summary = SeccompDeniedSummary();
  EXPECT_EQ(summary.find('\n'), std::string_view::npos);
  for (const SeccompDenial& row : SeccompDeniedSyscalls()) {
    EXPECT_NE(summary.find(row.name), std::string_view::npos) << row.name;
  }
  EXPECT_NE(summary.find("unshare with CLONE_NEWUSER"), std::string_view::npos) << summary;
  EXPECT_NE(summary.find("clone with CLONE_NEWUSER or CLONE_UNTRACED"), std::string_view::npos)
      << summary;
  EXPECT_NE(summary.find("clone3 fails with ENOSYS"), std::string_view::npos) << summary;
}

// What a call returned in a forked child, and its errno.
struct Outcome {
  long result = 0;
  int error = 0;
  bool operator==(const Outcome&) const = default;
};

std::string Describe(const Outcome& o) {
  return o.result == -1
             ? fmt::format("-1 {}", strerrorname_np(o.error) ? strerrorname_np(o.error) : "?")
             : fmt::format("{}", o.result);
}

// For gtest's messages: "-1 EPERM" rather than the bytes.
void PrintTo(const Outcome& o, std::ostream* out) { *out << Describe(o); }

constexpr long kNotInstalled = -1000;

// Runs `call` in a forked child, with the filter installed (and PR_SET_NO_NEW_PRIVS) or not.
// The child is its own process, so a call the filter let through changes nothing here.
Outcome InChild(bool filtered, const std::function<long()>& call) {
  int fds[2];
  if (pipe(fds) != 0) return {kNotInstalled, errno};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Outcome out;
    if (filtered &&
        (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || !InstallSandboxSeccomp().ok())) {
      out = {kNotInstalled, errno};
    } else {
      errno = 0;
      out.result = call();
      out.error = errno;
    }
    _exit(write(fds[1], &out, sizeof(out)) == static_cast<ssize_t>(sizeof(out)) ? 0 : 1);
  }
  close(fds[1]);
  Outcome out{kNotInstalled, 0};
  if (read(fds[0], &out, sizeof(out)) != static_cast<ssize_t>(sizeof(out)))
    out = {kNotInstalled, EIO};
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return out;
}

// A call that forks returns in the new process too: that one leaves at once.
long Forked(long result) {
  if (result == 0) _exit(0);
  if (result > 0) waitpid(static_cast<pid_t>(result), nullptr, __WALL);
  return result;
}

struct Probe {
  const char* what;
  std::function<long()> call;
  int error;  // the errno the filter makes the call fail with
  // A host may refuse it too (io_uring under kernel.io_uring_disabled): not compared there.
  bool host_may_refuse = false;
};

TEST(SeccompFilterTest, InstalledItRefusesTheDeniedCalls) {
  const Probe probes[] = {
    {"keyctl(KEYCTL_GET_KEYRING_ID)",
     [] { return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0); }, EPERM},
    {"add_key",
     [] {
       return syscall(SYS_add_key, "user", "fsmove-seccomp-test", "x", 1, KEY_SPEC_PROCESS_KEYRING);
     },
     EPERM},
    {"request_key",
     [] {
       return syscall(SYS_request_key, "user", "fsmove-seccomp-none", nullptr,
                      KEY_SPEC_PROCESS_KEYRING);
     },
     EPERM},
    {"bpf(BPF_MAP_CREATE)", [] { return syscall(SYS_bpf, 0, nullptr, 0); }, EPERM},
    {"perf_event_open", [] { return syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0); }, EPERM},
    {"open_by_handle_at", [] { return syscall(SYS_open_by_handle_at, -1, nullptr, O_RDONLY); },
     EPERM},
    {"name_to_handle_at",
     [] { return syscall(SYS_name_to_handle_at, AT_FDCWD, "/", nullptr, nullptr, 0); }, EPERM},
    {"syslog(SIZE_BUFFER)", [] { return syscall(SYS_syslog, 10, nullptr, 0); }, EPERM},
    // Invalid arguments: harmless should the filter let them through.
    {"reboot(bad magic)", [] { return syscall(SYS_reboot, 0, 0, 0, nullptr); }, EPERM},
    {"clock_settime(-1)", [] { return syscall(SYS_clock_settime, -1, nullptr); }, EPERM},
    {"unshare(CLONE_NEWUSER)", [] { return syscall(SYS_unshare, CLONE_NEWUSER); }, EPERM},
    {"unshare(CLONE_NEWUSER|CLONE_NEWNS)",
     [] { return syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS); }, EPERM},
    {"clone(CLONE_NEWUSER)",
     [] { return Forked(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)); }, EPERM},
    {"clone(CLONE_UNTRACED)",
     [] { return Forked(syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0)); }, EPERM},
#ifdef __NR_io_uring_setup
    // A ring of 8 entries: the kernel would make one.
    {"io_uring_setup",
     [] {
       unsigned char params[120] = {};
       return syscall(__NR_io_uring_setup, 8, params);
     },
     EPERM, true},
#endif
    {"clone3",
     [] {
       clone_args args{};
       args.exit_signal = SIGCHLD;
       return Forked(syscall(SYS_clone3, &args, sizeof(args)));
     },
     ENOSYS},
#if defined(__x86_64__)
    {"x32 getpid", [] { return syscall(__X32_SYSCALL_BIT | __NR_getpid); }, EPERM},
#endif
  };
  for (const Probe& probe : probes) {
    const Outcome expected{-1, probe.error};
    Outcome filtered = InChild(true, probe.call);
    EXPECT_EQ(filtered, expected) << probe.what << ": " << Describe(filtered);
    // As root, each call does something else without the filter: the filter made it fail.
    if (geteuid() == 0) {
      Outcome plain = InChild(false, probe.call);
      if (probe.host_may_refuse && plain == expected) continue;
      EXPECT_NE(plain, expected) << probe.what << " fails the same without the filter";
    }
  }
}

TEST(SeccompFilterTest, InstalledItAllowsWhatPuppetAndStraceUse) {
  const Probe probes[] = {
      {"getpid", [] { return static_cast<long>(getpid() > 0); }, 0},
      {"open, read, write",
       [] {
         int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
         char buf[64];
         int fds[2];
         bool ok = fd >= 0 && read(fd, buf, sizeof(buf)) > 0 && pipe(fds) == 0 &&
                   write(fds[1], buf, 4) == 4;
         return static_cast<long>(ok);
       },
       0},
      {"fork",
       [] {
         pid_t pid = fork();
         if (pid == 0) _exit(7);
         int status = 0;
         return static_cast<long>(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                                  WEXITSTATUS(status) == 7);
       },
       0},
      {"clone without CLONE_NEWUSER",
       [] { return Forked(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)) > 0 ? 1L : 0L; }, 0},
      // glibc tries clone3 first for a thread and falls back to clone on ENOSYS.
      {"std::thread",
       [] {
         int ran = 0;
         std::thread([&ran] { ran = 1; }).join();
         return static_cast<long>(ran);
       },
       0},
      {"unshare(CLONE_FILES)", [] { return static_cast<long>(unshare(CLONE_FILES) == 0); }, 0},
      {"execve",
       [] {
         pid_t pid = fork();
         if (pid == 0) {
           execl("/bin/true", "true", nullptr);
           _exit(127);
         }
         int status = 0;
         return static_cast<long>(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                                  WEXITSTATUS(status) == 0);
       },
       0},
      // strace's way in: the tracee asks, stops, and the tracer continues it.
      {"ptrace(PTRACE_TRACEME) in a grandchild",
       [] {
         pid_t pid = fork();
         if (pid == 0) {
           if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(1);
           raise(SIGSTOP);
           _exit(0);
         }
         int status = 0;
         if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) return 0L;
         if (ptrace(PTRACE_CONT, pid, nullptr, nullptr) != 0) return 0L;
         return static_cast<long>(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                                  WEXITSTATUS(status) == 0);
       },
       0},
  };
  for (const Probe& probe : probes) {
    Outcome filtered = InChild(true, probe.call);
    EXPECT_EQ(filtered.result, 1) << probe.what << ": " << Describe(filtered);
  }
}

// Calls that need privilege: as root the filter must not be what refuses them.
TEST(SeccompFilterTest, InstalledItLeavesNamespacesAndMountsToTheKernel) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  Outcome uts = InChild(true, [] { return syscall(SYS_unshare, CLONE_NEWUTS); });
  EXPECT_EQ(uts.result, 0) << Describe(uts);
  Outcome ns = InChild(true, [] { return syscall(SYS_unshare, CLONE_NEWNS | CLONE_NEWUTS); });
  EXPECT_EQ(ns.result, 0) << Describe(ns);
  Outcome mounted = InChild(true, [] {
    if (unshare(CLONE_NEWNS) != 0) return -2L;
    return static_cast<long>(mount("none", "/nonexistent-fsmove-test", "tmpfs", 0, nullptr));
  });
  EXPECT_EQ(mounted, (Outcome{-1, ENOENT})) << Describe(mounted);
}

#if defined(__x86_64__)
// A 64-bit process can still make i386 calls (int $0x80): they are another arch's numbers.
long I386Getpid() {
  long ret = 20;  // getpid on i386
  asm volatile("int $0x80" : "+a"(ret) : : "memory", "r8", "r9", "r10", "r11");
  return static_cast<int32_t>(ret);
}

// Whether this kernel makes i386 calls at all: one built without IA32 emulation, or booted with
// ia32_emulation=0, kills the caller with SIGSEGV instead.
bool KernelMakesI386Calls() {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) _exit(I386Getpid() == getpid() ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(SeccompFilterTest, InstalledItRefusesI386Calls) {
  if (!KernelMakesI386Calls()) GTEST_SKIP() << "this kernel makes no i386 calls";
  Outcome filtered = InChild(true, [] { return I386Getpid(); });
  EXPECT_EQ(filtered.result, -EPERM);
}
#endif

}  // namespace
}  // namespace fsmove::exec
