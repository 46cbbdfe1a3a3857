// swift-tools-version:6.0
// Fuzz targets for libFuzzer. A separate package because its executables take their `main`
// from libFuzzer: build with `-sanitize=fuzzer -parse-as-library` (see Scripts/fuzz.sh, `make fuzz`).
import PackageDescription

let package = Package(
    name: "blereplay-fuzz",
    dependencies: [.package(name: "blereplay", path: "..")],
    targets: [
        // Hands each target to libFuzzer's driver.
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzCaptureReaders", dependencies: [
            "FuzzDriver", .product(name: "BLECapture", package: "blereplay"),
        ]),
        .executableTarget(name: "FuzzPacketDecoder", dependencies: [
            "FuzzDriver", .product(name: "BLECore", package: "blereplay"), .product(name: "BLEDecode", package: "blereplay"),
        ]),
        // Transaction matching, timestamp audit and time formatting on extreme timestamps (issue 17).
        .executableTarget(name: "FuzzAnalysis", dependencies: [
            "FuzzDriver", .product(name: "BLECore", package: "blereplay"), .product(name: "BLECapture", package: "blereplay"),
            .product(name: "BLEDecode", package: "blereplay"), .product(name: "BLEAnalysis", package: "blereplay"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
