#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path names when it is not a regular file, in words for a message.
public enum FileKind {
    /// "a FIFO (named pipe)", "a character device", "a directory", …, or nil for a regular file
    /// (symbolic links followed) or a path `stat(2)` cannot see.
    public static func nonRegular(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return nonRegular(mode: st.st_mode)
    }

    /// The same for a `stat(2)` mode.
    public static func nonRegular(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
