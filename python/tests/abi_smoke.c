/* A C program against motionfusion.h: load a trace, replay it, run the per-sample filter, and
 * check the error path. Built and run by test_c_abi.py; prints "key value..." lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motionfusion.h"

int main(int argc, char **argv) {
    if (argc != 2) return 64;
    char error[1024];
    printf("version %s\n", mf_version());
    printf("filters %s\n", mf_filters());

    mf_trace *trace = NULL;
    if (mf_trace_load(argv[1], NULL, &trace, error, sizeof error) != MF_OK) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    size_t n = mf_trace_count(trace);
    uint32_t contents = mf_trace_contents(trace);
    double *t = malloc(n * sizeof *t), *gyr = malloc(3 * n * sizeof *gyr), *acc = malloc(3 * n * sizeof *acc);
    double *mag = malloc(3 * n * sizeof *mag), *q = malloc(4 * n * sizeof *q);
    mf_trace_copy(trace, t, gyr, acc, mag, NULL, NULL);
    char *format = mf_trace_format(trace);
    printf("trace %zu %u %s\n", n, contents, format);
    mf_string_free(format);
    mf_trace_free(trace);

    if (mf_replay("ekf", "9d", NULL, NULL, NAN, n, t, gyr, acc, mag, q, NULL, NULL, NULL, NULL, NULL, NULL,
                  error, sizeof error) != MF_OK) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    printf("replay %.17g %.17g %.17g %.17g\n", q[4 * (n - 1)], q[4 * (n - 1) + 1], q[4 * (n - 1) + 2],
           q[4 * (n - 1) + 3]);

    /* The per-sample filter, sample by sample with the replay's times, gives the replay's attitude. */
    mf_filter *filter = NULL;
    if (mf_filter_create("ekf", "9d", NULL, &filter, error, sizeof error) != MF_OK) return 1;
    double sq[4];
    for (size_t i = 0; i < n; i++) {
        double sample[10] = {t[i]};
        memcpy(sample + 1, gyr + 3 * i, 3 * sizeof *sample);
        memcpy(sample + 4, acc + 3 * i, 3 * sizeof *sample);
        memcpy(sample + 7, mag + 3 * i, 3 * sizeof *sample);
        if (mf_filter_step(filter, sample, sq) != 0) {
            char *w = mf_filter_warnings(filter);
            fprintf(stderr, "%s\n", w);
            mf_string_free(w);
        }
    }
    double fq[4];
    uint32_t flags = 0;
    mf_filter_read(filter, fq, NULL, NULL, &flags);
    printf("filter %.17g %.17g %.17g %.17g %u\n", fq[0], fq[1], fq[2], fq[3], flags);
    printf("step_is_read %d\n", memcmp(sq, fq, sizeof fq) == 0);
    char *state = NULL;
    if (mf_filter_save_state(filter, &state, error, sizeof error) != MF_OK) return 1;
    if (mf_filter_restore_state(filter, state, error, sizeof error) != MF_OK) return 1;
    printf("state %zu\n", strlen(state));
    mf_string_free(state);
    printf("negative_dt %d\n", mf_filter_update(filter, NULL, NULL, NULL, -1, error, sizeof error));
    mf_filter_free(filter);

    /* Two recordings in one call, on two threads: the whole trace, and its second half without a
     * magnetometer. */
    size_t lengths[2] = {n, n / 2};
    const double *ts[2] = {t, t + (n - n / 2)};
    const double *gyrs[2] = {gyr, gyr + 3 * (n - n / 2)};
    const double *accs[2] = {acc, acc + 3 * (n - n / 2)};
    const double *mags[2] = {mag, NULL};
    double *q2 = malloc(4 * (n / 2) * sizeof *q2);
    double *outs[2] = {q, q2};
    if (mf_replay_many("madgwick", "9d", NULL, NULL, NAN, 2, lengths, ts, gyrs, accs, mags, outs, 2, error,
                       sizeof error) != MF_OK) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    printf("many %.17g %.17g %.17g %.17g %.17g\n", q[4 * (n - 1)], q[4 * (n - 1) + 1], q[4 * (n - 1) + 2],
           q[4 * (n - 1) + 3], q2[4 * (n / 2 - 1)]);
    free(q2);

    int status = mf_replay("nope", NULL, NULL, NULL, NAN, n, t, gyr, acc, mag, q, NULL, NULL, NULL, NULL, NULL,
                           NULL, error, sizeof error);
    printf("unknown_filter %d %s\n", status, error);
    status = mf_trace_load("/nonexistent/trace.csv", NULL, &trace, error, 8);
    printf("short_buffer %d %zu\n", status, strlen(error));
    char *warned = mf_run_warnings(); /* of the failed call above: none */
    char *lapack = mf_lapack_library(); /* nothing needed LAPACK yet */
    printf("unused [%s] [%s]\n", warned, lapack);
    mf_string_free(warned), mf_string_free(lapack);
    printf("use_lapack_without_path %d\n", mf_use_lapack(NULL, error, sizeof error));
    status = mf_trace_load_ex(argv[1], NULL, NULL, NULL, NAN, "x,x,z", -1, &trace, error, sizeof error);
    printf("bad_remap %d\n", status);
    free(t), free(gyr), free(acc), free(mag), free(q);
    return 0;
}
