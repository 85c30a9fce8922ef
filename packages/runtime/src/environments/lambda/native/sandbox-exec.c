/*
 * sandbox-exec: runs a command so that it cannot use the network or reach into another process.
 *
 *   sandbox-exec PROGRAM [ARG...]
 *
 * The sandbox function (functions/sandbox.ts) starts every command through it. Before exec'ing the
 * program it sets no_new_privs and installs a seccomp filter that every descendant inherits and
 * none can remove:
 *
 *   - socket() of any family but AF_UNIX fails with EACCES: no TCP or UDP at all, so neither the
 *     internet nor the Lambda Runtime API (127.0.0.1:9001, which would hand a command the current
 *     invocation's request id, accept a forged response, then hand it the NEXT invocation, another
 *     session's) nor any loopback listener can be reached;
 *   - ptrace, process_vm_readv/writev, pidfd_getfd fail with EPERM: no borrowing the function's own
 *     sockets or memory (the function's process is also made non-dumpable: see nodump.c);
 *   - io_uring_setup/enter/register fail with EPERM (io_uring can create sockets without socket());
 *   - bpf and perf_event_open fail with EPERM;
 *   - a system call of another ABI (i386 or x32 on x86_64) kills the process: the filter checks
 *     numbers of the native ABI only.
 *
 * File descriptors above 2 are closed first. On any failure it exits 126 without running anything.
 * Built statically for the function's architecture by scripts/build-sandbox-exec.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "sandbox-exec supports x86_64 and aarch64 only"
#endif

/* Numbers newer than some libc headers; identical on x86_64 and aarch64 (the generic table). */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

static const long DENIED[] = {
  __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_pidfd_getfd,
  __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register, __NR_bpf, __NR_perf_event_open,
};
#define DENIED_COUNT (sizeof(DENIED) / sizeof(DENIED[0]))

static int fail(const char *what) {
  fprintf(stderr, "sandbox-exec: %s: %s\n", what, strerror(errno));
  return 126;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sandbox-exec PROGRAM [ARG...]\n");
    return 126;
  }

  struct sock_filter filter[32 + DENIED_COUNT];
  unsigned n = 0;
#define ADD(stmt) (filter[n++] = (struct sock_filter)stmt)
  ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
  ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
  ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
  /* x32 system calls share the architecture tag with a high bit set in the number. */
  ADD(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
  ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
  /* socket(domain, ...): AF_UNIX only. The domain is an int: the low word of args[0] (little-endian). */
  ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 4));
  ADD(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])));
  ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
  ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)));
  /* The denied calls: each jumps to the EPERM return after the list. */
  for (unsigned i = 0; i < DENIED_COUNT; i++) ADD(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)DENIED[i], (unsigned char)(DENIED_COUNT - i), 0));
  ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  ADD(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
#undef ADD
  struct sock_fprog program = { .len = (unsigned short)n, .filter = filter };

  /* Nothing the function had open (its connection to the Runtime API included) reaches the command. */
  if (syscall(__NR_close_range, 3U, ~0U, 0U) != 0) {
    for (int fd = 3; fd < 65536; fd++) close(fd);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("no_new_privs");
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return fail("seccomp");
  execvp(argv[1], argv + 1);
  return fail(argv[1]);
}
