// swift-tools-version:5.9
// The accuracy matrix lives in its own package so `swift test` at the root never compiles it.
// Run with `Benchmarks/accuracy/matrix.sh` (always a release build).
import PackageDescription

let package = Package(
    name: "MotionFusionAccuracy",
    dependencies: [.package(name: "MotionFusion", path: "../..")],
    targets: [
        .executableTarget(
            name: "AccuracyMatrix",
            dependencies: [.product(name: "MotionFusion", package: "MotionFusion")]
        ),
        // The program's own checks (simulated conditions only): `swift test` in this folder.
        .testTarget(name: "AccuracyMatrixTests", dependencies: ["AccuracyMatrix"]),
    ]
)
