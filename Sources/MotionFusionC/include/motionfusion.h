/*
 * motionfusion.h: the C ABI of MotionFusion (library product MotionFusionC, libMotionFusionC.so).
 *
 * Plain C types only: no Swift type crosses this boundary. Arrays are owned by the caller; the
 * library reads inputs and writes outputs in place and keeps no pointer after a call returns.
 * Vectors are rows of 3 doubles and quaternions rows of 4 (w, x, y, z), C order (row i at
 * offset 3*i or 4*i). Units are SI: s, rad/s, m/s^2, uT; angles in outputs are degrees.
 * Quaternions are earth-from-sensor, scalar first, Hamilton product, canonical sign (w >= 0).
 *
 * Errors: a fallible function returns MF_OK or an error code, and writes a NUL-terminated UTF-8
 * message into `error` (at most `error_capacity` bytes, cut at a character boundary; `error`
 * may be NULL). Messages about files name the place as `file:line:column: message`, exactly as
 * the command line prints them.
 *
 * Strings returned through `char **` are allocated by the library: release them with
 * mf_string_free. Handles (mf_trace, mf_filter) are released with their own free function.
 *
 * Thread safety: calls on different handles, and every call without a handle, may run
 * concurrently. One handle must not be used by two threads at once.
 */
#ifndef MOTIONFUSION_H
#define MOTIONFUSION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (the command line's exit statuses). */
#define MF_OK 0
/* Bad input: an unreadable or malformed trace, nothing to score, a failed write. */
#define MF_ERROR_INPUT 1
/* Bad argument: an unknown filter, mode, frame, format or parameter, a mode the filter lacks. */
#define MF_ERROR_USAGE 2

/* The library version, e.g. "0.2.0" (a static string; do not free). */
const char *mf_version(void);

/* The filters' names, comma-separated ("ekf,complementary,..."): the values the filter arguments
 * take. Owned by the library; do not free. */
const char *mf_filters(void);

/* Releases a string returned by the library. NULL is allowed. */
void mf_string_free(char *string);

/* ---- Batch runs over caller-owned arrays ------------------------------------------------------
 *
 * n samples: t[n] (s); gyr, acc, mag [n][3], each NULL when the recording has no such sensor. A
 * row with a non-finite value means "no value of that sensor at this sample" (different rates,
 * dropouts), as in a trace file. Like the command line, mode "9d" without a magnetometer (mag ==
 * NULL) runs 6D; the e-compass without one is an error.
 *
 * filter: "ekf" (default when NULL), "complementary", "mahony", "madgwick", "ecompass", "tilt".
 * mode: "6d" or "9d" (NULL: the filter's default). parameters: "name=value,..." in SI units (the
 * command line's --param; NULL or "" for defaults; a value outside its range in docs/Filters.md is
 * MF_ERROR_USAGE). frame: "enu" (NULL), "ned" or "nwu": the
 * earth frame of the written attitude and angles. declination_deg: degrees east, NaN for none;
 * when given, attitude and heading are referenced to true north.
 *
 * Outputs, each NULL to skip, one row per sample, exactly the columns the command line writes
 * (without the rounding to a fixed number of decimals):
 *   quaternion[n][4]   attitude in `frame`, canonical sign
 *   euler_deg[n][3]    roll, pitch, yaw (Z-Y'-X'') of that attitude, degrees
 *   heading_deg[n]     degrees clockwise from north in [0, 360)
 *   used[n]            1 when the filter had an attitude and used a sensor for the sample
 *   gyro_bias[n][3]    gyroscope bias estimate, rad/s
 *   sigma_attitude_deg[n], sigma_heading_deg[n]
 *                      one-sigma uncertainties, degrees (180 while unknown); NaN for filters
 *                      without an uncertainty (all but the EKF)
 *
 * As `motionfusion replay` of a file, the run starts with the magnetometer calibration its filter
 * (EKF, complementary; 9D) comes to trust within the opening 120 s, at most 40 000 samples, when
 * the readings before it bear it out (docs/Filters.md).
 */
int32_t mf_replay(const char *filter, const char *mode, const char *parameters, const char *frame,
                  double declination_deg, size_t n, const double *t, const double *gyr,
                  const double *acc, const double *mag, double *quaternion, double *euler_deg,
                  double *heading_deg, uint8_t *used, double *gyro_bias, double *sigma_attitude_deg,
                  double *sigma_heading_deg, char *error, size_t error_capacity);

