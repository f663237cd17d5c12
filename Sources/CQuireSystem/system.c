#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include "CQuireSystem.h"

const int cquire_F_OFD_SETLK = F_OFD_SETLK;
const int cquire_F_OFD_SETLKW = F_OFD_SETLKW;
const int cquire_F_OFD_GETLK = F_OFD_GETLK;
const int cquire_O_PATH = O_PATH;
const unsigned int cquire_RENAME_EXCHANGE = RENAME_EXCHANGE;
const unsigned int cquire_RENAME_NOREPLACE = RENAME_NOREPLACE;

int cquire_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     unsigned int flags) {
  return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

/* The interruptible regexec: see the header. */
static void (*interrupt_raise)(void);
static int interrupt_signal;
static volatile sig_atomic_t matching;
static __thread int interrupt_unblocked;
static pthread_t matching_thread;
static __thread sigjmp_buf *match_jump;

static void cquire_on_interrupt(int signal) {
  if (interrupt_raise) interrupt_raise();
  if (!matching) return;
  if (pthread_equal(pthread_self(), matching_thread)) {
    if (match_jump) {
      matching = 0;
      siglongjmp(*match_jump, 1);
    }
  } else {
    /* The kernel gave the signal to another thread: pass it to the matching one. */
    pthread_kill(matching_thread, signal);
  }
}

void cquire_install_interrupt_handler(int signal, void (*raise)(void)) {
  struct sigaction action;
  interrupt_raise = raise;
  if (signal == SIGINT) interrupt_signal = signal; /* the one that stops a match */
  action.sa_handler = cquire_on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; /* no SA_RESTART: a read waiting for a line returns */
  sigaction(signal, &action, NULL);
}

int cquire_regexec_interruptible(const regex_t *regex, const char *string, size_t count, regmatch_t *matches,
                                 int flags, int *interrupted) {
  sigjmp_buf jump;
  *interrupted = 0;
  if (!interrupt_unblocked && interrupt_signal != 0) {
    /* Worker threads (Dispatch, Foundation's Thread) start with signals blocked: the handler
       must be able to run on the thread that matches. Once per thread. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, interrupt_signal);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    interrupt_unblocked = 1;
  }
  if (sigsetjmp(jump, 1) != 0) {
    match_jump = NULL;
    *interrupted = 1;
    return REG_NOMATCH;
  }
  match_jump = &jump;
  matching_thread = pthread_self();
  matching = 1;
  int status = regexec(regex, string, count, matches, flags);
  matching = 0;
  match_jump = NULL;
  return status;
}
