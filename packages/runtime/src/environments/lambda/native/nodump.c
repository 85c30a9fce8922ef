/*
 * nodump.so: preloaded into the sandbox function's runtime (LD_PRELOAD, set by sst.config.ts), it
 * makes the function's process non-dumpable as it starts. A command runs as the same user as the
 * function; while the function is dumpable, that user may open /proc/<function>/mem, read its
 * environment (the execution role's credentials) or attach to it, and so make the function itself
 * call the Lambda Runtime API. Non-dumpable, the kernel refuses all of that to any process without
 * CAP_SYS_PTRACE (none in Lambda), whatever the Yama setting. execve resets the flag, so the
 * commands the function starts (which get no LD_PRELOAD) are unaffected.
 */
#include <sys/prctl.h>

__attribute__((constructor)) static void zero_nodump(void) {
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
