/*
 * fake_driver.c: a stand-in for a stage's program, for testing the grader
 * without a GPU. It takes the options the grader passes (--record-fd FD,
 * --progress-fd FD, --seed, ...) and behaves as its own file name says:
 * tests/grader/run.sh links one binary under many names (good, crash, hang,
 * flood, forge, slow_timing, ...). Records are written with the harness's
 * JSON writer, and progress lines one write each, as a driver does. With
 * --worker FD it stands in for a judge's worker instead (fake_worker).
 *
 *   build/tests/grader/bin/good --record-fd 3 --progress-fd 4 3>record.json 4>&2
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab.h"

static int record_fd = -1, progress_fd = -1;
static const char *stage;

/* One progress line, one write, as lab_progress does. */
static void progress(const char *line)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s\n", line);
    if (progress_fd >= 0 && write(progress_fd, buf, (size_t)n) < 0)
        return;
}

/* Wait for the grader's time limit. */
static void hang(void)
{
    for (;;)
        pause();
}

/* Send text on the record descriptor, as the harness does at the end. */
static void send_record(const char *text, size_t len)
{
    while (record_fd >= 0 && len > 0) {
        ssize_t w = write(record_fd, text, len);
        if (w <= 0)
            return;
        text += w;
        len -= (size_t)w;
    }
}

typedef struct {
    const char *status;
    int exit_status;
    const char *gpu;
    int correct;
    int checks_ok;         /* 0: the n=17 check fails                        */
    int inputs_unchanged;
    int timed_output_ok;
    int timed;             /* a timing object at all                         */
    int plausible;
    int with_pct;          /* timing.pct_of_reference present                */
    double pct, speedup;
    const char *message;
    const char *disturbed; /* timing.disturbed: what the judge's canaries saw */
    int offer_baseline;    /* timing.baseline_reusable, a timed baseline row */
    int whole_first;       /* a passed check of whole tiles (n=256) first    */
    int all_nan;           /* the failed check's elements all NaN, written   */
} record_spec;

/* A record shaped like common/matmul_family.cu's. */
static void write_record(const record_spec *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    lab_json j;
    lab_json_start(&j, m);
    lab_json_int(&j, "schema", 1);
    lab_json_string(&j, "family", "fake");
    lab_json_string(&j, "stage", stage);
    lab_json_string(&j, "variant", "exercise");
    lab_json_object(&j, "gpu");
    lab_json_string(&j, "name", s->gpu);
    lab_json_end(&j);
    lab_json_array(&j, "checks");
    if (s->whole_first) {
        lab_json_object(&j, NULL);
        lab_json_string(&j, "size", "n=256");
        lab_json_bool(&j, "ok", 1);
        lab_json_int(&j, "elements", 65536);
        lab_json_int(&j, "wrong", 0);
        lab_json_bool(&j, "whole_tiles", 1);
        lab_json_end(&j);
    }
    lab_json_object(&j, NULL);
    lab_json_string(&j, "size", "n=17");
    lab_json_bool(&j, "ok", s->checks_ok && s->inputs_unchanged);
    lab_json_int(&j, "elements", 289);
    lab_json_int(&j, "wrong", s->checks_ok ? 0 : 289);
    lab_json_int(&j, "never_written", s->checks_ok || s->all_nan || s->whole_first ? 0 : 289);
    lab_json_int(&j, "nan", s->checks_ok ? 0 : s->all_nan ? 289 : 0);
    lab_json_bool(&j, "guards_ok", 1);
    lab_json_bool(&j, "inputs_unchanged", s->inputs_unchanged);
    lab_json_end(&j);
    lab_json_end(&j);
    lab_json_bool(&j, "correct", s->correct);
    if (!s->timed_output_ok) {
        lab_json_array(&j, "timed_output_check");
        lab_json_object(&j, NULL);
        lab_json_string(&j, "size", "n=4096");
        lab_json_bool(&j, "ok", 0);
        lab_json_int(&j, "elements", 16777216);
        lab_json_int(&j, "wrong", 16777216);
        lab_json_int(&j, "never_written", 16777216);
        lab_json_end(&j);
        lab_json_end(&j);
    }
    if (s->timed) {
        lab_json_object(&j, "timing");
        lab_json_string(&j, "size", "n=4096");
        lab_json_string(&j, "metric", "GFLOP/s");
        lab_json_number(&j, "floor_ms", 1.0);
        lab_json_bool(&j, "plausible", s->plausible);
        if (s->disturbed)
            lab_json_string(&j, "disturbed", s->disturbed);
        if (s->with_pct)
            lab_json_number(&j, "pct_of_reference", s->pct);
        lab_json_number(&j, "speedup_vs_baseline", s->speedup);
        if (s->offer_baseline)
            lab_json_bool(&j, "baseline_reusable", 1);
        lab_json_array(&j, "kernels");
        lab_json_object(&j, NULL);
        lab_json_string(&j, "name", "student");
        lab_json_number(&j, "median_ms", s->plausible ? 2.0 : 0.5);
        lab_json_end(&j);
        if (s->offer_baseline) {
            lab_json_object(&j, NULL);
            lab_json_string(&j, "name", "baseline");
            lab_json_number(&j, "median_ms", 421.5);
            lab_json_int(&j, "reps", 3);
            lab_json_end(&j);
        }
        lab_json_end(&j);
        lab_json_end(&j);
    }
    lab_json_string(&j, "status", s->status);
    lab_json_int(&j, "exit_status", s->exit_status);
    lab_json_string(&j, "message", s->message);
    lab_json_finish(&j);
    fclose(m);
    send_record(text, len);
    free(text);
}