/* Many recordings in one call: the quaternion output of mf_replay for each of `traces`
 * recordings, which may differ in length, rate and sensors. Recording i has n[i] samples, times
 * t[i] and sensor rows gyr[i], acc[i], mag[i] as in mf_replay, and its attitudes go to
 * quaternion[i][n[i]][4]. With traces > 0, `n`, `t` and `quaternion` are required, and t[i] and
 * quaternion[i] wherever n[i] > 0 (a recording with n[i] == 0 is skipped and its output left
 * untouched); `gyr`, `acc`, `mag` and any of their entries may be NULL (no such sensor).
 * Recordings run concurrently, up to `workers` at a time (0: one per processor available to the
 * process), each on one thread from start to end; the calling thread is one of them, and the call
 * returns when every recording is done. Each result is bit-identical to mf_replay on that
 * recording alone, whatever `workers`. Every error (a bad argument; a negative n[i] or a missing
 * t[i] or quaternion[i], named as "trace i"; the e-compass on a recording without a magnetometer)
 * is found before any recording runs, and then nothing is written. */
int32_t mf_replay_many(const char *filter, const char *mode, const char *parameters,
                       const char *frame, double declination_deg, size_t traces, const size_t *n,
                       const double *const *t, const double *const *gyr, const double *const *acc,
                       const double *const *mag, double *const *quaternion, size_t workers,
                       char *error, size_t error_capacity);

/* Offline reconstruction (`motionfusion reconstruct`): the best attitude of every sample, using
 * past and future samples. Same arguments and outputs as mf_replay; `filter` must be NULL or
 * "ekf" (the reconstruction is built on it; `parameters` tune it, and those named `batch.NAME`
 * tune the batch estimator, e.g. "batch.knotInterval=0.05": docs/Offline.md). */
int32_t mf_reconstruct(const char *filter, const char *mode, const char *parameters,
                       const char *frame, double declination_deg, size_t n, const double *t,
                       const double *gyr, const double *acc, const double *mag, double *quaternion,
                       double *euler_deg, double *heading_deg, uint8_t *used, double *gyro_bias,
                       double *sigma_attitude_deg, double *sigma_heading_deg, char *error,
                       size_t error_capacity);

/* The warnings of the calling thread's last mf_replay, mf_reconstruct or mf_replay_many call, one
 * per line ("" when none): a 9D replay whose magnetometer was rejected on more than half of its
 * samples gets the command line's warning (without the trace's name; from mf_replay_many, per trace
 * and headed "trace I: ", I counting the traces from 0). Each call replaces them; fetching clears
 * them. Free with mf_string_free. */
char *mf_run_warnings(void);

/* mf_reconstruct fails (MF_ERROR_INPUT) when a window's normal equations could not be solved, with
 * LAPACK's routine and info code in the message; the outputs are written all the same, those
 * windows' samples holding the initialising smoother's attitude. */

/* ---- BLAS and LAPACK ---------------------------------------------------------------------------
 *
 * mf_reconstruct (and calibration fits) load OpenBLAS and LAPACKE on first use, from the first of:
 * the file named by the environment variable MOTIONFUSION_LAPACK ("system": the system's, whatever
 * mf_use_lapack names); the file named by mf_use_lapack; the system's (libopenblas.so.0 and liblapacke.so.3). A named file holds CBLAS and LAPACKE in one
 * library with 32-bit integers, entry points plain or prefixed "scipy_" (the libscipy_openblas.so
 * of PyPI's scipy-openblas32). A library that cannot be used is an error naming it, never a
 * fallback to the next.
 *
 * mf_use_lapack names the file; call it before the first use (afterwards naming another file is
 * MF_ERROR_USAGE). mf_lapack_library returns where the library was loaded from ("" before first
 * use); free it with mf_string_free. */
int32_t mf_use_lapack(const char *path, char *error, size_t error_capacity);
char *mf_lapack_library(void);

/* ---- Evaluation --------------------------------------------------------------------------------
 *
 * The BROAD metric of `motionfusion evaluate`: estimates quaternion[n][4] (in `frame`, NULL =
 * "enu") against truth[n][4] (ENU; a non-finite row has no truth), over the samples whose
 * moving[i] is 1 (moving NULL: all). mode "6d" removes a constant heading offset first.
 * result[5] = total, heading and inclination RMSE (degrees), samples scored, heading offset
 * removed (degrees). MF_ERROR_INPUT when no sample can be scored.
 */
int32_t mf_evaluate(size_t n, const double *quaternion, const char *frame, const double *truth,
                    const uint8_t *moving, const char *mode, double result[5], char *error,
                    size_t error_capacity);

