/*
 * check.c: the judge's side of a conversation with a runner (judge/remote.c)
 * against tests/judge/fake_runner.c: answers, a hang stopped at the time
 * limit, a death told from waitpid, a garbled answer, an error's number, and
 * a runner started inside build/confine/confine.
 *
 *   check FAKE_RUNNER [CONFINE]
 *
 * Prints "ok    name" or "FAIL  name" per check (tests/judge/run.sh counts).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"

static int failures;

static void expect(int cond, const char *name, const char *detail)
{
    printf("%s  %s\n", cond ? "ok  " : "FAIL", name);
    if (!cond) {
        printf("      %s\n", detail);
        failures++;
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Start the fake runner in a mode (it reads LAB_FAKE_RUNNER_MODE: a runner
 * gets no arguments), ask HELLO, then one CALLS. */
static int converse(const char *fake, const char *mode, const char *confine, double limit, lab_runner *r,
                    lab_remote_answer *a)
{
    setenv("LAB_FAKE_RUNNER_MODE", mode, 1);
    if (lab_runner_start(r, fake, NULL, NULL, confine, "", "the fake runner", 0))
        return -100;
    lab_remote_request q;
    memset(&q, 0, sizeof q);
    q.magic = LAB_REMOTE_MAGIC;
    q.op = LAB_OP_HELLO;
    int rc = lab_runner_ask(r, &q, 10, a);
    if (rc != LAB_REMOTE_OK || strcmp(a->text, "matmul"))
        return -200 - rc;
    q.op = LAB_OP_CALLS;
    q.count = 1;
    q.calls[0].fn = LAB_FN_CONTRACT;
    return lab_runner_ask(r, &q, limit, a);
}

/* HELLO sent as the runner starts, its answer read later (the judge's
 * send_hello, then hello): the runner's start-up runs beside the judge's
 * own, the answer's limit counts from the read, and a runner that died
 * before it read the HELLO is a death with its fate. */
