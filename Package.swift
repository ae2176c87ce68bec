// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "MotionFusion",
    products: [
        .library(name: "MotionFusion", targets: ["MotionFusion"]),
        .executable(name: "motionfusion", targets: ["motionfusion"]),
    ],
    targets: [
        // OpenBLAS (CBLAS) and LAPACKE from Debian's libopenblas-dev and liblapacke-dev.
        // Only MotionFusionLinearAlgebra imports this module.
        .systemLibrary(
            name: "CLAPACK",
            path: "Sources/CLAPACK",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev", "liblapacke-dev"])]
        ),
        // Math core: vectors, quaternions, rotation matrices, Euler angles, frames. No dependencies.
        .target(name: "MotionFusionMath"),
        // Dense linear algebra over CBLAS/LAPACKE with hand-written small-size kernels.
        .target(
            name: "MotionFusionLinearAlgebra",
            dependencies: ["CLAPACK", "MotionFusionMath"]
        ),
        // Traces, filters, replay, reconstruction. The module users import.
        .target(
            name: "MotionFusion",
            dependencies: ["MotionFusionMath", "MotionFusionLinearAlgebra"]
        ),
        // The command-line tool's logic, as a library so tests can run commands in process.
        .target(
            name: "MotionFusionCommandLine",
            dependencies: ["MotionFusion"]
        ),
        .executableTarget(
            name: "motionfusion",
            dependencies: ["MotionFusionCommandLine"]
        ),
        // Shared test helpers: seeded random numbers, rotation asserts. Not public API.
        .target(
            name: "MotionFusionTestSupport",
            dependencies: ["MotionFusion"],
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
            dependencies: ["MotionFusion", "MotionFusionCommandLine", "MotionFusionTestSupport"]
        ),
    ]
)