/* ---- Screening ---------------------------------------------------------------------------------
 *
 * Screens arrays as mf_replay takes them the way a trace file's values are screened when read: a
 * value beyond any sensor's range (see mf_filter_step), an infinite or partly missing vector, a time
 * that repeats, goes backwards or is not finite, and the units of the first samples (5000 or 10 s).
 * faulty[n] (NULL to skip) gets, per row, bit 1, 2, 4 when its gyr, acc, mag value is a fault (given
 * but unusable; mf_replay would use an out-of-range one as it is). *report receives JSON:
 *   {"warnings": ["...", ...], "finite": {"t": k, "gyr": k, "acc": k, "mag": k}}
 * (warnings: unit guesses naming the command line's --units fix, then one per kind of fault,
 * "row I: what, how often, first"; finite: rows with a usable value). Free with mf_string_free. */
int32_t mf_check_arrays(size_t n, const double *t, const double *gyr, const double *acc,
                        const double *mag, uint8_t *faulty, char **report, char *error,
                        size_t error_capacity);

/* ---- Traces ------------------------------------------------------------------------------------
 *
 * Loads a trace in any supported format (a file, a recording folder or .zip; format NULL to
 * detect it, or one of "native", "delimited", "euroc", "xio-fusion", "x-imu3", "phyphox",
 * "sensor-logger", "sensor-files"), then copies it into caller-owned arrays.
 */
typedef struct mf_trace mf_trace;

/* What a loaded trace holds (bits of mf_trace_contents). A sensor is present when the recording
 * has it (its columns or files), even if some or all of its values are missing. */
#define MF_TRACE_GYROSCOPE 1u
#define MF_TRACE_ACCELEROMETER 2u
#define MF_TRACE_MAGNETOMETER 4u
#define MF_TRACE_TRUTH 8u
#define MF_TRACE_MOVING 16u

int32_t mf_trace_load(const char *path, const char *format, mf_trace **trace, char *error,
                      size_t error_capacity);
/* As mf_trace_load, with the command line's reading options: columns "KEY=COL,..." (--columns),
 * units "KEY=UNIT,..." (--units), sample_rate in Hz (--sample-rate; NaN for none); NULL or "" for
 * none. A bad units spec or sample rate is MF_ERROR_USAGE. */
int32_t mf_trace_load_options(const char *path, const char *format, const char *columns,
                              const char *units, double sample_rate, mf_trace **trace, char *error,
                              size_t error_capacity);
/* As mf_trace_load_options, with --remap (remap "x,-z,y" or "+X-Z+Y", NULL or "" for none) and
 * --header-rows (header_rows 0...1000, or -1 for the reader's choice). */
int32_t mf_trace_load_ex(const char *path, const char *format, const char *columns, const char *units,
                         double sample_rate, const char *remap, int32_t header_rows, mf_trace **trace,
                         char *error, size_t error_capacity);
/* Number of samples. */
size_t mf_trace_count(const mf_trace *trace);
/* MF_TRACE_* bits. */
uint32_t mf_trace_contents(const mf_trace *trace);
/* The format read ("native", "euroc", ...); free with mf_string_free. */
char *mf_trace_format(const mf_trace *trace);
/* Warnings raised while reading (unit guesses, repaired values), one per line, each
 * "file:line:column: warning: ..."; "" when none. Free with mf_string_free. */
char *mf_trace_warnings(const mf_trace *trace);
/* Copies the samples: t[n]; gyr, acc, mag [n][3] and truth [n][4] with NaN where a sample has no
 * value; moving[n] 1 or 0 (0 where unknown). Any pointer may be NULL. */
void mf_trace_copy(const mf_trace *trace, double *t, double *gyr, double *acc, double *mag,
                   double *truth, uint8_t *moving);
void mf_trace_free(mf_trace *trace);

/* ---- Per-sample filter object ------------------------------------------------------------------ */
typedef struct mf_filter mf_filter;

/* Diagnostic bits of the last update (mf_filter_read). */
#define MF_ACCELEROMETER_REJECTED 1u
#define MF_MAGNETOMETER_REJECTED 2u
#define MF_AT_REST 4u
#define MF_INITIALISING 8u

/* A filter of `kind` (as `filter` above) in `mode` with `parameters`, in its initial state. */
int32_t mf_filter_create(const char *kind, const char *mode, const char *parameters,
                         mf_filter **filter, char *error, size_t error_capacity);
