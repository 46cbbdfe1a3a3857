import Foundation

/// Where the captures are: the repository's Captures/ and, beside the repository, the shared real
/// captures (../shared/captures, read in place and never copied).
enum CapturePaths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func sample(_ name: String) -> String { repository.appendingPathComponent("Captures/\(name)").path }
    static func real(_ name: String) -> String { repository.appendingPathComponent("../shared/captures/\(name)").standardized.path }
}
