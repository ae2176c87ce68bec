// swift-tools-version:5.9
// Evaluation of the offline reconstruction (batch estimator and smoother) on the shared recordings:
// accuracy per trial, sigma coverage, variants, speed. Its own package so `swift test` at the root
// never compiles it. Build: swift build -c release --package-path Benchmarks/OfflineEvaluation
import PackageDescription

let package = Package(
    name: "OfflineEvaluation",
    dependencies: [.package(name: "MotionFusion", path: "../..")],
    targets: [
        .executableTarget(
            name: "offline-eval",
            dependencies: [.product(name: "MotionFusion", package: "MotionFusion")]
        )
    ]
)
