#ifndef MOTIONFUSION_CLAPACK_SHIM_H
#define MOTIONFUSION_CLAPACK_SHIM_H
// Declarations only: nothing here is linked. MotionFusionLinearAlgebra loads OpenBLAS and LAPACKE
// with dlopen the first time a problem needs them, after pinning OpenBLAS to one thread, so a
// process that never solves a large problem never starts (or spins) BLAS worker threads.
// The typedefs give each entry point's exact C type, checked against Debian's headers.
#include <cblas.h>
#include <lapacke.h>

typedef __typeof__(&cblas_dgemv) motionfusion_dgemv_fn;
typedef __typeof__(&openblas_set_num_threads) motionfusion_set_num_threads_fn;
typedef __typeof__(&LAPACKE_dpotrf) motionfusion_dpotrf_fn;
typedef __typeof__(&LAPACKE_dpotrs) motionfusion_dpotrs_fn;
typedef __typeof__(&LAPACKE_dsyevd) motionfusion_dsyevd_fn;
typedef __typeof__(&LAPACKE_dgels) motionfusion_dgels_fn;
typedef __typeof__(&LAPACKE_dpbtrf) motionfusion_dpbtrf_fn;
typedef __typeof__(&LAPACKE_dpbtrs) motionfusion_dpbtrs_fn;
typedef __typeof__(&LAPACKE_dtbtrs) motionfusion_dtbtrs_fn;
// The _work variants skip LAPACKE's NaN scan of the band (callers check finiteness once).
typedef __typeof__(&LAPACKE_dpbtrf_work) motionfusion_dpbtrf_work_fn;
typedef __typeof__(&LAPACKE_dpbtrs_work) motionfusion_dpbtrs_work_fn;
#endif
