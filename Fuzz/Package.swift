// swift-tools-version:5.9
// libFuzzer targets for every trace reader and importer. Build and run with `Fuzz/run.sh`.
import PackageDescription

let formats = [
    "Native", "Delimited", "EuRoC", "XioFusion", "XIMU3", "Phyphox", "SensorLogger", "SensorFiles", "Zip", "Estimate",
    "Calibration", "CommandLine",
]

let package = Package(
    name: "MotionFusionFuzz",
    dependencies: [.package(name: "MotionFusion", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "MotionFusion", package: "MotionFusion"),
                .product(name: "MotionFusionCommandLine", package: "MotionFusion"),
            ])
    ]
        + formats.map { name in
            .executableTarget(name: "Fuzz\(name)", dependencies: ["FuzzSupport"])
        }
)