static void early_hello(const char *fake)
{
    lab_runner r;
    lab_remote_answer a;
    char fate[160], detail[256];
    lab_remote_request q;
    memset(&q, 0, sizeof q);
    q.magic = LAB_REMOTE_MAGIC;
    q.op = LAB_OP_HELLO;
    setenv("LAB_FAKE_RUNNER_MODE", "slow-hello", 1);
    int rs = lab_runner_start(&r, fake, NULL, NULL, NULL, "", "the fake runner", 0) ? -100 : lab_runner_send(&r, &q);
    double t0 = now();
    usleep(800000); /* the judge's own start-up, longer than the runner's */
    double mid = now();
    int rc = rs == LAB_REMOTE_OK ? lab_runner_answer(&r, LAB_OP_HELLO, 0.1, &a) : rs;
    double waited = now() - mid, all = now() - t0;
    snprintf(detail, sizeof detail, "send %d, answer %d (%s) after %.2f s, %.2f s in all", rs, rc, a.text, waited,
             all);
    expect(rc == LAB_REMOTE_OK && !strcmp(a.text, "matmul") && waited < 0.1 && all < 1.3,
           "remote: a HELLO sent at the start is answered while the judge starts up (0.6 s of start-up, 0.8 s of "
           "the judge's, waited under 0.1 s)", detail);
    memset(&q, 0, sizeof q);
    q.magic = LAB_REMOTE_MAGIC;
    q.op = LAB_OP_CALLS;
    q.count = 1;
    rc = lab_runner_ask(&r, &q, 10, &a);
    snprintf(detail, sizeof detail, "result %d", rc);
    expect(rc == LAB_REMOTE_OK, "remote: after an early HELLO, the next request is answered", detail);
    lab_runner_stop(&r);

    setenv("LAB_FAKE_RUNNER_MODE", "crash-start", 1);
    memset(&q, 0, sizeof q);
    q.magic = LAB_REMOTE_MAGIC;
    q.op = LAB_OP_HELLO;
    rs = lab_runner_start(&r, fake, NULL, NULL, NULL, "", "the fake runner", 0) ? -100 : lab_runner_send(&r, &q);
    usleep(200000);
    rc = rs == -100 ? rs : lab_runner_answer(&r, LAB_OP_HELLO, 10, &a);
    lab_runner_fate(&r, fate, sizeof fate);
    snprintf(detail, sizeof detail, "send %d, answer %d: %s", rs, rc, fate);
    expect(rc == LAB_REMOTE_DIED && strstr(fate, "SIGSEGV"),
           "remote: a runner dead before it read its early HELLO is a death named from waitpid", detail);
    lab_runner_stop(&r);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *fake = argv[1], *confine = argc > 2 ? argv[2] : NULL;
    lab_runner r;
    lab_remote_answer a;
    char fate[160], detail[256];

    int rc = converse(fake, "good", NULL, 10, &r, &a);
    snprintf(detail, sizeof detail, "result %d", rc);
    expect(rc == LAB_REMOTE_OK, "remote: a runner that answers: HELLO names its family, CALLS is done", detail);
    /* a request of many calls (a timed batch: a call for each set) is
     * read whole: the next request is answered too */
    lab_remote_request g;
    memset(&g, 0, sizeof g);
    g.magic = LAB_REMOTE_MAGIC;
    g.op = LAB_OP_CALLS;
    g.count = LAB_REMOTE_MAX_CALLS;
    int rb = lab_runner_ask(&r, &g, 10, &a);
    g.count = 1;
    int rc2 = lab_runner_ask(&r, &g, 10, &a);
    snprintf(detail, sizeof detail, "batch %d, then %d", rb, rc2);
    expect(rb == LAB_REMOTE_OK && rc2 == LAB_REMOTE_OK && lab_runner_alive(&r),
           "remote: a request of the most calls is read whole, and the next is answered", detail);
    lab_runner_stop(&r);
    expect(r.pid == -1, "remote: stopping a runner reaps it", "");
    expect(!lab_runner_alive(&r), "remote: a stopped runner is not alive", "");

    double t0 = now();
    rc = converse(fake, "hang", NULL, 0.5, &r, &a);
    double took = now() - t0;
    lab_runner_fate(&r, fate, sizeof fate);
    snprintf(detail, sizeof detail, "result %d after %.2f s: %s", rc, took, fate);
    expect(rc == LAB_REMOTE_TIMEOUT && took < 3 && strstr(fate, "in time"),
           "remote: a runner that hangs is stopped at the time limit", detail);
    lab_runner_stop(&r);

    rc = converse(fake, "die", NULL, 10, &r, &a);
    lab_runner_fate(&r, fate, sizeof fate);
    snprintf(detail, sizeof detail, "result %d: %s", rc, fate);
    expect(rc == LAB_REMOTE_DIED && strstr(fate, "exit status 0"),
           "remote: a runner that exits with status 0 mid-call is a death, not a success", detail);
    lab_runner_stop(&r);

    rc = converse(fake, "leave", NULL, 10, &r, &a);
    usleep(200000); /* it is gone before the next request */
    lab_remote_request next;
    memset(&next, 0, sizeof next);
    next.magic = LAB_REMOTE_MAGIC;
    next.op = LAB_OP_CALLS;
    int rn = lab_runner_ask(&r, &next, 10, &a);
    lab_runner_fate(&r, fate, sizeof fate);
    snprintf(detail, sizeof detail, "result %d, then %d: %s", rc, rn, fate);
    expect(rc == LAB_REMOTE_OK && rn == LAB_REMOTE_DIED && strstr(fate, "exit status 0"),
           "remote: a runner gone between two requests is a death with its fate (the judge survives the write)",
           detail);
    lab_runner_stop(&r);

    rc = converse(fake, "crash", NULL, 10, &r, &a);
    lab_runner_fate(&r, fate, sizeof fate);
    snprintf(detail, sizeof detail, "result %d: %s", rc, fate);
    expect(rc == LAB_REMOTE_DIED && strstr(fate, "SIGSEGV"), "remote: a crash is named from waitpid", detail);
    lab_runner_stop(&r);

    rc = converse(fake, "garble", NULL, 10, &r, &a);
    snprintf(detail, sizeof detail, "result %d", rc);
    expect(rc == LAB_REMOTE_GARBLED, "remote: an answer with a wrong magic number is not believed", detail);
    lab_runner_stop(&r);

    rc = converse(fake, "error", NULL, 10, &r, &a);
    snprintf(detail, sizeof detail, "result %d status %d", rc, a.status);
    expect(rc == LAB_REMOTE_ERROR && a.status == 700, "remote: a CUDA error comes as its number", detail);
    lab_runner_stop(&r);

    early_hello(fake);

    const char *target = getenv("LAB_FAKE_RUNNER_TARGET");
    rc = converse(fake, "escape", NULL, 10, &r, &a);
    snprintf(detail, sizeof detail, "result %d: %s", rc, a.text);
    expect(rc == LAB_REMOTE_OK && target && access(target, F_OK) == 0,
           "remote: unconfined, the same runner does create the file (the next check means something)", detail);
    lab_runner_stop(&r);
    if (target)
        unlink(target);
    if (confine) {
        rc = converse(fake, "good", confine, 10, &r, &a);
        snprintf(detail, sizeof detail, "result %d", rc);
        expect(rc == LAB_REMOTE_OK, "remote: a runner inside confine talks through its two descriptors", detail);
        lab_runner_stop(&r);
        rc = converse(fake, "escape", confine, 10, &r, &a);
        snprintf(detail, sizeof detail, "result %d: %s", rc, a.text);
        expect(rc == LAB_REMOTE_ERROR && target && access(target, F_OK) != 0,
               "remote: a runner inside confine cannot create a file", detail);
        lab_runner_stop(&r);
    }
    return failures ? 1 : 0;
}