/* What the grader's test rubric expects of a kernel that does everything
 * right on the test GPU. */
static const record_spec GOOD = {"ok", 0, "Test GPU 9000", 1, 1, 1, 1, 1, 1, 1, 50.0, 8.0, "ok"};

/* --worker FD: a stand-in for a judge's worker (judge/worker.cu), for
 * grader/run.c's side. Each stage's last words before --stage say what it
 * does: good (says its pid and count on each descriptor, then answers 0
 * and goes on), end (answers 3 and ends), die (ends with 5, no answer),
 * hang (until the grader's limit). */
static int fake_worker(int sock)
{
    char buf[4096];
    for (int n = 1;; n++) {
        int fds[3];
        char space[CMSG_SPACE(sizeof fds)];
        struct iovec io = {buf, sizeof buf - 1};
        struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof space};
        ssize_t got = recvmsg(sock, &m, 0);
        struct cmsghdr *c = got > 0 ? CMSG_FIRSTHDR(&m) : NULL;
        if (!c || c->cmsg_len != CMSG_LEN(sizeof fds))
            return got == 0 ? 0 : 9;
        memcpy(fds, CMSG_DATA(c), sizeof fds);
        buf[got] = 0;
        const int to[4][2] = {{fds[0], 1}, {fds[0], 2}, {fds[1], 3}, {fds[2], 4}};
        for (int i = 0; i < 4; i++)
            dup2(to[i][0], to[i][1]);
        const char *mode = "good";
        printf("stage %d of worker %d:", n, (int)getpid());
        for (char *w = buf, *last = buf; w < buf + got; last = w, w += strlen(w) + 1) {
            printf(" %s", w);
            if (!strcmp(w, "--stage"))
                mode = last;
        }
        printf("\n");
        fflush(stdout);
        char rec[64];
        int len = snprintf(rec, sizeof rec, "{\"worker\": %d, \"stage\": %d}", (int)getpid(), n);
        if (write(3, rec, (size_t)len) < 0 || write(4, "checks passed\n", 14) < 0)
            return 9;
        if (!strcmp(mode, "die"))
            return 5;
        if (!strcmp(mode, "hang"))
            hang();
        int null = open("/dev/null", O_RDWR);
        for (int i = 0; i < 3; i++)
            close(fds[i]);
        for (int i = 1; i <= 4; i++)
            dup2(null, i);
        close(null);
        const int answer[2] = {strcmp(mode, "end") ? 0 : 3, strcmp(mode, "end") != 0};
        if (send(sock, answer, sizeof answer, MSG_NOSIGNAL) < 0 || !answer[1])
            return answer[0];
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--worker"))
        return fake_worker(atoi(argv[2]));
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--record-fd"))
            record_fd = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--progress-fd"))
            progress_fd = atoi(argv[i + 1]);
    }
    const char *slash = strrchr(argv[0], '/');
    const char *mode = slash ? slash + 1 : argv[0];
    /* the stage is the name up to an '@': cal_first@pass is a reference
     * kernel of stage cal_first */
    static char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(mode, "@"), mode);
    stage = name;
    record_spec s = GOOD;
    printf("fake driver '%s', seed and options as a driver would print them\n", mode);
    fflush(stdout);
    /* the modes that stop early say how far they got (hang, crash and abort
     * send no progress at all, as a program without --progress-fd) */

    const char *as = strchr(mode, '@'); /* 03_tiled@wrong: a run of a real stage (its CPU emulation's tests) */
    if (!strcmp(mode, "good") || !strncmp(mode, "policy_", 7) || !strncmp(mode, "sanitize_", 9) ||
        !strcmp(mode, "unrubricked") || (as && !strcmp(as, "@good"))) {
        /* a good run */
    } else if (!strcmp(mode, "baseline_offer")) {
        /* a matrix product's record: its baseline may serve later stages */
        s.offer_baseline = 1;
    } else if (!strcmp(mode, "baseline_take")) {
        /* a later stage: right only when handed the offered baseline */
        int got = 0;
        for (int i = 1; i + 1 < argc; i++)
            got += (!strcmp(argv[i], "--baseline-ms") && !strcmp(argv[i + 1], "421.5")) +
                   (!strcmp(argv[i], "--baseline-at") && !strcmp(argv[i + 1], "n=4096"));
        if (got != 2)
            s = (record_spec){"wrong", 1, "Test GPU 9000", 0, 0, 1, 1, 0, 1, 1, 0, 0, "not handed the baseline"};
    } else if (!strcmp(mode, "other_gpu")) {
        s.gpu = "Some Other GPU";
    } else if (!strcmp(mode, "cal_first")) {
        /* make calibrate's tests: a stage and the next one, which is only a
         * little faster on the percentage and much faster on the speedup */
        s.pct = 10.0;
        s.speedup = 3.0;
    } else if (!strcmp(mode, "cal_second")) {
        s.pct = 12.0;
        s.speedup = 6.0;
    } else if (!strcmp(mode, "cal_first@pass")) {
        /* the reference kernels of tiers: a little slower than the solutions */
        s.pct = 9.0;
        s.speedup = 2.5;
    } else if (!strcmp(mode, "cal_second@pass")) {
        s.pct = 11.0;
        s.speedup = 4.0;
    } else if (!strcmp(mode, "cal_second@stretch")) {
        s.pct = 12.0;
        s.speedup = 5.5;
    } else if (!strcmp(mode, "slow")) {
        s.pct = 5.0;
        s.speedup = 1.2;
    } else if (!strcmp(mode, "slow_then_fast") || !strcmp(mode, "slow_then_wrong") ||
               !strcmp(mode, "flagged_then_fine")) {
        /* slow (or flagged) the first time, then fast, or wrong: the runs
         * are counted in the file FAKE_RUNS names (the test runs these
         * unconfined) */
        const char *path = getenv("FAKE_RUNS");
        FILE *f = path ? fopen(path, "a+") : NULL;
        long runs = 0;
        if (f) {
            fseek(f, 0, SEEK_END);
            runs = ftell(f);
            fputc('x', f);
            fclose(f);
        }
        if (runs == 0 && !strcmp(mode, "flagged_then_fine")) {
            s.disturbed = "the judge's own GPU work ran slower while your code was idle between its calls "
                          "(0.0912 against 0.0463 ms; 5 of 19 checks over 1.5 times)";
        } else if (runs == 0) {
            s.pct = 5.0;
            s.speedup = 1.2;
        } else if (!strcmp(mode, "slow_then_wrong")) {
            s = (record_spec){"wrong", 1, "Test GPU 9000", 0, 0, 1, 1, 0, 1, 1, 0, 0, "wrong result"};
        }
    } else if (!strcmp(mode, "implausible")) {
        s.plausible = 0;
        s.message = "implausibly fast";
    } else if (!strcmp(mode, "disturbed")) {
        s.disturbed = "the judge's own GPU work ran slower while your code was idle between its calls "
                      "(0.0912 against 0.0463 ms; 150 of 200 checks over 1.5 times)";
    } else if (!strcmp(mode, "missing_field")) {
        s.with_pct = 0;
    } else if (!strcmp(mode, "wrong") || (as && !strcmp(as, "@wrong"))) {
        s = (record_spec){"wrong", 1, "Test GPU 9000", 0, 0, 1, 1, 0, 1, 1, 0, 0, "wrong result"};
    } else if (!strcmp(mode, "partial_tile")) {
        /* right at n=256 (whole tiles), wrong at n=17 */
        s = (record_spec){"wrong", 1, "Test GPU 9000", 0, 0, 1, 1, 0, 1, 1, 0, 0, "wrong result"};
        s.whole_first = 1;
    } else if (!strcmp(mode, "reads_output")) {
        /* every element NaN, yet written: 0 * NaN from the poisoned output */
        s = (record_spec){"wrong", 1, "Test GPU 9000", 0, 0, 1, 1, 0, 1, 1, 0, 0, "wrong result"};
        s.all_nan = 1;
    } else if (!strcmp(mode, "clobber")) {
        s = (record_spec){"wrong", 1, "Test GPU 9000", 0, 1, 0, 1, 0, 1, 1, 0, 0, "wrong result"};
    } else if (!strcmp(mode, "last_call_wrong")) {
        s = (record_spec){"wrong", 1, "Test GPU 9000", 1, 1, 1, 0, 0, 1, 1, 0, 0,
                          "the last timed call's output is wrong"};
    } else if (!strcmp(mode, "cuda_error")) {
        s = (record_spec){"cuda_error", 4, "Test GPU 9000", 0, 1, 1, 1, 0, 1, 1, 0, 0,
                          "your kernel failed in n=17: cudaErrorIllegalAddress (an illegal memory access "
                          "was encountered)."};
    } else if (!strcmp(mode, "no_memory")) {
        s = (record_spec){"no_memory", 5, "Test GPU 9000", 0, 1, 1, 1, 0, 1, 1, 0, 0,
                          "cudaMalloc failed: out of memory"};
    } else if (!strcmp(mode, "crash")) {
        raise(SIGSEGV);
    } else if (!strcmp(mode, "abort")) {
        abort();
    } else if (!strcmp(mode, "hang")) {
        hang();
    } else if (!strcmp(mode, "slow_timing")) {
        progress("check n=17");
        /* correct, and far too slow to time: killed at the limit while timing */
        progress("checks passed");
        progress("timing n=4096 cuBLAS SGEMM");
        progress("timing n=4096 cuBLAS SGEMM, first call 9.5 ms");
        progress("timing n=4096 your kernel");
        progress("timing n=4096 your kernel, first call 5234 ms");
        hang();
    } else if (!strcmp(mode, "hang_checking")) {
        progress("check n=17");
        progress("check n=1025");
        hang();
    } else if (!strcmp(mode, "crash_checking")) {
        progress("check n=17");
        raise(SIGSEGV);
    } else if (!strcmp(mode, "crash_timing")) {
        progress("check n=17");
        progress("checks passed");
        progress("timing n=4096 your kernel");
        raise(SIGSEGV);
    } else if (!strcmp(mode, "progress_flood")) {
        /* more progress than the grader keeps: only the last lines count */
        for (int i = 0; i < 5000; i++)
            progress("check n=17");
        progress("checks passed");
        progress("timing n=4096 your kernel");
        raise(SIGSEGV);
    } else if (!strcmp(mode, "cuda_error_timing")) {
        progress("check n=17");
        /* every check passed, then a timed call failed: a record, status 4 */
        progress("checks passed");
        progress("timing n=4096 your kernel");
        s = (record_spec){"cuda_error", 4, "Test GPU 9000", 1, 1, 1, 1, 0, 1, 1, 0, 0,
                          "your kernel failed in a timed call (n=4096): cudaErrorIllegalAddress (an "
                          "illegal memory access was encountered)."};
    } else if (!strcmp(mode, "escape")) {
        /* what a forger does first: a file beside the reports (the grader
         * runs in the lab's root); then an honest record */
        FILE *f = fopen("build/tests/grader/escaped-by-a-run", "w");
        if (f) {
            fputs("written from inside a graded run\n", f);
            fclose(f);
        }
    } else if (!strcmp(mode, "hang_child")) {
        /* a child that keeps the output pipe open long after this process
         * has written its record and ended */
        if (fork() == 0) {
            sleep(600);
            _exit(0);
        }
    } else if (!strcmp(mode, "flood")) {
        /* 100 MB on stdout and some on stderr, then an honest record */
        static char line[1 << 16];
        memset(line, 'x', sizeof line);
        line[sizeof line - 1] = '\n';
        for (int i = 0; i < 1600; i++)
            fwrite(line, 1, sizeof line, stdout);
        fflush(stdout);
        for (int i = 0; i < 16; i++)
            fwrite(line, 1, sizeof line, stderr);
    } else if (!strcmp(mode, "flood_forever")) {
        /* output without end and without a pause: only the time limit stops it */
        static char line[1 << 16];
        memset(line, 'y', sizeof line);
        for (;;)
            fwrite(line, 1, sizeof line, stdout);
    } else if (!strcmp(mode, "forge")) {
        /* a record on stdout, none on the record descriptor */
        printf("{\n  \"stage\": \"forge\",\n  \"correct\": true,\n  \"status\": \"ok\",\n"
               "  \"exit_status\": 0\n}\n");
        return 0;
    } else if (!strcmp(mode, "early_exit")) {
        return 0;
    } else if (!strcmp(mode, "invalid_record")) {
        static const char text[] = "{\n  \"stage\": \"invalid_record\",\n  \"status\": \"ok\",\n  \"correct\": tru";
        send_record(text, sizeof text - 1);
        return 0;
    } else if (!strcmp(mode, "status_mismatch")) {
        write_record(&s);
        return 1;
    } else if (!strcmp(mode, "wrong_stage")) {
        stage = "01_naive";
    } else if (!strcmp(mode, "huge_record")) {
        static char block[1 << 16];
        memset(block, ' ', sizeof block);
        for (int i = 0; i < 40; i++)
            send_record(block, sizeof block);
        return 0;
    } else if (!strcmp(mode, "deep_json")) {
        static char deep[200001];
        memset(deep, '[', 100000);
        memset(deep + 100000, ']', 100000);
        send_record(deep, 200000);
        return 0;
    } else {
        fprintf(stderr, "fake driver: unknown mode '%s'\n", mode);
        return 2;
    }
    progress("done");
    write_record(&s);
    return s.exit_status;
}
