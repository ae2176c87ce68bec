import CLAPACK
import Glibc

/// OpenBLAS and LAPACKE, loaded on first use.
///
/// Linking OpenBLAS makes every process start (and spin) its worker threads when the library
/// loads, before `main`, whether or not anything calls it. So nothing is linked: the first call
/// that needs LAPACK sets `OPENBLAS_NUM_THREADS` (to `MOTIONFUSION_BLAS_THREADS`, default 1) and
/// then opens the shared libraries with `dlopen`. A process that never solves a problem large enough
/// for LAPACK (replay, info, the filters) never loads BLAS at all. Entry points are resolved by
/// name with the exact C types declared by Debian's `cblas.h` and `lapacke.h` (see `shim.h`).
struct LAPACKLibrary {
    let dgemv: motionfusion_dgemv_fn
    let dpotrf: motionfusion_dpotrf_fn
    let dpotrs: motionfusion_dpotrs_fn
    let dsyevd: motionfusion_dsyevd_fn
    let dgels: motionfusion_dgels_fn
    let dpbtrf: motionfusion_dpbtrf_fn
    let dpbtrs: motionfusion_dpbtrs_fn
    let dtbtrs: motionfusion_dtbtrs_fn
    let dpbtrfWork: motionfusion_dpbtrf_work_fn
    let dpbtrsWork: motionfusion_dpbtrs_work_fn

    /// Threads OpenBLAS may use: `MOTIONFUSION_BLAS_THREADS`, default 1 (its threads slow the
    /// small and banded problems this package solves).
    static var threads: Int32 {
        if let text = getenv("MOTIONFUSION_BLAS_THREADS"), let n = Int32(String(cString: text)), n > 0 { return n }
        return 1
    }

    /// The loaded library, or why it could not be loaded. Loaded once, thread-safely.
    static let shared: Result<LAPACKLibrary, LinearAlgebraError> = load()

    /// Whether OpenBLAS has been loaded into this process (for tests and benchmarks).
    static var isLoaded: Bool {
        // RTLD_NOLOAD answers without loading.
        for name in blasNames {
            if let h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD) {
                dlclose(h)
                return true
            }
        }
        return false
    }

    /// The fix named by every "could not be loaded" error.
    static let installHint = "install Debian's libopenblas0 and liblapacke (apt-get install libopenblas0 liblapacke)"

    static let blasNames = ["libopenblas.so.0", "libopenblas.so"]
    static let lapackeNames = ["liblapacke.so.3", "liblapacke.so"]

    static func load() -> Result<LAPACKLibrary, LinearAlgebraError> {
        // Must happen before OpenBLAS initialises: it reads the variable when it loads.
        setenv("OPENBLAS_NUM_THREADS", "\(threads)", 1)
        var cause = ""
        func open(_ names: [String]) -> UnsafeMutableRawPointer? {
            for n in names { if let h = dlopen(n, RTLD_NOW | RTLD_GLOBAL) { return h } }
            cause = dlerror().map { String(cString: $0) } ?? "not found"
            return nil
        }
        guard let blas = open(blasNames) else {
            return .failure(.unavailable("OpenBLAS (libopenblas.so.0) could not be loaded (\(cause)); \(installHint)"))
        }
        guard let lapacke = open(lapackeNames) else {
            return .failure(.unavailable("LAPACKE (liblapacke.so.3) could not be loaded (\(cause)); \(installHint)"))
        }
        var missing = [String]()
        func symbol<T>(_ handle: UnsafeMutableRawPointer, _ name: String, _ type: T.Type) -> T? {
            guard let p = dlsym(handle, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(p, to: type)
        }
        // Optional: a BLAS without it runs single-threaded anyway.
        if let p = dlsym(blas, "openblas_set_num_threads") {
            unsafeBitCast(p, to: motionfusion_set_num_threads_fn.self)(threads)
        }
        guard let dgemv = symbol(blas, "cblas_dgemv", motionfusion_dgemv_fn.self),
            let dpotrf = symbol(lapacke, "LAPACKE_dpotrf", motionfusion_dpotrf_fn.self),
            let dpotrs = symbol(lapacke, "LAPACKE_dpotrs", motionfusion_dpotrs_fn.self),
            let dsyevd = symbol(lapacke, "LAPACKE_dsyevd", motionfusion_dsyevd_fn.self),
            let dgels = symbol(lapacke, "LAPACKE_dgels", motionfusion_dgels_fn.self),
            let dpbtrf = symbol(lapacke, "LAPACKE_dpbtrf", motionfusion_dpbtrf_fn.self),
            let dpbtrs = symbol(lapacke, "LAPACKE_dpbtrs", motionfusion_dpbtrs_fn.self),
            let dtbtrs = symbol(lapacke, "LAPACKE_dtbtrs", motionfusion_dtbtrs_fn.self),
            let dpbtrfWork = symbol(lapacke, "LAPACKE_dpbtrf_work", motionfusion_dpbtrf_work_fn.self),
            let dpbtrsWork = symbol(lapacke, "LAPACKE_dpbtrs_work", motionfusion_dpbtrs_work_fn.self)
        else {
            return .failure(
                .unavailable(
                    "the OpenBLAS or LAPACKE loaded lacks \(missing.joined(separator: ", ")) (another library under its name?); \(installHint)"
                ))
        }
        return .success(
            LAPACKLibrary(
                dgemv: dgemv, dpotrf: dpotrf, dpotrs: dpotrs, dsyevd: dsyevd, dgels: dgels, dpbtrf: dpbtrf,
                dpbtrs: dpbtrs, dtbtrs: dtbtrs, dpbtrfWork: dpbtrfWork,
                dpbtrsWork: dpbtrsWork))
    }

    /// The library, loading it on first use; throws when it is not installed.
    static func get() throws -> LAPACKLibrary {
        try shared.get()
    }
}
