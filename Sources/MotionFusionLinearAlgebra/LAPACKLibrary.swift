import CLAPACK
import Glibc
import Synchronization

/// OpenBLAS and LAPACKE, loaded on first use.
///
/// Linking OpenBLAS makes every process start (and spin) its worker threads when the library
/// loads, before `main`, whether or not anything calls it. So nothing is linked: the first call
/// that needs LAPACK sets `OPENBLAS_NUM_THREADS` (to `MOTIONFUSION_BLAS_THREADS`, default 1) and
/// then opens the shared libraries with `dlopen`. A process that never solves a problem large enough
/// for LAPACK (replay, info, the filters) never loads BLAS at all. Entry points are resolved by
/// name with the exact C types declared by Debian's `cblas.h` and `lapacke.h` (see `shim.h`).
///
/// Where they come from, first match only (a library named but unusable is an error, never a
/// reason to try the next):
/// 1. the file named by the environment variable `MOTIONFUSION_LAPACK` (`system`: skip step 2);
/// 2. the file named by ``LinearAlgebra/useLibrary(at:)`` before first use (the Python package
///    names the `libscipy_openblas.so` of its `scipy-openblas32` dependency);
/// 3. the system's OpenBLAS and LAPACKE (Debian's `libopenblas0` and `liblapacke`).
///
/// A named file holds CBLAS and LAPACKE in one library, with 32-bit integers; its entry points
/// may carry a prefix (`scipy_LAPACKE_dpbtrf`, as scipy-openblas exports them), found by looking.
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

    /// The environment variable naming the library file to load instead of the system's.
    static let environmentVariable = "MOTIONFUSION_LAPACK"

    /// The file named by ``LinearAlgebra/useLibrary(at:)``, and whether loading has begun (after
    /// which the choice is fixed).
    static let configured = Mutex<(path: String?, started: Bool)>((nil, false))

    /// Where the library comes from: a file and who named it, or nil for the system's.
    static var source: (path: String, namedBy: String)? {
        if let text = getenv(environmentVariable), text[0] != 0 {
            let value = String(cString: text)
            return value == "system" ? nil : (value, "the environment variable \(environmentVariable)")
        }
        return configured.withLock { $0.path }.map { ($0, "LinearAlgebra.useLibrary(at:)") }
    }

    /// The loaded library, or why it could not be loaded. Loaded once, thread-safely.
    static let shared: Result<LAPACKLibrary, LinearAlgebraError> = {
        configured.withLock { $0.started = true }
        if let (path, namedBy) = source { return load(file: path, namedBy: namedBy) }
        return loadSystem()
    }()

    /// The file the library was loaded from, or the system library's name ("" before loading).
    static let loadedFrom = Mutex<String>("")

    /// Whether OpenBLAS has been loaded into this process (for tests and benchmarks).
    static var isLoaded: Bool {
        // RTLD_NOLOAD answers without loading.
        let file = source.map { [$0.path] } ?? []
        for name in file + blasNames {
            if let h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD) {
                dlclose(h)
                return true
            }
        }
        return false
    }

    /// The fix named by every "could not be loaded" error.
    static let installHint =
        "install Debian's libopenblas0 and liblapacke (apt-get install libopenblas0 liblapacke), or name another build of both in one file with \(environmentVariable)=/path/to/lib.so (e.g. the libscipy_openblas.so of `pip install scipy-openblas32`, which the Python package uses)"

    static let blasNames = ["libopenblas.so.0", "libopenblas.so"]
    static let lapackeNames = ["liblapacke.so.3", "liblapacke.so"]
    /// Prefixes tried on a named file's entry points: none, then scipy-openblas's.
    static let prefixes = ["", "scipy_"]

    static func loadSystem() -> Result<LAPACKLibrary, LinearAlgebraError> {
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
        return resolve(blas: blas, lapacke: lapacke, prefix: "", origin: "the system's OpenBLAS (libopenblas.so.0)")
    }

    /// One file holding CBLAS and LAPACKE, named by `namedBy`.
    static func load(file path: String, namedBy: String) -> Result<LAPACKLibrary, LinearAlgebraError> {
        setenv("OPENBLAS_NUM_THREADS", "\(threads)", 1)
        // Local: its names stay out of the process's global namespace (numpy may load another build).
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let cause = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(
                .unavailable(
                    "the BLAS/LAPACK library \(path) named by \(namedBy) could not be loaded (\(cause)); name an existing file, or unset it to use the system's: \(installHint)"
                ))
        }
        guard let prefix = prefixes.first(where: { dlsym(handle, $0 + "LAPACKE_dpbtrf_work") != nil }) else {
            return .failure(
                .unavailable(
                    "the library \(path) named by \(namedBy) has no LAPACKE_dpbtrf_work (nor scipy_LAPACKE_dpbtrf_work): not a BLAS/LAPACK build with LAPACKE and 32-bit integers; \(installHint)"
                ))
        }
        return resolve(blas: handle, lapacke: handle, prefix: prefix, origin: path)
    }

    static func resolve(
        blas: UnsafeMutableRawPointer, lapacke: UnsafeMutableRawPointer, prefix: String, origin: String
    ) -> Result<LAPACKLibrary, LinearAlgebraError> {
        var missing = [String]()
        func symbol<T>(_ handle: UnsafeMutableRawPointer, _ name: String, _ type: T.Type) -> T? {
            guard let p = dlsym(handle, prefix + name) else {
                missing.append(prefix + name)
                return nil
            }
            return unsafeBitCast(p, to: type)
        }
        // Optional: a BLAS without it runs single-threaded anyway.
        if let p = dlsym(blas, prefix + "openblas_set_num_threads") {
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
                    "the OpenBLAS or LAPACKE loaded (\(origin)) lacks \(missing.joined(separator: ", ")) (another library under its name?); \(installHint)"
                ))
        }
        loadedFrom.withLock { $0 = origin }
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

extension LinearAlgebra {
    /// Loads BLAS and LAPACKE from the file at `path` (CBLAS and LAPACKE in one library, 32-bit
    /// integers, entry points plain or `scipy_`-prefixed) instead of the system's, unless the
    /// environment variable `MOTIONFUSION_LAPACK` names one. Call it before anything needs LAPACK:
    /// afterwards the library in use stays, and naming another file throws. Nothing is loaded
    /// until first use, and a file that cannot be used is then an error, never a fallback.
    public static func useLibrary(at path: String) throws {
        try LAPACKLibrary.configured.withLock { c in
            if c.started && c.path != path {
                throw LinearAlgebraError.unavailable(
                    "BLAS/LAPACK is already in use (from \(LAPACKLibrary.loadedFrom.withLock { $0 })); name its file before the first solve"
                )
            }
            c.path = path
        }
    }

    /// Where BLAS and LAPACKE were loaded from: the file, or the system library's name; "" before
    /// the first use.
    public static var libraryOrigin: String { LAPACKLibrary.loadedFrom.withLock { $0 } }
}
