/*
 * signals.c: a signal that ended a program, in words (lab.h), for the
 * grader's reasons ("crashed: segmentation fault (SIGSEGV)") and the
 * judge's report of a runner's fate ("was killed by ...").
 */
#include "lab.h"

#include <signal.h>

const char *lab_signal_text(int sig)
{
    switch (sig) {
    case SIGSEGV: return "segmentation fault (SIGSEGV)";
    case SIGBUS: return "bus error (SIGBUS)";
    case SIGABRT: return "abort (SIGABRT)";
    case SIGFPE: return "arithmetic exception (SIGFPE)";
    case SIGILL: return "illegal instruction (SIGILL)";
    case SIGKILL: return "SIGKILL (out of host memory?)";
    case SIGTERM: return "SIGTERM (terminated)";
    case SIGPIPE: return "broken pipe (SIGPIPE)";
    case SIGTRAP: return "trap (SIGTRAP)";
    case SIGXCPU: return "CPU time limit (SIGXCPU)";
    case SIGSYS: return "a forbidden system call (SIGSYS)";
    default: return "a signal";
    }
}
