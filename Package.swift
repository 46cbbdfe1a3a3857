// swift-tools-version:6.0
import PackageDescription

/// Release builds of the import's, the analysis's and the replay's modules skip Swift's dynamic
/// exclusivity checks, debug builds (the ones `make test` runs) keep them: see README "Speed".
let releaseOnlyExclusivity: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "blereplay",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "blereplay", targets: ["blereplay"]),
        .library(name: "BLECore", targets: ["BLECore"]),
        .library(name: "BLECapture", targets: ["BLECapture"]),
        .library(name: "BLEDecode", targets: ["BLEDecode"]),
        .library(name: "BLETimeline", targets: ["BLETimeline"]),
        .library(name: "BLEAnalysis", targets: ["BLEAnalysis"]),
        .library(name: "BLEReport", targets: ["BLEReport"]),
        .library(name: "BLEReplay", targets: ["BLEReplay"]),
        .library(name: "CoreBluetoothReplay", targets: ["CoreBluetoothReplay"]),
        .library(name: "BLEWarehouse", targets: ["BLEWarehouse"]),
    ],
    targets: [
        // System libraries from Debian (see Makefile `deps`).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPcap", path: "Sources/CPcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // libzip, for Android bugreport zips (BLECapture's ZipArchive).
        .systemLibrary(name: "CZip", path: "Sources/CZip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CBlueZ", path: "Sources/CBlueZ", providers: [.apt(["libbluetooth-dev"])]),
        // OpenSSL's libcrypto, for SHA-256 with the CPU's SHA instructions (BLECore.SHA256).
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", providers: [.apt(["libpq-dev"])]),

        // Pipeline stages, one target each; arrows point one way (DESIGN.md).
        .target(name: "BLECore", dependencies: ["CCrypto"],
                swiftSettings: releaseOnlyExclusivity),
        .target(name: "BLECapture", dependencies: ["BLECore", "CPcap", "CZlib", "CZip"],
                swiftSettings: releaseOnlyExclusivity),
        .target(name: "BLEDecode", dependencies: ["BLECore"],
                swiftSettings: releaseOnlyExclusivity),
        .target(name: "BLETimeline", dependencies: ["BLECore", "BLECapture", "BLEDecode", "CSQLite", "CMalloc"],
                swiftSettings: releaseOnlyExclusivity),
        // Analysis re-reads stored ATT PDUs, so it uses BLEDecode's PDU types as well as the timeline.
        .target(name: "BLEAnalysis", dependencies: ["BLECore", "BLEDecode", "BLETimeline"],
                swiftSettings: releaseOnlyExclusivity),
        .target(name: "BLEReport", dependencies: ["BLECore", "BLECapture", "BLETimeline", "BLEAnalysis"],
                swiftSettings: releaseOnlyExclusivity),
        // Replay: discrete-event simulation over peripheral models built from the timeline.
        .target(name: "BLEReplay", dependencies: ["BLECore", "BLEDecode", "BLETimeline", "BLEAnalysis", "BLECapture"],
                swiftSettings: releaseOnlyExclusivity),
        .target(name: "CoreBluetoothReplay", dependencies: ["BLEReplay"]),
        // Live sources; the only target that links libbluetooth (GPL), see DESIGN.md.
        .target(name: "BLELive", dependencies: ["BLECore", "BLECapture", "BLEDecode", "BLETimeline", "BLEAnalysis", "CBlueZ"]),
        // The fleet fact store on PostgreSQL; the only target that links libpq (DESIGN.md).
        .target(name: "BLEWarehouse", dependencies: ["BLECore", "BLEAnalysis", "BLEReport", "CPostgres"]),
        .executableTarget(name: "blereplay", dependencies: ["BLECore", "BLECapture", "BLEDecode", "BLETimeline", "BLEAnalysis", "BLEReport", "BLEReplay", "BLELive", "BLEWarehouse", "CMalloc"]),

        // Capture builders shared by test targets (test code only, never linked into the tool).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "BLECoreTests", dependencies: ["BLECore"]),
        .testTarget(name: "BLECaptureTests", dependencies: ["BLECapture"], resources: [.copy("Fixtures")]),
        .testTarget(name: "BLEDecodeTests", dependencies: ["BLEDecode"]),
        .testTarget(name: "BLETimelineTests", dependencies: ["BLETimeline"]),
        .testTarget(name: "BLEAnalysisTests", dependencies: ["BLEAnalysis", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["BLECore", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "BLEReportTests", dependencies: ["BLEReport", "BLETimeline", "BLEAnalysis", "TestSupport"]),
        .testTarget(name: "BLEReplayTests", dependencies: ["BLEReplay", "BLETimeline", "TestSupport"]),
        .testTarget(name: "CoreBluetoothReplayTests", dependencies: ["CoreBluetoothReplay", "TestSupport"]),
        // Central programs written as iOS apps write them (Examples/*, symlinked), in Swift 5 mode as most apps are.
        .testTarget(name: "CoreBluetoothReplayExampleTests", dependencies: ["CoreBluetoothReplay"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        // Four iOS-style apps run against the samples and the real captures, Swift 5 mode, with the
        // switch a macOS test target sets to select the replay over CoreBluetooth (Docs/replay.md).
        .testTarget(name: "CoreBluetoothReplayAppTests", dependencies: ["CoreBluetoothReplay"],
                    swiftSettings: [.swiftLanguageMode(.v5), .define("COREBLUETOOTH_REPLAY")]),
        .testTarget(name: "BLEWarehouseTests", dependencies: ["BLEWarehouse", "BLEReport", "TestSupport"]),
        .testTarget(name: "BLELiveTests", dependencies: ["BLELive", "BLECapture", "BLETimeline", "BLEAnalysis", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
