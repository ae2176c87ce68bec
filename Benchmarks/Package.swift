// swift-tools-version:5.9
// Benchmarks live in their own package so `swift test` at the root never compiles them.
// Run with `Benchmarks/run.sh` (always a release build).
import PackageDescription

let package = Package(
    name: "MotionFusionBenchmarks",
    dependencies: [.package(name: "MotionFusion", path: "..")],
    targets: [
        .executableTarget(
            name: "MotionFusionBenchmarks",
            dependencies: [.product(name: "MotionFusion", package: "MotionFusion")]
        )
    ]
)