/* One sample, sample[10] = t (s), gyr x y z (rad/s), acc x y z (m/s^2), mag x y z (uT), on the run
 * path of mf_replay: the step is taken from the timestamps, the
 * last gyroscope value is held (up to 0.1 s) for a sample without one, a time that does not
 * increase integrates nothing and a gap over 1 s re-initialises, so that updating a filter with the
 * rows of a recording gives mf_replay's attitudes (ENU, mode as created), sample for sample, but
 * for the magnetometer calibration mf_replay starts with (a filter stepped sample by sample starts
 * uncalibrated, as live input does). A
 * non-finite value (NaN) means "no value of that sensor at this sample". Samples are screened as a
 * trace file's values are: a value beyond any sensor's range (|gyr| > 100 rad/s, |acc| > 2000 m/s^2,
 * |mag| > 1e5 uT) counts as none, and the first samples' units are checked. Writes the attitude
 * after the sample into quaternion[4] (canonical sign; NULL to skip). Returns 1 when there are new
 * warnings to fetch with mf_filter_warnings, else 0 (also for sample == NULL, which does nothing).
 * One array rather than ten arguments: from Python (ctypes) that is the cheaper call. */
int32_t mf_filter_step(mf_filter *filter, const double *sample, double *quaternion);
/* mf_filter_step over n samples: t[n], gyr, acc, mag [n][3] (each NULL when absent), the attitude
 * after each into quaternion[n][4] (NULL to skip). MF_ERROR_USAGE when t is missing. */
int32_t mf_filter_update_many(mf_filter *filter, size_t n, const double *t, const double *gyr,
                              const double *acc, const double *mag, double *quaternion, char *error,
                              size_t error_capacity);
/* The earlier form of one sample: gyr, acc, mag point to 3 doubles each, or are NULL when that sensor
 * has no new value; dt, s, is the time since the previous sample (finite and not negative, else
 * MF_ERROR_USAGE): mf_filter_step at the previous sample's time plus dt (0 plus dt first). */
int32_t mf_filter_update(mf_filter *filter, const double *gyr, const double *acc,
                         const double *mag, double dt, char *error, size_t error_capacity);
/* The warnings of the updates since the last call, one per line ("" when none): unit guesses
 * (naming the command line's --units fix) and the first of each kind of value fault ("sample K:
 * ..."). Free with mf_string_free. */
char *mf_filter_warnings(mf_filter *filter);
/* The state after the last update: quaternion[4] (ENU, canonical sign), gyro_bias[3] (rad/s),
 * sigma[2] (attitude and heading one-sigma, degrees, NaN when unknown), flags (MF_* bits above).
 * Any pointer may be NULL. */
void mf_filter_read(const mf_filter *filter, double *quaternion, double *gyro_bias, double *sigma,
                    uint32_t *flags);
/* The filter's numeric parameters as a JSON object {"name": value, ...} (nested names dotted, SI
 * units; a value that is not finite is the string "nan", "inf" or "-inf"). */
int32_t mf_filter_parameters(const mf_filter *filter, char **json, char *error,
                             size_t error_capacity);
/* The evolving state as JSON, exact to the bit: what the Swift runner's savedState() writes,
 * {"filter":{...},"runner":{...}} (the filter's state; the run path's last time and held values),
 * with the setup it belongs to added, "setup":{"kind":...,"mode":...,"parameters":{...}}. It
 * restores only into a filter with the same kind, mode and parameters (anything else is an error
 * naming what it belongs to), and continues exactly where it was. A state in the earlier format,
 * {"filter":KIND,"mode":...,"parameters":{...},"runner":{...},"state":{...}} ("runner" absent in
 * the oldest: the run path then starts afresh), restores too. */
int32_t mf_filter_save_state(const mf_filter *filter, char **json, char *error,
                             size_t error_capacity);
int32_t mf_filter_restore_state(mf_filter *filter, const char *json, char *error,
                                size_t error_capacity);
void mf_filter_free(mf_filter *filter);

/* ---- Folder runs ------------------------------------------------------------------------------
 *
 * The library holds no command-line code: the `motionfusion` executable is a program of its own
 * (signal handlers included), which a binding runs as a child process.
 *
 * The plan of `motionfusion replay SOURCE --output FOLDER` (and reconstruct) when SOURCE is a folder
 * of traces: the library's one plan, the command line's too. The traces it runs, in order, and the
 * output file of each, named as the command line names them. Like the command line, it refuses any
 * output that resolves to an input (below SOURCE, or one of extra_inputs[extra_count], e.g. a
 * calibration file) and creates FOLDER when missing, before anything runs. *plan receives JSON:
 *   {"folder": true, "inputs": [...], "outputs": [...], "notes": [...]}
 * ("notes": the lines the command line prints before the run, in its words: entries of the folder
 * skipped, files named for one sensor, outputs renamed). When SOURCE is a single trace,
 * {"folder": false} and nothing is checked. */
int32_t mf_folder_plan(const char *source, const char *output_folder, const char *format,
                       const char *const *extra_inputs, int32_t extra_count, char **plan,
                       char *error, size_t error_capacity);

#ifdef __cplusplus
}
#endif

#endif /* MOTIONFUSION_H */
