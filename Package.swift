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
        // The estimation core: traces and readers, filters, runs, replay, outputs, metric, events,
        // World Magnetic Model, simulator. Needs no LAPACK.
        .target(
            name: "MotionFusionCore",
            dependencies: ["MotionFusionMath", "CZlib"]
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
        // `@_cdecl` functions over the public API; the header is include/motionfusion.h.
        .target(
            name: "MotionFusionC",
            dependencies: ["MotionFusion", "MotionFusionCommandLine"],
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
            dependencies: ["MotionFusion", "MotionFusionCommandLine", "MotionFusionTestSupport"],
            exclude: ["Fixtures"]
        ),
    ]
)
