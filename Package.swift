// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "MotionFusion",
    products: [
        .library(name: "MotionFusion", targets: ["MotionFusion"]),
        .executable(name: "motionfusion", targets: ["motionfusion"]),
        // The command line's logic as a library, for the fuzz targets (not public API).
        .library(name: "MotionFusionCommandLine", targets: ["MotionFusionCommandLine"]),
        // The C ABI (include/motionfusion.h) as a shared library, for other languages (python/).
        .library(name: "MotionFusionC", type: .dynamic, targets: ["MotionFusionC"]),
    ],
    targets: [
        // Declarations of CBLAS and LAPACKE from Debian's libopenblas-dev and liblapacke-dev. Nothing
        // is linked: MotionFusionLinearAlgebra loads the libraries on first use (see shim.h).
        .systemLibrary(
            name: "CLAPACK",
            path: "Sources/CLAPACK",
            providers: [.apt(["libopenblas-dev", "liblapacke-dev"])]
        ),
        // zlib from Debian's zlib1g-dev, for .zip recordings.
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Math core: vectors, quaternions, 3×3 matrices, Euler angles, frames. No dependencies.
        .target(name: "MotionFusionMath"),
        // Dense and banded linear algebra over LAPACKE with hand-written small-size kernels; the only
        // module that imports CLAPACK.
        .target(
            name: "MotionFusionLinearAlgebra",
            dependencies: ["CLAPACK", "MotionFusionMath"]
        ),
        // Estimation: the filters, the runner and run configuration, the sample and trace value
        // types, sensor calibration as applied. The per-sample path lives here whole, so it is
        // specialised and inlined within one module.
        .target(
            name: "MotionFusionEstimation",
            dependencies: ["MotionFusionMath"]
        ),
        // Input and output: trace readers and importers (zip, gzip), estimate and trace writers,
        // output safety, settings read from text and files.
        .target(
            name: "MotionFusionIO",
            dependencies: ["MotionFusionEstimation", "CZlib"]
        ),
        // Products over the estimates: the HTML report, the metric, events, the World Magnetic
        // Model, the simulator, the replay manager.
        .target(
            name: "MotionFusionProducts",
            dependencies: ["MotionFusionEstimation", "MotionFusionIO"]
        ),
        // The three above as one module (re-exports only). Needs no LAPACK.
        .target(
            name: "MotionFusionCore",
            dependencies: ["MotionFusionMath", "MotionFusionEstimation", "MotionFusionIO", "MotionFusionProducts"]
        ),
        // What stands on LAPACK (calibration fits, offline reconstruction), and the module users
        // import: it re-exports the core, the math and the linear algebra.
        .target(
            name: "MotionFusion",
            dependencies: ["MotionFusionCore", "MotionFusionLinearAlgebra"]
        ),
        // The command-line tool's logic, as a library so tests can run commands in process.
        .target(
            name: "MotionFusionCommandLine",
            dependencies: ["MotionFusion"]
        ),
        // `@_cdecl` functions over the public API; the header is include/motionfusion.h. The
        // library's, not the command line's: it holds none of the command line's code.
        .target(
            name: "MotionFusionC",
            dependencies: ["MotionFusion"],
            exclude: ["include"]
        ),
        .executableTarget(
            name: "motionfusion",
            dependencies: ["MotionFusionCommandLine"]
        ),
        // Shared test helpers: seeded random numbers, rotation asserts. Not public API.
        .target(
            name: "MotionFusionTestSupport",
            dependencies: ["MotionFusion", "MotionFusionCommandLine", "CZlib"],
            path: "Tests/MotionFusionTestSupport"
        ),
        .testTarget(
            name: "MotionFusionMathTests",
            dependencies: ["MotionFusionMath", "MotionFusionTestSupport"]
        ),
        .testTarget(
            name: "MotionFusionLinearAlgebraTests",
            dependencies: ["MotionFusionLinearAlgebra", "MotionFusionTestSupport"]
        ),
        .testTarget(
            name: "MotionFusionTests",
            dependencies: [
                "MotionFusion", "MotionFusionCommandLine", "MotionFusionTestSupport",
                // For `@testable import` of internals.
                "MotionFusionEstimation", "MotionFusionIO",
                // The C ABI's functions, called from Swift.
                "MotionFusionC",
            ],
            exclude: ["Fixtures"]
        ),
    ]
)
