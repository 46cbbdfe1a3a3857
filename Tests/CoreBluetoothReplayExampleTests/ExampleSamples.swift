import Foundation

/// The sample captures: Captures/ in the repository, /work/shared/captures beside it (read in
/// place, never copied).
enum Samples {
    static var packageRoot: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }
    static func capture(_ name: String) -> String { "\(packageRoot)/Captures/\(name)" }
}
